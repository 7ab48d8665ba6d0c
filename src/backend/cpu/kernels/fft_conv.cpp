#include "backend/cpu/kernels/fft_conv.hpp"

#include <cblas.h>
#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <mutex>
#include <vector>

namespace anydnn::cpu {

namespace {

using cfloat = std::complex<float>;

// FFTW's planner keeps process-wide state and is not thread-safe (executing plans is): plan
// creation and destruction go through this lock. It guards FFTW's globals, not ours.
std::mutex& fftw_planner_lock() {
  static std::mutex m;
  return m;
}

constexpr unsigned kFlags = FFTW_MEASURE;
constexpr int kBatch = 16;  // planes per FFTW call: contiguous frames in, contiguous spectra out

size_t round16(size_t n) {
  return (n + 15) / 16 * 16;
}

// Where frame / spectrum q of a batch starts, in floats / complex values: 64-byte steps. FFTW's
// new-array execute functions are documented for arrays with the alignment the plan was made
// on (a FFTW_MEASURE plan may pick SIMD codelets that assume it). Frames packed at Hf * Wf
// floats (odd for odd sizes) ran the single-plane plans of a last, short batch at other
// alignments; FFTW 3.3.10 gave the right results there in a probe (r2c and c2r, 52 frame
// sizes), but that is not a promise.
long frame_stride(long hf, long wf) {
  return static_cast<long>(round16(static_cast<size_t>(hf * wf)));
}
long spectrum_stride(long bins) {
  return (bins + 7) / 8 * 8;
}

// dst[j * ldd + i] = src[i * lds + j] for i < rows, j < cols, of complex values moved as
// 64-bit words. One side is a batch of at most kBatch spectra, so walking the long side in the
// outer loop keeps the short side's kBatch lines in L1.
void transpose_spectra(const std::complex<float>* src, long lds, uint64_t* dst, long ldd, long rows,
                       long cols) {
  const auto* s = reinterpret_cast<const uint64_t*>(src);
  if (rows <= cols) {
    for (long j = 0; j < cols; ++j)
      for (long i = 0; i < rows; ++i)
        dst[j * ldd + i] = s[i * lds + j];
  } else {
    for (long i = 0; i < rows; ++i)
      for (long j = 0; j < cols; ++j)
        dst[j * ldd + i] = s[i * lds + j];
  }
}

}  // namespace

// Batched r2c and c2r of kBatch contiguous frames / spectra (a smaller last batch runs the
// single-plane plans), and how many planes of each kind there are: transforms are stored
// [bin][plane], a strided layout FFTW writes slowly, so spectra go through a per-thread batch
// buffer and are transposed in and out of it.
struct FftConvPlan::Plans {
  fftwf_plan r2c = nullptr, c2r = nullptr, r2c_one = nullptr, c2r_one = nullptr;
  long planes_a = 0, planes_b = 0, planes_c = 0;
  ~Plans() {
    std::lock_guard<std::mutex> lock(fftw_planner_lock());
    for (fftwf_plan p : {r2c, c2r, r2c_one, c2r_one})
      if (p != nullptr) fftwf_destroy_plan(p);
  }
};

long FftConvPlan::fast_size(long n) {
  for (long m = std::max(1L, n);; ++m) {
    long r = m;
    for (long f : {2L, 3L, 5L, 7L})
      while (r % f == 0)
        r /= f;
    if (r == 1) return m;
  }
}

FftConvPlan::FftConvPlan(const ConvProblem& p, int threads)
    : dir_(p.direction()),
      n_(static_cast<long>(p.batch())),
      g_(static_cast<long>(p.groups())),
      h_(static_cast<long>(p.in_size()[1])),
      w_(static_cast<long>(p.in_size()[2])),
      oh_(static_cast<long>(p.out_size()[1])),
      ow_(static_cast<long>(p.out_size()[2])),
      r_(static_cast<long>(p.filter_size()[1])),
      s_(static_cast<long>(p.filter_size()[2])),
      ph_(p.pads()[1]),
      pw_(p.pads()[2]),
      threads_(std::max(1, threads)),
      plans_(std::make_unique<Plans>()) {
  c_ = static_cast<long>(p.in_channels()) / g_;
  k_ = static_cast<long>(p.out_channels()) / g_;
  // No wrap-around: the padded input (and dy placed at the origin with the filter) fit.
  hf_ = fast_size(std::max(h_ + 2L * ph_, oh_ + r_ - 1));
  wf_ = fast_size(std::max(w_ + 2L * pw_, ow_ + s_ - 1));
  bins_ = hf_ * (wf_ / 2 + 1);
  switch (dir_) {
    case ConvDirection::Forward:  // a = x, b = w, c = y
      plans_->planes_a = n_ * c_, plans_->planes_b = k_ * c_, plans_->planes_c = n_ * k_;
      break;
    case ConvDirection::BackwardData:  // a = dy, b = w, c = dx
      plans_->planes_a = n_ * k_, plans_->planes_b = k_ * c_, plans_->planes_c = n_ * c_;
      break;
    case ConvDirection::BackwardWeights:  // a = x, b = dy, c = dw
      plans_->planes_a = n_ * c_, plans_->planes_b = n_ * k_, plans_->planes_c = k_ * c_;
      break;
  }
  const int dims[2] = {static_cast<int>(hf_), static_cast<int>(wf_)};
  // Distances between a batch's frames and between its spectra (idist / odist).
  const int rdist = static_cast<int>(frame_stride(hf_, wf_));
  const int cdist = static_cast<int>(spectrum_stride(bins_));
  // FFTW_MEASURE overwrites the arrays it plans with: plan on buffers of our own, with the
  // alignment every run-time frame and spectrum has (64 bytes: frame_stride).
  float* rbuf = fftwf_alloc_real(static_cast<size_t>(rdist) * kBatch);
  fftwf_complex* cbuf = fftwf_alloc_complex(static_cast<size_t>(cdist) * kBatch);
  std::lock_guard<std::mutex> lock(fftw_planner_lock());
  for (int batch : {kBatch, 1}) {
    fftwf_plan r = fftwf_plan_many_dft_r2c(2, dims, batch, rbuf, nullptr, 1, rdist, cbuf, nullptr,
                                           1, cdist, kFlags);
    fftwf_plan c = fftwf_plan_many_dft_c2r(2, dims, batch, cbuf, nullptr, 1, cdist, rbuf, nullptr,
                                           1, rdist, kFlags);
    (batch == 1 ? plans_->r2c_one : plans_->r2c) = r;
    (batch == 1 ? plans_->c2r_one : plans_->c2r) = c;
  }
  fftwf_free(rbuf);
  fftwf_free(cbuf);
}

FftConvPlan::~FftConvPlan() = default;

size_t FftConvPlan::thread_floats() const {
  return static_cast<size_t>(frame_stride(hf_, wf_)) * kBatch +
         2 * static_cast<size_t>(spectrum_stride(bins_)) * kBatch;
}

size_t FftConvPlan::workspace_bytes() const {
  const size_t complex_floats =
      2 * static_cast<size_t>(bins_) *
      static_cast<size_t>(plans_->planes_a + plans_->planes_b + plans_->planes_c);
  return (round16(complex_floats) + static_cast<size_t>(threads_) * thread_floats()) *
             sizeof(float) +
         64;
}

void FftConvPlan::run(void* xv, void* wv, void* yv, void* workspace) const {
  const Plans& pl = *plans_;
  const auto base = reinterpret_cast<uintptr_t>(workspace);
  cfloat* a = reinterpret_cast<cfloat*>((base + 63) / 64 * 64);
  cfloat* b = a + bins_ * pl.planes_a;
  cfloat* c = b + bins_ * pl.planes_b;
  float* reals = reinterpret_cast<float*>(a) +
                 round16(2 * static_cast<size_t>(bins_) *
                         static_cast<size_t>(pl.planes_a + pl.planes_b + pl.planes_c));
  const float* x = static_cast<const float*>(xv);
  const float* w = static_cast<const float*>(wv);
  float* y = static_cast<float*>(yv);
  const long real = hf_ * wf_;
  const long fstride = frame_stride(hf_, wf_), sstride = spectrum_stride(bins_);
  const float scale = 1.0f / static_cast<float>(real);
  const long in_plane = h_ * w_, out_plane = oh_ * ow_, filter_plane = r_ * s_;

  // Which planes feed a and b, where they sit in the Hf x Wf frame, and where c goes.
  struct Source {
    const float* data;
    long rows, cols, top, left;
    // Plane j of this group's set: its first element.
    long group_offset, image_stride, plane_stride;
    long per_image;  // planes per image (j = image * per_image + index)
  };
  const bool fwd = dir_ == ConvDirection::Forward, bwd = dir_ == ConvDirection::BackwardData;
  const long cg = c_, kg = k_;
  // x planes of group g: n * C + g * cg + c; dy planes: n * K + g * kg + k; w: (g*kg + k)*cg + c.
  const Source xs{x, h_, w_, ph_, pw_, cg * in_plane, g_ * cg * in_plane, in_plane, cg};
  const Source dys{y, oh_, ow_, 0, 0, kg * out_plane, g_ * kg * out_plane, out_plane, kg};
  const Source ws{w, r_, s_, 0, 0, kg * cg * filter_plane, 0, filter_plane, kg * cg};
  const Source& sa = fwd ? xs : bwd ? dys : xs;
  const Source& sb = fwd ? ws : bwd ? ws : dys;

#pragma omp parallel num_threads(threads_)
  {
    float* frames = reals + static_cast<size_t>(omp_get_thread_num()) * thread_floats();
    cfloat* spectra = reinterpret_cast<cfloat*>(frames + fstride * kBatch);
    // Planes [j0, j0 + count) of a source -> frames -> spectra -> out[bin][plane].
    const auto forward = [&](const Source& src, long planes, cfloat* out, long g) {
      const long batches = (planes + kBatch - 1) / kBatch;
#pragma omp for schedule(static)
      for (long bi = 0; bi < batches; ++bi) {
        const long j0 = bi * kBatch, count = std::min<long>(kBatch, planes - j0);
        for (long q = 0; q < count; ++q) {
          const long j = j0 + q, img = j / src.per_image, idx = j % src.per_image;
          const float* plane =
              src.data + src.group_offset * g + img * src.image_stride + idx * src.plane_stride;
          float* frame = frames + q * fstride;
          std::fill(frame, frame + real, 0.0f);
          for (long i = 0; i < src.rows; ++i)
            std::copy(plane + i * src.cols, plane + (i + 1) * src.cols,
                      frame + (i + src.top) * wf_ + src.left);
        }
        fftwf_plan plan = count == kBatch ? pl.r2c : pl.r2c_one;
        for (long q = 0; q < (count == kBatch ? 1 : count); ++q)
          fftwf_execute_dft_r2c(plan, frames + q * fstride,
                                reinterpret_cast<fftwf_complex*>(spectra + q * sstride));
        transpose_spectra(spectra, sstride, reinterpret_cast<uint64_t*>(out) + j0, planes, count,
                          bins_);
      }
    };
    for (long g = 0; g < g_; ++g) {
      forward(sa, pl.planes_a, a, g);
      forward(sb, pl.planes_b, b, g);
      // One complex GEMM per frequency bin; OpenBLAS runs single-threaded inside the region.
      const float one[2] = {1.0f, 0.0f}, zero[2] = {0.0f, 0.0f};
#pragma omp for schedule(static)
      for (long f = 0; f < bins_; ++f) {
        const cfloat* af = a + f * pl.planes_a;
        const cfloat* bf = b + f * pl.planes_b;
        cfloat* cf = c + f * pl.planes_c;
        const int n = static_cast<int>(n_), cc = static_cast<int>(cg), kk = static_cast<int>(kg);
        if (fwd)  // Y (N x K) = X (N x C) * W^H (C x K)
          cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasConjTrans, n, kk, cc, one, af, cc, bf, cc,
                      zero, cf, kk);
        else if (bwd)  // DX (N x C) = DY (N x K) * W (K x C)
          cblas_cgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, cc, kk, one, af, kk, bf, cc,
                      zero, cf, cc);
        else  // DW (K x C) = DY^H (K x N) * X (N x C)
          cblas_cgemm(CblasRowMajor, CblasConjTrans, CblasNoTrans, kk, cc, n, one, bf, kk, af, cc,
                      zero, cf, cc);
      }
      // Back to space, cropped and scaled, into the direction's output.
      const long batches = (pl.planes_c + kBatch - 1) / kBatch;
#pragma omp for schedule(static)
      for (long bi = 0; bi < batches; ++bi) {
        const long j0 = bi * kBatch, count = std::min<long>(kBatch, pl.planes_c - j0);
        transpose_spectra(c + j0, pl.planes_c, reinterpret_cast<uint64_t*>(spectra), sstride, bins_,
                          count);
        fftwf_plan plan = count == kBatch ? pl.c2r : pl.c2r_one;
        for (long q = 0; q < (count == kBatch ? 1 : count); ++q)
          fftwf_execute_dft_c2r(plan, reinterpret_cast<fftwf_complex*>(spectra + q * sstride),
                                frames + q * fstride);
        for (long q = 0; q < count; ++q) {
          const long j = j0 + q;
          const float* frame = frames + q * fstride;
          float* dst;
          long rows, cols, top, left;
          if (fwd) {
            dst = y + (j / kg) * g_ * kg * out_plane + (g * kg + j % kg) * out_plane;
            rows = oh_, cols = ow_, top = 0, left = 0;
          } else if (bwd) {
            dst = static_cast<float*>(xv) + (j / cg) * g_ * cg * in_plane +
                  (g * cg + j % cg) * in_plane;
            rows = h_, cols = w_, top = ph_, left = pw_;
          } else {
            dst = static_cast<float*>(wv) + (g * kg * cg + j) * filter_plane;
            rows = r_, cols = s_, top = 0, left = 0;
          }
          for (long i = 0; i < rows; ++i) {
            const float* from = frame + (i + top) * wf_ + left;
            for (long v = 0; v < cols; ++v)
              dst[i * cols + v] = from[v] * scale;
          }
        }
      }
    }
  }
}

}  // namespace anydnn::cpu
