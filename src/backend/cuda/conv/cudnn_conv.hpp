// The cuDNN convolution solvers (CudnnConvFwd, CudnnConvBwd, CudnnConvWrw, one file each naming
// its direction): cuDNN's engines as Find candidates beside our own kernels, the way MIOpen takes
// kernels from several providers and lets Find choose. A problem's engines come from cuDNN's
// graph API (backend/cuda/cudnn/cudnn_state.hpp: heuristics mode A and the fallback list, built
// once per problem). One solver per direction, tuned: an exhaustive Find times every engine that
// fits the caller's workspace on the caller's buffers (what PyTorch's cudnn.benchmark does) and
// the find-db entry keeps the winner's name as its params; any other path runs cuDNN's first
// choice. fp32 is strict unless ANYDNN_CONV_ALLOW_TF32; a deterministic request keeps only
// deterministic engines. Not applicable, with the reason, where libcudnn is not found
// (core/cudnn_library.hpp) or ANYDNN_CUDNN=0.
#pragma once

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cudnn/cudnn_state.hpp"
#include "conv/conv_problem.hpp"
#include "conv/conv_solver.hpp"
#include "core/logger.hpp"

namespace anydnn::cuda {

template <ConvDirection kDir>
class CudnnConvSolver final : public ConvSolver {
 public:
  explicit CudnnConvSolver(std::string_view name) : name_(name) {}
  std::string_view name() const override { return name_; }
  // One algorithm per solver: ImplicitGEMM, whichever engine runs. cuDNN marks some engines'
  // numerics FFT or Winograd (numerical notes); telling those apart would take a solver per
  // algorithm (issue [cudnn-engines]: not done).
  miopenConvAlgorithm_t algorithm() const override { return miopenConvolutionAlgoImplicitGEMM; }
  // Asked for determinism, only deterministic engines are offered (cudnn_state.cpp).
  bool deterministic(const ConvProblem& p) const override {
    return p.attributes().deterministic == 1;
  }
  bool tuned() const override { return true; }

  Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const override {
    ANYDNN_REJECT_IF(p.direction() != kDir, "another direction");
    const miopenDataType_t t = p.data_type();
    ANYDNN_REJECT_IF(t != miopenFloat && t != miopenHalf && t != miopenBFloat16,
                     "cuDNN's graph convolutions here take float, half or bfloat16 data");
    std::string why;
    if (!engines(ctx, p, &why)) return Applicability::no(why);
    return Applicability::yes();
  }
  size_t workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    size_t most = 0;
    for (const auto& e : engines(ctx, p)->engines())
      most = std::max(most, e.workspace);
    return most;
  }
  size_t least_workspace_size(const ExecutionContext& ctx, const ConvProblem& p) const override {
    size_t least = std::numeric_limits<size_t>::max();
    for (const auto& e : engines(ctx, p)->engines())
      least = std::min(least, e.workspace);
    return least;
  }
  std::string default_params(const ExecutionContext& ctx, const ConvProblem& p,
                             size_t workspace_limit) const override {
    const auto eng = engines(ctx, p);
    const int i = eng->first_within(workspace_limit);
    return i < 0 ? std::string() : eng->engines()[static_cast<size_t>(i)].name;
  }
  size_t tuned_workspace_size(const ExecutionContext& ctx, const ConvProblem& p,
                              const std::string& params) const override {
    const auto eng = engines(ctx, p);
    return eng->engines()[engine_index(ctx, *eng, params)].workspace;
  }
  std::string search(const ExecutionContext& ctx, const ConvProblem& p,
                     const ConvBuffers& b) const override {
    const auto eng = engines(ctx, p);
    CudaBackend& be = backend_of(ctx);
    const size_t limit = b.workspace == nullptr ? 0 : b.workspace_size;
    double best_ms = std::numeric_limits<double>::infinity();
    std::string best, last_error;
    for (size_t i = 0; i < eng->engines().size(); ++i) {
      const CudnnEngine& e = eng->engines()[i];
      if (e.workspace > limit) continue;
      try {
        eng->run(i, b);  // untimed: first-run costs (module loads) are not the engine's
        double ms = std::numeric_limits<double>::infinity();
        for (int r = 0; r < kSearchRuns && ms < 4 * best_ms + 1e-3; ++r)
          ms = std::min(ms, static_cast<double>(be.run_timed([&] { eng->run(i, b); })));
        ANYDNN_LOG_T(ctx.config, name_ << ": " << e.name << " " << ms << " ms");
        if (ms < best_ms) best_ms = ms, best = e.name;
      } catch (const std::exception& ex) {  // an engine that fails at run time is skipped
        last_error = ex.what();
        cudaGetLastError();
      }
    }
    if (best.empty()) {
      ANYDNN_LOG_W(ctx.config, name_
                                   << ": no engine ran in the search ("
                                   << (last_error.empty() ? "none fits the workspace" : last_error)
                                   << "); cuDNN's first choice kept");
      return default_params(ctx, p, limit);
    }
    return best;
  }
  ConvInvoker make_invoker(const ExecutionContext& ctx, const ConvProblem& p) const override {
    return make_tuned_invoker(ctx, p, std::string());
  }
  ConvInvoker make_tuned_invoker(const ExecutionContext& ctx, const ConvProblem& p,
                                 const std::string& params) const override {
    auto eng = engines(ctx, p);
    const size_t i = engine_index(ctx, *eng, params);
    return [eng, i](const ConvBuffers& b) { eng->run(i, b); };
  }

 private:
  static constexpr int kSearchRuns = 3;

  std::shared_ptr<const CudnnConvEngines> engines(const ExecutionContext& ctx, const ConvProblem& p,
                                                  std::string* why = nullptr) const {
    std::string reason;
    auto eng = backend_of(ctx).cudnn().conv_engines(p, &reason);
    if (why != nullptr) *why = reason;
    // Past applicable() a problem always has engines (the cache keeps them).
    ANYDNN_CHECK(eng || why != nullptr, miopenStatusInternalError,
                 name_ << " used on a problem it does not take: " << reason);
    return eng;
  }
  // The engine `params` names; empty params: cuDNN's first choice. A name this cuDNN does not
  // offer (a record from another version) falls back to the first choice, logged.
  size_t engine_index(const ExecutionContext& ctx, const CudnnConvEngines& eng,
                      const std::string& params) const {
    if (params.empty()) return 0;
    const int i = eng.index_of(params);
    if (i >= 0) return static_cast<size_t>(i);
    ANYDNN_LOG_W(ctx.config, name_ << ": engine " << params
                                   << " is not offered by this cuDNN; its first choice runs");
    return 0;
  }
  std::string_view name_;
};

}  // namespace anydnn::cuda
