// cuDNN as the peer, configured as its best users configure it: the cuDNN frontend graph API
// (header-only C++ library, v1.x), every engine configuration that heuristics mode A and the
// fallback list offer, all of them built, each one timed on the layer's buffers, the fastest kept
// (what PyTorch does with torch.backends.cudnn.benchmark = True). Strict fp32 excludes the engines
// with the TENSOR_CORE numerical note (they compute in TF32 on fp32 data), as PyTorch does with
// allow_tf32 = False; every precision excludes DOWN_CONVERT_INPUTS engines (inputs converted to a
// narrower type), as PyTorch does too.
#include "gpu_conv.hpp"

#ifdef ANYDNN_HAVE_CUDNN_FRONTEND

#include <cudnn_frontend.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <unordered_map>
#include <vector>

#include "cudnn_fe_util.hpp"

namespace anydnn::gpubench {

namespace {

namespace fe = cudnn_frontend;

using fe_util::check_fe;  // cudnn_fe_util.hpp
using fe_util::dims_of;
using fe_util::fe_type;
using fe_util::strides_of;

class FrontendPeer final : public CudnnConvPeer {
 public:
  FrontendPeer(cudnnHandle_t h, cudaStream_t st, const ConvPrecision& p, const DeviceMem& ws)
      : h_(h), st_(st), p_(p), ws_(ws) {
    check_cuda(cudaEventCreate(&e0_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&e1_), "cudaEventCreate");
  }
  ~FrontendPeer() override {
    cudaEventDestroy(e0_);
    cudaEventDestroy(e1_);
  }
  FrontendPeer(const FrontendPeer&) = delete;
  FrontendPeer& operator=(const FrontendPeer&) = delete;

  std::string api() const override { return "frontend"; }
  std::string description() const override {
    char b[400];
    std::snprintf(b, sizeof b,
                  "cuDNN frontend %d.%d.%d graph API: heuristics A + fallback, every plan built "
                  "and timed (%d runs, min), fastest kept%s; DOWN_CONVERT_INPUTS engines excluded",
                  CUDNN_FRONTEND_MAJOR_VERSION, CUDNN_FRONTEND_MINOR_VERSION,
                  CUDNN_FRONTEND_PATCH_VERSION, kTuneRuns,
                  strict_fp32() ? ", TENSOR_CORE (TF32) engines excluded" : "");
    return b;
  }

