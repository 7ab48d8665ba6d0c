// Dropout on the CPU (dropout/dropout_kernels.hpp): one OpenMP loop over the logical elements.
#pragma once

#include "dropout/dropout_kernels.hpp"

namespace anydnn::cpu {

class CpuDropoutKernels final : public DropoutKernels {
 public:
  explicit CpuDropoutKernels(int threads) : threads_(threads) {}
  void apply(const DropoutApply& a) override;

 private:
  int threads_;
};

}  // namespace anydnn::cpu
