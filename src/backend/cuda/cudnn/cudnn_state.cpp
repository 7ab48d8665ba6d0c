// The one file that includes the cuDNN frontend (cudnn_state.hpp says why). Built with
// NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING (src/CMakeLists.txt): every cuDNN call goes through the
// handle that core/cudnn_library.cpp opened, handed to the frontend in cudnn_dlhandle.
#include "backend/cuda/cudnn/cudnn_state.hpp"

#include <cudnn_frontend.h>

#include <chrono>
#include <exception>

#include "conv/conv_ops.hpp"
#include "core/cudnn_library.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace cudnn_frontend {
// The frontend's dynamic loading looks every symbol up in this handle. Written once, before the
// first frontend call (CudnnState::unavailable's call_once), from the process's one cuDNN.
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend

namespace anydnn::cuda {

namespace fe = cudnn_frontend;

int CudnnConvEngines::index_of(const std::string& name) const {
  const auto& e = engines();
  for (size_t i = 0; i < e.size(); ++i)
    if (e[i].name == name) return static_cast<int>(i);
  return -1;
}

int CudnnConvEngines::first_within(size_t workspace_limit) const {
  const auto& e = engines();
  for (size_t i = 0; i < e.size(); ++i)
    if (e[i].workspace <= workspace_limit) return static_cast<int>(i);
  return -1;
}

struct CudnnState::Impl {
  Impl(const Config& c, cudaStream_t s) : config(c), stream(s) {}
  ~Impl() {
    if (handle != nullptr) (void)fe::detail::destroy_handle(handle);
  }

  const Config config;  // a copy: the handle's, for the switches, TF32 and the log
  cudaStream_t stream;
  std::once_flag once;
  std::string unavailable;  // set once, by the call_once
  cudnnHandle_t handle = nullptr;
  // Guards the handle (cuDNN handles are not for concurrent use), its stream and the cache.
  std::mutex mutex;
  struct Cached {
    std::shared_ptr<const CudnnConvEngines> engines;
    std::string why;  // when engines is null
  };
  std::unordered_map<std::string, Cached> cache;