  double run(const ConvGeometry& g, ConvDir dir, const ConvIo& io, const TimingPlan& plan,
             std::string* algo) override {
    fe::graph::Graph graph;
    graph.set_io_data_type(fe_type(p_.type))
        .set_intermediate_data_type(fe::DataType_t::FLOAT)
        .set_compute_data_type(fe::DataType_t::FLOAT);
    // Fixed uids: the variant pack is made once, by uid (no per-call conversion).
    enum : int64_t { kX = 1, kW, kDy, kOut };
    auto tensor = [&](const char* name, int64_t uid, const std::array<int, 4>& d) {
      return graph.tensor(fe::graph::Tensor_attributes()
                              .set_name(name)
                              .set_uid(uid)
                              .set_dim(dims_of(d))
                              .set_stride(strides_of(d, p_.nhwc))
                              .set_data_type(fe_type(p_.type)));
    };
    const std::vector<int64_t> pad = {g.pad[0], g.pad[1]};
    const std::vector<int64_t> stride = {g.stride[0], g.stride[1]};
    const std::vector<int64_t> dil = {g.dilation[0], g.dilation[1]};
    std::unordered_map<int64_t, void*> pack;
    std::shared_ptr<fe::graph::Tensor_attributes> out;
    const std::array<int, 4>* out_dims = nullptr;
    if (dir == kFwd) {
      auto x = tensor("x", kX, g.x), w = tensor("w", kW, g.w);
      out = graph.conv_fprop(x, w,
                             fe::graph::Conv_fprop_attributes()
                                 .set_name("fprop")
                                 .set_padding(pad)
                                 .set_stride(stride)
                                 .set_dilation(dil)
                                 .set_compute_data_type(fe::DataType_t::FLOAT));
      pack = {{kX, const_cast<void*>(io.x)}, {kW, const_cast<void*>(io.w)}};
      out_dims = &g.y;
    } else if (dir == kBwdData) {
      auto dy = tensor("dy", kDy, g.y), w = tensor("w", kW, g.w);
      out = graph.conv_dgrad(dy, w,
                             fe::graph::Conv_dgrad_attributes()
                                 .set_name("dgrad")
                                 .set_padding(pad)
                                 .set_stride(stride)
                                 .set_dilation(dil)
                                 .set_compute_data_type(fe::DataType_t::FLOAT));
      pack = {{kDy, const_cast<void*>(io.dy)}, {kW, const_cast<void*>(io.w)}};
      out_dims = &g.x;
    } else {
      auto dy = tensor("dy", kDy, g.y), x = tensor("x", kX, g.x);
      out = graph.conv_wgrad(dy, x,
                             fe::graph::Conv_wgrad_attributes()
                                 .set_name("wgrad")
                                 .set_padding(pad)
                                 .set_stride(stride)
                                 .set_dilation(dil)
                                 .set_compute_data_type(fe::DataType_t::FLOAT));
      pack = {{kDy, const_cast<void*>(io.dy)}, {kX, const_cast<void*>(io.x)}};
      out_dims = &g.w;
    }
    out->set_output(true)
        .set_uid(kOut)
        .set_dim(dims_of(*out_dims))
        .set_stride(strides_of(*out_dims, p_.nhwc))
        .set_data_type(fe_type(p_.type));
    pack.emplace(kOut, io.out);

    check_fe(graph.validate(), "validate");
    check_fe(graph.build_operation_graph(h_), "build_operation_graph");
    if (graph.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}).is_bad())
      check_fe(graph.create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
    // Numerical exclusions, and nothing that needs more workspace than the cap.
    graph.deselect_numeric_notes({fe::NumericalNote_t::DOWN_CONVERT_INPUTS});
    if (strict_fp32()) graph.deselect_numeric_notes({fe::NumericalNote_t::TENSOR_CORE});
    graph.deselect_workspace_greater_than(static_cast<int64_t>(ws_.bytes()));
    check_fe(graph.check_support(h_), "check_support");
    // ALL: every supported configuration that builds (failures are skipped, not fatal).
    fe::error_t built = graph.build_plans(h_, fe::BuildPlanPolicy_t::ALL);

    const int64_t count = graph.get_execution_plan_count();
    int64_t best = -1;
    float best_ms = std::numeric_limits<float>::infinity();
    int tuned = 0;
    std::string last_error = built.is_bad() ? built.get_message() : "";
    for (int64_t i = 0; i < count; ++i) {
      int64_t need = 0;
      // Fails for a configuration that was deselected or did not build.
      if (graph.get_workspace_size_plan_at_index(i, need).is_bad()) continue;
      if (need > static_cast<int64_t>(ws_.bytes())) continue;
      const float ms = time_plan(graph, pack, i, best_ms, &last_error);
      if (!std::isfinite(ms)) continue;
      ++tuned;
      if (ms < best_ms) best_ms = ms, best = i;
    }
    if (best < 0) throw Failure("cuDNN frontend: no plan ran (" + last_error + ")");
    std::string tag;
    if (graph.get_plan_name_at_index(best, tag).is_bad()) tag = "plan " + std::to_string(best);
    int64_t need = 0;
    (void)graph.get_workspace_size_plan_at_index(best, need);
    // No commas: the CSV would turn them into ';'.
    *algo = tag + " (best of " + std::to_string(tuned) + " plans; ws " +
            std::to_string(need >> 20) + " MiB)";
    return time_call(
        st_, [&] { check_fe(graph.execute_plan_at_index(h_, pack, ws_.get(), best), "execute"); },
        plan);
  }

 private:
  static constexpr int kTuneRuns = 3;

  bool strict_fp32() const { return p_.type == DType::F32 && !p_.tf32; }

  // One untimed run, then up to kTuneRuns timed ones (fewer once the plan is clearly slower than
  // the best so far); the minimum, or NaN when the plan failed.
  float time_plan(fe::graph::Graph& graph, std::unordered_map<int64_t, void*>& pack, int64_t i,
                  float best_ms, std::string* error) {
    fe::error_t warm = graph.execute_plan_at_index(h_, pack, ws_.get(), i);
    if (warm.is_bad()) {
      *error = warm.get_message();
      cudaGetLastError();
      return NAN;
    }
    check_context(st_);  // a GPU fault here is sticky (Fatal)
    float min_ms = std::numeric_limits<float>::infinity();
    for (int r = 0; r < kTuneRuns; ++r) {
      check_cuda(cudaEventRecord(e0_, st_), "cudaEventRecord");
      fe::error_t s = graph.execute_plan_at_index(h_, pack, ws_.get(), i);
      check_cuda(cudaEventRecord(e1_, st_), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(e1_), "cudaEventSynchronize");
      if (s.is_bad()) {
        *error = s.get_message();
        return NAN;
      }
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, e0_, e1_), "cudaEventElapsedTime");
      min_ms = std::min(min_ms, ms);
      if (min_ms > 4 * best_ms) break;  // cannot win
    }
    return min_ms;
  }

  cudnnHandle_t h_;
  cudaStream_t st_;
  ConvPrecision p_;
  const DeviceMem& ws_;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
};

}  // namespace

std::unique_ptr<CudnnConvPeer> make_frontend_cudnn_peer(cudnnHandle_t h, cudaStream_t stream,
                                                        const ConvPrecision& p,
                                                        const DeviceMem& ws) {
  return std::make_unique<FrontendPeer>(h, stream, p, ws);
}

}  // namespace anydnn::gpubench

#else  // no frontend headers at build time: the legacy peer only

namespace anydnn::gpubench {

std::unique_ptr<CudnnConvPeer> make_frontend_cudnn_peer(cudnnHandle_t, cudaStream_t,
                                                        const ConvPrecision&, const DeviceMem&) {
  return nullptr;
}

}  // namespace anydnn::gpubench

#endif
