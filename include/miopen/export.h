/* Symbol visibility for libMIOpen: only MIOPEN_EXPORT functions leave the shared library. */
#ifndef MIOPEN_GUARD_EXPORT_H_
#define MIOPEN_GUARD_EXPORT_H_

#if defined(_WIN32)
#define MIOPEN_EXPORT
#else
#define MIOPEN_EXPORT __attribute__((visibility("default")))
#endif

#endif /* MIOPEN_GUARD_EXPORT_H_ */
