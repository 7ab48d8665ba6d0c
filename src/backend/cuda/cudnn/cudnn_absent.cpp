// CudnnState where the build found no cuDNN frontend headers or no cudnn.h (src/CMakeLists.txt
// compiles this file instead of cudnn_state.cpp): the cuDNN solvers exist and say why they are
// not applicable.
#include "backend/cuda/cudnn/cudnn_state.hpp"

namespace anydnn::cuda {

struct CudnnState::Impl {
  std::string why =
      "built without the cuDNN frontend headers or cudnn.h (pip install nvidia-cudnn-frontend)";
};

int CudnnConvEngines::index_of(const std::string&) const {
  return -1;
}
int CudnnConvEngines::first_within(size_t) const {
  return -1;
}

CudnnState::CudnnState(const Config&, cudaStream_t) : impl_(std::make_unique<Impl>()) {}
CudnnState::~CudnnState() = default;
const std::string& CudnnState::unavailable() {
  return impl_->why;
}
void CudnnState::set_stream(cudaStream_t) {}
std::shared_ptr<const CudnnConvEngines> CudnnState::conv_engines(const ConvProblem&,
                                                                 std::string* why) {
  *why = impl_->why;
  return nullptr;
}

}  // namespace anydnn::cuda
