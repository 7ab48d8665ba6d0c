// The zero-padded, stride-phase-split copy of x that the "shifted" implicit-GEMM solvers read
// in place (implicit_gemm_shifted_fwd.cpp, implicit_gemm_shifted_wrw.cpp):
//   x̂[n][c][phase][i][j] = x[n][c][i*sh + a - ph][j*sw + b - pw]
// for the phases (a, b) some filter tap uses. Filter tap (c, r, s) is then the constant shift
//   koff = ((c * phases + phase(r, s)) * Hq + (r*dh) / sh) * Wq + (s*dw) / sw
// and output (oh, ow) is column q = oh * Wq + ow: im2col(x) row (c, r, s) is x̂ shifted by
// koff. Columns with ow >= OW are junk (Wq - OW of every Wq). 2-D packed NCHW only; 1x1
// unit-stride unpadded problems use x itself (no copy).
#pragma once

#include <vector>

#include "conv/conv_problem.hpp"

namespace anydnn::cpu {

struct ShiftedInput {
  long H, W, OH, OW, R, S;
  int ph, pw, sh, sw, dh, dw;
  bool copy = true;     // build x̂ (else x is read as is)
  long Hq = 0, Wq = 0;  // phase image size
  long phases_h = 1, phases_w = 1;
  std::vector<int> used_a, used_b;  // row / column phases in use
  std::vector<long> koff;           // per tap (c, r, s) of one group, c < C/G
  long channel_floats = 0;          // per channel of x̂ (all phases), or H*W without a copy
  long image_floats = 0;            // per image of x̂ (all channels), or C*H*W
  size_t xhat_floats = 0;           // the copy, all images, rounded to 16 (0 without a copy)

  explicit ShiftedInput(const ConvProblem& p);

  // Columns per image: the output grid up to the last kept column, q < (OH-1)*Wq + OW.
  long columns() const { return (OH - 1) * Wq + OW; }

  // x̂ of channel c of image n (work-share it over (n, c)); `channels` of x per image.
  void fill(const float* x, long n, long c, long channels, float* xhat) const;
};

}  // namespace anydnn::cpu
