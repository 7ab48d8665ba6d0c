// Naive activation reference in double: the test oracle and MIOpenDriver's -V 1 check. It
// follows MIOpen's host formulas (driver/mloNeuronHost.hpp, test/gtest/activ_common.hpp) and
// shares no code with the library's kernels. Values are in packed logical order (to_logical).
//   alpha, beta, gamma: the activation descriptor's parameters (their meaning depends on the
//   mode). MIOpen's quirks are kept: POWER backward ignores dy; POWER is 0 where
//   alpha + beta*x <= DBL_EPSILON; CLIPPEDRELU backward passes dy for 0 < x <= alpha.
#pragma once

#include <miopen/miopen.h>

#include <random>
#include <vector>

namespace anydnn::ref {

struct ActivationDesc {
  miopenActivationMode_t mode = miopenActivationRELU;
  double alpha = 1.0, beta = 1.0, gamma = 1.0;
};

double activation_forward(const ActivationDesc& a, double x);
double activation_backward(const ActivationDesc& a, double dy, double x, double y);

std::vector<double> activation_forward(const ActivationDesc& a, const std::vector<double>& x);
std::vector<double> activation_backward(const ActivationDesc& a, const std::vector<double>& dy,
                                        const std::vector<double>& x, const std::vector<double>& y);

// Input element i drawn as MIOpenDriver's activ draws it: away from each mode's kinks (0 for the
// ReLU family, alpha for CLIPPEDRELU, the zero of alpha + beta*x for POWER) by at least 0.005,
// so that fp16 / bf16 rounding of x cannot move it across one. (MIOpen's POWER draw divides by
// beta twice; this one puts alpha + beta*x in +-[0.005, 2] as that draw means to.)
double activation_input(const ActivationDesc& a, size_t i, std::mt19937& rng);

// MIOpenDriver's check: every element within `tol` absolutely or relatively (and finite).
// Returns the index of the first element that is not, or -1.
long long activation_mismatch(const std::vector<double>& want, const std::vector<double>& got,
                              double tol);

// MIOpenDriver activ's tolerance: 80 machine epsilons of the data type (bfloat16: 2^-7).
double activation_tolerance(miopenDataType_t type);

}  // namespace anydnn::ref
