// ConvFftWrw: backward weights of a unit-stride, undilated 2-D convolution of packed NCHW fp32
// tensors by FFT (kernels/fft_conv.hpp: FFTW transforms, one complex GEMM per frequency bin). Pays
// for large filters, where R*S multiplies per output shrink to a few per frequency bin.
#include <memory>

#include "backend/cpu/conv/fft_util.hpp"

namespace anydnn::cpu {

std::unique_ptr<ConvSolver> make_conv_fft_wrw() {
  return std::make_unique<ConvFftSolver<ConvDirection::BackwardWeights>>("ConvFftWrw");
}

}  // namespace anydnn::cpu
