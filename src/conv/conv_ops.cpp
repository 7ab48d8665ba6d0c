#include "conv/conv_ops.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "conv/conv_invoker_cache.hpp"
#include "conv/conv_kernels.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace anydnn {

namespace {

// Find timing: one cold run; if that was short, up to kMaxRuns in total within kBudgetMs, and
// the minimum of the warm runs is the solver's time (the least noisy statistic on a shared CPU).
// On a GPU the cold run is never the answer: CUDA loads kernels on first use and cuBLAS picks
// its kernels on the first call of a shape, which made a 0.8 ms GEMM solver's first run slower
// than a 52 ms direct one (issue [gpu-truth]).
constexpr int kMaxRuns = 5;
constexpr float kShortRunMs = 50.0f;
constexpr float kBudgetMs = 250.0f;
// Find's default (non-exhaustive) mode times only the solvers whose cost model predicts at most
// this multiple of the best prediction (solvers without a model are always timed). The models
// are within 2x of measured times on the validated layer sets (docs/find-and-heuristics.md).
constexpr double kCandidateFactor = 4.0;

const char* direction_tag(ConvDirection d) {
  switch (d) {
    case ConvDirection::Forward:
      return "FW";
    case ConvDirection::BackwardData:
      return "BWD";
    case ConvDirection::BackwardWeights:
      return "BWrW";
  }
  return "?";
}

const char* find_function_name(ConvDirection d) {
  switch (d) {
    case ConvDirection::Forward:
      return "FindConvFwdAlgorithm";
    case ConvDirection::BackwardData:
      return "FindConvBwdDataAlgorithm";
    case ConvDirection::BackwardWeights:
      return "FindConvBwdWeightsAlgorithm";
  }
  return "FindConv";
}

const ConvSolverEntry& solution_entry(Handle& handle, const ConvProblem& p, uint64_t id) {
  const ConvSolverEntry* e = handle.backend().solvers<ConvSolver>().find(id);
  ANYDNN_CHECK_BADPARM(e != nullptr, "solution id " << id << " is not a solver of this backend");
  const auto ok = e->solver->applicable(handle.context(), p);
  ANYDNN_CHECK_BADPARM(ok.ok, "solution " << id << " (" << e->solver->name()
                                          << ") does not apply to " << p.key() << ": "
                                          << ok.reason);
  return *e;
}

void check_workspace(const ConvBuffers& bufs, size_t needed, std::string_view solver) {
  ANYDNN_CHECK_BADPARM(bufs.workspace_size >= needed,
                       "workspace of " << bufs.workspace_size << " bytes is too small: " << solver
                                       << " needs " << needed);
  ANYDNN_CHECK_BADPARM(needed == 0 || bufs.workspace != nullptr, "workspace pointer is null but "
                                                                     << solver << " needs "
                                                                     << needed << " bytes");
}

}  // namespace

float find_time_ms(Handle& handle, const std::function<void()>& run) {
  Backend& backend = handle.backend();
  const bool lazy = backend.kind() == BackendKind::Cuda;
  const float cold = backend.run_timed(run);
  if (cold >= kShortRunMs && !lazy) return cold;
  float best = std::numeric_limits<float>::max();
  float spent = lazy ? 0.0f : cold;  // the budget counts warm runs only on a GPU
  for (int i = 1; i < kMaxRuns && (i == 1 || spent < kBudgetMs); ++i) {
    const float t = backend.run_timed(run);
    best = std::min(best, t);
    spent += t;
  }
  return best == std::numeric_limits<float>::max() ? cold : best;
}

std::string conv_db_key(const Handle& handle, const ConvProblem& p) {
  return conv_db_key(handle.config(), p);
}

std::string conv_db_key(const Config& config, const ConvProblem& p) {
  std::string key = p.network_config();
  // TF32 changes an fp32 convolution's numerics and its solver set (the tensor-core solvers
  // join); a deterministic descriptor leaves the non-deterministic solvers out. A record timed
  // under one setting says nothing about the other.
  if (p.data_type() == miopenFloat && config.conv_allow_tf32) key += " tf32";
  // The 3xTF32 solvers join strict fp32's set only when allowed.
  if (p.data_type() == miopenFloat && config.conv_allow_3xtf32) key += " 3xtf32";
  if (p.attributes().deterministic == 1) key += " deterministic";
  return key;
}

