// Finding cuDNN at run time. libMIOpen never links libcudnn: the CUDA backend's cuDNN solvers
// (backend/cuda/cudnn/) load it on first use and are not applicable, with this file's one-line
// reason, where it is missing. Device-independent (dlopen only), so the CPU tests cover the
// search and the absent-library path.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace anydnn {

struct CudnnLibrary {
  void* handle = nullptr;  // dlopen's handle, never closed (cuDNN's own state lives in it)
  std::string path;        // the file loaded
  size_t version = 0;      // cudnnGetVersion(), e.g. 91900 for 9.19.0
  std::string error;       // why there is none, when handle is null
  explicit operator bool() const { return handle != nullptr; }
};

// The oldest cuDNN the solvers take: the graph API's convolution and normalization nodes as the
// frontend headers in use build them.
inline constexpr size_t kMinCudnnVersion = 90000;

// Where to look, in order, when `requested` (ANYDNN_CUDNN_LIBRARY) is empty: a copy already
// loaded in the process (PyTorch's nvidia-cudnn wheel once torch is imported), dlopen's own
// search (LD_LIBRARY_PATH, the loader cache), then the CUDA toolkit's folders ($CUDA_HOME,
// $CUDA_PATH, /usr/local/cuda). A non-empty request is the only place looked at.
std::vector<std::string> cudnn_library_candidates(const std::string& requested);

// Loads the first candidate that opens and is new enough; otherwise `error` lists what was tried.
CudnnLibrary load_cudnn_library(const std::string& requested);

// The process's cuDNN, loaded once by the first caller (its request decides; the handle's
// config is read once per process for this one thing, since two copies of cuDNN in one process
// would share nothing). Thread-safe.
const CudnnLibrary& process_cudnn_library(const std::string& requested);

}  // namespace anydnn
