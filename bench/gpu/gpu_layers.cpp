// The memory-bound layer families of [api-layers] on network-sized shapes, anydnn vs cuDNN on the
// same stream and buffers: pooling (ResNet-50's stem max pool and global average pool, VGG's 2x2
// max pool), softmax (a classifier's 1000 classes and transformer attention rows, accurate and
// log), LRN across channels (AlexNet's two), and reductions (ResNet's global sum, a max and an L2
// norm over rows). cuDNN runs its legacy calls (cudnnPoolingForward, cudnnSoftmaxForward,
// cudnnLRNCrossChannelForward, cudnnReduceTensor): its graph API has no pooling, LRN or plain
// reduction operations for these. The rate is compulsory traffic (every tensor the call is given
// read once, its output written once); the header gives the device's copy rate as the limit.
// Precisions: fp32 (NCHW) and fp16 (pooling NHWC, the rest NCHW; fp32 accumulation).
#include <cudnn.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <functional>

#include "gpu_common.hpp"

namespace anydnn::gpubench {

namespace {

// Owns what one shape's cases use: device buffers and both libraries' descriptors.
class Scope {
 public:
  Scope(DType t, cudaStream_t st) : type_(t), st_(st) {}
  ~Scope() {
    for (auto it = cleanup_.rbegin(); it != cleanup_.rend(); ++it)
      (*it)();
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // n elements of the scope's type, uniform in [lo, hi) unless `fill` is false.
  void* buf(size_t n, bool fill = true, float lo = -1.0f, float hi = 1.0f) {
    mem_.emplace_back(std::max<size_t>(n * dtype_size(type_), 4), "layer buffer");
    if (fill) fill_uniform(mem_.back().get(), type_, n, seed_++, lo, hi, st_);
    return mem_.back().get();
  }
  void* bytes(size_t n) {
    mem_.emplace_back(std::max<size_t>(n, 4), "workspace");
    return mem_.back().get();
  }
  miopenTensorDescriptor_t mdesc(std::vector<int> lens, bool nhwc = false) {
    miopenTensorDescriptor_t d = nullptr;
    check_miopen(miopenCreateTensorDescriptor(&d), "miopenCreateTensorDescriptor");
    cleanup_.push_back([d] { miopenDestroyTensorDescriptor(d); });
    check_miopen(
        miopenSetNdTensorDescriptorWithLayout(
            d, miopen_type(type_), nhwc ? miopenTensorNHWC : miopenTensorNCHW, lens.data(), 4),
        "miopen tensor");
    return d;
  }
  cudnnTensorDescriptor_t cdesc(const std::vector<int>& l, bool nhwc = false) {
    cudnnTensorDescriptor_t d = nullptr;
    check_cudnn(cudnnCreateTensorDescriptor(&d), "cudnnCreateTensorDescriptor");
    cleanup_.push_back([d] { cudnnDestroyTensorDescriptor(d); });
    check_cudnn(cudnnSetTensor4dDescriptor(d, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                           cudnn_type(type_), l[0], l[1], l[2], l[3]),
                "cudnn tensor");
    return d;
  }
  void defer(std::function<void()> f) { cleanup_.push_back(std::move(f)); }
  DType type() const { return type_; }

 private:
  DType type_;
  cudaStream_t st_;
  uint64_t seed_ = 500;
  std::deque<DeviceMem> mem_;
  std::vector<std::function<void()>> cleanup_;
};

size_t count(const std::vector<int>& l) {
  size_t n = 1;
  for (int v : l)
    n *= static_cast<size_t>(v);
  return n;
}

// One timed call pair: both sides write `out_n` elements (to any_out / cud_out) that must agree.
struct Case {
  std::string shape, dir, cud_algo;
  double gb = 0;  // compulsory traffic
  std::function<void()> any, cud;
  const void* any_out = nullptr;
  const void* cud_out = nullptr;
  size_t out_n = 0;
  double tol = 1e-5;
};

Case make_case(std::string shape, std::string dir, std::string cud_algo, double gb) {
  Case c;
  c.shape = std::move(shape);
  c.dir = std::move(dir);
  c.cud_algo = std::move(cud_algo);
  c.gb = gb;
  return c;
}

const float kOne = 1.0f, kZero = 0.0f;

void pooling_cases(Scope& s, bool fp16, miopenHandle_t mh, cudnnHandle_t ch,
                   std::vector<Case>& out) {
  struct P {
    const char* name;
    std::vector<int> x;
    bool max;
    int win, pad, stride;
  };
  const P shapes[] = {
      {"max 3x3 s2 p1 n32 c64 112x112 (ResNet stem)", {32, 64, 112, 112}, true, 3, 1, 2},
      {"avg 7x7 global n32 c2048 (ResNet head)", {32, 2048, 7, 7}, false, 7, 0, 1},
      {"max 2x2 s2 n32 c128 112x112 (VGG)", {32, 128, 112, 112}, true, 2, 0, 2}};
  const bool nhwc = fp16;
  const size_t es = dtype_size(s.type());
  for (const P& p : shapes) {
    const int oh = (p.x[2] + 2 * p.pad - p.win) / p.stride + 1;
    const int ow = (p.x[3] + 2 * p.pad - p.win) / p.stride + 1;
    const std::vector<int> y{p.x[0], p.x[1], oh, ow};
    const size_t xn = count(p.x), yn = count(y);
    auto mx = s.mdesc(p.x, nhwc), my = s.mdesc(y, nhwc);
    auto cx = s.cdesc(p.x, nhwc), cy = s.cdesc(y, nhwc);
    miopenPoolingDescriptor_t mp = nullptr;
    check_miopen(miopenCreatePoolingDescriptor(&mp), "miopenCreatePoolingDescriptor");
    s.defer([mp] { miopenDestroyPoolingDescriptor(mp); });
    // Average: cuDNN's "exclude padding" is MIOpen's miopenPoolingAverage (no padding here).
    check_miopen(miopenSet2dPoolingDescriptor(mp, p.max ? miopenPoolingMax : miopenPoolingAverage,
                                              p.win, p.win, p.pad, p.pad, p.stride, p.stride),
                 "miopenSet2dPoolingDescriptor");
    cudnnPoolingDescriptor_t cp = nullptr;
    check_cudnn(cudnnCreatePoolingDescriptor(&cp), "cudnnCreatePoolingDescriptor");
    s.defer([cp] { cudnnDestroyPoolingDescriptor(cp); });
    check_cudnn(cudnnSetPooling2dDescriptor(
                    cp, p.max ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                    CUDNN_NOT_PROPAGATE_NAN, p.win, p.win, p.pad, p.pad, p.stride, p.stride),
                "cudnnSetPooling2dDescriptor");
    size_t ws_bytes = 0;
    check_miopen(miopenPoolingGetWorkSpaceSizeV2(mp, my, &ws_bytes), "pooling workspace");
    void* ws = s.bytes(ws_bytes);
    void* x = s.buf(xn);
    void* dy = s.buf(yn);
    void *ya = s.buf(yn, false), *yc = s.buf(yn, false);
    void *dxa = s.buf(xn, false), *dxc = s.buf(xn, false);
    const std::string shape = std::string("pool ") + p.name;
    // Training's forward: anydnn keeps the max positions in the workspace for the backward pass
    // (do_backward), cuDNN finds them again from x and y there.
    Case f =
        make_case(shape, "fwd", p.max ? "POOLING_MAX" : "POOLING_AVG_EXCL", (xn + yn) * es / 1e9);
    f.any = [=] {
      check_miopen(miopenPoolingForward(mh, mp, &kOne, mx, x, &kZero, my, ya, true, ws, ws_bytes),
                   "miopenPoolingForward");
    };
    f.cud = [=] {
      check_cudnn(cudnnPoolingForward(ch, cp, &kOne, cx, x, &kZero, cy, yc), "cudnnPoolingForward");
    };
    f.any_out = ya, f.cud_out = yc, f.out_n = yn;
    f.tol = fp16 ? 1e-3 : 1e-6;
    out.push_back(f);
    Case b = make_case(shape, "bwd", f.cud_algo, (2 * xn + 2 * yn) * es / 1e9);
    b.any = [=] {
      check_miopen(miopenPoolingBackward(mh, mp, &kOne, my, ya, my, dy, mx, x, &kZero, mx, dxa, ws),
                   "miopenPoolingBackward");
    };
    b.cud = [=] {
      check_cudnn(cudnnPoolingBackward(ch, cp, &kOne, cy, yc, cy, dy, cx, x, &kZero, cx, dxc),
                  "cudnnPoolingBackward");
    };
    b.any_out = dxa, b.cud_out = dxc, b.out_n = xn;
    // fp16 max pooling: equal values in a window (ties) may send a gradient to another position.
    b.tol = fp16 ? 2e-2 : 1e-6;
    out.push_back(b);
  }
}

void softmax_cases(Scope& s, bool fp16, miopenHandle_t mh, cudnnHandle_t ch,
                   std::vector<Case>& out) {
  struct P {
    const char* name;
    std::vector<int> x;
    bool log;
  };
  const P shapes[] = {{"classifier n32 c1000", {32, 1000, 1, 1}, false},
                      {"classifier n32 c1000 log", {32, 1000, 1, 1}, true},
                      {"attention 32x16 heads 128 rows of 128", {65536, 128, 1, 1}, false}};
  const size_t es = dtype_size(s.type());
  for (const P& p : shapes) {
    const size_t n = count(p.x);
    auto md = s.mdesc(p.x);
    auto cd = s.cdesc(p.x);
    void* x = s.buf(n, true, -4.0f, 4.0f);
    void* dy = s.buf(n);
    void *ya = s.buf(n, false), *yc = s.buf(n, false), *dxa = s.buf(n, false),
         *dxc = s.buf(n, false);
    const auto ma = p.log ? MIOPEN_SOFTMAX_LOG : MIOPEN_SOFTMAX_ACCURATE;
    const auto ca = p.log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE;
    const std::string shape = std::string("softmax ") + p.name;
    const std::string algo = p.log ? "SOFTMAX_LOG CHANNEL" : "SOFTMAX_ACCURATE CHANNEL";
    Case f = make_case(shape, "fwd", algo, 2.0 * n * es / 1e9);
    f.any = [=] {
      check_miopen(miopenSoftmaxForward_V2(mh, &kOne, md, x, &kZero, md, ya, ma,
                                           MIOPEN_SOFTMAX_MODE_CHANNEL),
                   "miopenSoftmaxForward_V2");
    };
    f.cud = [=] {
      check_cudnn(
          cudnnSoftmaxForward(ch, ca, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, cd, x, &kZero, cd, yc),
          "cudnnSoftmaxForward");
    };
    f.any_out = ya, f.cud_out = yc, f.out_n = n;
    f.tol = fp16 ? 2e-3 : 1e-5;
    out.push_back(f);
    Case b = make_case(shape, "bwd", algo, 3.0 * n * es / 1e9);
    b.any = [=] {
      check_miopen(miopenSoftmaxBackward_V2(mh, &kOne, md, ya, md, dy, &kZero, md, dxa, ma,
                                            MIOPEN_SOFTMAX_MODE_CHANNEL),
                   "miopenSoftmaxBackward_V2");
    };
    b.cud = [=] {
      check_cudnn(cudnnSoftmaxBackward(ch, ca, CUDNN_SOFTMAX_MODE_CHANNEL, &kOne, cd, yc, cd, dy,
                                       &kZero, cd, dxc),
                  "cudnnSoftmaxBackward");
    };
    b.any_out = dxa, b.cud_out = dxc, b.out_n = n;
    b.tol = fp16 ? 5e-3 : 1e-5;
    out.push_back(b);
  }
}

void lrn_cases(Scope& s, bool fp16, miopenHandle_t mh, cudnnHandle_t ch, std::vector<Case>& out) {
  struct P {
    const char* name;
    std::vector<int> x;
  };
  const P shapes[] = {{"across 5 n32 c96 55x55 (AlexNet)", {32, 96, 55, 55}},
                      {"across 5 n32 c256 27x27 (AlexNet)", {32, 256, 27, 27}}};
  const size_t es = dtype_size(s.type());
  const unsigned n_win = 5;
  const double alpha = 1e-4, beta = 0.75, k = 2.0;
  for (const P& p : shapes) {
    const size_t n = count(p.x);
    auto md = s.mdesc(p.x);
    auto cd = s.cdesc(p.x);
    miopenLRNDescriptor_t ml = nullptr;
    check_miopen(miopenCreateLRNDescriptor(&ml), "miopenCreateLRNDescriptor");
    s.defer([ml] { miopenDestroyLRNDescriptor(ml); });
    check_miopen(miopenSetLRNDescriptor(ml, miopenLRNCrossChannel, n_win, alpha, beta, k),
                 "miopenSetLRNDescriptor");
    cudnnLRNDescriptor_t cl = nullptr;
    check_cudnn(cudnnCreateLRNDescriptor(&cl), "cudnnCreateLRNDescriptor");
    s.defer([cl] { cudnnDestroyLRNDescriptor(cl); });
    check_cudnn(cudnnSetLRNDescriptor(cl, n_win, alpha, beta, k), "cudnnSetLRNDescriptor");
    size_t ws_bytes = 0;
    check_miopen(miopenLRNGetWorkSpaceSize(md, &ws_bytes), "miopenLRNGetWorkSpaceSize");
    void* ws = s.bytes(ws_bytes);
    void* x = s.buf(n, true, -4.0f, 4.0f);
    void* dy = s.buf(n);
    void *ya = s.buf(n, false), *yc = s.buf(n, false), *dxa = s.buf(n, false),
         *dxc = s.buf(n, false);
    const std::string shape = std::string("lrn ") + p.name;
    // Training's forward keeps the scale for the backward pass (do_backward) in the workspace.
    Case f = make_case(shape, "fwd", "LRN_CROSS_CHANNEL_DIM1", 2.0 * n * es / 1e9);
    f.any = [=] {
      check_miopen(miopenLRNForward(mh, ml, &kOne, md, x, &kZero, md, ya, true, ws),
                   "miopenLRNForward");
    };
    f.cud = [=] {
      check_cudnn(cudnnLRNCrossChannelForward(ch, cl, CUDNN_LRN_CROSS_CHANNEL_DIM1, &kOne, cd, x,
                                              &kZero, cd, yc),
                  "cudnnLRNCrossChannelForward");
    };
    f.any_out = ya, f.cud_out = yc, f.out_n = n;
    f.tol = fp16 ? 2e-3 : 1e-5;
    out.push_back(f);
    Case b = make_case(shape, "bwd", "LRN_CROSS_CHANNEL_DIM1", 4.0 * n * es / 1e9);
    b.any = [=] {
      check_miopen(miopenLRNBackward(mh, ml, &kOne, md, ya, md, dy, md, x, &kZero, md, dxa, ws),
                   "miopenLRNBackward");
    };
    b.cud = [=] {
      check_cudnn(cudnnLRNCrossChannelBackward(ch, cl, CUDNN_LRN_CROSS_CHANNEL_DIM1, &kOne, cd, yc,
                                               cd, dy, cd, x, &kZero, cd, dxc),
                  "cudnnLRNCrossChannelBackward");
    };
    b.any_out = dxa, b.cud_out = dxc, b.out_n = n;
    b.tol = fp16 ? 5e-3 : 1e-5;
    out.push_back(b);
  }
}

void reduce_cases(Scope& s, bool fp16, miopenHandle_t mh, cudnnHandle_t ch,
                  std::vector<Case>& out) {
  struct P {
    const char* name;
    std::vector<int> a, c;
    miopenReduceTensorOp_t mop;
    cudnnReduceTensorOp_t cop;
    const char* algo;
  };
  const P shapes[] = {{"add over HxW n32 c2048 7x7",
                       {32, 2048, 7, 7},
                       {32, 2048, 1, 1},
                       MIOPEN_REDUCE_TENSOR_ADD,
                       CUDNN_REDUCE_TENSOR_ADD,
                       "REDUCE_ADD"},
                      {"max over rows 4096x1024",
                       {4096, 1024, 1, 1},
                       {4096, 1, 1, 1},
                       MIOPEN_REDUCE_TENSOR_MAX,
                       CUDNN_REDUCE_TENSOR_MAX,
                       "REDUCE_MAX"},
                      {"norm2 over columns 4096x1024",
                       {4096, 1024, 1, 1},
                       {1, 1024, 1, 1},
                       MIOPEN_REDUCE_TENSOR_NORM2,
                       CUDNN_REDUCE_TENSOR_NORM2,
                       "REDUCE_NORM2"}};
  const size_t es = dtype_size(s.type());
  for (const P& p : shapes) {
    const size_t an = count(p.a), cn = count(p.c);
    auto ma = s.mdesc(p.a), mc = s.mdesc(p.c);
    auto ca = s.cdesc(p.a), cc = s.cdesc(p.c);
    miopenReduceTensorDescriptor_t mr = nullptr;
    check_miopen(miopenCreateReduceTensorDescriptor(&mr), "miopenCreateReduceTensorDescriptor");
    s.defer([mr] { miopenDestroyReduceTensorDescriptor(mr); });
    check_miopen(
        miopenSetReduceTensorDescriptor(mr, p.mop, miopenFloat, MIOPEN_NOT_PROPAGATE_NAN,
                                        MIOPEN_REDUCE_TENSOR_NO_INDICES, MIOPEN_32BIT_INDICES),
        "miopenSetReduceTensorDescriptor");
    cudnnReduceTensorDescriptor_t cr = nullptr;
    check_cudnn(cudnnCreateReduceTensorDescriptor(&cr), "cudnnCreateReduceTensorDescriptor");
    s.defer([cr] { cudnnDestroyReduceTensorDescriptor(cr); });
    check_cudnn(cudnnSetReduceTensorDescriptor(cr, p.cop, CUDNN_DATA_FLOAT, CUDNN_NOT_PROPAGATE_NAN,
                                               CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES),
                "cudnnSetReduceTensorDescriptor");
    size_t mws = 0, cws = 0;
    check_miopen(miopenGetReductionWorkspaceSize(mh, mr, ma, mc, &mws), "reduction workspace");
    check_cudnn(cudnnGetReductionWorkspaceSize(ch, cr, ca, cc, &cws), "cudnn reduction workspace");
    void* mw = s.bytes(mws);
    void* cw = s.bytes(cws);
    void* a = s.buf(an);
    void *oa = s.buf(cn, false), *oc = s.buf(cn, false);
    Case r = make_case(std::string("reduce ") + p.name, "fwd", p.algo, (an + cn) * es / 1e9);
    r.any = [=] {
      check_miopen(miopenReduceTensor(mh, mr, nullptr, 0, mw, mws, &kOne, ma, a, &kZero, mc, oa),
                   "miopenReduceTensor");
    };
    r.cud = [=] {
      check_cudnn(cudnnReduceTensor(ch, cr, nullptr, 0, cw, cws, &kOne, ca, a, &kZero, cc, oc),
                  "cudnnReduceTensor");
    };
    r.any_out = oa, r.cud_out = oc, r.out_n = cn;
    r.tol = fp16 ? 2e-3 : 1e-5;
    out.push_back(r);
  }
}

}  // namespace

std::vector<Row> run_layers(const Options& o, const std::string& precision) {
  if (precision != "fp32" && precision != "fp16")
    throw Fatal("layers: unknown precision '" + precision + "' (fp32, fp16)");
  const bool fp16 = precision == "fp16";
  const std::string group = fp16 ? "layers-fp16" : "layers-fp32";
  const DType type = fp16 ? DType::F16 : DType::F32;
  if (o.list) {
    std::printf("%s: pooling (3 shapes), softmax (3), LRN (2), reduction (3); fwd and bwd\n",
                group.c_str());
    return {};
  }
  const Peers peers;
  cudaStream_t st = peers.stream();
  // The copy limit: cudaMemcpy device to device of 64 MB, read + write.
  const double copy_gbs = copy_rate_gbs(size_t{64} << 20, st, o.plan);
  char title[512];
  std::snprintf(title, sizeof title,
                "%s: pooling, softmax, LRN, reduction vs cuDNN's legacy calls; %s; rate = "
                "compulsory traffic; copy limit %.0f GB/s (cudaMemcpy device to device, read + "
                "write); up to %d warm-up + %d timed (median)",
                group.c_str(), environment_line().c_str(), copy_gbs, o.plan.warmup, o.plan.iters);
  print_header(title);
  std::vector<Row> rows;
  using Family = void (*)(Scope&, bool, miopenHandle_t, cudnnHandle_t, std::vector<Case>&);
  const std::pair<const char*, Family> families[] = {{"pool", pooling_cases},
                                                     {"softmax", softmax_cases},
                                                     {"lrn", lrn_cases},
                                                     {"reduce", reduce_cases}};
  for (const auto& [family, make] : families) {
    if (!o.filter.empty() && std::string(family).find(o.filter) == std::string::npos) continue;
    Scope scope(type, st);
    std::vector<Case> cases;
    try {
      make(scope, fp16, peers.anydnn(), peers.cudnn(), cases);
      check_context(st);
    } catch (const Failure& e) {
      Row r;
      r.group = group, r.shape = family, r.dir = "-", r.note = std::string("setup: ") + e.what();
      print_row(r);
      rows.push_back(r);
      continue;
    }
    for (const Case& c : cases) {
      Row r;
      r.group = group, r.shape = c.shape, r.dir = c.dir, r.work = c.gb, r.unit = "GB";
      r.any_solver = "-", r.cud_algo = c.cud_algo;
      try {
        r.any_ms = time_call(st, c.any, o.plan);
      } catch (const Failure& e) {
        r.note += std::string("anydnn: ") + e.what() + " ";
      }
      try {
        r.cud_ms = time_call(st, c.cud, o.plan);
      } catch (const Failure& e) {
        r.note += std::string("cuDNN: ") + e.what();
      }
      if (o.verify && std::isfinite(r.any_ms) && std::isfinite(r.cud_ms)) {
        try {
          const Diff d = compare(c.any_out, c.cud_out, type, c.out_n, st);
          r.rel_err = d.rel_l2;
          r.verify = !d.finite ? "NONFINITE" : d.rel_l2 <= c.tol ? "ok" : "MISMATCH";
        } catch (const Failure& e) {
          r.note += std::string("verify: ") + e.what();
        }
      }
      print_row(r);
      append_csv(o.csv, {r});
      rows.push_back(r);
    }
  }
  print_summary(rows, group);
  return rows;
}

}  // namespace anydnn::gpubench
