// FFT convolution (FFTW) for unit-stride, undilated 2-D convolutions. Every plane is zero-padded
// to Hf x Wf >= H + 2*pad (sizes FFTW does fast: factors 2, 3, 5, 7) and transformed once; the
// convolution theorem then turns each direction into one small complex GEMM per frequency bin
// (OpenBLAS cgemm, frequencies shared out over the threads), whose products are transformed
// back and cropped:
//   forward         Y[n][k]  = sum_c X[n][c] conj(W[k][c])   (correlation, w at the origin)
//   backward data   DX[n][c] = sum_k DY[n][k] W[k][c]         (convolution, crop at the padding)
//   backward weights DW[k][c] = sum_n conj(DY[n][k]) X[n][c]  (correlation, crop R x S)
// Multiplies per output fall from R*S*C to about 4*C per frequency bin, so large filters pay;
// the transforms are the fixed cost. Transforms are stored frequency-major ([bin][plane]) so
// that each bin's GEMM reads contiguous rows.
#pragma once

#include <complex>
#include <cstddef>
#include <memory>

#include "conv/conv_problem.hpp"

namespace anydnn::cpu {

class FftConvPlan {
 public:
  explicit FftConvPlan(const ConvProblem& p, int threads);
  ~FftConvPlan();
  FftConvPlan(const FftConvPlan&) = delete;
  FftConvPlan& operator=(const FftConvPlan&) = delete;

  // The smallest size >= n whose only prime factors are 2, 3, 5 and 7.
  static long fast_size(long n);

  size_t workspace_bytes() const;
  int threads() const { return threads_; }
  // Runs the problem's direction on x, w, y (named as in ConvBuffers: the direction's output is
  // overwritten, the others only read), using the workspace.
  void run(void* x, void* w, void* y, void* workspace) const;

 private:
  struct Plans;
  size_t thread_floats() const;  // frames and spectra of one batch
  ConvDirection dir_;
  long n_, c_, k_, g_, h_, w_, oh_, ow_, r_, s_;
  int ph_, pw_;
  long hf_, wf_, bins_;
  int threads_;
  std::unique_ptr<Plans> plans_;
};

}  // namespace anydnn::cpu
