// The hook through which a GEMM engine (conv_gemm, channel_gemm, shifted_gemm) hands blocks of
// its output C, once they are final (every k summed), to the solver that runs it, so that a
// fused epilogue (conv/conv_epilogue.hpp: bias, BN, activation) runs while the block is still
// in cache. The engines know nothing about what it does. Rows of C are output channels (the
// Winograd plan hands rows of one output plane: channel step 0).
#pragma once

namespace anydnn::cpu {

struct RowEpilogue {
  // `rows` rows of `cols` values, row r at c + r * ld, of output channel row0 + r * step (row0
  // counts from the first channel the engine was given).
  void (*fn)(const void* ctx, float* c, long ld, long rows, long cols, long row0,
             long step) = nullptr;
  const void* ctx = nullptr;

  explicit operator bool() const { return fn != nullptr; }
  void operator()(float* c, long ld, long rows, long cols, long row0, long step = 1) const {
    if (fn != nullptr && rows > 0 && cols > 0) fn(ctx, c, ld, rows, cols, row0, step);
  }
};

}  // namespace anydnn::cpu