bool conv_solver_enabled(const Config& config, const ConvSolverEntry& entry, std::string* why) {
  const auto set_why = [&](const std::string& s) {
    if (why != nullptr) *why = s;
    return false;
  };
  if (!config.find_only_solver.empty()) {
    const std::string id = std::to_string(entry.id);
    if (config.find_only_solver != entry.solver->name() && config.find_only_solver != id)
      return set_why("MIOPEN_DEBUG_FIND_ONLY_SOLVER=" + config.find_only_solver);
  }
  switch (entry.solver->algorithm()) {
    case miopenConvolutionAlgoGEMM:
      if (!config.conv_gemm_enabled) return set_why("MIOPEN_DEBUG_CONV_GEMM=0");
      break;
    case miopenConvolutionAlgoDirect:
      if (!config.conv_direct_enabled) return set_why("MIOPEN_DEBUG_CONV_DIRECT=0");
      break;
    case miopenConvolutionAlgoFFT:
      if (!config.conv_fft_enabled) return set_why("MIOPEN_DEBUG_CONV_FFT=0");
      break;
    case miopenConvolutionAlgoWinograd:
      if (!config.conv_winograd_enabled) return set_why("MIOPEN_DEBUG_CONV_WINOGRAD=0");
      break;
    case miopenConvolutionAlgoImplicitGEMM:
      if (!config.conv_implicit_gemm_enabled) return set_why("MIOPEN_DEBUG_CONV_IMPLICIT_GEMM=0");
      break;
  }
  return true;
}

std::vector<const ConvSolverEntry*> applicable_conv_solvers(Handle& handle, const ConvProblem& p) {
  std::vector<const ConvSolverEntry*> result;
  const Config& cfg = handle.config();
  for (const auto& e : handle.backend().solvers<ConvSolver>().entries()) {
    std::string why;
    if (!conv_solver_enabled(cfg, e, &why)) {
      ANYDNN_LOG_I2(cfg, e.solver->name() << ": disabled by " << why);
      continue;
    }
    if (p.attributes().deterministic == 1 && !e.solver->deterministic(p)) {
      ANYDNN_LOG_I2(cfg, e.solver->name() << ": not deterministic");
      continue;
    }
    const Applicability a = e.solver->applicable(handle.context(), p);
    if (!a) {
      ANYDNN_LOG_I2(cfg, e.solver->name() << ": not applicable: " << a.reason);
      continue;
    }
    result.push_back(&e);
  }
  return result;
}

size_t conv_workspace_size(Handle& handle, const ConvProblem& p) {
  size_t ws = 0;
  for (const auto* e : applicable_conv_solvers(handle, p))
    ws = std::max(ws, e->solver->workspace_size(handle.context(), p));
  return ws;
}

