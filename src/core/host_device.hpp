// ANYDNN_HD marks the inline functions that the CPU code and the CUDA kernels share (the
// device-independent math of a family, written once in src/<family>/*_math.hpp): __host__
// __device__ under nvcc, nothing for the host compiler.
#pragma once

#if defined(__CUDACC__)
#define ANYDNN_HD __host__ __device__
#else
#define ANYDNN_HD
#endif
