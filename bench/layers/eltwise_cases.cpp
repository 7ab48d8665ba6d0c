// Activation (ReLU, logistic, tanh), softmax (accurate and log, over contiguous rows and over
// channels) and OpTensor add (the residual add and a per-channel bias) cases.

#include "layers_bench.hpp"

namespace anydnn::bench::layers {

namespace {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;

const float kOne = 1.0f, kZero = 0.0f;

// ResNet-50's activation tensors at batch 16 (the ReLUs' inputs, 4 to 51 MB).
const std::vector<std::vector<int>> kActivationShapes = {
    {16, 64, 112, 112}, {16, 256, 56, 56}, {16, 512, 28, 28}, {16, 1024, 14, 14}, {16, 2048, 7, 7}};

struct ActivState {
  std::vector<float> x, y, dy, dx;
  MTensor d;
  miopenActivationDescriptor_t ad = nullptr;
  explicit ActivState(const std::vector<int>& lens)
      : x(random_floats(count_of(lens), -2, 2)),
        y(x.size()),
        dy(random_floats(x.size(), -1, 1)),
        dx(x.size()),
        d(lens) {}
  ~ActivState() { miopenDestroyActivationDescriptor(ad); }
};

void add_activation(std::vector<Case>& out, miopenActivationMode_t mode, algorithm alg,
                    const char* mode_name, const std::vector<int>& lens, bool fwd) {
  Case c;
  c.family = "activ";
  c.name = std::string(mode_name) + (fwd ? " fwd " : " bwd ") + lens_name(lens);
  c.bytes = 4.0 * static_cast<double>(count_of(lens)) * (fwd ? 2 : 3);
  c.setup = [=](Ctx& ctx) {
    auto s = std::make_shared<ActivState>(lens);
    miopenCreateActivationDescriptor(&s->ad);
    miopenSetActivationDescriptor(s->ad, mode, 1.0, 1.0, 1.0);
    miopenActivationForward(ctx.handle, s->ad, &kOne, s->d, s->x.data(), &kZero, s->d, s->y.data());
    Timed t;
    t.keep = s;
    const memory::desc md = dnnl_desc(lens);
    memory src(md, ctx.eng, s->x.data()), dst(md, ctx.eng, s->y.data()),
        ddst(md, ctx.eng, s->dy.data()), dsrc(md, ctx.eng, s->dx.data());
    dnnl::eltwise_forward::primitive_desc fpd(ctx.eng, prop_kind::forward_training, alg, md, md,
                                              0.0f, 0.0f);
    if (fwd) {
      t.ours = [s, h = ctx.handle] {
        miopenActivationForward(h, s->ad, &kOne, s->d, s->x.data(), &kZero, s->d, s->y.data());
      };
      t.peer =
          dnnl_call(ctx, dnnl::eltwise_forward(fpd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    } else {
      t.ours = [s, h = ctx.handle] {
        miopenActivationBackward(h, s->ad, &kOne, s->d, s->y.data(), s->d, s->dy.data(), s->d,
                                 s->x.data(), &kZero, s->d, s->dx.data());
      };
      dnnl::eltwise_backward::primitive_desc bpd(ctx.eng, alg, md, md, md, 0.0f, 0.0f, fpd);
      t.peer = dnnl_call(ctx, dnnl::eltwise_backward(bpd),
                         {{DNNL_ARG_SRC, src},
                          {DNNL_ARG_DST, dst},
                          {DNNL_ARG_DIFF_DST, ddst},
                          {DNNL_ARG_DIFF_SRC, dsrc}});
    }
    return t;
  };
  out.push_back(c);
}

struct SoftmaxState {
  std::vector<float> x, y, dy, dx;
  MTensor d;
  explicit SoftmaxState(const std::vector<int>& lens)
      : x(random_floats(count_of(lens), -4, 4)),
        y(x.size()),
        dy(random_floats(x.size(), -1, 1)),
        dx(x.size()),
        d(lens) {}
};

// Softmax over C (MIOpen's channel mode; oneDNN's axis 1) of an N x C x H x W tensor.
void add_softmax(std::vector<Case>& out, bool log, const std::vector<int>& lens, bool fwd,
                 const std::string& what) {
  Case c;
  c.family = "softmax";
  c.name = std::string(log ? "log " : "") + (fwd ? "fwd " : "bwd ") + lens_name(lens) + " " + what;
  c.bytes = 4.0 * static_cast<double>(count_of(lens)) * (fwd ? 2 : 3);
  c.setup = [=](Ctx& ctx) {
    auto s = std::make_shared<SoftmaxState>(lens);
    const miopenSoftmaxAlgorithm_t a = log ? MIOPEN_SOFTMAX_LOG : MIOPEN_SOFTMAX_ACCURATE;
    miopenSoftmaxForward_V2(ctx.handle, &kOne, s->d, s->x.data(), &kZero, s->d, s->y.data(), a,
                            MIOPEN_SOFTMAX_MODE_CHANNEL);
    Timed t;
    t.keep = s;
    const memory::desc md = dnnl_desc(lens);
    memory src(md, ctx.eng, s->x.data()), dst(md, ctx.eng, s->y.data()),
        ddst(md, ctx.eng, s->dy.data()), dsrc(md, ctx.eng, s->dx.data());
    const algorithm alg = log ? algorithm::softmax_log : algorithm::softmax_accurate;
    dnnl::softmax_forward::primitive_desc fpd(ctx.eng, prop_kind::forward_training, alg, md, md, 1);
    if (fwd) {
      t.ours = [s, a, h = ctx.handle] {
        miopenSoftmaxForward_V2(h, &kOne, s->d, s->x.data(), &kZero, s->d, s->y.data(), a,
                                MIOPEN_SOFTMAX_MODE_CHANNEL);
      };
      t.peer =
          dnnl_call(ctx, dnnl::softmax_forward(fpd), {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    } else {
      t.ours = [s, a, h = ctx.handle] {
        miopenSoftmaxBackward_V2(h, &kOne, s->d, s->y.data(), s->d, s->dy.data(), &kZero, s->d,
                                 s->dx.data(), a, MIOPEN_SOFTMAX_MODE_CHANNEL);
      };
      dnnl::softmax_backward::primitive_desc bpd(ctx.eng, alg, md, md, md, 1, fpd);
      t.peer =
          dnnl_call(ctx, dnnl::softmax_backward(bpd),
                    {{DNNL_ARG_DST, dst}, {DNNL_ARG_DIFF_DST, ddst}, {DNNL_ARG_DIFF_SRC, dsrc}});
    }
    return t;
  };
  out.push_back(c);
}

struct AddState {
  std::vector<float> a, b, c;
  MTensor da, db;
  AddState(const std::vector<int>& lens, const std::vector<int>& blens)
      : a(random_floats(count_of(lens), -1, 1)),
        b(random_floats(count_of(blens), -1, 1)),
        c(a.size()),
        da(lens),
        db(blens) {}
};

// C = A + B, B of `blens` broadcast over A's `lens` (miopenOpTensor; oneDNN binary add).
void add_op_tensor(std::vector<Case>& out, const std::vector<int>& lens,
                   const std::vector<int>& blens, const std::string& what) {
  Case c;
  c.family = "optensor";
  c.name = "add " + lens_name(lens) + " + " + lens_name(blens) + " " + what;
  c.bytes = 4.0 * static_cast<double>(2 * count_of(lens) + count_of(blens));
  c.setup = [=](Ctx& ctx) {
    auto s = std::make_shared<AddState>(lens, blens);
    Timed t;
    t.keep = s;
    t.ours = [s, h = ctx.handle] {
      miopenOpTensor(h, miopenTensorOpAdd, &kOne, s->da, s->a.data(), &kOne, s->db, s->b.data(),
                     &kZero, s->da, s->c.data());
    };
    const memory::desc ma = dnnl_desc(lens), mb = dnnl_desc(blens);
    dnnl::binary::primitive_desc pd(ctx.eng, algorithm::binary_add, ma, mb, ma);
    t.peer = dnnl_call(ctx, dnnl::binary(pd),
                       {{DNNL_ARG_SRC_0, memory(ma, ctx.eng, s->a.data())},
                        {DNNL_ARG_SRC_1, memory(mb, ctx.eng, s->b.data())},
                        {DNNL_ARG_DST, memory(ma, ctx.eng, s->c.data())}});
    return t;
  };
  out.push_back(c);
}

}  // namespace

void add_eltwise_cases(std::vector<Case>& out) {
  for (const bool fwd : {true, false}) {
    for (const auto& lens : kActivationShapes)
      add_activation(out, miopenActivationRELU, algorithm::eltwise_relu_use_dst_for_bwd, "relu",
                     lens, fwd);
    add_activation(out, miopenActivationLOGISTIC, algorithm::eltwise_logistic_use_dst_for_bwd,
                   "logistic", kActivationShapes[1], fwd);
    add_activation(out, miopenActivationTANH, algorithm::eltwise_tanh_use_dst_for_bwd, "tanh",
                   kActivationShapes[1], fwd);
  }
  for (const bool fwd : {true, false}) {
    // Attention scores (batch 16, 12 heads, sequence 128 and 512) and a 1000-class classifier:
    // softmax over contiguous rows; a segmentation head: over 21 channels of 256 x 256 maps.
    add_softmax(out, false, {16 * 12 * 128, 128, 1, 1}, fwd, "(attention s128)");
    add_softmax(out, false, {4 * 12 * 512, 512, 1, 1}, fwd, "(attention s512)");
    add_softmax(out, true, {256, 1000, 1, 1}, fwd, "(classifier)");
    add_softmax(out, false, {8, 21, 256, 256}, fwd, "(segmentation)");
  }
  add_op_tensor(out, {16, 256, 56, 56}, {16, 256, 56, 56}, "(residual)");
  add_op_tensor(out, {16, 1024, 14, 14}, {16, 1024, 14, 14}, "(residual)");
  add_op_tensor(out, {16, 256, 56, 56}, {1, 256, 1, 1}, "(bias)");
}

}  // namespace anydnn::bench::layers
