#include "onednn_runner.hpp"

#include <optional>
#include <random>

namespace anydnn::bench {

namespace {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

memory::dims dims(const std::vector<int>& v) {
  return memory::dims(v.begin(), v.end());
}

memory filled(const memory::desc& d, dnnl::engine& eng) {
  memory m(d, eng);
  float* p = static_cast<float*>(m.get_data_handle());
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (size_t i = 0; i < d.get_size() / sizeof(float); ++i)
    p[i] = u(rng);
  return m;
}

tag plain_tag(size_t rank, bool weights, bool grouped) {
  if (weights && grouped) return rank == 5 ? tag::goihw : tag::goidhw;
  if (weights) return rank == 4 ? tag::oihw : tag::oidhw;
  return rank == 4 ? tag::nchw : tag::ncdhw;
}

}  // namespace

OneDnnLayer::OneDnnLayer(dnnl::engine& engine, const driver::ConvSpec& s, OneDnnLayout layout)
    : eng_(engine), stream_(engine), layout_(layout) {
  const int dims_sp = s.spatial_dims;
  memory::dims src = dims(s.in_lens);
  memory::dims wei;
  if (s.groups > 1) {
    wei = {s.groups, s.wei_lens[0] / s.groups};
    for (size_t i = 1; i < s.wei_lens.size(); ++i)
      wei.push_back(s.wei_lens[i]);
  } else {
    wei = dims(s.wei_lens);
  }
  memory::dims dst = {s.in_lens[0], s.wei_lens[0]};
  for (int i = 0; i < dims_sp; ++i) {
    const int in = s.in_lens[2 + i], f = s.wei_lens[2 + i];
    dst.push_back((in + 2 * s.pads[i] - s.dilations[i] * (f - 1) - 1) / s.strides[i] + 1);
    strides_.push_back(s.strides[i]);
    dilations_.push_back(s.dilations[i] - 1);  // oneDNN counts dilation from 0
    pads_.push_back(s.pads[i]);
  }
  const auto f32 = memory::data_type::f32;
  src_ = memory::desc(src, f32, tag::any);
  wei_ = memory::desc(wei, f32, tag::any);
  dst_ = memory::desc(dst, f32, tag::any);
  src_plain_ = memory::desc(src, f32, plain_tag(src.size(), false, false));
  wei_plain_ = memory::desc(wei, f32, plain_tag(wei.size(), true, s.groups > 1));
  dst_plain_ = memory::desc(dst, f32, plain_tag(dst.size(), false, false));
  fwd_pd_ = dnnl::convolution_forward::primitive_desc(eng_, dnnl::prop_kind::forward_training,
                                                      dnnl::algorithm::convolution_auto, src_, wei_,
                                                      dst_, strides_, dilations_, pads_, pads_);
}

double OneDnnLayer::time_with_layout(dnnl::primitive& prim, const memory::desc& in0_desc,
                                     int in0_arg, const memory::desc& in0_plain,
                                     const memory::desc& in1_desc, int in1_arg,
                                     const memory::desc& in1_plain, const memory::desc& out_desc,
                                     int out_arg, const memory::desc& out_plain, int reps) {
  memory in0 = filled(in0_desc, eng_), in1 = filled(in1_desc, eng_), out = filled(out_desc, eng_);
  if (layout_ == OneDnnLayout::Blocked) {
    return median_ms(
        [&] {
          prim.execute(stream_, {{in0_arg, in0}, {in1_arg, in1}, {out_arg, out}});
          stream_.wait();
        },
        reps);
  }
  // User memory in plain layouts; a reorder only where oneDNN chose another layout.
  memory u0 = filled(in0_plain, eng_), u1 = filled(in1_plain, eng_), uo = filled(out_plain, eng_);
  std::optional<dnnl::reorder> r0, r1, ro;
  if (in0_desc != in0_plain) r0.emplace(u0, in0);
  if (in1_desc != in1_plain) r1.emplace(u1, in1);
  if (out_desc != out_plain) ro.emplace(out, uo);
  memory& a0 = r0 ? in0 : u0;
  memory& a1 = r1 ? in1 : u1;
  memory& ao = ro ? out : uo;
  return median_ms(
      [&] {
        if (r0) r0->execute(stream_, u0, in0);
        if (r1) r1->execute(stream_, u1, in1);
        prim.execute(stream_, {{in0_arg, a0}, {in1_arg, a1}, {out_arg, ao}});
        if (ro) ro->execute(stream_, out, uo);
        stream_.wait();
      },
      reps);
}

double OneDnnLayer::time_ms(Dir d, int reps, std::string* impl) {
  using namespace dnnl;
  if (d == Dir::Fwd) {
    convolution_forward prim(fwd_pd_);
    if (impl != nullptr) *impl = fwd_pd_.impl_info_str();
    return time_with_layout(prim, fwd_pd_.src_desc(), DNNL_ARG_SRC, src_plain_,
                            fwd_pd_.weights_desc(), DNNL_ARG_WEIGHTS, wei_plain_,
                            fwd_pd_.dst_desc(), DNNL_ARG_DST, dst_plain_, reps);
  }
  if (d == Dir::Bwd) {
    convolution_backward_data::primitive_desc pd(eng_, algorithm::convolution_auto, src_, wei_,
                                                 dst_, strides_, dilations_, pads_, pads_, fwd_pd_);
    convolution_backward_data prim(pd);
    if (impl != nullptr) *impl = pd.impl_info_str();
    return time_with_layout(prim, pd.diff_dst_desc(), DNNL_ARG_DIFF_DST, dst_plain_,
                            pd.weights_desc(), DNNL_ARG_WEIGHTS, wei_plain_, pd.diff_src_desc(),
                            DNNL_ARG_DIFF_SRC, src_plain_, reps);
  }
  convolution_backward_weights::primitive_desc pd(eng_, algorithm::convolution_auto, src_, wei_,
                                                  dst_, strides_, dilations_, pads_, pads_,
                                                  fwd_pd_);
  convolution_backward_weights prim(pd);
  if (impl != nullptr) *impl = pd.impl_info_str();
  return time_with_layout(prim, pd.src_desc(), DNNL_ARG_SRC, src_plain_, pd.diff_dst_desc(),
                          DNNL_ARG_DIFF_DST, dst_plain_, pd.diff_weights_desc(),
                          DNNL_ARG_DIFF_WEIGHTS, wei_plain_, reps);
}

}  // namespace anydnn::bench
