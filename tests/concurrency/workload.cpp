// The concurrency tests' workload (workload.hpp): public C API only, so it runs unchanged on
// CPU and CUDA handles. Errors are returned, not asserted: it runs on many threads at once, and
// the caller reports them on the test's thread.
#include "concurrency/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/config.hpp"
#include "db/find_db.hpp"
#include "db/sqlite_db.hpp"

namespace anydnn::test {

void* HostMemory::alloc(size_t bytes) {
  blocks_.push_back(std::make_unique<char[]>(bytes == 0 ? 1 : bytes));
  return blocks_.back().get();
}
void HostMemory::to_device(void* dst, const void* src, size_t bytes) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
}
void HostMemory::to_host(void* dst, const void* src, size_t bytes) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
}

WorkloadShape workload_shape(int thread, int round, unsigned seed) {
  // Distinct per (thread, round) through h: the find-db key of each Find differs. The seed
  // varies the rest from run to run.
  const int salt = static_cast<int>(seed % 7);
  WorkloadShape s{};
  s.n = 1 + (thread + round) % 2;
  s.c = 2 + (thread + salt) % 4;
  s.h = 6 + thread + 17 * round;  // up to 17 threads: (thread, round) -> its own h
  s.w = 5 + (thread * 3 + round + salt) % 7;
  s.k = 3 + (thread + 2 * round) % 4;
  s.pad = (thread + round) % 2;
  s.stride = 1 + (thread / 2 + round) % 2;
  s.rnn_batch = 1 + (thread + round) % 3;
  s.rnn_in = 3 + thread % 5;
  s.rnn_hidden = 4 + (thread + round) % 4;
  s.rnn_seq = 2 + round % 3;
  return s;
}

unsigned workload_data_seed(unsigned seed, int thread, int round) {
  return seed * 7919u + static_cast<unsigned>(thread * 131 + round);
}

std::string describe(const WorkloadShape& s) {
  std::ostringstream o;
  o << "conv n" << s.n << " c" << s.c << " " << s.h << "x" << s.w << " k" << s.k << " 3x3 p"
    << s.pad << " s" << s.stride << ", lstm b" << s.rnn_batch << " in" << s.rnn_in << " h"
    << s.rnn_hidden << " t" << s.rnn_seq;
  return o.str();
}

namespace {

// A failed call ends the workload with its name and status.
struct CallFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};
void check(miopenStatus_t st, const char* what) {
  if (st != miopenStatusSuccess)
    throw CallFailed(std::string(what) + " returned " + miopenGetErrorString(st));
}
#define CALL(expr) check((expr), #expr)

struct Desc {
  miopenTensorDescriptor_t d = nullptr;
  Desc() { CALL(miopenCreateTensorDescriptor(&d)); }
  explicit Desc(const std::vector<int>& lens) : Desc() {
    CALL(miopenSetTensorDescriptor(d, miopenFloat, static_cast<int>(lens.size()),
                                   const_cast<int*>(lens.data()), nullptr));
  }
  ~Desc() { miopenDestroyTensorDescriptor(d); }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  operator miopenTensorDescriptor_t() const { return d; }
};

size_t count(const std::vector<int>& lens) {
  size_t n = 1;
  for (int l : lens)
    n *= static_cast<size_t>(l);
  return n;
}

// A device buffer of floats with a host copy to fill it from and read it into.
struct Buf {
  Memory& mem;
  std::vector<float> host;
  float* dev;
  Buf(Memory& m, size_t n) : mem(m), host(n), dev(static_cast<float*>(m.alloc(n * 4))) {}
  void random(std::mt19937& rng, float lo = -1.0f, float hi = 1.0f) {
    std::uniform_real_distribution<float> u(lo, hi);
    for (float& v : host)
      v = u(rng);
    mem.to_device(dev, host.data(), host.size() * 4);
  }
  void fill(float v) {
    std::fill(host.begin(), host.end(), v);
    mem.to_device(dev, host.data(), host.size() * 4);
  }
  void poison() { fill(std::numeric_limits<float>::quiet_NaN()); }
  const std::vector<float>& read() {
    mem.to_host(host.data(), dev, host.size() * 4);
    return host;
  }
};

