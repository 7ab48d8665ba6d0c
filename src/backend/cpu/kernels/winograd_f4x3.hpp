// Winograd F(4x4, 3x3) for 2-D convolution with 3x3 filters, unit stride and dilation (Lavin &
// Gray 2015): each 4x4 output tile is A^T [ (G g G^T) . (B^T d B) ] A over its 6x6 input patch,
// 36 multiplies per tile and channel instead of 144. Per block of tiles:
//   V[xi][c][tile] = B^T d B      input transform, vectorized across tiles (lanes)
//   M[xi] = U[xi] (K x C) V[xi]   36 independent GEMMs on the SGEMM tiles of gemm_tile.hpp
//   y = A^T M A                   output transform, vectorized across tiles
// with U[xi][k][c] = G g G^T computed once per call. Tiles are numbered (n, tile row, tile
// column) over the whole batch, so small feature maps still fill every vector lane.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/row_epilogue.hpp"

namespace anydnn::cpu {

// One vector of tiles (up to 16 lanes): where each lane's 6x6 input patch and 4x4 output tile
// start (offsets from channel 0 of image 0) and which of their elements exist (bit per lane;
// padding and the ragged right/bottom edges are masked off).
struct WinogradLaneGroup {
  int32_t in_off[16];
  int32_t out_off[16];
  uint16_t in_mask[36];   // element (i, j) of the patch: bit lane
  uint16_t out_mask[16];  // element (u, v) of the output tile
};

// Per instruction set: the input and output transforms of one lane group.
struct WinogradTransforms {
  int lanes = 8;
  // For channels c in [0, channels): reads x + c * chan_stride + in_off + i * row + j and writes
  // V(xi, c) for the group's lanes at v + xi * xi_stride + c * c_stride.
  void (*input)(const float* x, const WinogradLaneGroup& g, long chan_stride, long row,
                long channels, float* v, long xi_stride, long c_stride) = nullptr;
  // For rows k in [0, rows): reads M(xi, k) at m + xi * xi_stride + k * k_stride and writes the
  // 4x4 tiles to y + k * chan_stride + out_off + u * row + v.
  void (*output)(const float* m, long xi_stride, long k_stride, long rows,
                 const WinogradLaneGroup& g, float* y, long chan_stride, long row) = nullptr;
  // U = G g G^T of `count` (<= lanes) filters at w + l * lane_stride (rotated by 180 degrees
  // when `flip`), written to u + xi * xi_stride + l.
  void (*weights)(const float* w, long lane_stride, int count, bool rotate, float* u,
                  long xi_stride) = nullptr;
};

const WinogradTransforms& winograd_transforms(CpuIsa isa);
const WinogradTransforms& winograd_transforms_generic();
const WinogradTransforms& winograd_transforms_avx2();
const WinogradTransforms& winograd_transforms_avx512();

// U[xi][r][c] = G g G^T of the filters g = w[r][c] (rows x cols x 3x3, rotated by 180 degrees
// when `rotate`), for rows [r0, r1), vectorized over c; U rows are `ldu` floats apart. Forward
// filters are (K x C); backward data transforms the rotated (K x C) filters and transposes each
// of the 36 planes into (C x K), dx being the forward convolution of dy with those.
void winograd_f4x3_weights(const WinogradTransforms& tr, const float* w, long rows, long cols,
                           bool rotate, long r0, long r1, float* u, long ldu);

// Geometry and blocking of one Winograd convolution (per group): the "input" is x (forward) or
// dy (backward data), the "output" y or dx, always with a 3x3 filter and unit stride.
class WinogradF4x3Plan {
 public:
  // `transposed_u`: U[xi] is stored in x in (in_channels x out_channels) instead of
  // out x in (backward data keeps the filters' own K x C order, no transpose needed).
  WinogradF4x3Plan(CpuIsa isa, long batch, long in_channels, long out_channels, long in_h,
                   long in_w, long out_h, long out_w, int pad_h, int pad_w, long in_image,
                   long out_image, int threads, bool transposed_u = false);

  int threads() const { return tm_ * tn_; }
  const WinogradTransforms& transforms() const { return *tr_; }
  long ldu() const { return ldu_; }
  size_t u_floats() const {
    return 36 * static_cast<size_t>(transposed_u_ ? in_c_ : out_c_) * static_cast<size_t>(ldu_);
  }
  size_t thread_floats() const { return thread_floats_; }

  // Thread t's share: tiles of its blocks, output channels of its share. `u` holds the
  // transformed filters of this group (36 x out x in, or 36 x in x out transposed); x and y
  // point at channel 0 of the group
  // in image 0 (image strides as given to the constructor). `epilogue` gets the output of each
  // block of tiles right after its output transform (rows of one plane: channel step 0,
  // channels numbered within the group).
  void run(int t, const float* x, const float* u, float* y, float* scratch,
           const RowEpilogue& epilogue = {}) const;

 private:
  // The epilogue on tiles [t0, t0 + count) of output channels [k0, k1).
  void apply_epilogue(const RowEpilogue& epilogue, long t0, long count, long k0, long k1,
                      float* y) const;

  const WinogradTransforms* tr_;
  GemmTileShape tile_;
  long in_c_, out_c_, in_h_, in_w_, out_h_, out_w_;
  bool transposed_u_;
  long ldu_;  // row length of U[xi] (padded_lda of its columns)
  long out_image_ = 0;
  long tiles_ = 0;
  long block_ = 0;  // tiles per block: a multiple of the tile width nr
  int kc_ = 0;
  int tm_ = 1, tn_ = 1;
  size_t thread_floats_ = 0;
  std::shared_ptr<const std::vector<WinogradLaneGroup>> groups_;
};

}  // namespace anydnn::cpu
