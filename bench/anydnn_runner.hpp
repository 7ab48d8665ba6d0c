// One convolution layer through anydnn's public API: Find (NORMAL mode) picks the solver, then
// the run call is timed.
#pragma once

#include <miopen/miopen.h>

#include <string>

#include "bench_common.hpp"
#include "host_buffer.hpp"

namespace anydnn::bench {

class AnydnnLayer {
 public:
  AnydnnLayer(miopenHandle_t handle, const driver::ConvSpec& spec);
  ~AnydnnLayer();
  AnydnnLayer(const AnydnnLayer&) = delete;
  AnydnnLayer& operator=(const AnydnnLayer&) = delete;

  // Median time of the direction's run call with the algorithm Find ranked first; `solver`
  // receives that solver's name.
  double time_ms(Dir d, int reps, std::string* solver);

 private:
  miopenHandle_t h_;
  miopenTensorDescriptor_t x_, w_, y_;
  miopenConvolutionDescriptor_t c_;
  driver::HostTensor hx_, hw_, hy_;
};

}  // namespace anydnn::bench