struct Conv {
  miopenConvolutionDescriptor_t d = nullptr;
  Conv(int pad, int stride) {
    CALL(miopenCreateConvolutionDescriptor(&d));
    CALL(miopenInitConvolutionDescriptor(d, miopenConvolution, pad, pad, stride, stride, 1, 1));
  }
  ~Conv() { miopenDestroyConvolutionDescriptor(d); }
  operator miopenConvolutionDescriptor_t() const { return d; }
};

void conv_part(miopenHandle_t h, Memory& mem, const WorkloadShape& s, std::mt19937& rng, bool find,
               WorkloadResult& r) {
  const std::vector<int> xl{s.n, s.c, s.h, s.w}, wl{s.k, s.c, 3, 3};
  Desc xd(xl), wd(wl);
  Conv conv(s.pad, s.stride);
  int n = 0, c = 0, oh = 0, ow = 0;
  CALL(miopenGetConvolutionForwardOutputDim(conv, xd, wd, &n, &c, &oh, &ow));
  const std::vector<int> yl{n, c, oh, ow};
  Desc yd(yl);
  Buf x(mem, count(xl)), w(mem, count(wl)), dy(mem, count(yl));
  Buf y(mem, count(yl)), dx(mem, count(xl)), dw(mem, count(wl));
  x.random(rng);
  w.random(rng);
  dy.random(rng);

  size_t ws_f = 0, ws_b = 0, ws_w = 0;
  CALL(miopenConvolutionForwardGetWorkSpaceSize(h, wd, xd, conv, yd, &ws_f));
  CALL(miopenConvolutionBackwardDataGetWorkSpaceSize(h, yd, wd, conv, xd, &ws_b));
  CALL(miopenConvolutionBackwardWeightsGetWorkSpaceSize(h, yd, xd, conv, wd, &ws_w));
  const size_t ws_bytes = std::max({ws_f, ws_b, ws_w, size_t{4}});
  void* ws = mem.alloc(ws_bytes);

  // Immediate mode: every solution of every direction, by id.
  constexpr int kMax = 32;
  miopenConvSolution_t sols[kMax];
  size_t found = 0;
  CALL(miopenConvolutionForwardGetSolution(h, wd, xd, conv, yd, kMax, &found, sols));
  for (size_t i = 0; i < found; ++i) {
    if (sols[i].workspace_size > ws_bytes) continue;
    CALL(miopenConvolutionForwardCompileSolution(h, wd, xd, conv, yd, sols[i].solution_id));
    y.poison();
    CALL(miopenConvolutionForwardImmediate(h, wd, w.dev, xd, x.dev, conv, yd, y.dev, ws, ws_bytes,
                                           sols[i].solution_id));
    r.exact["conv_fwd_solution_" + std::to_string(sols[i].solution_id)] = y.read();
  }
  CALL(miopenConvolutionBackwardDataGetSolution(h, yd, wd, conv, xd, kMax, &found, sols));
  for (size_t i = 0; i < found; ++i) {
    if (sols[i].workspace_size > ws_bytes) continue;
    CALL(miopenConvolutionBackwardDataCompileSolution(h, yd, wd, conv, xd, sols[i].solution_id));
    dx.poison();
    CALL(miopenConvolutionBackwardDataImmediate(h, yd, dy.dev, wd, w.dev, conv, xd, dx.dev, ws,
                                                ws_bytes, sols[i].solution_id));
    r.exact["conv_bwd_solution_" + std::to_string(sols[i].solution_id)] = dx.read();
  }
  CALL(miopenConvolutionBackwardWeightsGetSolution(h, yd, xd, conv, wd, kMax, &found, sols));
  for (size_t i = 0; i < found; ++i) {
    if (sols[i].workspace_size > ws_bytes) continue;
    CALL(miopenConvolutionBackwardWeightsCompileSolution(h, yd, xd, conv, wd, sols[i].solution_id));
    dw.poison();
    CALL(miopenConvolutionBackwardWeightsImmediate(h, yd, dy.dev, xd, x.dev, conv, wd, dw.dev, ws,
                                                   ws_bytes, sols[i].solution_id));
    r.exact["conv_wrw_solution_" + std::to_string(sols[i].solution_id)] = dw.read();
  }
  if (!find) return;

  // Find (default mode: measures, then stores a find-db record), then the legacy call with the
  // fastest algorithm it returned.
  const float alpha = 1.0f, beta = 0.0f;
  miopenConvAlgoPerf_t perf[8];
  int returned = 0;
  y.poison();
  CALL(miopenFindConvolutionForwardAlgorithm(h, xd, x.dev, wd, w.dev, conv, yd, y.dev, 8, &returned,
                                             perf, ws, ws_bytes, false));
  if (returned < 1) throw CallFailed("forward Find returned no algorithm");
  y.poison();
  CALL(miopenConvolutionForward(h, &alpha, xd, x.dev, wd, w.dev, conv, perf[0].fwd_algo, &beta, yd,
                                y.dev, ws, ws_bytes));
  r.found["fwd"] = y.read();
  dx.poison();
  CALL(miopenFindConvolutionBackwardDataAlgorithm(h, yd, dy.dev, wd, w.dev, conv, xd, dx.dev, 8,
                                                  &returned, perf, ws, ws_bytes, false));
  if (returned < 1) throw CallFailed("backward-data Find returned no algorithm");
  dx.poison();
  CALL(miopenConvolutionBackwardData(h, &alpha, yd, dy.dev, wd, w.dev, conv, perf[0].bwd_data_algo,
                                     &beta, xd, dx.dev, ws, ws_bytes));
  r.found["bwd"] = dx.read();
  dw.poison();
  CALL(miopenFindConvolutionBackwardWeightsAlgorithm(h, yd, dy.dev, xd, x.dev, conv, wd, dw.dev, 8,
                                                     &returned, perf, ws, ws_bytes, false));
  if (returned < 1) throw CallFailed("backward-weights Find returned no algorithm");
  dw.poison();
  CALL(miopenConvolutionBackwardWeights(h, &alpha, yd, dy.dev, xd, x.dev, conv,
                                        perf[0].bwd_weights_algo, &beta, wd, dw.dev, ws, ws_bytes));
  r.found["wrw"] = dw.read();
}

