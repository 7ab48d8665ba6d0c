// cuDNN's fused conv + bias + ReLU at its best: the frontend graph conv_fprop -> pointwise ADD
// (a 1 x K x 1 x 1 bias broadcast) -> pointwise RELU_FWD, fp32 compute and intermediates, every
// engine configuration of heuristics A and the fallback list built and timed on the layer's
// buffers, the fastest kept (PyTorch's cudnn.benchmark does the same for its graphs). The
// numerical exclusions are the conv peer's (gpu_cudnn_fe.cpp): DOWN_CONVERT_INPUTS always,
// TENSOR_CORE for strict fp32.
#include "gpu_fusion.hpp"

#ifdef ANYDNN_HAVE_CUDNN_FRONTEND

#include <cudnn_frontend.h>

#include <cmath>
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

// One untimed run, then up to three timed ones between events (fewer once the plan is 4x slower
// than the best so far); the minimum, or NaN when the plan failed.
float tune_plan(fe::graph::Graph& graph, cudnnHandle_t h, cudaStream_t st,
                std::unordered_map<int64_t, void*>& pack, void* ws, int64_t i, float best_ms,
                std::string* error) {
  fe::error_t warm = graph.execute_plan_at_index(h, pack, ws, i);
  if (warm.is_bad()) {
    *error = warm.get_message();
    cudaGetLastError();
    return NAN;
  }
  check_context(st);
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  check_cuda(cudaEventCreate(&e0), "cudaEventCreate");
  check_cuda(cudaEventCreate(&e1), "cudaEventCreate");
  float min_ms = std::numeric_limits<float>::infinity();
  for (int r = 0; r < 3; ++r) {
    check_cuda(cudaEventRecord(e0, st), "cudaEventRecord");
    fe::error_t s = graph.execute_plan_at_index(h, pack, ws, i);
    check_cuda(cudaEventRecord(e1, st), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(e1), "cudaEventSynchronize");
    if (s.is_bad()) {
      *error = s.get_message();
      min_ms = NAN;
      break;
    }
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    min_ms = std::min(min_ms, ms);
    if (min_ms > 4 * best_ms) break;  // cannot win
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return min_ms;
}

}  // namespace

bool have_cudnn_frontend() {
  return true;
}

double cudnn_fused_conv_bias_relu(cudnnHandle_t h, cudaStream_t st, const CbrProblem& p,
                                  const void* x, const void* w, const void* bias, void* y,
                                  const DeviceMem& ws, const TimingPlan& plan, std::string* algo) {
  const ConvGeometry& g = p.g;
  fe::graph::Graph graph;
  graph.set_io_data_type(fe_type(p.type))
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  enum : int64_t { kX = 1, kW, kB, kY };
  auto tensor = [&](const char* name, int64_t uid, const std::array<int, 4>& d) {
    return graph.tensor(fe::graph::Tensor_attributes()
                            .set_name(name)
                            .set_uid(uid)
                            .set_dim(dims_of(d))
                            .set_stride(strides_of(d, p.nhwc))
                            .set_data_type(fe_type(p.type)));
  };
  auto tx = tensor("x", kX, g.x), tw = tensor("w", kW, g.w);
  auto tb = tensor("bias", kB, {1, g.y[1], 1, 1});
  auto conv = graph.conv_fprop(tx, tw,
                               fe::graph::Conv_fprop_attributes()
                                   .set_name("fprop")
                                   .set_padding({g.pad[0], g.pad[1]})
                                   .set_stride({g.stride[0], g.stride[1]})
                                   .set_dilation({g.dilation[0], g.dilation[1]})
                                   .set_compute_data_type(fe::DataType_t::FLOAT));
  auto add = graph.pointwise(conv, tb,
                             fe::graph::Pointwise_attributes()
                                 .set_name("bias")
                                 .set_mode(fe::PointwiseMode_t::ADD)
                                 .set_compute_data_type(fe::DataType_t::FLOAT));
  auto relu = graph.pointwise(add, fe::graph::Pointwise_attributes()
                                       .set_name("relu")
                                       .set_mode(fe::PointwiseMode_t::RELU_FWD)
                                       .set_compute_data_type(fe::DataType_t::FLOAT));
  relu->set_output(true)
      .set_uid(kY)
      .set_dim(dims_of(g.y))
      .set_stride(strides_of(g.y, p.nhwc))
      .set_data_type(fe_type(p.type));
  std::unordered_map<int64_t, void*> pack = {{kX, const_cast<void*>(x)},
                                             {kW, const_cast<void*>(w)},
                                             {kB, const_cast<void*>(bias)},
                                             {kY, y}};

  check_fe(graph.validate(), "validate");
  check_fe(graph.build_operation_graph(h), "build_operation_graph");
  if (graph.create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK}).is_bad())
    check_fe(graph.create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
  graph.deselect_numeric_notes({fe::NumericalNote_t::DOWN_CONVERT_INPUTS});
  if (p.strict_fp32) graph.deselect_numeric_notes({fe::NumericalNote_t::TENSOR_CORE});
  graph.deselect_workspace_greater_than(static_cast<int64_t>(ws.bytes()));
  check_fe(graph.check_support(h), "check_support");
  fe::error_t built = graph.build_plans(h, fe::BuildPlanPolicy_t::ALL);

  const int64_t count = graph.get_execution_plan_count();
  int64_t best = -1;
  float best_ms = std::numeric_limits<float>::infinity();
  int tuned = 0;
  std::string last_error = built.is_bad() ? built.get_message() : "";
  for (int64_t i = 0; i < count; ++i) {
    int64_t need = 0;
    if (graph.get_workspace_size_plan_at_index(i, need).is_bad()) continue;
    if (need > static_cast<int64_t>(ws.bytes())) continue;
    const float ms = tune_plan(graph, h, st, pack, ws.get(), i, best_ms, &last_error);
    if (!std::isfinite(ms)) continue;
    ++tuned;
    if (ms < best_ms) best_ms = ms, best = i;
  }
  if (best < 0) throw Failure("cuDNN frontend: no fused plan ran (" + last_error + ")");
  std::string tag;
  if (graph.get_plan_name_at_index(best, tag).is_bad()) tag = "plan " + std::to_string(best);
  *algo = tag + " (best of " + std::to_string(tuned) + " fused plans)";
  return time_call(
      st, [&] { check_fe(graph.execute_plan_at_index(h, pack, ws.get(), best), "execute"); }, plan);
}

}  // namespace anydnn::gpubench

#else  // no frontend headers at build time

namespace anydnn::gpubench {

bool have_cudnn_frontend() {
  return false;
}

double cudnn_fused_conv_bias_relu(cudnnHandle_t, cudaStream_t, const CbrProblem&, const void*,
                                  const void*, const void*, void*, const DeviceMem&,
                                  const TimingPlan&, std::string*) {
  throw Failure("built without the cuDNN frontend headers: no fused graph");
}

}  // namespace anydnn::gpubench

#endif
