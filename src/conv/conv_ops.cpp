#include "conv/conv_ops.hpp"

#include <algorithm>
#include <limits>
#include <map>

#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/logger.hpp"

namespace anydnn {

namespace {

// Find timing: one cold run; if that was short, up to kMaxRuns in total within kBudgetMs, and
// the minimum of the warm runs is the solver's time (the least noisy statistic on a shared CPU).
constexpr int kMaxRuns = 5;
constexpr float kShortRunMs = 50.0f;
constexpr float kBudgetMs = 250.0f;

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

float time_invoker(Handle& handle, const ConvInvoker& invoker, const ConvBuffers& bufs) {
  Backend& backend = handle.backend();
  const float cold = backend.run_timed([&] { invoker(bufs); });
  if (cold >= kShortRunMs) return cold;
  float best = std::numeric_limits<float>::max();
  float spent = cold;
  for (int run = 1; run < kMaxRuns && spent < kBudgetMs; ++run) {
    const float t = backend.run_timed([&] { invoker(bufs); });
    best = std::min(best, t);
    spent += t;
  }
  return best == std::numeric_limits<float>::max() ? cold : best;
}

const ConvSolverEntry& solution_entry(Handle& handle, const ConvProblem& p, uint64_t id) {
  const ConvSolverEntry* e = handle.backend().conv_solvers().find(id);
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
  for (const auto& e : handle.backend().conv_solvers().entries()) {
    std::string why;
    if (!conv_solver_enabled(cfg, e, &why)) {
      ANYDNN_LOG_I2(cfg, e.solver->name() << ": disabled by " << why);
      continue;
    }
    if (p.attributes().deterministic == 1 && !e.solver->deterministic()) {
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

bool fits(Handle& handle, const ConvProblem& p, const ConvSolverEntry& e, const ConvBuffers& bufs) {
  const size_t ws = e.solver->workspace_size(handle.context(), p);
  return ws <= bufs.workspace_size && (ws == 0 || bufs.workspace != nullptr);
}

void register_found(Handle& handle, const std::string& network_config, const ConvFindEntry& e,
                    ConvInvoker invoker) {
  handle.conv_invokers().set_found(network_config, e.algorithm,
                                   CachedConvInvoker{e.solver_id, e.solver_name, e.algorithm,
                                                     e.workspace_size, std::move(invoker)});
}

// The best entry of each algorithm (entries in preference order), with invokers registered.
std::vector<ConvFindEntry> register_best_per_algorithm(Handle& handle, const ConvProblem& p,
                                                       const std::vector<ConvFindEntry>& ordered) {
  std::vector<ConvFindEntry> result;
  const auto& registry = handle.backend().conv_solvers();
  for (const auto& e : ordered) {
    const bool seen = std::any_of(result.begin(), result.end(),
                                  [&](const auto& r) { return r.algorithm == e.algorithm; });
    if (seen) continue;
    register_found(handle, p.network_config(), e,
                   registry.find(e.solver_id)->solver->make_invoker(handle.context(), p));
    result.push_back(e);
  }
  return result;
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
    if (it == solvers.end() || !fits(handle, p, **it, bufs)) continue;
    ConvFindEntry e = r;
    e.workspace_size = (*it)->solver->workspace_size(handle.context(), p);
    out.push_back(e);
  }
  return out;
}

// FAST mode without a record: MIOpen's immediate-mode fallback. Applicable solvers in registry
// (priority) order, fallbacks only when nothing else fits; nothing is timed (time -1).
std::vector<ConvFindEntry> fallback_entries(Handle& handle, const ConvProblem& p,
                                            const std::vector<const ConvSolverEntry*>& solvers,
                                            const ConvBuffers& bufs) {
  std::vector<ConvFindEntry> regular, fallback;
  for (const auto* e : solvers) {
    if (!fits(handle, p, *e, bufs)) continue;
    ConvFindEntry entry{e->id, std::string(e->solver->name()), e->solver->algorithm(), -1.0f,
                        e->solver->workspace_size(handle.context(), p)};
    (e->solver->fallback_only() ? fallback : regular).push_back(entry);
  }
  return regular.empty() ? fallback : regular;
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

std::vector<ConvFindEntry> conv_find(Handle& handle, const ConvProblem& p, const ConvBuffers& bufs,
                                     bool exhaustive_search) {
  const Config& cfg = handle.config();
  const char* fn = find_function_name(p.direction());
  // An exhaustive search always measures, like MIOPEN_FIND_MODE=NORMAL.
  const FindMode mode = exhaustive_search ? FindMode::Normal : cfg.find_mode;
  log_message(cfg, LogLevel::Info, fn,
              "problem = " + p.key() + ", workspace = " + std::to_string(bufs.workspace_size) +
                  ", find mode = " + find_mode_name(mode));
  const auto solvers = applicable_conv_solvers(handle, p);
  ANYDNN_CHECK(!solvers.empty(), miopenStatusNotImplemented,
               "no applicable solver for " << p.key()
                                           << " (MIOPEN_LOG_LEVEL=6 lists why each was rejected)");
  const std::string network_config = p.network_config();

  // FAST, HYBRID and DYNAMIC_HYBRID use a find-db record when one applies; FAST also settles
  // for the immediate-mode fallback. (DYNAMIC_HYBRID equals HYBRID here: every CPU solver takes
  // any N, H and W.)
  if (mode != FindMode::Normal) {
    if (const auto rec = handle.find_db().load(network_config)) {
      const auto usable = usable_entries(handle, p, solvers, bufs, *rec);
      if (!usable.empty()) {
        log_message(cfg, LogLevel::Info, fn,
                    std::string("using the ") + find_record_source_name(rec->source) +
                        " record: no solver timed");
        auto result = register_best_per_algorithm(handle, p, usable);
        log_chosen(cfg, fn, p, result);
        return result;
      }
    }
    if (mode == FindMode::Fast) {
      const auto fallback = fallback_entries(handle, p, solvers, bufs);
      ANYDNN_CHECK(!fallback.empty(), miopenStatusBadParm,
                   "no solver for " << p.key() << " fits in the workspace of "
                                    << bufs.workspace_size << " bytes");
      log_message(cfg, LogLevel::Info, fn,
                  "FAST: no find-db record, immediate-mode fallback: no solver timed");
      auto result = register_best_per_algorithm(handle, p, fallback);
      log_chosen(cfg, fn, p, result);
      return result;
    }
  }

  // Fallback solvers (the naive ones) are timed only when nothing else applies and fits.
  const bool have_regular = std::any_of(solvers.begin(), solvers.end(), [&](const auto* e) {
    return !e->solver->fallback_only() && fits(handle, p, *e, bufs);
  });
  std::vector<ConvFindEntry> timed;
  std::map<int, std::pair<ConvFindEntry, ConvInvoker>> best;  // per algorithm
  for (const auto* e : solvers) {
    const ConvSolver& s = *e->solver;
    const size_t ws = s.workspace_size(handle.context(), p);
    if (!fits(handle, p, *e, bufs)) {
      log_message(cfg, LogLevel::Info2, fn,
                  std::string(s.name()) + ": skipped, needs workspace " + std::to_string(ws) +
                      " > " + std::to_string(bufs.workspace == nullptr ? 0 : bufs.workspace_size));
      continue;
    }
    if (have_regular && s.fallback_only()) {
      log_message(cfg, LogLevel::Info2, fn, std::string(s.name()) + ": skipped, a fallback");
      continue;
    }
    ConvInvoker invoker = s.make_invoker(handle.context(), p);
    const float ms = time_invoker(handle, invoker, bufs);
    ConvFindEntry entry{e->id, std::string(s.name()), s.algorithm(), ms, ws};
    log_message(
        cfg, LogLevel::Info2, fn,
        std::string(s.name()) + ": " + std::to_string(ms) + " ms, workspace " + std::to_string(ws));
    timed.push_back(entry);
    const int algo = static_cast<int>(s.algorithm());
    const auto it = best.find(algo);
    if (it == best.end() || ms < it->second.first.time_ms) best[algo] = {entry, std::move(invoker)};
  }
  ANYDNN_CHECK(!timed.empty(), miopenStatusBadParm,
               "no solver for " << p.key() << " fits in the workspace of " << bufs.workspace_size
                                << " bytes; query *GetWorkSpaceSize first");

  std::vector<ConvFindEntry> result;
  for (auto& [algo, pair] : best) {
    register_found(handle, network_config, pair.first, std::move(pair.second));
    result.push_back(pair.first);
  }
  std::sort(result.begin(), result.end(),
            [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  handle.find_db().store(network_config, timed);
  log_chosen(cfg, fn, p, result);
  return result;
}

namespace {

// Runs a cached invoker and records its time. With scaling, the solver writes into scratch
// memory and the backend blends that into the output (solvers themselves only overwrite).
void run_invoker(Handle& handle, const ConvProblem& p, const CachedConvInvoker& inv,
                 const ConvBuffers& bufs, ConvScale scale) {
  check_workspace(bufs, inv.workspace_size, inv.solver_name);
  Backend& backend = handle.backend();
  if (scale.identity()) {
    handle.record_kernel_time(backend.run_timed([&] { inv.invoker(bufs); }));
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
  handle.record_kernel_time(backend.run_timed([&] {
    inv.invoker(redirected);
    backend.scale_blend(out, scratch.get(), user_out, scale.alpha, scale.beta);
  }));
}

}  // namespace

void conv_run_found(Handle& handle, const ConvProblem& p, miopenConvAlgorithm_t algo,
                    const ConvBuffers& bufs, ConvScale scale) {
  const auto inv = handle.conv_invokers().found(p.network_config(), algo);
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
  auto applicable = applicable_conv_solvers(handle, p);
  std::vector<miopenConvSolution_t> out;
  const auto record = handle.find_db().load(p.network_config());
  if (record) {
    // Measured solutions first, by time, if they still apply under this configuration.
    for (const auto& r : record->entries) {
      const bool still = std::any_of(applicable.begin(), applicable.end(),
                                     [&](const auto* e) { return e->id == r.solver_id; });
      if (still) out.push_back({r.time_ms, r.workspace_size, r.solver_id, r.algorithm});
    }
  }
  // Then every other applicable solver in registry (priority) order, time -1: not measured;
  // fallbacks last.
  std::stable_partition(applicable.begin(), applicable.end(),
                        [](const auto* e) { return !e->solver->fallback_only(); });
  for (const auto* e : applicable) {
    const bool listed =
        std::any_of(out.begin(), out.end(), [&](const auto& s) { return s.solution_id == e->id; });
    if (!listed) {
      out.push_back(
          {-1.0f, e->solver->workspace_size(handle.context(), p), e->id, e->solver->algorithm()});
    }
  }
  return out;
}

size_t conv_solution_workspace_size(Handle& handle, const ConvProblem& p, uint64_t solution_id) {
  const auto& e = solution_entry(handle, p, solution_id);
  return e.solver->workspace_size(handle.context(), p);
}

void conv_compile_solution(Handle& handle, const ConvProblem& p, uint64_t solution_id) {
  const std::string cfg = p.network_config();
  if (handle.conv_invokers().solution(cfg, solution_id)) return;
  const auto& e = solution_entry(handle, p, solution_id);
  handle.conv_invokers().set_solution(
      cfg, CachedConvInvoker{e.id, std::string(e.solver->name()), e.solver->algorithm(),
                             e.solver->workspace_size(handle.context(), p),
                             e.solver->make_invoker(handle.context(), p)});
}

void conv_run_solution(Handle& handle, const ConvProblem& p, uint64_t solution_id,
                       const ConvBuffers& bufs) {
  conv_compile_solution(handle, p, solution_id);
  const auto inv = handle.conv_invokers().solution(p.network_config(), solution_id);
  run_invoker(handle, p, *inv, bufs, ConvScale{});
}

}  // namespace anydnn
