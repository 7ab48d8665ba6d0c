// C API: anydnn extensions (include/miopen/anydnn.h).
#include <miopen/anydnn.h>

#include <algorithm>
#include <cstring>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "conv/conv_solver.hpp"
#include "db/find_db_text.hpp"

using namespace anydnn;
using namespace anydnn::api;

extern "C" miopenStatus_t anydnnCreateWithBackend(miopenHandle_t* handle, anydnnBackend_t backend,
                                                  miopenAcceleratorQueue_t stream) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, handle, backend, stream);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(handle, "handle");
    // A C caller may pass any int; raw_enum reads it without an enum load (UB when out of range).
    const long long v = raw_enum(backend);
    ANYDNN_CHECK_BADPARM(v == anydnnBackendCpu || v == anydnnBackendCuda,
                         "backend must be anydnnBackendCpu or anydnnBackendCuda, got " << v);
    Config chosen = cfg;
    chosen.backend = v == anydnnBackendCuda ? BackendKind::Cuda : BackendKind::Cpu;
    chosen.backend_from_env = true;  // named explicitly: no default rule
    out = new HandleObject(chosen, stream);
  });
}

extern "C" miopenStatus_t anydnnGetBackend(miopenHandle_t handle, anydnnBackend_t* backend) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, backend);
  return guard(cfg, __func__, [&] {
    const BackendKind k = deref(handle).backend().kind();
    deref_out(backend, "backend") = k == BackendKind::Cuda ? anydnnBackendCuda : anydnnBackendCpu;
  });
}

extern "C" miopenStatus_t anydnnGetConvSolverName(miopenHandle_t handle, uint64_t solverId,
                                                  const char** name) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, solverId, name);
  return guard(cfg, __func__, [&] {
    const auto* e = deref(handle).backend().solvers<ConvSolver>().find(solverId);
    ANYDNN_CHECK_BADPARM(e != nullptr, "no convolution solver with id " << solverId);
    // Solver names are string literals, so the pointer outlives the handle.
    deref_out(name, "name") = e->solver->name().data();
  });
}

extern "C" miopenStatus_t anydnnGetConvSolverId(miopenHandle_t handle, const char* name,
                                                uint64_t* solverId) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, name, solverId);
  return guard(cfg, __func__, [&] {
    ANYDNN_CHECK_BADPARM(name != nullptr, "name is a null pointer");
    const auto* e = deref(handle).backend().solvers<ConvSolver>().find(std::string_view(name));
    ANYDNN_CHECK_BADPARM(e != nullptr, "no convolution solver named " << name);
    deref_out(solverId, "solverId") = e->id;
  });
}

extern "C" miopenStatus_t anydnnFindDbExport(miopenHandle_t handle, char* text, size_t* size) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, text, size);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    size_t& n = deref_out(size, "size");
    const std::string records = export_find_records(h.find_db());
    if (text == nullptr) {
      n = records.size() + 1;
      return;
    }
    ANYDNN_CHECK_BADPARM(n >= records.size() + 1, "size " << n << " is below the "
                                                          << records.size() + 1
                                                          << " bytes the records need");
    std::memcpy(text, records.c_str(), records.size() + 1);
  });
}

extern "C" miopenStatus_t anydnnFindDbImport(miopenHandle_t handle, const char* text,
                                             size_t* added) {
  const Config& cfg = config_of(handle);
  ANYDNN_LOG_API(cfg, handle, text, added);
  return guard(cfg, __func__, [&] {
    Handle& h = deref(handle);
    ANYDNN_CHECK_BADPARM(text != nullptr, "text is a null pointer");
    const size_t n = import_find_records(h.find_db(), text);
    if (added != nullptr) *added = n;
  });
}

// No guard and no log: it reports on failures and must not overwrite the record it reads.
extern "C" void anydnnGetLastErrorString(char* message, size_t max_size) {
  if (message == nullptr || max_size == 0) return;
  const std::string& e = last_error_string();
  const size_t n = std::min(e.size(), max_size - 1);
  std::memcpy(message, e.data(), n);
  message[n] = '\0';
}
