// anydnn vs oneDNN RNN training, side by side in one process (benchmark, not a test).
//
//   rnn_vs_onednn [--shapes FILE] [--reps R] [--filter TEXT] [--csv OUT.csv]
//
// Every line of the shape file (MIOpenDriver rnn syntax: the DeepBench training set by default)
// runs forward training, then backward (data + weights), on both libraries with the same sizes.
// DeepBench's layers use skip input; oneDNN has no skip mode, so both libraries run the
// linear-input layer (W x_t included) with W = H. oneDNN's GRU is `lbr_gru` (reset gate after
// the hidden product, MIOpen's and cuDNN's formula); its weights take oneDNN's preferred layout
// (reorders untimed) and it always carries a bias. The two libraries run alternately, call by
// call, and each figure is the median of its calls. Also printed: the rate of the hidden GEMM
// our step runs (N x H times H x G*H on W_h^T packed once) against the 2048^3 SGEMM rate.
#include <cblas.h>
#include <miopen/miopen.h>
#include <omp.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "backend/cpu/rnn/rnn_gemm.hpp"
#include "bench_common.hpp"
#include "core/cpu_isa.hpp"

using namespace anydnn::bench;
using dnnl::memory;

namespace {

struct Shape {
  std::string mode, line;
  int H = 0, N = 0, T = 0;
};

std::vector<Shape> load(const std::string& file, const std::string& filter) {
  std::ifstream in(file);
  std::vector<Shape> out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("rnn", 0) != 0 || line.find(filter) == std::string::npos) continue;
    std::istringstream ss(line);
    Shape s;
    s.line = line;
    for (std::string w; ss >> w;) {
      std::string v;
      if (w == "-m") ss >> s.mode;
      if (w == "-H") ss >> v, s.H = std::stoi(v);
      if (w == "-n") ss >> v, s.N = std::stoi(v);
      if (w == "-k") ss >> v, s.T = std::stoi(v);
    }
    out.push_back(s);
  }
  return out;
}

int gates(const std::string& m) {
  return m == "lstm" ? 4 : m == "gru" ? 3 : 1;
}

void fill(memory& m) {
  float* p = static_cast<float*>(m.get_data_handle());
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  const size_t n = m.get_desc().get_size() / sizeof(float);
  for (size_t i = 0; i < n; ++i)
    p[i] = u(rng);
}

struct Times {
  double fwd = 0, bwd = 0;
};

// One library's layer, ready to run: forward training, then backward (data + weights), each
// call complete when it returns. The closures own everything they use.
struct Case {
  std::function<void()> fwd, bwd;
};

