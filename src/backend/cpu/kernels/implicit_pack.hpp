// The implicit im2col matrix B of a convolution and its packer: row kk of B is a "tap" (a
// source channel and an offset), column j a position (n, od, oh, ow) of a column grid; blocks
// of B are copied from the source tensor into panels of `width` columns
// (panel[kk * width + lane]), zero outside the source and past the last column. Shared by the
// GEMM engines (conv_gemm.hpp: columns are the vector lanes; channel_gemm.hpp: columns are
// broadcast, the panel is the packed A of the tile).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace anydnn::cpu {

// One row of B: B(kk, j) = src[n][channel][od*step_d + dd][oh*step_h + dh][ow*step_w + dw], zero
// outside the source.
struct GemmTap {
  long channel = 0;
  int dd = 0, dh = 0, dw = 0;
};

// The implicit B matrix. Columns enumerate images x out_d x out_h x out_w, row-major.
struct ImplicitB {
  const float* src = nullptr;
  long image_stride = 0, channel_stride = 0;
  std::array<long, 3> dims{1, 1, 1};  // source D, H, W
  std::array<long, 3> grid{1, 1, 1};  // column grid D, H, W (per image)
  std::array<int, 3> steps{1, 1, 1};  // source step per grid step
  long images = 1;
  const GemmTap* taps = nullptr;  // rows of B, `rows` of them
  long rows = 0;

  long grid_size() const { return grid[0] * grid[1] * grid[2]; }
  long columns() const { return images * grid_size(); }
};

class ImplicitPacker {
 public:
  explicit ImplicitPacker(const ImplicitB& b);
  // Rows [k0, k0 + kc) and columns [j0, j0 + ncols) into ceil(ncols / width) panels of
  // kc x width floats at buf (panel q at buf + q * kc * width).
  void pack(long k0, int kc, long j0, long ncols, int width, float* buf);
  // The transposed block: rows [k0, k0 + kn) become the `width` (>= kn) columns of one panel,
  // columns [j0, j0 + ncols) its rows: buf[(j - j0) * width + (kk - k0)], zero past kn.
  void pack_transposed(long k0, int kn, long j0, long ncols, int width, float* buf);

 private:
  // A run of consecutive columns that share one source row (or, for a flat B, one image) and
  // one panel.
  struct Segment {
    long n, od, oh, ow;  // first column's position (flat: ow is the pixel index in the image)
    long len;
    long dst;  // offset of the run in row 0 of the packed block
  };
  void build_segments(long j0, long ncols, int kc, int width);
  // One run of row `t` into d, d[i * stride], zeros where the source is padding.
  void emit_run(const GemmTap& t, const Segment& s, float* d, long stride) const;

  const ImplicitB& b_;
  bool flat_ = false;
  std::vector<Segment> segs_;
};

// Taps of a forward convolution over x for one group: rows (c, [z,] y, x) in weight order.
std::vector<GemmTap> forward_taps(long channels, const std::array<std::size_t, 3>& filter,
                                  const std::array<int, 3>& pads,
                                  const std::array<int, 3>& dilations);

}  // namespace anydnn::cpu
