// Pooling cases: ResNet-50's stem max pool (3x3 stride 2, pad 1) and its global average pool,
// VGG's 2x2 stride-2 max pool and an inception-style 3x3 stride-1 average pool, forward (the
// training forward: max pooling keeps its argmax for backward) and backward.
#include "layers_bench.hpp"

namespace anydnn::bench::layers {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;

const float kOne = 1.0f, kZero = 0.0f;

struct Window {
  int k, stride, pad;
};

struct PoolState {
  std::vector<int> in, out;
  std::vector<float> x, y, dy, dx;
  std::vector<unsigned char> ws;
  MTensor xd, yd;
  miopenPoolingDescriptor_t pd = nullptr;
  PoolState(const std::vector<int>& in_lens, const std::vector<int>& out_lens)
      : in(in_lens),
        out(out_lens),
        x(random_floats(count_of(in_lens), -1, 1)),
        y(count_of(out_lens)),
        dy(random_floats(count_of(out_lens), -1, 1)),
        dx(x.size()),
        xd(in_lens),
        yd(out_lens) {}
  ~PoolState() { miopenDestroyPoolingDescriptor(pd); }
};

std::vector<int> pooled(const std::vector<int>& in, Window w) {
  auto o = [&](int l) { return (l + 2 * w.pad - w.k) / w.stride + 1; };
  return {in[0], in[1], o(in[2]), o(in[3])};
}

void add_pool(std::vector<Case>& out, miopenPoolingMode_t mode, const std::vector<int>& in,
              Window w, bool fwd, const std::string& what) {
  const std::vector<int> o = pooled(in, w);
  const bool max = mode == miopenPoolingMax;
  Case c;
  c.family = "pooling";
  c.name = std::string(max ? "max " : "avg ") + std::to_string(w.k) + "x" + std::to_string(w.k) +
           " s" + std::to_string(w.stride) + (fwd ? " fwd " : " bwd ") + lens_name(in) + " " + what;
  // forward reads x, writes y; backward reads dy, writes dx (argmax traffic not counted).
  c.bytes = 4.0 * static_cast<double>(count_of(in) + count_of(o));
  c.setup = [=](Ctx& ctx) {
    auto s = std::make_shared<PoolState>(in, o);
    miopenCreatePoolingDescriptor(&s->pd);
    miopenSet2dPoolingDescriptor(s->pd, mode, w.k, w.k, w.pad, w.pad, w.stride, w.stride);
    size_t ws_size = 0;
    miopenPoolingGetWorkSpaceSizeV2(s->pd, s->yd, &ws_size);
    s->ws.resize(ws_size);
    miopenPoolingForward(ctx.handle, s->pd, &kOne, s->xd, s->x.data(), &kZero, s->yd, s->y.data(),
                         true, s->ws.data(), ws_size);
    Timed t;
    t.keep = s;
    const memory::desc xm = dnnl_desc(in), ym = dnnl_desc(o);
    const memory::dims strides = {w.stride, w.stride}, kernel = {w.k, w.k}, dil = {0, 0},
                       pad = {w.pad, w.pad};
    const algorithm alg = max                            ? algorithm::pooling_max
                          : mode == miopenPoolingAverage ? algorithm::pooling_avg_exclude_padding
                                                         : algorithm::pooling_avg_include_padding;
    dnnl::pooling_forward::primitive_desc fpd(ctx.eng, prop_kind::forward_training, alg, xm, ym,
                                              strides, kernel, dil, pad, pad);
    memory src(xm, ctx.eng, s->x.data()), dst(ym, ctx.eng, s->y.data()),
        ddst(ym, ctx.eng, s->dy.data()), dsrc(xm, ctx.eng, s->dx.data());
    std::unordered_map<int, memory> fargs = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    if (fpd.workspace_desc().get_size() > 0)
      fargs.insert({DNNL_ARG_WORKSPACE, memory(fpd.workspace_desc(), ctx.eng)});
    dnnl::pooling_forward fprim(fpd);
    fprim.execute(ctx.st, fargs);
    ctx.st.wait();
    if (fwd) {
      t.ours = [s, ws_size, h = ctx.handle] {
        miopenPoolingForward(h, s->pd, &kOne, s->xd, s->x.data(), &kZero, s->yd, s->y.data(), true,
                             s->ws.data(), ws_size);
      };
      t.peer = dnnl_call(ctx, fprim, fargs);
    } else {
      t.ours = [s, h = ctx.handle] {
        miopenPoolingBackward(h, s->pd, &kOne, s->yd, s->y.data(), s->yd, s->dy.data(), s->xd,
                              s->x.data(), &kZero, s->xd, s->dx.data(), s->ws.data());
      };
      dnnl::pooling_backward::primitive_desc bpd(ctx.eng, alg, xm, ym, strides, kernel, dil, pad,
                                                 pad, fpd);
      std::unordered_map<int, memory> bargs = {{DNNL_ARG_DIFF_DST, ddst},
                                               {DNNL_ARG_DIFF_SRC, dsrc}};
      if (fargs.count(DNNL_ARG_WORKSPACE))
        bargs.insert({DNNL_ARG_WORKSPACE, fargs.at(DNNL_ARG_WORKSPACE)});
      t.peer = dnnl_call(ctx, dnnl::pooling_backward(bpd), bargs);
    }
    return t;
  };
  out.push_back(c);
}

}  // namespace

void add_pooling_cases(std::vector<Case>& out) {
  for (const bool fwd : {true, false}) {
    add_pool(out, miopenPoolingMax, {16, 64, 112, 112}, {3, 2, 1}, fwd, "(ResNet stem)");
    add_pool(out, miopenPoolingMax, {16, 128, 112, 112}, {2, 2, 0}, fwd, "(VGG)");
    add_pool(out, miopenPoolingAverage, {16, 192, 28, 28}, {3, 1, 1}, fwd, "(inception)");
    add_pool(out, miopenPoolingAverage, {16, 2048, 7, 7}, {7, 1, 0}, fwd, "(global)");
  }
}

}  // namespace anydnn::bench::layers