namespace {

size_t usable_workspace(const ConvBuffers& bufs) {
  return bufs.workspace == nullptr ? 0 : bufs.workspace_size;
}

// Whether the solver can run in the caller's workspace (a tuned solver: its least hungry
// configuration).
bool fits(Handle& handle, const ConvProblem& p, const ConvSolverEntry& e, const ConvBuffers& bufs) {
  const size_t ws = e.solver->least_workspace_size(handle.context(), p);
  return ws <= bufs.workspace_size && (ws == 0 || bufs.workspace != nullptr);
}

// The params a solver runs with where nothing was measured (empty for untuned solvers), and the
// workspace they need.
std::string untimed_params(Handle& handle, const ConvProblem& p, const ConvSolver& s,
                           size_t workspace_limit) {
  return s.tuned() ? s.default_params(handle.context(), p, workspace_limit) : std::string();
}
size_t params_workspace(Handle& handle, const ConvProblem& p, const ConvSolver& s,
                        const std::string& params) {
  return s.tuned() ? s.tuned_workspace_size(handle.context(), p, params)
                   : s.workspace_size(handle.context(), p);
}
ConvInvoker params_invoker(Handle& handle, const ConvProblem& p, const ConvSolver& s,
                           const std::string& params) {
  return s.tuned() ? s.make_tuned_invoker(handle.context(), p, params)
                   : s.make_invoker(handle.context(), p);
}

// The params immediate mode runs a solution with: its find-db entry's (what a Find measured),
// else the solver's default within the workspace it reports.
std::string solution_params(Handle& handle, const ConvProblem& p, const ConvSolverEntry& e) {
  if (!e.solver->tuned()) return {};
  if (const auto record = handle.find_db().load(conv_db_key(handle, p)))
    for (const auto& r : record->entries)
      if (r.solver_id == e.id && !r.params.empty()) return r.params;
  return untimed_params(handle, p, *e.solver, e.solver->workspace_size(handle.context(), p));
}

// The algorithm Find reports a solver under, in the direction's own enum. MIOpen's
// miopenConvBwdWeightsAlgorithm_t has no FFT value (GEMM 0, Direct 1, Winograd 3,
// ImplicitGEMM 5), so the FFT weights solver (FftWrw: batched products in the frequency
// domain) competes in, and is reported and run under, the GEMM slot; immediate mode still lists
// it with miopenConvolutionAlgoFFT, a value of miopenConvAlgorithm_t (docs/adding-a-solver.md).
miopenConvAlgorithm_t find_algorithm(const ConvSolver& s, ConvDirection d) {
  if (d == ConvDirection::BackwardWeights && s.algorithm() == miopenConvolutionAlgoFFT)
    return miopenConvolutionAlgoGEMM;
  return s.algorithm();
}

struct Ranked {
  const ConvSolverEntry* entry;
  double estimate_ms;  // negative: the solver has no cost model
};

// The solvers in the order immediate mode lists them without a find-db record: regular solvers
// by their cost model's prediction (those without a model after them, in registry order), then
// the fallbacks in registry order. MIOpen orders its immediate-mode fallback by GetWti.
std::vector<Ranked> rank_by_model(Handle& handle, const ConvProblem& p,
                                  const std::vector<const ConvSolverEntry*>& solvers) {
  std::vector<Ranked> out;
  for (const auto* e : solvers)
    out.push_back({e, e->solver->estimated_ms(handle.context(), p)});
  std::stable_sort(out.begin(), out.end(), [](const Ranked& a, const Ranked& b) {
    const bool fa = a.entry->solver->fallback_only(), fb = b.entry->solver->fallback_only();
    if (fa != fb) return fb;  // regular before fallback
    const bool ma = a.estimate_ms >= 0, mb = b.estimate_ms >= 0;
    if (ma != mb) return ma;  // modelled before unmodelled
    return ma && a.estimate_ms < b.estimate_ms;
  });
  return out;
}

void register_found(Handle& handle, const std::string& network_config, const ConvFindEntry& e,
                    ConvInvoker invoker) {
  handle.family_state<ConvInvokerCache>().set_found(
      network_config, e.algorithm,
      CachedConvInvoker{e.solver_id, e.solver_name, e.algorithm, e.workspace_size,
                        std::move(invoker)});
}

// A find-db record's entries that still apply (solver known, enabled, applicable, fits the
// workspace), fastest first.
std::vector<ConvFindEntry> usable_entries(Handle& handle, const ConvProblem& p,
                                          const std::vector<const ConvSolverEntry*>& solvers,
                                          const ConvBuffers& bufs, const FindRecord& rec) {
  std::vector<ConvFindEntry> out;
  for (const auto& r : rec.entries) {
    const auto it = std::find_if(solvers.begin(), solvers.end(),
                                 [&](const auto* e) { return e->id == r.solver_id; });
    if (it == solvers.end()) continue;
    ConvFindEntry e = r;
    e.workspace_size = params_workspace(handle, p, *(*it)->solver, r.params);
    if (e.workspace_size > usable_workspace(bufs)) continue;
    e.algorithm = find_algorithm(*(*it)->solver, p.direction());
    out.push_back(e);
  }
  return out;
}

// FAST mode without a record: MIOpen's immediate-mode fallback. Applicable solvers in immediate
// mode's order (rank_by_model), fallbacks only when nothing else fits; nothing is timed (time
// -1).
std::vector<ConvFindEntry> fallback_entries(Handle& handle, const ConvProblem& p,
                                            const std::vector<const ConvSolverEntry*>& solvers,
                                            const ConvBuffers& bufs) {
  std::vector<ConvFindEntry> regular, fallback;
  for (const Ranked& r : rank_by_model(handle, p, solvers)) {
    const ConvSolverEntry* e = r.entry;
    if (!fits(handle, p, *e, bufs)) continue;
    std::string params = untimed_params(handle, p, *e->solver, usable_workspace(bufs));
    ConvFindEntry entry{e->id,
                        std::string(e->solver->name()),
                        find_algorithm(*e->solver, p.direction()),
                        -1.0f,
                        params_workspace(handle, p, *e->solver, params),
                        std::move(params)};
    (e->solver->fallback_only() ? fallback : regular).push_back(entry);
  }
  return regular.empty() ? fallback : regular;
}

// The solvers Find times: every regular solver that fits (an exhaustive search), or in the
// default mode those whose cost model predicts at most kCandidateFactor times the best
// prediction, plus those without a model. The fallbacks only when no regular solver fits.
std::vector<const ConvSolverEntry*> find_candidates(Handle& handle, const ConvProblem& p,
                                                    const std::vector<const ConvSolverEntry*>& all,
                                                    const ConvBuffers& bufs, bool exhaustive,
                                                    const char* fn, bool& workspace_skipped) {
  const Config& cfg = handle.config();
  std::vector<Ranked> fitting;
  workspace_skipped = false;
  for (const auto& r : rank_by_model(handle, p, all)) {
    if (fits(handle, p, *r.entry, bufs)) {
      fitting.push_back(r);
      continue;
    }
    workspace_skipped = true;
    log_message(cfg, LogLevel::Info2, fn,
                std::string(r.entry->solver->name()) + ": skipped, needs workspace " +
                    std::to_string(r.entry->solver->least_workspace_size(handle.context(), p)) +
                    " > " + std::to_string(bufs.workspace == nullptr ? 0 : bufs.workspace_size));
  }
  const bool have_regular = std::any_of(fitting.begin(), fitting.end(), [](const Ranked& r) {
    return !r.entry->solver->fallback_only();
  });
  double best = -1.0;
  for (const auto& r : fitting)
    if (r.estimate_ms >= 0 && !r.entry->solver->fallback_only() &&
        (best < 0 || r.estimate_ms < best))
      best = r.estimate_ms;
  std::vector<const ConvSolverEntry*> out;
  for (const auto& r : fitting) {
    const std::string name(r.entry->solver->name());
    if (have_regular && r.entry->solver->fallback_only()) {
      log_message(cfg, LogLevel::Info2, fn, name + ": skipped, a fallback");
      continue;
    }
    if (!exhaustive && best >= 0 && r.estimate_ms > kCandidateFactor * best) {
      log_message(cfg, LogLevel::Info2, fn,
                  name + ": not timed, predicted " + std::to_string(r.estimate_ms) +
                      " ms against the best prediction " + std::to_string(best) +
                      " ms (an exhaustive search times it)");
      continue;
    }
    out.push_back(r.entry);
  }
  return out;
}

void log_chosen(const Config& cfg, const char* fn, const ConvProblem& p,
                const std::vector<ConvFindEntry>& result) {
  for (const auto& r : result) {
    log_message(cfg, LogLevel::Info, fn,
                std::string(algorithm_name(r.algorithm, p.direction())) + " " +
                    std::to_string(r.time_ms) + " " + std::to_string(r.workspace_size));
  }
  const auto& chosen = result.front();
  log_message(cfg, LogLevel::Info, fn,
              std::string(direction_tag(p.direction())) +
                  " Chosen Algorithm: " + chosen.solver_name + " , " +
                  std::to_string(chosen.workspace_size) + ", " + std::to_string(chosen.time_ms));
}

}  // namespace

