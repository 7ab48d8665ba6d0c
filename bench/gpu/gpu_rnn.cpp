// RNN training step: forward training, backward data, backward weights, anydnn (MIOpen's legacy
// RNN API) vs cuDNN (cudnnRNNForward / cudnnRNNBackwardData_v8 / cudnnRNNBackwardWeights_v8),
// same sizes, input mode and bias mode as the shape line (DeepBench: skip input, no bias).
// The two libraries pack weights differently, so outputs are not compared; a row only checks
// that anydnn's y is finite.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "gpu_common.hpp"

namespace anydnn::gpubench {

namespace {

struct Shape {
  std::string mode = "lstm";
  int H = 0, W = 0, N = 0, T = 0, L = 1;
  bool bidir = false, skip = false, bias = true;
  std::string name;
};

int gates(const std::string& m) {
  return m == "lstm" ? 4 : m == "gru" ? 3 : 1;
}

std::vector<Shape> load_shapes(const std::string& file, const std::string& filter) {
  std::ifstream in(file);
  if (!in) throw Fatal("rnn: cannot open " + file);
  std::vector<Shape> out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("rnn", 0) != 0) continue;
    std::istringstream ss(line);
    Shape s;
    std::string w;
    ss >> w;  // base
    for (std::string v; ss >> w && ss >> v;) {
      if (w == "-m") s.mode = v;
      if (w == "-H") s.H = std::stoi(v);
      if (w == "-W") s.W = std::stoi(v);
      if (w == "-n") s.N = std::stoi(v);
      if (w == "-k") s.T = std::stoi(v);
      if (w == "-l") s.L = std::stoi(v);
      if (w == "-r") s.bidir = v == "1";
      if (w == "-p") s.skip = v == "1";
      if (w == "-b") s.bias = v == "1";
    }
    if (s.W == 0) s.W = s.H;
    s.name = s.mode + " h" + std::to_string(s.H) + " n" + std::to_string(s.N) + " t" +
             std::to_string(s.T);
    if (s.L != 1) s.name += " l" + std::to_string(s.L);
    if (s.H > 0 && s.N > 0 && s.T > 0 && s.name.find(filter) != std::string::npos) out.push_back(s);
  }
  return out;
}

// Forward GFLOP as DeepBench counts it: 2 G H^2 N T per layer (+ the input GEMM when linear).
double gflop(const Shape& s) {
  const double g = gates(s.mode), per_step = 2.0 * g * s.H * s.N;
  double f = per_step * s.H * s.T * s.L;
  if (!s.skip) f += per_step * s.W * s.T;
  return f / 1e9;
}

struct AnySide {
  miopenRNNDescriptor_t r = nullptr;
  miopenTensorDescriptor_t x = nullptr, y = nullptr, h = nullptr, w = nullptr;
  std::vector<miopenTensorDescriptor_t> xs, ys;
  DeviceMem wt, dw, ws, rs;
  AnySide() = default;
  AnySide(const AnySide&) = delete;
  AnySide& operator=(const AnySide&) = delete;
  ~AnySide() {
    for (auto d : {x, y, h, w})
      if (d) miopenDestroyTensorDescriptor(d);
    if (r) miopenDestroyRNNDescriptor(r);
  }
};

struct CudSide {
  cudnnRNNDescriptor_t r = nullptr;
  cudnnDropoutDescriptor_t drop = nullptr;
  cudnnRNNDataDescriptor_t x = nullptr, y = nullptr;
  cudnnTensorDescriptor_t h = nullptr;
  DeviceMem seq, wt, dw, ws, rs;
  size_t wbytes = 0;
  CudSide() = default;
  CudSide(const CudSide&) = delete;
  CudSide& operator=(const CudSide&) = delete;
  ~CudSide() {
    if (x) cudnnDestroyRNNDataDescriptor(x);
    if (y) cudnnDestroyRNNDataDescriptor(y);
    if (h) cudnnDestroyTensorDescriptor(h);
    if (r) cudnnDestroyRNNDescriptor(r);
    if (drop) cudnnDestroyDropoutDescriptor(drop);
  }
};

}  // namespace

