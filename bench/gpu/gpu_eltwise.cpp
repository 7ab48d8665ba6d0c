// Elementwise layers on ResNet-50's activation tensors (the bnorm shape file: what its ReLUs and
// residual adds see), anydnn vs cuDNN on the same buffers: ReLU forward
// (miopenActivationForward / cudnnActivationForward), ReLU backward (both read y, dy and x and
// write dx) and the residual add C = A + B (miopenOpTensor / cudnnOpTensor). All are memory-bound:
// the rate is compulsory traffic, and the header gives the device's copy rate (cudaMemcpyAsync
// device to device of the largest tensor, read + write) as the limit to compare it with.
#include <algorithm>
#include <cstdio>

#include "gpu_common.hpp"

namespace anydnn::gpubench {

namespace {

struct Precision {
  std::string group;
  DType type;
  bool nhwc;
};

Precision precision_of(const std::string& p) {
  if (p == "fp32") return {"eltwise-fp32-nchw", DType::F32, false};
  if (p == "fp16") return {"eltwise-fp16-nhwc", DType::F16, true};
  throw Fatal("eltwise: unknown precision '" + p + "' (fp32, fp16)");
}

// Both libraries' descriptors of one packed 4-D tensor and of the ReLU / add operations.
struct Descs {
  miopenTensorDescriptor_t mx = nullptr;
  miopenActivationDescriptor_t ma = nullptr;
  cudnnTensorDescriptor_t cx = nullptr;
  cudnnActivationDescriptor_t ca = nullptr;
  cudnnOpTensorDescriptor_t cop = nullptr;
  Descs() = default;
  Descs(const Descs&) = delete;
  Descs& operator=(const Descs&) = delete;
  ~Descs() {
    if (mx) miopenDestroyTensorDescriptor(mx);
    if (ma) miopenDestroyActivationDescriptor(ma);
    if (cx) cudnnDestroyTensorDescriptor(cx);
    if (ca) cudnnDestroyActivationDescriptor(ca);
    if (cop) cudnnDestroyOpTensorDescriptor(cop);
  }
};

}  // namespace

std::vector<Row> run_eltwise(const Options& o, const std::string& precision) {
  const Precision p = precision_of(precision);
  const std::string file = o.shapes.empty() ? ANYDNN_GPU_BN_SHAPES : o.shapes;
  const auto shapes = load_bn_shapes(file, o.filter);
  if (o.list) {
    for (const SpatialShape& s : shapes)
      std::printf("%s %-30s x%d\n", p.group.c_str(), s.name.c_str(), s.count);
    return {};
  }
  const Peers peers;
  cudaStream_t st = peers.stream();
  miopenHandle_t mh = peers.anydnn();
  cudnnHandle_t ch = peers.cudnn();

  size_t largest = 0;
  for (const SpatialShape& s : shapes)
    largest = std::max(largest, static_cast<size_t>(s.lens[0]) * s.lens[1] * s.lens[2] * s.lens[3] *
                                    dtype_size(p.type));
  const double copy_gbs = largest ? copy_rate_gbs(largest, st, o.plan) : NAN;
  char title[512];
  std::snprintf(title, sizeof title,
                "%s: %s, %zu shapes, ReLU forward (x -> y), ReLU backward (y, dy, x -> dx), "
                "residual add (a + b -> c); %s; rate = compulsory traffic; copy limit %.0f GB/s "
                "(cudaMemcpy device to device, read + write); up to %d warm-up + %d timed (median)",
                p.group.c_str(), file.substr(file.find_last_of('/') + 1).c_str(), shapes.size(),
                environment_line().c_str(), copy_gbs, o.plan.warmup, o.plan.iters);
  print_header(title);
  std::vector<Row> rows;
  auto emit = [&](const Row& r) {
    print_row(r);
    append_csv(o.csv, {r});
    rows.push_back(r);
  };
  uint64_t seed = 300;
  const float one = 1.0f, zero = 0.0f;
  for (const SpatialShape& s : shapes) {
    const auto& l = s.lens;
    const size_t n = static_cast<size_t>(l[0]) * l[1] * l[2] * l[3];
    const size_t es = dtype_size(p.type);
    Row fwd, bwd, add;
    for (Row* r : {&fwd, &bwd, &add}) {
      r->group = p.group;
      r->shape = s.name;
      r->count = s.count;
      r->unit = "GB";
      r->any_solver = "-";
    }
    fwd.dir = "relu";
    bwd.dir = "relu-bwd";
    add.dir = "add";
    fwd.work = 2.0 * n * es / 1e9;
    bwd.work = 4.0 * n * es / 1e9;
    add.work = 3.0 * n * es / 1e9;
    Descs d;
    DeviceMem x, dy, ya, yc, dxa, dxc;
    try {
      check_miopen(miopenCreateTensorDescriptor(&d.mx), "miopenCreateTensorDescriptor");
      check_miopen(
          miopenSetNdTensorDescriptorWithLayout(
              d.mx, miopen_type(p.type), p.nhwc ? miopenTensorNHWC : miopenTensorNCHW, l.data(), 4),
          "x desc");
      check_miopen(miopenCreateActivationDescriptor(&d.ma), "miopenCreateActivationDescriptor");
      check_miopen(miopenSetActivationDescriptor(d.ma, miopenActivationRELU, 0.0, 0.0, 0.0),
                   "miopenSetActivationDescriptor");
      check_cudnn(cudnnCreateTensorDescriptor(&d.cx), "cudnnCreateTensorDescriptor");
      check_cudnn(cudnnSetTensor4dDescriptor(d.cx, p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                             cudnn_type(p.type), l[0], l[1], l[2], l[3]),
                  "cudnn x desc");
      check_cudnn(cudnnCreateActivationDescriptor(&d.ca), "cudnnCreateActivationDescriptor");
      check_cudnn(
          cudnnSetActivationDescriptor(d.ca, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
          "cudnnSetActivationDescriptor");
      check_cudnn(cudnnCreateOpTensorDescriptor(&d.cop), "cudnnCreateOpTensorDescriptor");
      check_cudnn(cudnnSetOpTensorDescriptor(d.cop, CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT,
                                             CUDNN_NOT_PROPAGATE_NAN),
                  "cudnnSetOpTensorDescriptor");
      x = DeviceMem(n * es, "x");
      dy = DeviceMem(n * es, "dy");
      ya = DeviceMem(n * es, "y");
      yc = DeviceMem(n * es, "y");
      dxa = DeviceMem(n * es, "dx");
      dxc = DeviceMem(n * es, "dx");
      fill_uniform(x.get(), p.type, n, seed++, -1, 1, st);
      fill_uniform(dy.get(), p.type, n, seed++, -1, 1, st);
      check_context(st);
    } catch (const Failure& e) {
      for (Row* r : {&fwd, &bwd, &add}) {
        r->note = std::string("setup: ") + e.what();
        emit(*r);
      }
      continue;
    }
    // anydnn: ReLU forward, ReLU backward from its own y, then C = x + dy into dx.
    try {
      const auto t = time_stages(
          st, 3,
          [&](const std::function<void()>& mark) {
            check_miopen(
                miopenActivationForward(mh, d.ma, &one, d.mx, x.get(), &zero, d.mx, ya.get()),
                "miopenActivationForward");
            mark();
            check_miopen(miopenActivationBackward(mh, d.ma, &one, d.mx, ya.get(), d.mx, dy.get(),
                                                  d.mx, x.get(), &zero, d.mx, dxa.get()),
                         "miopenActivationBackward");
            mark();
            check_miopen(miopenOpTensor(mh, miopenTensorOpAdd, &one, d.mx, x.get(), &one, d.mx,
                                        dy.get(), &zero, d.mx, ya.get()),
                         "miopenOpTensor");
            mark();
          },
          o.plan);
      fwd.any_ms = t[0];
      bwd.any_ms = t[1];
      add.any_ms = t[2];
    } catch (const Failure& e) {
      for (Row* r : {&fwd, &bwd, &add})
        r->note = std::string("anydnn: ") + e.what() + " ";
    }
    // cuDNN, the same three calls.
    try {
      const auto t = time_stages(
          st, 3,
          [&](const std::function<void()>& mark) {
            check_cudnn(
                cudnnActivationForward(ch, d.ca, &one, d.cx, x.get(), &zero, d.cx, yc.get()),
                "cudnnActivationForward");
            mark();
            check_cudnn(cudnnActivationBackward(ch, d.ca, &one, d.cx, yc.get(), d.cx, dy.get(),
                                                d.cx, x.get(), &zero, d.cx, dxc.get()),
                        "cudnnActivationBackward");
            mark();
            check_cudnn(cudnnOpTensor(ch, d.cop, &one, d.cx, x.get(), &one, d.cx, dy.get(), &zero,
                                      d.cx, yc.get()),
                        "cudnnOpTensor");
            mark();
          },
          o.plan);
      fwd.cud_ms = t[0];
      bwd.cud_ms = t[1];
      add.cud_ms = t[2];
      fwd.cud_algo = bwd.cud_algo = "RELU";
      add.cud_algo = "OP_TENSOR_ADD";
    } catch (const Failure& e) {
      for (Row* r : {&fwd, &bwd, &add})
        r->note += std::string("cuDNN: ") + e.what();
    }
    // The last stage left both sides' sums in ya / yc and their gradients in dxa / dxc; the
    // forward results are checked by a separate run of each (the add overwrote them).
    if (o.verify && std::isfinite(add.any_ms) && std::isfinite(add.cud_ms)) {
      try {
        const Diff ds = compare(ya.get(), yc.get(), p.type, n, st);
        add.rel_err = ds.rel_l2;
        add.verify = !ds.finite ? "NONFINITE" : ds.rel_l2 <= 1e-6 ? "ok" : "MISMATCH";
        const Diff dd = compare(dxa.get(), dxc.get(), p.type, n, st);
        bwd.rel_err = dd.rel_l2;
        bwd.verify = !dd.finite ? "NONFINITE" : dd.rel_l2 <= 1e-6 ? "ok" : "MISMATCH";
        check_miopen(miopenActivationForward(mh, d.ma, &one, d.mx, x.get(), &zero, d.mx, ya.get()),
                     "miopenActivationForward");
        check_cudnn(cudnnActivationForward(ch, d.ca, &one, d.cx, x.get(), &zero, d.cx, yc.get()),
                    "cudnnActivationForward");
        const Diff df = compare(ya.get(), yc.get(), p.type, n, st);
        fwd.rel_err = df.rel_l2;
        fwd.verify = !df.finite ? "NONFINITE" : df.rel_l2 <= 1e-6 ? "ok" : "MISMATCH";
      } catch (const Failure& e) {
        fwd.note += std::string("verify: ") + e.what();
      }
    }
    emit(fwd);
    emit(bwd);
    emit(add);
  }
  print_summary(rows, p.group);
  return rows;
}

}  // namespace anydnn::gpubench