namespace {

// One search: every solver a find-db record lists or Find timed, fastest first, with the
// invokers built on the way (empty where none was built: record and fallback entries).
struct FindOutcome {
  std::vector<ConvFindEntry> entries;
  std::vector<ConvInvoker> invokers;
};

FindOutcome find_outcome(Handle& handle, const ConvProblem& p, const ConvBuffers& bufs,
                         bool exhaustive_search, const char* fn) {
  const Config& cfg = handle.config();
  // An exhaustive search always measures, like MIOPEN_FIND_MODE=NORMAL.
  const FindMode mode = exhaustive_search ? FindMode::Normal : cfg.find_mode;
  log_message(cfg, LogLevel::Info, fn,
              "problem = " + p.key() + ", workspace = " + std::to_string(bufs.workspace_size) +
                  ", find mode = " + find_mode_name(mode));
  const auto solvers = applicable_conv_solvers(handle, p);
  ANYDNN_CHECK(!solvers.empty(), miopenStatusNotImplemented,
               "no applicable solver for " << p.key()
                                           << " (MIOPEN_LOG_LEVEL=6 lists why each was rejected)");
  const std::string network_config = conv_db_key(handle, p);
  const auto untimed = [](std::vector<ConvFindEntry> entries) {
    FindOutcome o;
    o.invokers.resize(entries.size());
    o.entries = std::move(entries);
    return o;
  };

  // FAST, HYBRID and DYNAMIC_HYBRID use a find-db record when one applies; FAST also settles
  // for the immediate-mode fallback. (DYNAMIC_HYBRID equals HYBRID here: every CPU solver takes
  // any N, H and W.)
  if (mode != FindMode::Normal) {
    if (const auto rec = handle.find_db().load(network_config)) {
      auto usable = usable_entries(handle, p, solvers, bufs, *rec);
      if (!usable.empty()) {
        log_message(cfg, LogLevel::Info, fn,
                    std::string("using the ") + find_record_source_name(rec->source) +
                        " record: no solver timed");
        return untimed(std::move(usable));
      }
    }
    if (mode == FindMode::Fast) {
      auto fallback = fallback_entries(handle, p, solvers, bufs);
      ANYDNN_CHECK(!fallback.empty(), miopenStatusBadParm,
                   "no solver for " << p.key() << " fits in the workspace of "
                                    << bufs.workspace_size << " bytes");
      log_message(cfg, LogLevel::Info, fn,
                  "FAST: no find-db record, immediate-mode fallback: no solver timed");
      return untimed(std::move(fallback));
    }
  }

  // Fallback solvers (the naive ones) are timed only when nothing else applies and fits.
  FindOutcome timed;
  bool workspace_skipped = false;
  for (const auto* e :
       find_candidates(handle, p, solvers, bufs, exhaustive_search, fn, workspace_skipped)) {
    const ConvSolver& s = *e->solver;
    // A tuned solver picks its configuration first: by timing them all in an exhaustive
    // search (MIOpen's exhaustiveSearch tunes its solvers too), else its default.
    std::string params;
    if (s.tuned()) {
      params = exhaustive_search ? s.search(handle.context(), p, bufs)
                                 : untimed_params(handle, p, s, usable_workspace(bufs));
      log_message(
          cfg, LogLevel::Info2, fn,
          std::string(s.name()) + (exhaustive_search ? ": searched, " : ": default, ") + params);
    }
    const size_t ws = params_workspace(handle, p, s, params);
    ConvInvoker invoker = params_invoker(handle, p, s, params);
    const float ms = find_time_ms(handle, [&] { invoker(bufs); });
    log_message(
        cfg, LogLevel::Info2, fn,
        std::string(s.name()) + ": " + std::to_string(ms) + " ms, workspace " + std::to_string(ws));
    timed.entries.push_back({e->id, std::string(s.name()), find_algorithm(s, p.direction()), ms, ws,
                             std::move(params)});
    timed.invokers.push_back(std::move(invoker));
  }
  ANYDNN_CHECK(!timed.entries.empty(), miopenStatusBadParm,
               "no solver for " << p.key() << " fits in the workspace of " << bufs.workspace_size
                                << " bytes; query *GetWorkSpaceSize first");
  // A search that left solvers out for lack of workspace is not the problem's answer: the
  // record stays as it was (MIOpen's default, MIOPEN_FIND_CONV_INSUFFICIENT_WORKSPACE_ALLOW_
  // FINDDB_UPDATE unset), so a later Find with enough workspace still times them.
  if (workspace_skipped)
    log_message(cfg, LogLevel::Info, fn,
                "find-db not updated: solvers were skipped for lack of workspace");
  else
    handle.find_db().store(network_config, timed.entries);

  // Fastest first; stable, so equal times keep the candidates' order.
  std::vector<size_t> order(timed.entries.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return timed.entries[a].time_ms < timed.entries[b].time_ms;
  });
  FindOutcome sorted;
  for (size_t i : order) {
    sorted.entries.push_back(timed.entries[i]);
    sorted.invokers.push_back(std::move(timed.invokers[i]));
  }
  return sorted;
}

}  // namespace

