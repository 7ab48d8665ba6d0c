// One convolution layer through oneDNN, the CPU peer. Primitives are created with
// format_tag::any and algorithm::convolution_auto, so oneDNN picks its preferred (blocked)
// layouts and algorithm. Two ways to time them:
//  - Layout::Blocked: tensors already in oneDNN's layouts, reorders not timed. oneDNN's best
//    case: a network that keeps its activations blocked from layer to layer.
//  - Layout::Nchw: user tensors in packed NCHW (what a MIOpen API user hands over, and what
//    anydnn's timings include); the reorders into and out of oneDNN's layouts are timed.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <string>

#include "bench_common.hpp"

namespace anydnn::bench {

enum class OneDnnLayout { Blocked, Nchw };

class OneDnnLayer {
 public:
  OneDnnLayer(dnnl::engine& engine, const driver::ConvSpec& spec, OneDnnLayout layout);
  double time_ms(Dir d, int reps, std::string* impl);

 private:
  // Runs `prim` on arguments given in the primitive's layouts; with Layout::Nchw, `inputs` are
  // first reordered from plain user memory and `output` reordered back.
  double time_with_layout(dnnl::primitive& prim, const dnnl::memory::desc& in0_desc, int in0_arg,
                          const dnnl::memory::desc& in0_plain, const dnnl::memory::desc& in1_desc,
                          int in1_arg, const dnnl::memory::desc& in1_plain,
                          const dnnl::memory::desc& out_desc, int out_arg,
                          const dnnl::memory::desc& out_plain, int reps);

  dnnl::engine& eng_;
  dnnl::stream stream_;
  OneDnnLayout layout_;
  dnnl::convolution_forward::primitive_desc fwd_pd_;
  dnnl::memory::dims strides_, dilations_, pads_;
  dnnl::memory::desc src_, wei_, dst_;                    // format_tag::any
  dnnl::memory::desc src_plain_, wei_plain_, dst_plain_;  // packed NCHW / (g)oihw
};

}  // namespace anydnn::bench