Case onednn_case(const Shape& s, dnnl::engine& eng) {
  using tag = memory::format_tag;
  const auto f32 = memory::data_type::f32;
  const long T = s.T, N = s.N, H = s.H, G = gates(s.mode);
  const long Gb = s.mode == "gru" ? G + 1 : G;  // lbr_gru has an extra bias
  const memory::desc src({T, N, H}, f32, tag::tnc), dst({T, N, H}, f32, tag::tnc);
  const memory::desc iter({1, 1, N, H}, f32, tag::ldnc);
  const memory::desc wl({1, 1, H, G, H}, f32, tag::any), wi({1, 1, H, G, H}, f32, tag::any);
  const memory::desc bias({1, 1, Gb, H}, f32, tag::ldgo);
  const auto dir = dnnl::rnn_direction::unidirectional_left2right;
  const auto train = dnnl::prop_kind::forward_training, back = dnnl::prop_kind::backward;
  struct State {
    dnnl::stream st;
    std::unordered_map<int, memory> mem, fwd_args, bwd_args;
    dnnl::primitive fwd, bwd;
  };
  auto state = std::make_shared<State>();
  state->st = dnnl::stream(eng);
  auto& mem = state->mem;
  auto bind = [&](const dnnl::primitive_desc_base& pd, std::initializer_list<int> args) {
    std::unordered_map<int, memory> a;
    for (int arg : args) {
      const memory::desc md = pd.query_md(dnnl::query::exec_arg_md, arg);
      if (md.get_size() == 0) continue;
      auto it = mem.find(arg);
      if (it == mem.end() || it->second.get_desc() != md) {
        memory m(md, eng);
        fill(m);
        it = mem.insert_or_assign(arg, m).first;
      }
      a.insert({arg, it->second});
    }
    return a;
  };
  const std::initializer_list<int> fwd_args = {
      DNNL_ARG_SRC_LAYER,    DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER,
      DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_BIAS,     DNNL_ARG_DST_LAYER,  DNNL_ARG_DST_ITER,
      DNNL_ARG_DST_ITER_C,   DNNL_ARG_WORKSPACE};
  const std::initializer_list<int> bwd_args = {
      DNNL_ARG_SRC_LAYER,       DNNL_ARG_SRC_ITER,           DNNL_ARG_SRC_ITER_C,
      DNNL_ARG_WEIGHTS_LAYER,   DNNL_ARG_WEIGHTS_ITER,       DNNL_ARG_BIAS,
      DNNL_ARG_DST_LAYER,       DNNL_ARG_DST_ITER,           DNNL_ARG_DST_ITER_C,
      DNNL_ARG_WORKSPACE,       DNNL_ARG_DIFF_SRC_LAYER,     DNNL_ARG_DIFF_SRC_ITER,
      DNNL_ARG_DIFF_SRC_ITER_C, DNNL_ARG_DIFF_WEIGHTS_LAYER, DNNL_ARG_DIFF_WEIGHTS_ITER,
      DNNL_ARG_DIFF_BIAS,       DNNL_ARG_DIFF_DST_LAYER,     DNNL_ARG_DIFF_DST_ITER,
      DNNL_ARG_DIFF_DST_ITER_C};
  auto set = [&](dnnl::primitive f, const dnnl::primitive_desc_base& fpd, dnnl::primitive b,
                 const dnnl::primitive_desc_base& bpd) {
    state->fwd = f;
    state->bwd = b;
    state->fwd_args = bind(fpd, fwd_args);
    state->bwd_args = bind(bpd, bwd_args);
  };
  if (s.mode == "lstm") {
    dnnl::lstm_forward::primitive_desc f(eng, train, dir, src, iter, iter, wl, wi, bias, dst, iter,
                                         iter);
    dnnl::lstm_backward::primitive_desc b(eng, back, dir, src, iter, iter, wl, wi, bias, dst, iter,
                                          iter, src, iter, iter, wl, wi, bias, dst, iter, iter, f);
    set(dnnl::lstm_forward(f), f, dnnl::lstm_backward(b), b);
  } else if (s.mode == "gru") {
    dnnl::lbr_gru_forward::primitive_desc f(eng, train, dir, src, iter, wl, wi, bias, dst, iter);
    dnnl::lbr_gru_backward::primitive_desc b(eng, back, dir, src, iter, wl, wi, bias, dst, iter,
                                             src, iter, wl, wi, bias, dst, iter, f);
    set(dnnl::lbr_gru_forward(f), f, dnnl::lbr_gru_backward(b), b);
  } else {
    const auto act =
        s.mode == "relu" ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_tanh;
    dnnl::vanilla_rnn_forward::primitive_desc f(eng, train, act, dir, src, iter, wl, wi, bias, dst,
                                                iter);
    dnnl::vanilla_rnn_backward::primitive_desc b(eng, back, act, dir, src, iter, wl, wi, bias, dst,
                                                 iter, src, iter, wl, wi, bias, dst, iter, f);
    set(dnnl::vanilla_rnn_forward(f), f, dnnl::vanilla_rnn_backward(b), b);
  }
  return {[state] {
            state->fwd.execute(state->st, state->fwd_args);
            state->st.wait();
          },
          [state] {
            state->bwd.execute(state->st, state->bwd_args);
            state->st.wait();
          }};
}

