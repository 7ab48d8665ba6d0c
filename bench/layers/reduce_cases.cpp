// Reduction cases: a global sum over each feature map (what an average pool or a bias gradient
// over space computes), a column sum over the batch (a fully connected layer's bias gradient), a
// row max and a row 2-norm of transformer activations.
#include "layers_bench.hpp"

namespace anydnn::bench::layers {

namespace {

using dnnl::algorithm;
using dnnl::memory;

const float kOne = 1.0f, kZero = 0.0f;

struct ReduceState {
  std::vector<float> a, c;
  std::vector<unsigned char> ws;
  MTensor ad, cd;
  miopenReduceTensorDescriptor_t rd = nullptr;
  ReduceState(const std::vector<int>& in, const std::vector<int>& out)
      : a(random_floats(count_of(in), -1, 1)), c(count_of(out)), ad(in), cd(out) {}
  ~ReduceState() { miopenDestroyReduceTensorDescriptor(rd); }
};

void add_reduce(std::vector<Case>& out, miopenReduceTensorOp_t op, algorithm alg,
                const char* op_name, const std::vector<int>& in, const std::vector<int>& o,
                const std::string& what) {
  Case c;
  c.family = "reduce";
  c.name = std::string(op_name) + " " + lens_name(in) + " -> " + lens_name(o) + " " + what;
  c.bytes = 4.0 * static_cast<double>(count_of(in) + count_of(o));
  c.setup = [=](Ctx& ctx) {
    auto s = std::make_shared<ReduceState>(in, o);
    miopenCreateReduceTensorDescriptor(&s->rd);
    miopenSetReduceTensorDescriptor(s->rd, op, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
                                    MIOPEN_REDUCE_TENSOR_NO_INDICES, MIOPEN_32BIT_INDICES);
    size_t ws_size = 0;
    miopenGetReductionWorkspaceSize(ctx.handle, s->rd, s->ad, s->cd, &ws_size);
    s->ws.resize(ws_size);
    Timed t;
    t.keep = s;
    t.ours = [s, ws_size, h = ctx.handle] {
      miopenReduceTensor(h, s->rd, nullptr, 0, s->ws.data(), ws_size, &kOne, s->ad, s->a.data(),
                         &kZero, s->cd, s->c.data());
    };
    const memory::desc am = dnnl_desc(in), cm = dnnl_desc(o);
    const float p = alg == algorithm::reduction_norm_lp_sum ? 2.0f : 0.0f;
    dnnl::reduction::primitive_desc pd(ctx.eng, alg, am, cm, p, 0.0f);
    t.peer = dnnl_call(ctx, dnnl::reduction(pd),
                       {{DNNL_ARG_SRC, memory(am, ctx.eng, s->a.data())},
                        {DNNL_ARG_DST, memory(cm, ctx.eng, s->c.data())}});
    return t;
  };
  out.push_back(c);
}

}  // namespace

void add_reduce_cases(std::vector<Case>& out) {
  add_reduce(out, MIOPEN_REDUCE_TENSOR_ADD, algorithm::reduction_sum, "sum", {16, 2048, 7, 7},
             {16, 2048, 1, 1}, "(per map)");
  add_reduce(out, MIOPEN_REDUCE_TENSOR_ADD, algorithm::reduction_sum, "sum", {16, 256, 56, 56},
             {16, 256, 1, 1}, "(per map)");
  add_reduce(out, MIOPEN_REDUCE_TENSOR_ADD, algorithm::reduction_sum, "sum", {4096, 4096},
             {1, 4096}, "(over the batch)");
  add_reduce(out, MIOPEN_REDUCE_TENSOR_MAX, algorithm::reduction_max, "max", {24576, 768},
             {24576, 1}, "(per row)");
  add_reduce(out, MIOPEN_REDUCE_TENSOR_NORM2, algorithm::reduction_norm_lp_sum, "norm2",
             {24576, 768}, {24576, 1}, "(per row)");
}

}  // namespace anydnn::bench::layers
