#include "backend/cpu/conv/shifted_input.hpp"

#include <algorithm>

namespace anydnn::cpu {

namespace {

long ceil_div(long a, long b) {
  return (a + b - 1) / b;
}

// x can be read in place when no padding, stride or filter overhang needs a copy.
bool needs_copy(const ConvProblem& p) {
  const auto& f = p.filter_size();
  const auto& in = p.in_size();
  const auto& d = p.dilations();
  return p.pads()[1] != 0 || p.pads()[2] != 0 || p.strides()[1] != 1 || p.strides()[2] != 1 ||
         (static_cast<long>(f[1]) - 1) * d[1] >= static_cast<long>(in[1]) ||
         (static_cast<long>(f[2]) - 1) * d[2] >= static_cast<long>(in[2]);
}

// Rows (columns) of a phase image: the padded input, and at least what the last output reads
// through the farthest tap (filters larger than the input read zeros there).
long phase_extent(long in, int pad, int stride, long out, long filter, int dilation) {
  return std::max(ceil_div(in + 2L * pad, stride), out + (filter - 1) * dilation / stride);
}

}  // namespace

ShiftedInput::ShiftedInput(const ConvProblem& p)
    : H(static_cast<long>(p.in_size()[1])),
      W(static_cast<long>(p.in_size()[2])),
      OH(static_cast<long>(p.out_size()[1])),
      OW(static_cast<long>(p.out_size()[2])),
      R(static_cast<long>(p.filter_size()[1])),
      S(static_cast<long>(p.filter_size()[2])),
      ph(p.pads()[1]),
      pw(p.pads()[2]),
      sh(p.strides()[1]),
      sw(p.strides()[2]),
      dh(p.dilations()[1]),
      dw(p.dilations()[2]),
      copy(needs_copy(p)) {
  // Phases a tap uses: (r*dh) mod sh for rows, (s*dw) mod sw for columns.
  std::vector<int> row_phase(static_cast<size_t>(sh), -1), col_phase(static_cast<size_t>(sw), -1);
  for (long r = 0; r < R; ++r) {
    const int a = static_cast<int>(r * dh % sh);
    if (row_phase[a] < 0) {
      row_phase[a] = static_cast<int>(used_a.size());
      used_a.push_back(a);
    }
  }
  for (long s = 0; s < S; ++s) {
    const int b = static_cast<int>(s * dw % sw);
    if (col_phase[b] < 0) {
      col_phase[b] = static_cast<int>(used_b.size());
      used_b.push_back(b);
    }
  }
  phases_h = static_cast<long>(used_a.size());
  phases_w = static_cast<long>(used_b.size());
  Hq = copy ? phase_extent(H, ph, sh, OH, R, dh) : H;
  Wq = copy ? phase_extent(W, pw, sw, OW, S, dw) : W;
  const long phases = phases_h * phases_w;
  const long c_per_group = static_cast<long>(p.in_channels() / p.groups());
  for (long c = 0; c < c_per_group; ++c)
    for (long r = 0; r < R; ++r)
      for (long s = 0; s < S; ++s) {
        const long phase = row_phase[r * dh % sh] * phases_w + col_phase[s * dw % sw];
        koff.push_back(((c * phases + phase) * Hq + r * dh / sh) * Wq + s * dw / sw);
      }
  channel_floats = phases * Hq * Wq;
  image_floats = static_cast<long>(p.in_channels()) * channel_floats;
  xhat_floats =
      copy ? static_cast<size_t>((image_floats * static_cast<long>(p.batch()) + 15) / 16 * 16) : 0;
}

void ShiftedInput::fill(const float* x, long n, long c, long channels, float* xhat) const {
  const float* src = x + (n * channels + c) * H * W;
  float* dst = xhat + n * image_floats + c * channel_floats;
  for (long pa = 0; pa < phases_h; ++pa)
    for (long pb = 0; pb < phases_w; ++pb) {
      float* plane = dst + (pa * phases_w + pb) * Hq * Wq;
      const long a = used_a[pa], b = used_b[pb];
      for (long i = 0; i < Hq; ++i) {
        float* __restrict row = plane + i * Wq;
        const long ih = i * sh + a - ph;
        if (ih < 0 || ih >= H) {
          std::fill(row, row + Wq, 0.0f);
          continue;
        }
        const float* __restrict in = src + ih * W;
        // Columns j with 0 <= j*sw + b - pw < W.
        const long lo = std::min(Wq, std::max(0L, ceil_div(pw - b, sw)));
        const long hi = std::max(lo, std::min(Wq, ceil_div(W + pw - b, sw)));
        std::fill(row, row + lo, 0.0f);
        if (sw == 1) {
          const float* s = in + lo + b - pw;
          for (long j = 0; j < hi - lo; ++j)
            row[lo + j] = s[j];
        } else {
          for (long j = lo; j < hi; ++j)
            row[j] = in[j * sw + b - pw];
        }
        std::fill(row + hi, row + Wq, 0.0f);
      }
    }
}

}  // namespace anydnn::cpu
