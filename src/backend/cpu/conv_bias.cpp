// Convolution bias on the CPU, for any strides (NCHW, NHWC, ...) and float types. One (n, k)
// plane per task forward; one channel per task backward, summed in double so that long
// reductions (N * H * W terms) keep their precision. Also the CPU's ConvKernels (bias, the
// result blend of tensor_ops.cpp and the fused epilogue's fold, conv/epilogue_fold.hpp).
#include <memory>

#include "backend/cpu/cpu_types.hpp"
#include "backend/cpu/tensor_ops.hpp"
#include "conv/conv_kernels.hpp"
#include "conv/epilogue_fold.hpp"

namespace anydnn::cpu {

namespace {

// The spatial positions of one (n, k) plane as offsets: d, h, w strides and lengths.
struct Plane {
  std::array<size_t, 3> len{1, 1, 1};
  std::array<size_t, 3> stride{0, 0, 0};
  explicit Plane(const TensorDescriptor& t) {
    const auto& l = t.lens();
    const auto& s = t.strides();
    const size_t first = 5 - l.size();  // 4-D tensors have no depth
    for (size_t i = 2; i < l.size(); ++i) {
      len[first + i - 2] = l[i];
      stride[first + i - 2] = s[i];
    }
  }
  template <class F>
  void for_each(F&& f) const {
    for (size_t d = 0; d < len[0]; ++d)
      for (size_t h = 0; h < len[1]; ++h)
        for (size_t w = 0; w < len[2]; ++w)
          f(d * stride[0] + h * stride[1] + w * stride[2]);
  }
};

template <class T>
void bias_fwd(const TensorDescriptor& bd, const T* b, const TensorDescriptor& yd, T* y, float alpha,
              float beta, int threads) {
  const Plane plane(yd);
  const long n_count = static_cast<long>(yd.lens()[0]), k_count = static_cast<long>(yd.lens()[1]);
  const size_t b_stride = bd.strides()[1];
#pragma omp parallel for collapse(2) num_threads(threads)
  for (long n = 0; n < n_count; ++n) {
    for (long k = 0; k < k_count; ++k) {
      const float bias = to_float(b[static_cast<size_t>(k) * b_stride]);
      T* base = y + n * yd.strides()[0] + k * yd.strides()[1];
      plane.for_each([&](size_t off) {
        const float v = to_float(base[off]);
        base[off] = from_float<T>(alpha * (v + bias) + beta * v);
      });
    }
  }
}

template <class T>
void bias_bwd(const TensorDescriptor& dyd, const T* dy, const TensorDescriptor& dbd, T* db,
              float alpha, float beta, int threads) {
  const Plane plane(dyd);
  const long n_count = static_cast<long>(dyd.lens()[0]);
  const long k_count = static_cast<long>(dyd.lens()[1]);
  const size_t db_stride = dbd.strides()[1];
#pragma omp parallel for num_threads(threads)
  for (long k = 0; k < k_count; ++k) {
    double sum = 0.0;
    for (long n = 0; n < n_count; ++n) {
      const T* base = dy + n * dyd.strides()[0] + k * dyd.strides()[1];
      plane.for_each([&](size_t off) { sum += to_float(base[off]); });
    }
    T& out = db[static_cast<size_t>(k) * db_stride];
    const double old = beta == 0.0f ? 0.0 : to_float(out);  // beta = 0 ignores NaN garbage
    out = from_float<T>(static_cast<float>(alpha * sum + beta * old));
  }
}

class CpuConvKernels final : public ConvKernels {
 public:
  explicit CpuConvKernels(int threads) : threads_(threads) {}
  void bias_forward(const TensorDescriptor& b_desc, const void* b, const TensorDescriptor& y_desc,
                    void* y, float alpha, float beta) const override {
    dispatch_float_type(y_desc.type(), [&](auto tag) {
      using T = decltype(tag);
      bias_fwd<T>(b_desc, static_cast<const T*>(b), y_desc, static_cast<T*>(y), alpha, beta,
                  threads_);
    });
  }
  void bias_backward(const TensorDescriptor& dy_desc, const void* dy,
                     const TensorDescriptor& db_desc, void* db, float alpha,
                     float beta) const override {
    dispatch_float_type(dy_desc.type(), [&](auto tag) {
      using T = decltype(tag);
      bias_bwd<T>(dy_desc, static_cast<const T*>(dy), db_desc, static_cast<T*>(db), alpha, beta,
                  threads_);
    });
  }
  void scale_blend(const TensorDescriptor& desc, const void* src, void* dst, float alpha,
                   float beta) const override {
    cpu::scale_blend(desc, src, dst, alpha, beta, threads_);
  }
  // Host memory: the fold reads the parameters in place (no copies).
  bool fold_epilogue(const EpilogueFold& fold, float* scale, float* shift) const override {
    fold_epilogue_host(fold, scale, shift);
    return true;
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<ConvKernels> make_conv_kernels(int threads) {
  return std::make_unique<CpuConvKernels>(threads);
}

}  // namespace anydnn::cpu