std::vector<ConvFindEntry> conv_find(Handle& handle, const ConvProblem& p, const ConvBuffers& bufs,
                                     bool exhaustive_search) {
  const char* fn = find_function_name(p.direction());
  FindOutcome found = find_outcome(handle, p, bufs, exhaustive_search, fn);
  // The fastest entry of each algorithm, with its invoker registered for the legacy run calls.
  const std::string network_config = conv_db_key(handle, p);
  const auto& registry = handle.backend().solvers<ConvSolver>();
  std::vector<ConvFindEntry> result;
  for (size_t i = 0; i < found.entries.size(); ++i) {
    const ConvFindEntry& e = found.entries[i];
    const bool seen = std::any_of(result.begin(), result.end(),
                                  [&](const auto& r) { return r.algorithm == e.algorithm; });
    if (seen) continue;
    ConvInvoker invoker =
        found.invokers[i]
            ? std::move(found.invokers[i])
            : params_invoker(handle, p, *registry.find(e.solver_id)->solver, e.params);
    register_found(handle, network_config, e, std::move(invoker));
    result.push_back(e);
  }
  log_chosen(handle.config(), fn, p, result);
  return result;
}

std::vector<ConvFindEntry> conv_find_solvers(Handle& handle, const ConvProblem& p,
                                             const ConvBuffers& bufs, bool exhaustive_search,
                                             const char* function) {
  FindOutcome found = find_outcome(handle, p, bufs, exhaustive_search, function);
  const std::string network_config = conv_db_key(handle, p);
  const auto& registry = handle.backend().solvers<ConvSolver>();
  for (size_t i = 0; i < found.entries.size(); ++i) {
    if (!found.invokers[i]) continue;  // built on first run (conv_compile_solution)
    const ConvFindEntry& e = found.entries[i];
    const ConvSolver& s = *registry.find(e.solver_id)->solver;
    handle.family_state<ConvInvokerCache>().set_solution(
        network_config, CachedConvInvoker{e.solver_id, e.solver_name, s.algorithm(),
                                          e.workspace_size, std::move(found.invokers[i])});
  }
  return found.entries;
}