  void open() {
    if (!config.cudnn_enabled) {
      unavailable = "cuDNN off (ANYDNN_CUDNN=0)";
      return;
    }
    const CudnnLibrary& lib = process_cudnn_library(config.cudnn_library);
    if (!lib) {
      unavailable = lib.error;
      return;
    }
    // Every CudnnState of the process hands the frontend the same handle.
    static std::once_flag set_handle;
    std::call_once(set_handle, [&] { fe::cudnn_dlhandle = lib.handle; });
    try {
      const cudnnStatus_t st = fe::detail::create_handle(&handle);
      if (st != CUDNN_STATUS_SUCCESS) {
        handle = nullptr;
        unavailable = "cudnnCreate failed (status " + std::to_string(static_cast<int>(st)) + ")";
        return;
      }
      (void)fe::detail::set_stream(handle, stream);
    } catch (const std::exception& e) {
      handle = nullptr;
      unavailable = std::string("cuDNN unusable: ") + e.what();
      return;
    }
    log_message(config, LogLevel::Info, "CudnnState",
                "cuDNN " + std::to_string(lib.version) + " from " + lib.path);
  }
};

namespace {

fe::DataType_t fe_type(miopenDataType_t t) {
  switch (t) {
    case miopenHalf:
      return fe::DataType_t::HALF;
    case miopenBFloat16:
      return fe::DataType_t::BFLOAT16;
    default:
      return fe::DataType_t::FLOAT;
  }
}

std::vector<int64_t> to_i64(const std::vector<size_t>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

// The last `n` of three per-dimension values (2-D problems keep D in the first).
std::vector<int64_t> spatial(const std::array<int, 3>& v, int n) {
  return std::vector<int64_t>(v.end() - n, v.end());
}

// Fixed uids in the forward sense, whatever the direction: x, w, y. The direction decides which
// one the graph writes (y forward, x backward data, w backward weights).
enum : int64_t { kX = 1, kW = 2, kY = 3 };

std::string fe_message(fe::error_t e) {
  return e.get_message();
}

class FrontendConvEngines final : public CudnnConvEngines {
 public:
  FrontendConvEngines(CudnnState::Impl& state, std::shared_ptr<fe::graph::Graph> graph,
                      std::vector<CudnnEngine> engines, std::vector<int64_t> plans)
      : state_(state),
        graph_(std::move(graph)),
        engines_(std::move(engines)),
        plans_(std::move(plans)) {}

  const std::vector<CudnnEngine>& engines() const override { return engines_; }

  void run(size_t index, const ConvBuffers& b) const override {
    // The frontend's variant pack takes the tensors' pointers sorted by uid (x, w, y: 1, 2, 3),
    // which saves building a map on every call (small layers run in ~10 us, so host time
    // counts); should the graph ever hold other tensors, it says so and the map form runs.
    void* sorted[3] = {b.x, b.w, b.y};
    std::lock_guard<std::mutex> lock(state_.mutex);
    fe::error_t e =
        graph_->execute_plan_at_index(state_.handle, sorted, 3, b.workspace, plans_.at(index));
    if (e.get_code() == fe::error_code_t::INVALID_VARIANT_PACK) {
      std::unordered_map<int64_t, void*> pack = {{kX, b.x}, {kW, b.w}, {kY, b.y}};
      e = graph_->execute_plan_at_index(state_.handle, pack, b.workspace, plans_.at(index));
    }
    ANYDNN_CHECK(e.is_good(), miopenStatusUnknownError,
                 "cuDNN engine " << engines_.at(index).name << ": " << fe_message(e));
  }

 private:
  CudnnState::Impl& state_;
  std::shared_ptr<fe::graph::Graph> graph_;
  std::vector<CudnnEngine> engines_;
  std::vector<int64_t> plans_;  // the graph's plan index of each engine
};

// Builds the convolution graph and every engine configuration heuristics mode A and the
// fallback list offer (PyTorch's benchmark mode asks for the same), minus the numerics MIOpen's
// rules exclude: inputs converted to a narrower type always, TF32 on fp32 data unless allowed,
// non-deterministic engines when the problem asks for determinism. The caller holds the mutex.
std::shared_ptr<const CudnnConvEngines> build(CudnnState::Impl& s, const ConvProblem& p,
                                              std::string* why) {
  auto graph = std::make_shared<fe::graph::Graph>();
  const fe::DataType_t t = fe_type(p.data_type());
  graph->set_io_data_type(t)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const auto tensor = [&](const char* name, int64_t uid, const TensorDescriptor& d) {
    return graph->tensor(fe::graph::Tensor_attributes()
                             .set_name(name)
                             .set_uid(uid)
                             .set_dim(to_i64(d.lens()))
                             .set_stride(to_i64(d.strides()))
                             .set_data_type(t));
  };
  const int n = p.spatial_dims();
  const auto pad = spatial(p.pads(), n), stride = spatial(p.strides(), n),
             dil = spatial(p.dilations(), n);
  // Padding, stride, dilation and fp32 math, whichever direction's attributes.
  const auto geometry = [&](auto attributes, const char* name) {
    attributes.set_name(name).set_padding(pad).set_stride(stride).set_dilation(dil);
    attributes.set_compute_data_type(fe::DataType_t::FLOAT);
    return attributes;
  };
  std::shared_ptr<fe::graph::Tensor_attributes> out;
  const TensorDescriptor* out_desc = nullptr;
  switch (p.direction()) {
    case ConvDirection::Forward:
      out = graph->conv_fprop(tensor("x", kX, p.x()), tensor("w", kW, p.w()),
                              geometry(fe::graph::Conv_fprop_attributes(), "fprop"));
      out->set_uid(kY);
      out_desc = &p.y();
      break;
    case ConvDirection::BackwardData:
      out = graph->conv_dgrad(tensor("dy", kY, p.y()), tensor("w", kW, p.w()),
                              geometry(fe::graph::Conv_dgrad_attributes(), "dgrad"));
      out->set_uid(kX);
      out_desc = &p.x();
      break;
    case ConvDirection::BackwardWeights:
      out = graph->conv_wgrad(tensor("dy", kY, p.y()), tensor("x", kX, p.x()),
                              geometry(fe::graph::Conv_wgrad_attributes(), "wgrad"));
      out->set_uid(kW);
      out_desc = &p.w();
      break;
  }
  out->set_output(true)
      .set_dim(to_i64(out_desc->lens()))
      .set_stride(to_i64(out_desc->strides()))
      .set_data_type(t);

  const auto failed = [&](const char* step, fe::error_t e) {
    *why = std::string("cuDNN ") + step + ": " + fe_message(e);
    return nullptr;
  };
  if (auto e = graph->validate(); e.is_bad()) return failed("validate", e);
  if (auto e = graph->build_operation_graph(s.handle); e.is_bad())
    return failed("build_operation_graph", e);
  if (graph->create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}).is_bad())
    if (auto e = graph->create_execution_plans({fe::HeurMode_t::A}); e.is_bad())
      return failed("create_execution_plans", e);
  graph->deselect_numeric_notes({fe::NumericalNote_t::DOWN_CONVERT_INPUTS});
  if (p.data_type() == miopenFloat && !s.config.conv_allow_tf32)
    graph->deselect_numeric_notes({fe::NumericalNote_t::TENSOR_CORE});
  if (p.attributes().deterministic == 1)
    graph->deselect_numeric_notes({fe::NumericalNote_t::NONDETERMINISTIC});
  graph->deselect_workspace_greater_than(static_cast<int64_t>(kCudnnMaxWorkspace));
  if (auto e = graph->check_support(s.handle); e.is_bad()) return failed("check_support", e);
  // Every configuration that builds; one that does not is skipped, not fatal.
  const fe::error_t built = graph->build_plans(s.handle, fe::BuildPlanPolicy_t::ALL);
  std::vector<CudnnEngine> engines;
  std::vector<int64_t> plans;
  for (int64_t i = 0; i < graph->get_execution_plan_count(); ++i) {
    int64_t ws = 0;
    if (graph->get_workspace_size_plan_at_index(i, ws).is_bad()) continue;  // did not build
    if (ws < 0 || static_cast<size_t>(ws) > kCudnnMaxWorkspace) continue;
    std::string name;
    if (graph->get_plan_name_at_index(i, name).is_bad()) name = "plan" + std::to_string(i);
    engines.push_back({name, static_cast<size_t>(ws)});
    plans.push_back(i);
  }
  if (engines.empty())
    return failed("build_plans (no engine configuration built)",
                  built.is_bad() ? built
                                 : fe::error_t{fe::error_code_t::GRAPH_NOT_SUPPORTED,
                                               "every configuration was deselected"});
  return std::make_shared<FrontendConvEngines>(s, std::move(graph), std::move(engines),
                                               std::move(plans));
}

}  // namespace