void bn_part(miopenHandle_t h, Memory& mem, const WorkloadShape& s, std::mt19937& rng,
             WorkloadResult& r) {
  const std::vector<int> xl{s.n, s.c, s.h, s.w};
  Desc xd(xl), pd;
  CALL(miopenDeriveBNTensorDescriptor(pd, xd, miopenBNSpatial));
  const size_t C = static_cast<size_t>(s.c);
  Buf x(mem, count(xl)), dy(mem, count(xl)), y(mem, count(xl)), dx(mem, count(xl));
  Buf scale(mem, C), bias(mem, C), run_mean(mem, C), run_var(mem, C), save_mean(mem, C),
      save_inv(mem, C), dscale(mem, C), dbias(mem, C);
  x.random(rng, -2.0f, 3.0f);
  dy.random(rng);
  scale.random(rng, 0.5f, 1.5f);
  bias.random(rng);
  run_mean.random(rng);
  run_var.random(rng, 0.5f, 2.0f);
  const float one = 1.0f, zero = 0.0f;
  const double eps = 1e-5;
  y.poison();
  save_mean.poison();
  save_inv.poison();
  CALL(miopenBatchNormalizationForwardTraining(
      h, miopenBNSpatial, const_cast<float*>(&one), const_cast<float*>(&zero), xd, x.dev, xd, y.dev,
      pd, scale.dev, bias.dev, 0.1, run_mean.dev, run_var.dev, eps, save_mean.dev, save_inv.dev));
  r.exact["bn_train_y"] = y.read();
  r.exact["bn_running_mean"] = run_mean.read();
  r.exact["bn_running_var"] = run_var.read();
  r.exact["bn_saved_mean"] = save_mean.read();
  r.exact["bn_saved_inv_var"] = save_inv.read();
  y.poison();
  CALL(miopenBatchNormalizationForwardInference(
      h, miopenBNSpatial, const_cast<float*>(&one), const_cast<float*>(&zero), xd, x.dev, xd, y.dev,
      pd, scale.dev, bias.dev, run_mean.dev, run_var.dev, eps));
  r.exact["bn_infer_y"] = y.read();
  dx.poison();
  dscale.poison();
  dbias.poison();
  CALL(miopenBatchNormalizationBackward(h, miopenBNSpatial, &one, &zero, &one, &zero, xd, x.dev, xd,
                                        dy.dev, xd, dx.dev, pd, scale.dev, dscale.dev, dbias.dev,
                                        eps, save_mean.dev, save_inv.dev));
  r.exact["bn_dx"] = dx.read();
  r.exact["bn_dscale"] = dscale.read();
  r.exact["bn_dbias"] = dbias.read();
}

