#include "rnn/rnn_half_staging.hpp"

#include "core/errors.hpp"
#include "core/float_types.hpp"

namespace anydnn {

RnnHalfStaging::RnnHalfStaging(const RnnShape& s, void* workspace, bool host, int threads)
    : half_(s.desc->type == miopenHalf), threads_(threads) {
  if (!half_) return;
  ANYDNN_CHECK(host, miopenStatusNotImplemented,
               "fp16 RNNs run on the CPU backend only (fp32 staging of host buffers)");
  next_ = static_cast<float*>(workspace) + s.staging_offset_floats();
  end_ = next_ + area_floats(s);
}

size_t RnnHalfStaging::area_floats(const RnnShape& s) {
  if (s.desc->type != miopenHalf) return 0;
  const size_t state =
      static_cast<size_t>(s.desc->layers) * s.desc->dirs() * s.batch[0] * s.hidden();
  return s.rows * s.input + s.desc->param_count(s.input) + s.rows * s.out_width() + 6 * state;
}

float* RnnHalfStaging::take(size_t n) {
  ANYDNN_CHECK(next_ + n <= end_, miopenStatusInternalError, "fp16 RNN staging area overrun");
  float* p = next_;
  next_ += n;
  return p;
}

const float* RnnHalfStaging::in(const void* src, size_t n) {
  if (!half_ || src == nullptr) return static_cast<const float*>(src);
  float* dst = take(n);
  const auto* h = static_cast<const uint16_t*>(src);
#pragma omp parallel for num_threads(threads_) if (n > 65536)
  for (long i = 0; i < static_cast<long>(n); ++i)
    dst[i] = half_to_float(h[i]);
  return dst;
}

float* RnnHalfStaging::out(void* dst, size_t n) {
  if (!half_ || dst == nullptr) return static_cast<float*>(dst);
  float* slot = take(n);
  pending_.push_back({slot, static_cast<uint16_t*>(dst), n});
  return slot;
}

void RnnHalfStaging::finish() {
  for (const Pending& p : pending_) {
#pragma omp parallel for num_threads(threads_) if (p.n > 65536)
    for (long i = 0; i < static_cast<long>(p.n); ++i)
      p.to[i] = float_to_half(p.from[i]);
  }
  pending_.clear();
}

}  // namespace anydnn