namespace {

// Runs a cached invoker and records its time. With scaling, the solver writes into scratch
// memory and the backend blends that into the output (solvers themselves only overwrite).
void run_invoker(Handle& handle, const ConvProblem& p, const CachedConvInvoker& inv,
                 const ConvBuffers& bufs, ConvScale scale) {
  check_workspace(bufs, inv.workspace_size, inv.solver_name);
  Backend& backend = handle.backend();
  if (scale.identity()) {
    handle.record_kernel_time(handle.run_primitive([&] { inv.invoker(bufs); }));
    return;
  }
  const TensorDescriptor& out = p.direction() == ConvDirection::Forward        ? p.y()
                                : p.direction() == ConvDirection::BackwardData ? p.x()
                                                                               : p.w();
  ANYDNN_CHECK(is_float_like(out.type()), miopenStatusNotImplemented,
               "alpha/beta scaling of a " << data_type_name(out.type())
                                          << " convolution output is not supported");
  DeviceBuffer scratch = backend.allocate(out.num_bytes());
  ConvBuffers redirected = bufs;
  void** target = p.direction() == ConvDirection::Forward        ? &redirected.y
                  : p.direction() == ConvDirection::BackwardData ? &redirected.x
                                                                 : &redirected.w;
  void* const user_out = *target;
  *target = scratch.get();
  handle.record_kernel_time(handle.run_primitive([&] {
    inv.invoker(redirected);
    backend.kernels<const ConvKernels>().scale_blend(out, scratch.get(), user_out, scale.alpha,
                                                     scale.beta);
  }));
}

}  // namespace