void rnn_part(miopenHandle_t h, Memory& mem, const WorkloadShape& s, std::mt19937& rng,
              WorkloadResult& r) {
  miopenRNNDescriptor_t rnn = nullptr;
  CALL(miopenCreateRNNDescriptor(&rnn));
  struct Destroy {
    miopenRNNDescriptor_t d;
    ~Destroy() { miopenDestroyRNNDescriptor(d); }
  } destroy{rnn};
  CALL(miopenSetRNNDescriptor(rnn, s.rnn_hidden, 1, miopenRNNlinear, miopenRNNunidirection,
                              miopenLSTM, miopenRNNwithBias, miopenRNNdefault, miopenFloat));
  const int T = s.rnn_seq, B = s.rnn_batch, I = s.rnn_in, H = s.rnn_hidden;
  std::vector<std::unique_ptr<Desc>> xs, ys;
  std::vector<miopenTensorDescriptor_t> xds, yds;
  for (int t = 0; t < T; ++t) {
    xs.push_back(std::make_unique<Desc>(std::vector<int>{B, I}));
    ys.push_back(std::make_unique<Desc>(std::vector<int>{B, H}));
    xds.push_back(*xs.back());
    yds.push_back(*ys.back());
  }
  Desc hd(std::vector<int>{1, B, H}), wd;
  CALL(miopenGetRNNParamsDescriptor(h, rnn, xds[0], wd, miopenFloat));
  size_t w_bytes = 0, ws_bytes = 0, rs_bytes = 0;
  CALL(miopenGetRNNParamsSize(h, rnn, xds[0], &w_bytes, miopenFloat));
  CALL(miopenGetRNNWorkspaceSize(h, rnn, T, xds.data(), &ws_bytes));
  CALL(miopenGetRNNTrainingReserveSize(h, rnn, T, xds.data(), &rs_bytes));
  const size_t xn = static_cast<size_t>(T * B * I), yn = static_cast<size_t>(T * B * H),
               sn = static_cast<size_t>(B * H);
  Buf x(mem, xn), hx(mem, sn), cx(mem, sn), w(mem, w_bytes / 4), y(mem, yn), hy(mem, sn),
      cy(mem, sn), dy(mem, yn), dhy(mem, sn), dcy(mem, sn), dx(mem, xn), dhx(mem, sn), dcx(mem, sn),
      dw(mem, w_bytes / 4);
  void* ws = mem.alloc(ws_bytes);
  void* rs = mem.alloc(rs_bytes);
  x.random(rng);
  hx.random(rng);
  cx.random(rng);
  w.random(rng, -0.3f, 0.3f);
  dy.random(rng);
  dhy.random(rng);
  dcy.random(rng);
  y.poison();
  hy.poison();
  cy.poison();
  CALL(miopenRNNForwardTraining(h, rnn, T, xds.data(), x.dev, hd, hx.dev, hd, cx.dev, wd, w.dev,
                                yds.data(), y.dev, hd, hy.dev, hd, cy.dev, ws, ws_bytes, rs,
                                rs_bytes));
  r.exact["lstm_y"] = y.read();
  r.exact["lstm_hy"] = hy.read();
  r.exact["lstm_cy"] = cy.read();
  dx.poison();
  dhx.poison();
  dcx.poison();
  CALL(miopenRNNBackwardData(h, rnn, T, yds.data(), y.dev, yds.data(), dy.dev, hd, dhy.dev, hd,
                             dcy.dev, wd, w.dev, hd, hx.dev, hd, cx.dev, xds.data(), dx.dev, hd,
                             dhx.dev, hd, dcx.dev, ws, ws_bytes, rs, rs_bytes));
  r.exact["lstm_dx"] = dx.read();
  r.exact["lstm_dhx"] = dhx.read();
  r.exact["lstm_dcx"] = dcx.read();
  dw.poison();
  CALL(miopenRNNBackwardWeights(h, rnn, T, xds.data(), x.dev, hd, hx.dev, yds.data(), y.dev, wd,
                                dw.dev, ws, ws_bytes, rs, rs_bytes));
  r.exact["lstm_dw"] = dw.read();
}

