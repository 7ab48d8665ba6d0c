// LRN cases: AlexNet's two cross-channel LRNs (5 channels) and a within-channel one, the training
// forward (keeping the scale for backward, as both libraries do) and backward.
#include "layers_bench.hpp"

namespace anydnn::bench::layers {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;

const float kOne = 1.0f, kZero = 0.0f;

struct LrnState {
  std::vector<float> x, y, dy, dx;
  std::vector<unsigned char> ws;
  MTensor d;
  miopenLRNDescriptor_t ld = nullptr;
  explicit LrnState(const std::vector<int>& lens)
      : x(random_floats(count_of(lens), -1, 1)),
        y(x.size()),
        dy(random_floats(x.size(), -1, 1)),
        dx(x.size()),
        d(lens) {}
  ~LrnState() { miopenDestroyLRNDescriptor(ld); }
};

void add_lrn(std::vector<Case>& out, miopenLRNMode_t mode, const std::vector<int>& lens, bool fwd,
             const std::string& what) {
  const bool cross = mode == miopenLRNCrossChannel;
  Case c;
  c.family = "lrn";
  c.name = std::string(cross ? "cross" : "within") + (fwd ? " fwd " : " bwd ") + lens_name(lens) +
           " " + what;
  c.bytes = 4.0 * static_cast<double>(count_of(lens)) * (fwd ? 2 : 3);
  c.setup = [=](Ctx& ctx) {
    auto s = std::make_shared<LrnState>(lens);
    const int n = 5;
    const float alpha = 1e-4f, beta = 0.75f, k = 2.0f;
    miopenCreateLRNDescriptor(&s->ld);
    miopenSetLRNDescriptor(s->ld, mode, n, alpha, beta, k);
    size_t ws_size = 0;
    miopenLRNGetWorkSpaceSize(s->d, &ws_size);
    s->ws.resize(ws_size);
    miopenLRNForward(ctx.handle, s->ld, &kOne, s->d, s->x.data(), &kZero, s->d, s->y.data(), true,
                     s->ws.data());
    Timed t;
    t.keep = s;
    const memory::desc md = dnnl_desc(lens);
    const algorithm alg = cross ? algorithm::lrn_across_channels : algorithm::lrn_within_channel;
    dnnl::lrn_forward::primitive_desc fpd(ctx.eng, prop_kind::forward_training, alg, md, md, n,
                                          alpha, beta, k);
    memory src(md, ctx.eng, s->x.data()), dst(md, ctx.eng, s->y.data()),
        ddst(md, ctx.eng, s->dy.data()), dsrc(md, ctx.eng, s->dx.data());
    std::unordered_map<int, memory> fargs = {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
    if (fpd.workspace_desc().get_size() > 0)
      fargs.insert({DNNL_ARG_WORKSPACE, memory(fpd.workspace_desc(), ctx.eng)});
    dnnl::lrn_forward fprim(fpd);
    fprim.execute(ctx.st, fargs);
    ctx.st.wait();
    if (fwd) {
      t.ours = [s, h = ctx.handle] {
        miopenLRNForward(h, s->ld, &kOne, s->d, s->x.data(), &kZero, s->d, s->y.data(), true,
                         s->ws.data());
      };
      t.peer = dnnl_call(ctx, fprim, fargs);
    } else {
      t.ours = [s, h = ctx.handle] {
        miopenLRNBackward(h, s->ld, &kOne, s->d, s->y.data(), s->d, s->dy.data(), s->d, s->x.data(),
                          &kZero, s->d, s->dx.data(), s->ws.data());
      };
      dnnl::lrn_backward::primitive_desc bpd(ctx.eng, alg, md, md, md, n, alpha, beta, k, fpd);
      std::unordered_map<int, memory> bargs = {
          {DNNL_ARG_SRC, src}, {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}};
      if (fargs.count(DNNL_ARG_WORKSPACE))
        bargs.insert({DNNL_ARG_WORKSPACE, fargs.at(DNNL_ARG_WORKSPACE)});
      t.peer = dnnl_call(ctx, dnnl::lrn_backward(bpd), bargs);
    }
    return t;
  };
  out.push_back(c);
}

}  // namespace

void add_lrn_cases(std::vector<Case>& out) {
  for (const bool fwd : {true, false}) {
    add_lrn(out, miopenLRNCrossChannel, {16, 96, 55, 55}, fwd, "(AlexNet norm1)");
    add_lrn(out, miopenLRNCrossChannel, {16, 256, 27, 27}, fwd, "(AlexNet norm2)");
    add_lrn(out, miopenLRNWithinChannel, {16, 96, 55, 55}, fwd, "(5x5 window)");
  }
}

}  // namespace anydnn::bench::layers
