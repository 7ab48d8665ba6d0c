// The CPU kernels under the solvers, alone, for every instruction set this CPU supports:
// every SGEMM tile shape and entry point (packed B, offset B, row-offset A, packed A) on every
// edge size
// against a double-accumulating loop, and the blocked transpose on odd sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/transpose.hpp"
#include "common_test_util.hpp"
#include "core/cpu_isa.hpp"

namespace anydnn::cpu {
namespace {

std::vector<float> random_floats(size_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& e : v)
    e = u(rng);
  return v;
}

class CpuKernels : public ::testing::TestWithParam<CpuIsa> {
 protected:
  void SetUp() override {
    if (static_cast<int>(GetParam()) > static_cast<int>(best_cpu_isa()))
      GTEST_SKIP() << "this CPU lacks " << cpu_isa_name(GetParam());
  }
};

TEST_P(CpuKernels, GemmTilesMatchReferenceOnEveryEdge) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  const GemmTiles& tiles = gemm_tiles(GetParam());
  ASSERT_GE(tiles.count, 1);
  for (int s = 0; s < tiles.count; ++s) {
    const GemmTileShape& t = tiles.shapes[s];
    SCOPED_TRACE(std::to_string(t.mr) + "x" + std::to_string(t.nr));
    for (int kc : {1, 7, 64, 600}) {
      for (int m : {1, t.mr / 2 + 1, t.mr}) {
        for (int n : {1, t.nr - 5, t.nr}) {
          const long lda = kc + 3, ldc = t.nr + 9, ldb_off = t.nr + 5;
          auto a = random_floats(static_cast<size_t>(t.mr * lda), rng);
          // Packed panel (64-byte aligned), columns past n hold junk that must not leak.
          std::vector<float, std::allocator<float>> storage(static_cast<size_t>(kc * t.nr + 16));
          float* bp = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) /
                                               64 * 64);
          auto bvals = random_floats(static_cast<size_t>(kc * t.nr), rng);
          std::copy(bvals.begin(), bvals.end(), bp);
          // The same B as shifted rows: row k at koff[k] of one array, exactly n readable.
          std::vector<long> koff(kc);
          std::vector<float> bflat(static_cast<size_t>(kc * ldb_off));
          for (int k = 0; k < kc; ++k) {
            koff[k] = k * ldb_off;
            std::copy(bp + k * t.nr, bp + k * t.nr + n, bflat.begin() + koff[k]);
          }
          std::vector<long> aoff(t.mr);
          for (int i = 0; i < t.mr; ++i)
            aoff[i] = i * lda;
          // The same A transposed with a leading dimension of mr + 2: exactly m rows readable.
          const long ldt = t.mr + 2;
          std::vector<float> ap(static_cast<size_t>(kc * ldt));
          for (int k = 0; k < kc; ++k)
            for (int i = 0; i < t.mr; ++i)
              ap[k * ldt + i] = a[i * lda + k];
          const auto c0 = random_floats(static_cast<size_t>(t.mr * ldc), rng);
          for (bool acc : {false, true}) {
            std::vector<double> want(static_cast<size_t>(t.mr * ldc));
            for (int i = 0; i < t.mr; ++i)
              for (int j = 0; j < ldc; ++j) {
                double v = c0[i * ldc + j];
                if (i < m && j < n) {
                  double sum = 0;
                  for (int k = 0; k < kc; ++k)
                    sum += static_cast<double>(a[i * lda + k]) * bp[k * t.nr + j];
                  v = acc ? v + sum : sum;
                }
                want[i * ldc + j] = v;
              }
            const auto check = [&](const std::vector<float>& c, const char* entry) {
              for (size_t e = 0; e < want.size(); ++e)
                ASSERT_NEAR(c[e], want[e], 1e-4 * (1 + std::abs(want[e])))
                    << entry << " kc " << kc << " m " << m << " n " << n << " acc " << acc
                    << " element " << e;
            };
            auto c = c0;
            t.fn(kc, a.data(), lda, bp, c.data(), ldc, m, n, acc);
            check(c, "packed");
            c = c0;
            t.offset_fn(kc, a.data(), lda, bflat.data(), koff.data(), c.data(), ldc, m, n, acc);
            check(c, "offset");
            c = c0;
            t.arows_fn(kc, a.data(), aoff.data(), bp, c.data(), ldc, m, n, acc);
            check(c, "arows");
            c = c0;
            t.packed_a_fn(kc, ap.data(), ldt, bp, c.data(), ldc, m, n, acc);
            check(c, "packed_a");
          }
        }
      }
    }
  }
}

TEST_P(CpuKernels, TransposeOddSizes) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  for (auto [rows, cols] : {std::pair{1L, 1L}, {16L, 16L}, {33L, 47L}, {8L, 100L}, {70L, 3L}}) {
    const long lds = cols + 5, ldd = rows + 7;
    const auto src = random_floats(static_cast<size_t>(rows * lds), rng);
    std::vector<float> dst(static_cast<size_t>(cols * ldd), -7.0f);
    transpose(GetParam(), src.data(), lds, dst.data(), ldd, rows, cols);
    for (long j = 0; j < cols; ++j)
      for (long i = 0; i < ldd; ++i)
        ASSERT_EQ(dst[j * ldd + i], i < rows ? src[i * lds + j] : -7.0f)
            << rows << "x" << cols << " at " << j << "," << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, CpuKernels,
                         ::testing::Values(CpuIsa::Generic, CpuIsa::Avx2, CpuIsa::Avx512),
                         [](const auto& info) { return std::string(cpu_isa_name(info.param)); });

}  // namespace
}  // namespace anydnn::cpu