std::vector<Row> run_rnn(const Options& o, const std::string& precision) {
  if (precision != "fp32" && precision != "fp16")
    throw Fatal("rnn: unknown precision '" + precision + "' (fp32, fp16)");
  const DType t = precision == "fp32" ? DType::F32 : DType::F16;
  const std::string group = "rnn-" + precision;
  const std::string file = o.shapes.empty() ? ANYDNN_GPU_RNN_SHAPES : o.shapes;
  auto shapes = load_shapes(file, o.filter);
  // --quick: the layers up to 100 GFLOP forward (drops the long GRUs and the H=4096 LSTMs).
  if (o.quick) std::erase_if(shapes, [](const Shape& s) { return gflop(s) > 100; });
  if (o.list) {
    for (const Shape& s : shapes)
      std::printf("%s %-30s %s %s %8.2f GFLOP\n", group.c_str(), s.name.c_str(),
                  s.skip ? "skip" : "linear", s.bias ? "bias" : "no-bias", gflop(s));
    return {};
  }

  const Peers peers;
  cudaStream_t st = peers.stream();
  miopenHandle_t mh = peers.anydnn();
  cudnnHandle_t ch = peers.cudnn();

  char title[512];
  std::snprintf(title, sizeof title,
                "%s: %s, %zu layers, training step (fwd, bwd data, bwd weights), cuDNN %s, %s, "
                "up to %d warm-up + %d timed steps (median); rate on DeepBench's forward FLOP",
                group.c_str(), file.substr(file.find_last_of('/') + 1).c_str(), shapes.size(),
                t == DType::F32 ? "FMA math (no TF32)" : "tensor-op math, fp32 accumulation",
                environment_line().c_str(), o.plan.warmup, o.plan.iters);
  print_header(title);
  std::vector<Row> rows;
  auto emit = [&](const Row& r) {
    print_row(r);
    append_csv(o.csv, {r});
    rows.push_back(r);
  };
  const char* dirs[3] = {"fwd", "bwdd", "bwdw"};
  const size_t es = dtype_size(t);
  uint64_t seed = 1000;
  for (const Shape& s : shapes) {
    Row base;
    base.group = group;
    base.shape = s.name;
    base.work = gflop(s);
    base.unit = "GFLOP";
    base.any_solver = "-";
    Row r[3];
    for (int i = 0; i < 3; ++i)
      r[i] = base, r[i].dir = dirs[i];
    auto note_all = [&](const std::string& msg) {
      for (Row& x : r)
        x.note += msg + " ";
    };
    const size_t H = s.H, N = s.N, T = s.T, L = s.L, Win = s.skip ? s.H : s.W;
    const size_t nx = T * N * Win, ny = T * N * H, nh = L * N * H;
    DeviceMem x, dy, hx, cx, ya, yc, dxa, dxc, hya, hyc, cya, cyc, dhxa, dhxc, dcxa, dcxc;
    try {
      if (s.bidir) throw Failure("bidirectional layers are not benchmarked");
      x = DeviceMem(nx * es, "x");
      dy = DeviceMem(ny * es, "dy");
      hx = DeviceMem(nh * es, "hx");
      cx = DeviceMem(nh * es, "cx");
      ya = DeviceMem(ny * es, "y");
      yc = DeviceMem(ny * es, "y");
      dxa = DeviceMem(nx * es, "dx");
      dxc = DeviceMem(nx * es, "dx");
      for (DeviceMem* m : {&hya, &hyc, &cya, &cyc, &dhxa, &dhxc, &dcxa, &dcxc})
        *m = DeviceMem(nh * es, "state");
      fill_uniform(x.get(), t, nx, seed++, -1, 1, st);
      fill_uniform(dy.get(), t, ny, seed++, -1, 1, st);
      fill_uniform(hx.get(), t, nh, seed++, -1, 1, st);
      fill_uniform(cx.get(), t, nh, seed++, -1, 1, st);
      check_context(st);
    } catch (const Failure& e) {
      note_all(std::string("setup: ") + e.what());
      for (Row& x : r)
        emit(x);
      continue;
    }
    // Weights like framework initialisations: U(-1/sqrt(H), 1/sqrt(H)) keeps the states bounded.
    const float wr = 1.0f / std::sqrt(static_cast<float>(s.H));

    // --- anydnn
    {
      AnySide a;
      try {
        const miopenDataType_t mt = miopen_type(t);
        const miopenRNNMode_t mode = s.mode == "lstm"   ? miopenLSTM
                                     : s.mode == "gru"  ? miopenGRU
                                     : s.mode == "relu" ? miopenRNNRELU
                                                        : miopenRNNTANH;
        check_miopen(miopenCreateRNNDescriptor(&a.r), "miopenCreateRNNDescriptor");
        check_miopen(miopenSetRNNDescriptor(a.r, s.H, s.L, s.skip ? miopenRNNskip : miopenRNNlinear,
                                            miopenRNNunidirection, mode,
                                            s.bias ? miopenRNNwithBias : miopenRNNNoBias,
                                            miopenRNNdefault, mt),
                     "miopenSetRNNDescriptor");
        for (auto* d : {&a.x, &a.y, &a.h, &a.w})
          check_miopen(miopenCreateTensorDescriptor(d), "miopenCreateTensorDescriptor");
        const int xl[2] = {s.N, static_cast<int>(Win)}, yl[2] = {s.N, s.H}, hl[3] = {s.L, s.N, s.H};
        check_miopen(miopenSetTensorDescriptor(a.x, mt, 2, xl, nullptr), "x desc");
        check_miopen(miopenSetTensorDescriptor(a.y, mt, 2, yl, nullptr), "y desc");
        check_miopen(miopenSetTensorDescriptor(a.h, mt, 3, hl, nullptr), "h desc");
        a.xs.assign(T, a.x);
        a.ys.assign(T, a.y);
        check_miopen(miopenGetRNNParamsDescriptor(mh, a.r, a.x, a.w, mt),
                     "miopenGetRNNParamsDescriptor");
        size_t wb = 0, wsb = 0, rsb = 0;
        check_miopen(miopenGetTensorNumBytes(a.w, &wb), "miopenGetTensorNumBytes");
        check_miopen(miopenGetRNNWorkspaceSize(mh, a.r, s.T, a.xs.data(), &wsb),
                     "miopenGetRNNWorkspaceSize");
        check_miopen(miopenGetRNNTrainingReserveSize(mh, a.r, s.T, a.xs.data(), &rsb),
                     "miopenGetRNNTrainingReserveSize");
        a.wt = DeviceMem(wb, "anydnn weights");
        a.dw = DeviceMem(wb, "anydnn dw");
        a.ws = DeviceMem(wsb, "anydnn workspace");
        a.rs = DeviceMem(rsb, "anydnn reserve");
        fill_uniform(a.wt.get(), t, wb / es, seed, -wr, wr, st);
        check_cuda(cudaMemsetAsync(a.dw.get(), 0, wb, st), "cudaMemsetAsync");
        const auto tm = time_stages(
            st, 3,
            [&](const std::function<void()>& mark) {
              check_miopen(miopenRNNForwardTraining(
                               mh, a.r, s.T, a.xs.data(), x.get(), a.h, hx.get(), a.h, cx.get(),
                               a.w, a.wt.get(), a.ys.data(), ya.get(), a.h, hya.get(), a.h,
                               cya.get(), a.ws.get(), a.ws.bytes(), a.rs.get(), a.rs.bytes()),
                           "miopenRNNForwardTraining");
              mark();
              check_miopen(miopenRNNBackwardData(
                               mh, a.r, s.T, a.ys.data(), ya.get(), a.ys.data(), dy.get(), a.h,
                               nullptr, a.h, nullptr, a.w, a.wt.get(), a.h, hx.get(), a.h, cx.get(),
                               a.xs.data(), dxa.get(), a.h, dhxa.get(), a.h, dcxa.get(), a.ws.get(),
                               a.ws.bytes(), a.rs.get(), a.rs.bytes()),
                           "miopenRNNBackwardData");
              mark();
              check_miopen(
                  miopenRNNBackwardWeights(mh, a.r, s.T, a.xs.data(), x.get(), a.h, hx.get(),
                                           a.ys.data(), ya.get(), a.w, a.dw.get(), a.ws.get(),
                                           a.ws.bytes(), a.rs.get(), a.rs.bytes()),
                  "miopenRNNBackwardWeights");
              mark();
            },
            o.plan);
        for (int i = 0; i < 3; ++i)
          r[i].any_ms = tm[i];
        if (o.verify) {
          if (!all_finite(ya.get(), t, ny, st)) r[0].verify = "NONFINITE";
        }
      } catch (const Failure& e) {
        note_all(std::string("anydnn: ") + e.what());
      }
    }

    // --- cuDNN
    {
      CudSide c;
      try {
        const cudnnDataType_t ct = cudnn_type(t);
        const cudnnRNNMode_t cell = s.mode == "lstm"   ? CUDNN_LSTM
                                    : s.mode == "gru"  ? CUDNN_GRU
                                    : s.mode == "relu" ? CUDNN_RNN_RELU
                                                       : CUDNN_RNN_TANH;
        check_cudnn(cudnnCreateDropoutDescriptor(&c.drop), "cudnnCreateDropoutDescriptor");
        // Dropout 0 needs no RNG states.
        check_cudnn(cudnnSetDropoutDescriptor(c.drop, ch, 0.0f, nullptr, 0, 0),
                    "cudnnSetDropoutDescriptor");
        check_cudnn(cudnnCreateRNNDescriptor(&c.r), "cudnnCreateRNNDescriptor");
        // Strict fp32 (FMA: no TF32) against anydnn's fp32; tensor ops for fp16 storage.
        cudnnMathType_t math = t == DType::F32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
        auto set = [&] {
          return cudnnSetRNNDescriptor_v8(
              c.r, CUDNN_RNN_ALGO_STANDARD, cell,
              s.bias ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_NO_BIAS, CUDNN_UNIDIRECTIONAL,
              s.skip ? CUDNN_SKIP_INPUT : CUDNN_LINEAR_INPUT, ct, CUDNN_DATA_FLOAT, math,
              static_cast<int32_t>(Win), s.H, s.H, s.L, c.drop, 0);
        };
        cudnnStatus_t rc = set();
        if (rc != CUDNN_STATUS_SUCCESS && t == DType::F32) {
          // Should FMA math be refused, default math (which may use TF32) and say so.
          std::fprintf(stderr, "cudnnSetRNNDescriptor_v8 with CUDNN_FMA_MATH: %s; using default\n",
                       cudnnGetErrorString(rc));
          math = CUDNN_DEFAULT_MATH;
          rc = set();
        }
        check_cudnn(rc, "cudnnSetRNNDescriptor_v8");
        const std::vector<int> lens(N, s.T);
        check_cudnn(cudnnCreateRNNDataDescriptor(&c.x), "cudnnCreateRNNDataDescriptor");
        check_cudnn(cudnnCreateRNNDataDescriptor(&c.y), "cudnnCreateRNNDataDescriptor");
        check_cudnn(cudnnSetRNNDataDescriptor(c.x, ct, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, s.T,
                                              s.N, static_cast<int>(Win), lens.data(), nullptr),
                    "cudnnSetRNNDataDescriptor x");
        check_cudnn(cudnnSetRNNDataDescriptor(c.y, ct, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, s.T,
                                              s.N, s.H, lens.data(), nullptr),
                    "cudnnSetRNNDataDescriptor y");
        check_cudnn(cudnnCreateTensorDescriptor(&c.h), "cudnnCreateTensorDescriptor");
        const int hd[3] = {s.L, s.N, s.H}, hs[3] = {s.N * s.H, s.H, 1};
        check_cudnn(cudnnSetTensorNdDescriptor(c.h, ct, 3, hd, hs), "cudnn h desc");
        c.seq = DeviceMem(N * sizeof(int32_t), "seq lengths");
        check_cuda(cudaMemcpyAsync(c.seq.get(), lens.data(), N * sizeof(int32_t),
                                   cudaMemcpyHostToDevice, st),
                   "cudaMemcpyAsync");
        size_t wsb = 0, rsb = 0;
        check_cudnn(cudnnGetRNNWeightSpaceSize(ch, c.r, &c.wbytes), "cudnnGetRNNWeightSpaceSize");
        check_cudnn(cudnnGetRNNTempSpaceSizes(ch, c.r, CUDNN_FWD_MODE_TRAINING, c.x, &wsb, &rsb),
                    "cudnnGetRNNTempSpaceSizes");
        c.wt = DeviceMem(c.wbytes, "cuDNN weights");
        c.dw = DeviceMem(c.wbytes, "cuDNN dw");
        c.ws = DeviceMem(wsb, "cuDNN workspace");
        c.rs = DeviceMem(rsb, "cuDNN reserve");
        fill_uniform(c.wt.get(), t, c.wbytes / es, seed, -wr, wr, st);
        check_cuda(cudaMemsetAsync(c.dw.get(), 0, c.wbytes, st), "cudaMemsetAsync");
        const int32_t* seq = c.seq.as<int32_t>();
        const auto tm = time_stages(
            st, 3,
            [&](const std::function<void()>& mark) {
              check_cudnn(cudnnRNNForward(ch, c.r, CUDNN_FWD_MODE_TRAINING, seq, c.x, x.get(), c.y,
                                          yc.get(), c.h, hx.get(), hyc.get(), c.h, cx.get(),
                                          cyc.get(), c.wbytes, c.wt.get(), c.ws.bytes(), c.ws.get(),
                                          c.rs.bytes(), c.rs.get()),
                          "cudnnRNNForward");
              mark();
              check_cudnn(cudnnRNNBackwardData_v8(
                              ch, c.r, seq, c.y, yc.get(), dy.get(), c.x, dxc.get(), c.h, hx.get(),
                              nullptr, dhxc.get(), c.h, cx.get(), nullptr, dcxc.get(), c.wbytes,
                              c.wt.get(), c.ws.bytes(), c.ws.get(), c.rs.bytes(), c.rs.get()),
                          "cudnnRNNBackwardData_v8");
              mark();
              check_cudnn(
                  cudnnRNNBackwardWeights_v8(ch, c.r, CUDNN_WGRAD_MODE_ADD, seq, c.x, x.get(), c.h,
                                             hx.get(), c.y, yc.get(), c.wbytes, c.dw.get(),
                                             c.ws.bytes(), c.ws.get(), c.rs.bytes(), c.rs.get()),
                  "cudnnRNNBackwardWeights_v8");
              mark();
            },
            o.plan);
        for (int i = 0; i < 3; ++i) {
          r[i].cud_ms = tm[i];
          r[i].cud_algo = math == CUDNN_FMA_MATH         ? "STANDARD/FMA"
                          : math == CUDNN_TENSOR_OP_MATH ? "STANDARD/TC"
                                                         : "STANDARD/DEFAULT";
        }
      } catch (const Failure& e) {
        note_all(std::string("cuDNN: ") + e.what());
      }
    }
    ++seed;
    for (Row& x : r)
      emit(x);
  }
  print_summary(rows, group);
  return rows;
}

}  // namespace anydnn::gpubench
