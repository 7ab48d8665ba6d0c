// What the CUDA MHA solvers share: device access to one (n, h) slice of a 4-D tensor of any
// type and strides, warp reductions, the amax scratch (atomicMax on the bits of non-negative
// floats, as MIOpen's kernels), the workspace carving, and the launchers of mha_kernels.cu (the
// GEMM solvers' row kernels, the scaled stores, cuBLAS's strided-batched GEMMs).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "backend/cuda/cuda_backend.hpp"
#include "backend/cuda/cuda_check.hpp"
#include "backend/cuda/cuda_types.cuh"
#include "mha/mha_math.hpp"
#include "mha/mha_problem.hpp"
#include "mha/mha_solver.hpp"

namespace anydnn::cuda::mha_cuda {

constexpr unsigned kBlock = 256;
constexpr unsigned kWarps = kBlock / 32;

// A 4-D tensor (or null) as kernels see it.
struct Tensor4 {
  void* data = nullptr;
  MhaStrides s{};
  __host__ __device__ long long at(long long n, long long h, long long r, long long c) const {
    return n * s.n + h * s.h + r * s.r + c * s.c;
  }
};

inline Tensor4 tensor4(const MhaProblem& p, const MhaBuffers& b, MhaTensor t) {
  if (!p.has(t)) return {};
  return {b.get(t), p.strides(t)};
}

// Element (n, h, r, c) of a tensor of storage type T, as float.
template <class T>
__device__ inline float ld(const Tensor4& t, long long n, long long h, long long r, long long c) {
  return load(static_cast<const T*>(t.data)[t.at(n, h, r, c)]);
}

__device__ inline float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// amax[0] = max(amax[0], v) for v >= 0: ordered non-negative floats compare as their bits.
__device__ inline void atomic_amax(float* amax, float v) {
  atomicMax(reinterpret_cast<int*>(amax), __float_as_int(v));
}

// Reduces each warp's v with warp_max and folds it into *amax (lane 0).
__device__ inline void warp_amax(float* amax, float v) {
  v = warp_max(v);
  if ((threadIdx.x & 31) == 0) atomic_amax(amax, v);
}

// The scalar tensors' pointers of a call (device memory), for kernels to load.
inline mha::ScalarPtrs scalar_ptrs(const MhaBuffers& b) {
  return b.scalars();
}

// Hands out consecutive 256-byte aligned pieces of a workspace (its base aligned up first: a
// caller may pass any pointer); with a null base it only counts. workspace_size() = used().
class Carver {
 public:
  explicit Carver(void* base)
      : base_(base == nullptr ? nullptr
                              : reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(base) + 255) &
                                                        ~uintptr_t{255})),
        used_(256) {}
  template <class T = float>
  T* take(size_t elements, size_t element_bytes = sizeof(T)) {
    const size_t at = used_ - 256;
    used_ += (elements * element_bytes + 255) / 256 * 256;
    return base_ == nullptr ? nullptr : reinterpret_cast<T*>(base_ + at);
  }
  size_t used() const { return used_; }

 private:
  char* base_;
  size_t used_;  // bytes, with the 256 the base's alignment may cost
};

// --- launchers (mha_kernels.cu) ----------------------------------------------------------------

// One operand of a row-major batched GEMM over the (n, h) slices: its type, row stride and the
// strides between slices.
struct GemmOperand {
  const void* data;
  miopenDataType_t type;
  long long ld, n_stride, h_stride;
};

// The slice-wise GEMM operand of tensor t (which must have contiguous rows).
GemmOperand gemm_operand(const MhaProblem& p, const MhaBuffers& b, MhaTensor t);
// A packed [N, H, rows, cols] workspace array.
inline GemmOperand packed_operand(const void* data, miopenDataType_t type, const MhaProblem& p,
                                  long long rows, long long cols) {
  return {data, type, cols, p.heads() * rows * cols, rows * cols};
}

// Per (n, h): row-major C[m x n] = alpha * op(A) op(B) into a packed fp32 [N, H, m, n] array;
// fp32 accumulation (no TF32). a_trans: A stored [k x m]; b_trans: B stored [n x k].
void gemm(const CudaBackend& be, const MhaProblem& p, bool a_trans, bool b_trans, long long m,
          long long n, long long k, float alpha, const GemmOperand& a, const GemmOperand& b,
          float* c);

// Forward row softmax over T (packed [N, H, Sq, Sk] fp32 logits without the descales): S into
// `s_out` (T itself for float data; a packed array of the data type otherwise), M and ZInv when
// given, max P into amax[0].
void forward_rows(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, float* t,
                  void* s_out, float* amax);

// Di = doo * sum_e dO * O per query row, into di[(n * H + h) * Sq + i].
void row_dots(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, float* di);

// Backward element pass: T (qk-less logits) becomes Pd, dP (dO V^T) becomes dS, in place for
// float data or into pd_out / ds_out of the data type; max |dS| into amax[0].
void backward_elements(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, float* t,
                       float* dp, const float* di, void* pd_out, void* ds_out, float* amax);

// Which output a scaled store writes, and so which factors it applies: value = acc * pre
// (amax of |value|), stored value * post.
enum class Output { O, DQ, DK, DV };

// Writes output `o` (its tensor's strides and type) from the packed fp32 [N, H, rows, cols]
// accumulator; max |value| into amax[0].
void scaled_store(const CudaBackend& be, const MhaProblem& p, const MhaBuffers& b, Output o,
                  const float* acc, float* amax);

// Copies the amax scratch values into the call's amax outputs (those that are not null).
void copy_amaxes(const CudaBackend& be, const MhaBuffers& b, const float* scratch,
                 std::initializer_list<MhaTensor> outputs);

}  // namespace anydnn::cuda::mha_cuda
