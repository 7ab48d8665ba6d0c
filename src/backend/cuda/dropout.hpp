// Dropout on CUDA (dropout/dropout_kernels.hpp): the same mask bits as the CPU backend for the
// same seed and counter, so CPU and GPU runs agree.
#pragma once

#include "dropout/dropout_kernels.hpp"

namespace anydnn::cuda {

class CudaBackend;

class CudaDropoutKernels final : public DropoutKernels {
 public:
  // Launches on the backend's current stream.
  explicit CudaDropoutKernels(CudaBackend& backend) : backend_(backend) {}
  void apply(const DropoutApply& a) override;

 private:
  CudaBackend& backend_;
};

}  // namespace anydnn::cuda
