// Built instead of backend/cuda when the library is configured without CUDA.
#include "backend/backend.hpp"
#include "conv/conv_solver.hpp"
#include "core/errors.hpp"

namespace anydnn {

std::unique_ptr<Backend> make_cuda_backend(const Config&, void*) {
  ANYDNN_THROW(miopenStatusNotImplemented,
               "MIOPEN_BACKEND=cuda but this libMIOpen was built without the CUDA backend");
}

bool cuda_device_present() {
  return false;
}

const ConvSolver* find_cuda_conv_solver(uint64_t) {
  return nullptr;
}

}  // namespace anydnn
