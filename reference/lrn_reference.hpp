// Naive LRN reference in double: the test oracle and MIOpenDriver lrn's -V 1 check. It follows
// MIOpen's host code (driver/mloNormHost.hpp: mloLRNForwardRunHost / mloLRNBackwardRunHost)
// and shares no code with the library's kernels. Values are packed NCHW logical order
// (to_logical); lens are n, c, h, w. With pre_pad = (N - 1) / 2, pad = N - 1 - pre_pad:
//   forward  scale(i) = K + alpha / area * sum over [i - pre_pad, i + pad] (clipped) of x^2
//            y = x * scale^-beta      (area N cross channel, N * N within channel)
//   backward dx(i) = dy * scale^-beta - 2 alpha beta / area * x * sum over
//            [i - pad, i + pre_pad] of dy * y / scale
// Backward takes y and the scale as given (the library's forward results, as MIOpen's driver).
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <vector>

namespace anydnn::ref {

struct LrnDesc {
  miopenLRNMode_t mode = miopenLRNWithinChannel;
  unsigned int n = 5;
  double alpha = 0.001, beta = 0.75, k = 1.0;
};

// y, and the scale into *scale when scale is not null.
std::vector<double> lrn_forward(const LrnDesc& d, const std::array<size_t, 4>& lens,
                                const std::vector<double>& x, std::vector<double>* scale);
std::vector<double> lrn_backward(const LrnDesc& d, const std::array<size_t, 4>& lens,
                                 const std::vector<double>& x, const std::vector<double>& y,
                                 const std::vector<double>& dy, const std::vector<double>& scale);

// MIOpenDriver lrn's tolerances on rms_range (verify.hpp): 1.5e-4 forward, 6e-5 backward. MIOpen
// applies them to lrnfp16 too, which the rounding of a half output alone exceeds (about 1e-4):
// 16-bit data gets 2e-3 here.
double lrn_tolerance(bool forward, miopenDataType_t type);

}  // namespace anydnn::ref