Case anydnn_case(const Shape& s) {
  const int H = s.H, N = s.N, T = s.T;
  struct State {
    miopenHandle_t h = nullptr;
    miopenRNNDescriptor_t r = nullptr;
    miopenTensorDescriptor_t x = nullptr, hd = nullptr, w = nullptr;
    std::vector<miopenTensorDescriptor_t> xd;
    std::vector<float> xv, wv, hx, dy, yv, hy, cy, dx, dhx, dcx, dw;
    std::vector<uint8_t> wsb, rsb;
    ~State() {
      for (auto d : {x, hd, w})
        miopenDestroyTensorDescriptor(d);
      miopenDestroyRNNDescriptor(r);
      miopenDestroy(h);
    }
  };
  auto st = std::make_shared<State>();
  miopenCreate(&st->h);
  miopenCreateRNNDescriptor(&st->r);
  const miopenRNNMode_t mode = s.mode == "lstm"   ? miopenLSTM
                               : s.mode == "gru"  ? miopenGRU
                               : s.mode == "relu" ? miopenRNNRELU
                                                  : miopenRNNTANH;
  miopenSetRNNDescriptor(st->r, H, 1, miopenRNNlinear, miopenRNNunidirection, mode, miopenRNNNoBias,
                         miopenRNNdefault, miopenFloat);
  for (auto* d : {&st->x, &st->hd, &st->w})
    miopenCreateTensorDescriptor(d);
  int xl[2] = {N, H}, hl[3] = {1, N, H};
  miopenSetTensorDescriptor(st->x, miopenFloat, 2, xl, nullptr);
  miopenSetTensorDescriptor(st->hd, miopenFloat, 3, hl, nullptr);
  st->xd.assign(T, st->x);
  miopenGetRNNParamsDescriptor(st->h, st->r, st->x, st->w, miopenFloat);
  size_t wb = 0, ws = 0, rs = 0;
  miopenGetTensorNumBytes(st->w, &wb);
  miopenGetRNNWorkspaceSize(st->h, st->r, T, st->xd.data(), &ws);
  miopenGetRNNTrainingReserveSize(st->h, st->r, T, st->xd.data(), &rs);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-0.1f, 0.1f);
  auto rnd = [&](size_t n) {
    std::vector<float> v(n);
    for (auto& e : v)
      e = u(rng);
    return v;
  };
  const size_t rows = static_cast<size_t>(N) * T, states = static_cast<size_t>(N) * H;
  st->xv = rnd(rows * H);
  st->wv = rnd(wb / 4);
  st->hx = rnd(states);
  st->dy = rnd(rows * H);
  for (auto* v : {&st->yv, &st->dx})
    v->resize(rows * H);
  for (auto* v : {&st->hy, &st->cy, &st->dhx, &st->dcx})
    v->resize(states);
  st->dw.resize(st->wv.size());
  st->wsb.resize(ws);
  st->rsb.resize(rs);
  auto fwd = [st, T] {
    State& a = *st;
    miopenRNNForwardTraining(a.h, a.r, T, a.xd.data(), a.xv.data(), a.hd, a.hx.data(), a.hd,
                             a.hx.data(), a.w, a.wv.data(), a.xd.data(), a.yv.data(), a.hd,
                             a.hy.data(), a.hd, a.cy.data(), a.wsb.data(), a.wsb.size(),
                             a.rsb.data(), a.rsb.size());
  };
  auto bwd = [st, T] {
    State& a = *st;
    miopenRNNBackwardData(a.h, a.r, T, a.xd.data(), a.yv.data(), a.xd.data(), a.dy.data(), a.hd,
                          nullptr, a.hd, nullptr, a.w, a.wv.data(), a.hd, a.hx.data(), a.hd,
                          a.hx.data(), a.xd.data(), a.dx.data(), a.hd, a.dhx.data(), a.hd,
                          a.dcx.data(), a.wsb.data(), a.wsb.size(), a.rsb.data(), a.rsb.size());
    miopenRNNBackwardWeights(a.h, a.r, T, a.xd.data(), a.xv.data(), a.hd, a.hx.data(), a.xd.data(),
                             a.yv.data(), a.w, a.dw.data(), a.wsb.data(), a.wsb.size(),
                             a.rsb.data(), a.rsb.size());
  };
  return {fwd, bwd};
}

// Medians of `reps` rounds after one warm-up round; each round runs both libraries, forward
// then backward, alternating, so that slow phases of a shared machine hit both alike.
std::pair<Times, Times> time_pair(Case& a, Case& o, int reps) {
  auto once = [](const std::function<void()>& f) {
    const auto s = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
  };
  std::vector<double> t[4];
  for (int r = 0; r <= std::max(1, reps); ++r) {
    const double v[4] = {once(a.fwd), once(o.fwd), once(a.bwd), once(o.bwd)};
    if (r > 0)
      for (int i = 0; i < 4; ++i)
        t[i].push_back(v[i]);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {{median(t[0]), median(t[2])}, {median(t[1]), median(t[3])}};
}

double gemm_gflops(int m, int n, int k, int reps) {
  std::vector<float> a(static_cast<size_t>(m) * k, 0.5f), b(static_cast<size_t>(k) * n, 0.5f),
      c(static_cast<size_t>(m) * n);
  const double ms = median_ms(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(),
                    k, 0.0f, c.data(), n);
      },
      std::max(3, reps));
  return 2.0 * m * n * k / ms / 1e6;
}