void conv_run_found(Handle& handle, const ConvProblem& p, miopenConvAlgorithm_t algo,
                    const ConvBuffers& bufs, ConvScale scale) {
  const auto inv = handle.family_state<ConvInvokerCache>().found(conv_db_key(handle, p), algo);
  // MIOpen's wording and status (UnknownError), which clients grep for.
  ANYDNN_CHECK(inv.has_value(), miopenStatusUnknownError,
               "No invoker was registered for convolution "
                   << (p.direction() == ConvDirection::Forward        ? "forward"
                       : p.direction() == ConvDirection::BackwardData ? "backward data"
                                                                      : "backward weights")
                   << " with " << algorithm_name(algo, p.direction()) << " on " << p.key()
                   << ". Was find executed?");
  run_invoker(handle, p, *inv, bufs, scale);
}

std::vector<miopenConvSolution_t> conv_solutions(Handle& handle, const ConvProblem& p) {
  const auto applicable = applicable_conv_solvers(handle, p);
  std::vector<miopenConvSolution_t> out;
  const auto record = handle.find_db().load(conv_db_key(handle, p));
  if (record) {
    // Measured solutions first, by time, if they still apply under this configuration.
    // The solver's own algorithm, as without a record (the record keeps Find's per-direction
    // value, GEMM for the FFT weights solver).
    for (const auto& r : record->entries) {
      const auto it = std::find_if(applicable.begin(), applicable.end(),
                                   [&](const auto* e) { return e->id == r.solver_id; });
      if (it != applicable.end())
        out.push_back({r.time_ms, r.workspace_size, r.solver_id, (*it)->solver->algorithm()});
    }
  }
  // Then every other applicable solver by its cost model's prediction (rank_by_model), which
  // is also the time reported for it, as MIOpen reports a GetWti-based time for its fallback;
  // -1 for solvers without a model. Fallbacks last.
  // (No structured binding: clang before 16 cannot capture one in the lambda below.)
  for (const Ranked& r : rank_by_model(handle, p, applicable)) {
    const ConvSolverEntry* e = r.entry;
    const double estimate = r.estimate_ms;
    const bool listed =
        std::any_of(out.begin(), out.end(), [&](const auto& s) { return s.solution_id == e->id; });
    if (!listed) {
      out.push_back({estimate >= 0 ? static_cast<float>(estimate) : -1.0f,
                     params_workspace(handle, p, *e->solver, solution_params(handle, p, *e)), e->id,
                     e->solver->algorithm()});
    }
  }
  return out;
}

size_t conv_solution_workspace_size(Handle& handle, const ConvProblem& p, uint64_t solution_id) {
  const auto& e = solution_entry(handle, p, solution_id);
  return params_workspace(handle, p, *e.solver, solution_params(handle, p, e));
}

void conv_compile_solution(Handle& handle, const ConvProblem& p, uint64_t solution_id) {
  const std::string cfg = conv_db_key(handle, p);
  if (handle.family_state<ConvInvokerCache>().solution(cfg, solution_id)) return;
  const auto& e = solution_entry(handle, p, solution_id);
  const std::string params = solution_params(handle, p, e);
  handle.family_state<ConvInvokerCache>().set_solution(
      cfg, CachedConvInvoker{e.id, std::string(e.solver->name()), e.solver->algorithm(),
                             params_workspace(handle, p, *e.solver, params),
                             params_invoker(handle, p, *e.solver, params)});
}

void conv_run_solution(Handle& handle, const ConvProblem& p, uint64_t solution_id,
                       const ConvBuffers& bufs) {
  conv_compile_solution(handle, p, solution_id);
  const auto inv =
      handle.family_state<ConvInvokerCache>().solution(conv_db_key(handle, p), solution_id);
  run_invoker(handle, p, *inv, bufs, ConvScale{});
}

}  // namespace anydnn