void dropout_part(miopenHandle_t h, Memory& mem, const WorkloadShape& s, std::mt19937& rng,
                  unsigned data_seed, WorkloadResult& r) {
  const std::vector<int> xl{s.n, s.c, s.h, s.w};
  Desc xd(xl);
  miopenDropoutDescriptor_t drop = nullptr;
  CALL(miopenCreateDropoutDescriptor(&drop));
  struct Destroy {
    miopenDropoutDescriptor_t d;
    ~Destroy() { miopenDestroyDropoutDescriptor(d); }
  } destroy{drop};
  size_t state_bytes = 0, reserve_bytes = 0;
  CALL(miopenDropoutGetStatesSize(h, &state_bytes));
  CALL(miopenDropoutGetReserveSpaceSize(xd, &reserve_bytes));
  void* states = mem.alloc(state_bytes);
  void* reserve = mem.alloc(reserve_bytes);
  CALL(miopenSetDropoutDescriptor(drop, h, 0.3f, states, state_bytes, data_seed, false, false,
                                  MIOPEN_RNG_PSEUDO_XORWOW));
  Buf x(mem, count(xl)), y(mem, count(xl)), dy(mem, count(xl)), dx(mem, count(xl));
  x.random(rng);
  dy.random(rng);
  y.poison();
  CALL(miopenDropoutForward(h, drop, xd, xd, x.dev, xd, y.dev, reserve, reserve_bytes));
  r.exact["dropout_y"] = y.read();
  dx.poison();
  CALL(miopenDropoutBackward(h, drop, xd, xd, dy.dev, xd, dx.dev, reserve, reserve_bytes));
  r.exact["dropout_dx"] = dx.read();
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

WorkloadResult run_workload(miopenHandle_t h, Memory& mem, const WorkloadShape& s,
                            unsigned data_seed, bool find) {
  WorkloadResult r;
  std::mt19937 rng(data_seed);
  try {
    conv_part(h, mem, s, rng, find, r);
    bn_part(h, mem, s, rng, r);
    rnn_part(h, mem, s, rng, r);
    dropout_part(h, mem, s, rng, data_seed, r);
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

std::string compare_results(const WorkloadResult& want, const WorkloadResult& got, double rel_tol) {
  std::ostringstream o;
  if (!got.error.empty()) o << "error: " << got.error << "; ";
  for (const auto& [name, w] : want.exact) {
    const auto it = got.exact.find(name);
    if (it == got.exact.end()) {
      o << name << " missing; ";
    } else if (!same_bits(w, it->second)) {
      o << name << " differs from the single-threaded run; ";
    }
  }
  if (got.exact.size() != want.exact.size()) o << "a different set of outputs; ";
  // Find's result against the first immediate-mode solution of the same direction.
  for (const auto& [dir, out] : got.found) {
    const std::string prefix = "conv_" + dir + "_solution_";
    const auto it = want.exact.lower_bound(prefix);
    if (it == want.exact.end() || it->first.rfind(prefix, 0) != 0) {
      o << dir << ": no immediate-mode result to compare with; ";
      continue;
    }
    const std::vector<float>& ref = it->second;
    if (ref.size() != out.size()) {
      o << dir << ": size differs; ";
      continue;
    }
    double peak = 0.0, worst = 0.0;
    for (size_t i = 0; i < ref.size(); ++i) {
      peak = std::max(peak, std::fabs(static_cast<double>(ref[i])));
      const double d = std::fabs(static_cast<double>(ref[i]) - out[i]);
      worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
    }
    if (worst > rel_tol * std::max(peak, 1e-30))
      o << dir << ": Find's algorithm is " << worst << " off (peak " << peak << "); ";
  }
  return o.str();
}

namespace {

// The find-db key of one Find: MIOpenDriver's conv line (ConvProblem::make_key).
std::string find_key(const WorkloadShape& s, int direction) {
  return "conv -n " + std::to_string(s.n) + " -c " + std::to_string(s.c) + " -H " +
         std::to_string(s.h) + " -W " + std::to_string(s.w) + " -k " + std::to_string(s.k) +
         " -y 3 -x 3 -p " + std::to_string(s.pad) + " -q " + std::to_string(s.pad) + " -u " +
         std::to_string(s.stride) + " -v " + std::to_string(s.stride) +
         " -l 1 -j 1 -m conv -g 1 -F " + std::to_string(direction);
}

}  // namespace

std::string check_find_records(const std::vector<WorkloadShape>& shapes) {
  const Config& cfg = process_config();
  if (cfg.user_db_path.empty()) return "no user find-db";
  std::ostringstream o;
  std::map<std::string, std::string> problems;  // problem -> device
  for (const auto& f : std::filesystem::directory_iterator(cfg.user_db_path)) {
    const std::string path = f.path().string();
    if (!path.ends_with(".ufdb.sqlite")) continue;
    SqliteDb db(path, true, false, 60000);
    auto check = db.prepare("PRAGMA integrity_check");
    if (!check.step() || check.column_text(0) != "ok") o << path << " fails integrity_check; ";
    auto rows = db.prepare("SELECT DISTINCT problem, device FROM find_records");
    while (rows.step())
      problems[rows.column_text(0)] = rows.column_text(1);
  }
  for (const auto& s : shapes) {
    for (int dir : {1, 2, 4}) {
      const std::string key = find_key(s, dir);
      const auto it = problems.find(key);
      if (it == problems.end()) {
        o << "no record of '" << key << "' among " << problems.size() << "; ";
        continue;
      }
      FindDb db(cfg, it->second);
      const auto rec = db.load(key);
      if (!rec || rec->source != FindRecordSource::User || rec->entries.empty()) {
        o << "'" << key << "' does not load whole from the user db; ";
        continue;
      }
      for (const auto& e : rec->entries)
        if (e.solver_name.empty() || !std::isfinite(e.time_ms) || e.time_ms < 0.0f)
          o << "'" << key << "' has a broken entry (" << e.solver_name << ", " << e.time_ms
            << " ms); ";
    }
  }
  return o.str();
}

}  // namespace anydnn::test
