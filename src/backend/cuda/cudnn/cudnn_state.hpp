// cuDNN inside the CUDA backend: the library found at run time (core/cudnn_library.hpp), one
// cudnnHandle bound to the backend's stream, and per problem the graph of one convolution with
// every engine configuration cuDNN offers for it, built once and cached. The cuDNN solvers
// (conv/cudnn_conv.hpp) reach it through CudaBackend::cudnn(). Only cudnn_state.cpp includes the
// cuDNN frontend (header-only, heavy, loaded with NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING, so
// libMIOpen has no link-time dependency on libcudnn).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "core/config.hpp"

namespace anydnn::cuda {

// One engine configuration cuDNN built for a problem: its plan name (engine id and knobs, e.g.
// "eng63_k12=8_k17=2", what a find-db entry's params keep) and the workspace it needs.
struct CudnnEngine {
  std::string name;
  size_t workspace = 0;
};

// A problem's engines in cuDNN's heuristics order (its first choice first), and how to run one.
class CudnnConvEngines {
 public:
  virtual ~CudnnConvEngines() = default;
  virtual const std::vector<CudnnEngine>& engines() const = 0;
  // The position of the engine named `name`, or -1.
  int index_of(const std::string& name) const;
  // The first engine (heuristics order) needing at most `workspace_limit` bytes, or -1.
  int first_within(size_t workspace_limit) const;
  // Runs engine `index` on the buffers (the direction's output is written).
  virtual void run(size_t index, const ConvBuffers& b) const = 0;
};

// The most workspace an engine may take: what GetWorkSpaceSize reports for the cuDNN solvers is
// at most this (PyTorch's benchmark mode offers cuDNN what memory is free; MIOpen callers
// allocate what GetWorkSpaceSize says, so the bound keeps that sane).
inline constexpr size_t kCudnnMaxWorkspace = size_t{256} << 20;

class CudnnState {
 public:
  CudnnState(const Config& config, cudaStream_t stream);
  ~CudnnState();
  CudnnState(const CudnnState&) = delete;
  CudnnState& operator=(const CudnnState&) = delete;

  // Empty when cuDNN can be used, else the one-line reason (off by ANYDNN_CUDNN=0, library not
  // found or too old, handle creation failed).
  const std::string& unavailable();
  // The problem's engines (strict fp32 unless the configuration allows TF32; only deterministic
  // ones when the problem asks), built on first use and cached by the problem's find-db key;
  // nullptr with `why` when cuDNN has none for it.
  std::shared_ptr<const CudnnConvEngines> conv_engines(const ConvProblem& p, std::string* why);
  void set_stream(cudaStream_t stream);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace anydnn::cuda
