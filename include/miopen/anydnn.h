/*
 * anydnn extensions to MIOpen's C API. Nothing in miopen.h depends on these; MIOpenDriver and
 * tools use them to name solvers the way MIOpen's driver does with its internal solver ids.
 */
#ifndef ANYDNN_GUARD_ANYDNN_H_
#define ANYDNN_GUARD_ANYDNN_H_

#include <miopen/miopen.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  anydnnBackendCpu = 0,
  anydnnBackendCuda = 1,
} anydnnBackend_t;

/* A handle on the named backend, whatever MIOPEN_BACKEND says (NotImplemented when this library
 * lacks it, NotInitialized when no GPU is usable). Host-memory clients such as the ArrayFire-style
 * API ask for anydnnBackendCpu this way. `stream` as in miopenCreateWithStream (may be NULL). */
MIOPEN_EXPORT miopenStatus_t anydnnCreateWithBackend(miopenHandle_t* handle,
                                                     anydnnBackend_t backend,
                                                     miopenAcceleratorQueue_t stream);

/* The backend a handle runs on (MIOPEN_BACKEND, docs/env-vars.md). */
MIOPEN_EXPORT miopenStatus_t anydnnGetBackend(miopenHandle_t handle, anydnnBackend_t* backend);

/* Name of a convolution solver of the handle's backend, e.g. "GemmFwdRest". The string is
 * static: it stays valid for the life of the process. */
MIOPEN_EXPORT miopenStatus_t anydnnGetConvSolverName(miopenHandle_t handle, uint64_t solverId,
                                                     const char** name);

/* Id of the convolution solver called `name` on the handle's backend (BadParm if none). */
MIOPEN_EXPORT miopenStatus_t anydnnGetConvSolverId(miopenHandle_t handle, const char* name,
                                                   uint64_t* solverId);

/* The user find-db's records for the handle's device (docs/databases.md) as text, one line per
 * timed solver ("problem<TAB>solver<TAB>solver id<TAB>algorithm<TAB>time ms<TAB>workspace bytes";
 * treat it as opaque). Two calls, as miopenGetSolutionSize / miopenSaveSolution: with `text` NULL
 * `*size` receives the bytes needed (the terminating NUL included); then `text` of `*size` bytes
 * receives them (BadParm when `*size` is too small). What a process hands to others that run the
 * same layers (the Python package's distributed tuning), instead of reading the database's
 * files itself. */
MIOPEN_EXPORT miopenStatus_t anydnnFindDbExport(miopenHandle_t handle, char* text, size_t* size);

/* Adds the records of such text to the handle's user find-db for its device; a problem it already
 * has a record of keeps its own. `added` (may be NULL) receives the number of records (problems)
 * stored. A malformed line is BadParm, and then nothing is stored. */
MIOPEN_EXPORT miopenStatus_t anydnnFindDbImport(miopenHandle_t handle, const char* text,
                                                size_t* added);

/* Why the last failing call of this thread failed: "<function>: <reason>", the reason its log
 * line gives without the "MIOpen Error: <file>:<line>:" prefix, copied into `message` (at most
 * max_size bytes with the terminating NUL; "" when no call of this thread has failed). Modelled
 * on cuDNN 9's cudnnGetLastErrorString: the record is per thread, so it needs no handle and
 * threads never see each other's errors; a later success does not clear it. Language bindings
 * use it to raise an exception that carries the reason. */
MIOPEN_EXPORT void anydnnGetLastErrorString(char* message, size_t max_size);

#ifdef __cplusplus
}
#endif

#endif /* ANYDNN_GUARD_ANYDNN_H_ */