CudnnState::CudnnState(const Config& config, cudaStream_t stream)
    : impl_(std::make_unique<Impl>(config, stream)) {}

CudnnState::~CudnnState() = default;

const std::string& CudnnState::unavailable() {
  std::call_once(impl_->once, [this] { impl_->open(); });
  return impl_->unavailable;
}

void CudnnState::set_stream(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->stream = stream;
  if (impl_->handle != nullptr) (void)fe::detail::set_stream(impl_->handle, stream);
}

std::shared_ptr<const CudnnConvEngines> CudnnState::conv_engines(const ConvProblem& p,
                                                                 std::string* why) {
  if (const std::string& u = unavailable(); !u.empty()) {
    *why = u;
    return nullptr;
  }
  // What changes the engine set (type, layout, TF32, determinism) is in the find-db key.
  const std::string key = conv_db_key(impl_->config, p);
  std::lock_guard<std::mutex> lock(impl_->mutex);
  if (const auto it = impl_->cache.find(key); it != impl_->cache.end()) {
    *why = it->second.why;
    return it->second.engines;
  }
  Impl::Cached c;
  const auto start = std::chrono::steady_clock::now();
  try {
    c.engines = build(*impl_, p, &c.why);
  } catch (const std::exception& e) {  // the frontend throws where a symbol is missing
    c.engines = nullptr;
    c.why = std::string("cuDNN: ") + e.what();
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  log_message(impl_->config, LogLevel::Info2, "CudnnState",
              p.key() + ": " +
                  (c.engines ? std::to_string(c.engines->engines().size()) + " engines" : c.why) +
                  ", built in " + std::to_string(ms) + " ms");
  impl_->cache.emplace(key, c);
  *why = c.why;
  return c.engines;
}

}  // namespace anydnn::cuda