// The hidden GEMM of one step as the RNN runs it: W_h^T packed once, M = batch rows.
double step_gemm_gflops(int m, int n, int k, int reps) {
  std::vector<float> a(static_cast<size_t>(m) * k, 0.5f), w(static_cast<size_t>(n) * k, 0.5f),
      c(static_cast<size_t>(m) * n);
  std::vector<float> store(anydnn::cpu::PackedGemmB::storage_floats(k, n));
  const anydnn::cpu::PackedGemmB b(anydnn::best_cpu_isa(), w.data(), k, k, n, true, store.data());
  const int threads = std::max(1, omp_get_max_threads());
  const double ms = median_ms([&] { b.multiply(a.data(), k, m, c.data(), n, false, threads); },
                              std::max(5, reps));
  return 2.0 * m * n * k / ms / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes = ANYDNN_RNN_SHAPES, csv, filter;
  int reps = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--shapes")
      shapes = next();
    else if (a == "--reps")
      reps = std::atoi(next().c_str());
    else if (a == "--csv")
      csv = next();
    else if (a == "--filter")
      filter = next();
    else {
      std::fprintf(stderr, "usage: %s [--shapes F] [--reps R] [--filter TEXT] [--csv F]\n",
                   argv[0]);
      return 1;
    }
  }
  use_bundled_opencl_runtime(ANYDNN_ONEDNN_ROOT);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  const double peak = gemm_gflops(2048, 2048, 2048, 3);
  const auto v = dnnl::version();
  std::printf(
      "# RNN training, fp32, linear input, 1 layer; dnnl %d.%d.%d; sgemm 2048^3 %.1f GFLOP/s\n",
      v->major, v->minor, v->patch, peak);
  std::printf("%-36s %9s %9s %6s %9s %9s %6s %8s\n", "layer", "fwd ms", "oneDNN", "ratio", "bwd ms",
              "oneDNN", "ratio", "hGEMM %");
  std::FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (out)
    std::fprintf(
        out,
        "layer,mode,anydnn_fwd_ms,onednn_fwd_ms,anydnn_bwd_ms,onednn_bwd_ms,hidden_gemm_pct\n");
  std::unordered_map<std::string, Times> ours, peer;
  for (const Shape& s : load(shapes, filter)) {
    // Both libraries' buffers at once (alternating calls) take about twice one library's
    // activations; the largest layers (GRU H=2816 T=1500: ~10 GB each) then run one library
    // after the other instead.
    const double activations_gb = 4.0 * s.N * s.T * s.H * (3.0 * gates(s.mode) + 6.0) / 1e9;
    Times a, o;
    if (activations_gb < 4.0) {
      Case ca = anydnn_case(s), co = onednn_case(s, eng);
      std::tie(a, o) = time_pair(ca, co, reps);
    } else {
      auto alone = [&](Case c) {  // the same rounds and medians, paired with a no-op
        Case none{[] {}, [] {}};
        return time_pair(c, none, reps).first;
      };
      a = alone(anydnn_case(s));
      o = alone(onednn_case(s, eng));
    }
    const double hg = step_gemm_gflops(s.N, gates(s.mode) * s.H, s.H, reps) / peak * 100.0;
    char name[64];
    std::snprintf(name, sizeof name, "%s h%d n%d t%d", s.mode.c_str(), s.H, s.N, s.T);
    std::printf("%-36s %9.2f %9.2f %6.2f %9.2f %9.2f %6.2f %7.0f%%\n", name, a.fwd, o.fwd,
                a.fwd / o.fwd, a.bwd, o.bwd, a.bwd / o.bwd, hg);
    std::fflush(stdout);
    if (out)
      std::fprintf(out, "%s,%s,%.3f,%.3f,%.3f,%.3f,%.1f\n", name, s.mode.c_str(), a.fwd, o.fwd,
                   a.bwd, o.bwd, hg);
    ours[s.mode].fwd += a.fwd;
    ours[s.mode].bwd += a.bwd;
    peer[s.mode].fwd += o.fwd;
    peer[s.mode].bwd += o.bwd;
  }
  for (const auto& [mode, t] : ours)
    std::printf(
        "TOTAL %-5s fwd anydnn %9.1f ms oneDNN %9.1f ms ratio %.3f | bwd anydnn %9.1f ms "
        "oneDNN %9.1f ms ratio %.3f\n",
        mode.c_str(), t.fwd, peer[mode].fwd, t.fwd / peer[mode].fwd, t.bwd, peer[mode].bwd,
        t.bwd / peer[mode].bwd);
  if (out) std::fclose(out);
  return 0;
}
