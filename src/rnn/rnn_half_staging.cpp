#include "rnn/rnn_half_staging.hpp"

#include "backend/backend.hpp"
#include "core/errors.hpp"
#include "rnn/rnn_kernels.hpp"

namespace anydnn {

RnnHalfStaging::RnnHalfStaging(const RnnShape& s, void* workspace, Backend& backend)
    : half_(s.desc->type == miopenHalf), backend_(backend) {
  if (!half_) return;
  next_ = static_cast<float*>(workspace) + s.staging_offset_floats();
  end_ = next_ + area_floats(s);
}

size_t RnnHalfStaging::area_floats(const RnnShape& s) {
  if (s.desc->type != miopenHalf) return 0;
  return s.rows * s.input + s.desc->param_count(s.input) + s.rows * s.out_width() +
         6 * s.state_values();
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
  backend_.kernels<RnnKernels>().half_to_float(static_cast<const uint16_t*>(src), n, dst);
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
    backend_.kernels<RnnKernels>().float_to_half(p.from, p.n, p.to);
  pending_.clear();
}

}  // namespace anydnn
