// The CPU kernels under the solvers, alone, for every instruction set this CPU supports:
// every SGEMM tile shape and entry point (packed B, offset B, row-offset A, packed A) on every
// edge size against a double-accumulating loop, the blocked transpose on odd sizes, the RNN gate
// loops against double math and the RNN step GEMM's grouped panels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "backend/cpu/kernels/gemm_tile.hpp"
#include "backend/cpu/kernels/rnn_gates.hpp"
#include "backend/cpu/kernels/transpose.hpp"
#include "backend/cpu/rnn/rnn_gemm.hpp"
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

// The RNN gate loops against double math on values from deep saturation to zero, on vector
// bodies and remainders, with NaN propagating.
TEST_P(CpuKernels, RnnGateLoopsMatchDoubleMath) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-12.0f, 12.0f);
  const RnnGateOps& ops = rnn_gate_ops(GetParam());
  // Sums in float as the kernels form them: only the functions' error is measured.
  auto sig = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
  for (long H : {1L, 7L, 16L, 33L, 48L}) {
    auto fill = [&](size_t count) {
      std::vector<float> v(count);
      for (float& e : v)
        e = wide(rng);
      return v;
    };
    std::vector<float> g = fill(4 * H), hp = fill(4 * H), cprev = fill(H);
    g[0] = 95.0f;                                        // beyond the exponential's clamp
    hp[H] = -1e30f;                                      // f saturates to 0
    g[2 * H + H - 1] = 1e-6f, hp[2 * H + H - 1] = 0.0f;  // tiny: relative accuracy near 0
    const std::vector<float> g0 = g;
    std::vector<float> c(H, NAN), h(H, NAN);
    ops.lstm(g.data(), hp.data(), cprev.data(), c.data(), h.data(), H);
    for (long j = 0; j < H; ++j) {
      const double i = sig(double(g0[j] + hp[j])), f = sig(double(g0[H + j] + hp[H + j]));
      const double o = sig(double(g0[2 * H + j] + hp[2 * H + j]));
      const double gg = std::tanh(double(g0[3 * H + j] + hp[3 * H + j]));
      const double cc = f * cprev[j] + i * gg;
      EXPECT_NEAR(c[j], cc, 1e-6 * (1 + std::fabs(cc))) << "lstm c, H " << H << " j " << j;
      EXPECT_NEAR(h[j], o * std::tanh(cc), 1e-6) << "lstm h, H " << H << " j " << j;
      EXPECT_NEAR(g[j], i, 1e-6 * i + 1e-30);
      EXPECT_NEAR(g[2 * H + j], o, 1e-6 * o + 1e-30);
      EXPECT_NEAR(g[3 * H + j], gg, 1e-6 * std::fabs(gg) + 1e-30);
    }
    g = g0;
    std::vector<float> hn(H, NAN);
    ops.gru(g.data(), hp.data(), cprev.data(), hn.data(), h.data(), H);
    for (long j = 0; j < H; ++j) {
      const double z = sig(double(g0[j] + hp[j])), r = sig(double(g0[H + j] + hp[H + j]));
      const double nn = std::tanh(double(g0[2 * H + j] + r * hp[2 * H + j]));
      EXPECT_EQ(hn[j], hp[2 * H + j]);
      EXPECT_NEAR(h[j], (1 - z) * nn + z * cprev[j], 2e-6 * (1 + std::fabs(cprev[j])))
          << "gru h, H " << H << " j " << j;
    }
    for (bool relu : {false, true}) {
      g = g0;
      ops.vanilla(g.data(), hp.data(), h.data(), H, relu);
      for (long j = 0; j < H; ++j) {
        const double p = double(g0[j] + hp[j]);
        EXPECT_NEAR(h[j], relu ? std::max(p, 0.0) : std::tanh(p), 1e-6 * (1 + std::fabs(p)));
      }
    }
  }
  // NaN in, NaN out (IEEE propagation: the clamps must not swallow it).
  std::vector<float> g(4, NAN), hp(4, 0.0f), cp(1, 0.0f), c(1), h(1);
  ops.lstm(g.data(), hp.data(), cp.data(), c.data(), h.data(), 1);
  EXPECT_TRUE(std::isnan(c[0]) && std::isnan(h[0]));
  // tanh saturates exactly at +-Inf and beyond the polynomial's float range (once NaN: the
  // unused polynomial overflowed and 0 * Inf leaked through the select).
  std::vector<float> big = {INFINITY, -INFINITY, 1e20f, -1e25f}, zero(4, 0.0f), th(4, NAN);
  ops.vanilla(big.data(), zero.data(), th.data(), 4, false);
  EXPECT_EQ(th, (std::vector<float>{1.0f, -1.0f, 1.0f, -1.0f}));
}

// The RNN step GEMM on packed panels (W^T or W), accumulating or not, on edge sizes.
TEST_P(CpuKernels, RnnPackedGemmMatchesReference) {
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  struct Case {
    int M, K, N;
  };
  for (const Case& t : {Case{1, 5, 7}, Case{16, 64, 1024}, Case{13, 33, 150}, Case{37, 600, 96}})
    for (bool transposed : {true, false})
      for (bool accumulate : {false, true}) {
        const long lda = t.K + 3, ldc = t.N + 5;
        const auto a = random_floats(static_cast<size_t>(t.M * lda), rng);
        // W's rows are longer than the matrix is wide (ld > width): the packing must follow ld.
        const long ldw = (transposed ? t.K : t.N) + 3;
        const auto w = random_floats(static_cast<size_t>((transposed ? t.N : t.K) * ldw), rng);
        std::vector<float> store(PackedGemmB::storage_floats(t.K, t.N) + 16);
        const PackedGemmB b(GetParam(), w.data(), ldw, t.K, t.N, transposed, store.data() + 1);
        const auto c0 = random_floats(static_cast<size_t>(t.M * ldc), rng);
        std::vector<float> c = c0;
        b.multiply(a.data(), lda, t.M, c.data(), ldc, accumulate, 2);
        for (int i = 0; i < t.M; ++i)
          for (int j = 0; j < t.N; ++j) {
            double want = accumulate ? c0[i * ldc + j] : 0.0;
            for (int k = 0; k < t.K; ++k)
              want += double(a[i * lda + k]) * (transposed ? w[j * ldw + k] : w[k * ldw + j]);
            ASSERT_NEAR(c[i * ldc + j], want, 1e-4) << t.M << "x" << t.N << "x" << t.K;
          }
      }
}

INSTANTIATE_TEST_SUITE_P(Isa, CpuKernels,
                         ::testing::Values(CpuIsa::Generic, CpuIsa::Avx2, CpuIsa::Avx512),
                         [](const auto& info) { return std::string(cpu_isa_name(info.param)); });

}  // namespace
}  // namespace anydnn::cpu
