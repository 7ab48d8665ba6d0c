#include "rnn/rnn_half_staging.hpp"

#include <algorithm>

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
  return s.rows * s.input + s.desc->param_count(s.input) + s.rows * s.out_width() +
         6 * s.state_values();
}

template <class F>
void RnnHalfStaging::in_chunks(size_t n, F&& f) const {
  constexpr size_t kChunk = 16384;
  const long chunks = static_cast<long>((n + kChunk - 1) / kChunk);
#pragma omp parallel for num_threads(threads_) if (chunks > 4)
  for (long c = 0; c < chunks; ++c) {
    const size_t i = c * kChunk;
    f(i, std::min(kChunk, n - i));
  }
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
  in_chunks(n, [&](size_t i, size_t m) { half_to_float(h + i, m, dst + i); });
  return dst;
}

float* RnnHalfStaging::out(void* dst, size_t n) {
  if (!half_ || dst == nullptr) return static_cast<float*>(dst);
  float* slot = take(n);
  pending_.push_back({slot, static_cast<uint16_t*>(dst), n});
  return slot;
}

void RnnHalfStaging::finish() {
  for (const Pending& p : pending_)
    in_chunks(p.n, [&](size_t i, size_t m) { float_to_half(p.from + i, m, p.to + i); });
  pending_.clear();
}

}  // namespace anydnn
