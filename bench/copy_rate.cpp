#include "copy_rate.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "bench_common.hpp"

namespace anydnn::bench {

double copy_gbps(int reps, bool streaming) {
  const size_t n = size_t{128} << 20;  // floats: 512 MiB
  std::vector<float> a(n, 1.0f), b(n, 0.0f);
  const double ms = median_ms(
      [&] {
        if (streaming) {
#pragma omp parallel
          {
            const size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
            const size_t lo = n * t / nt, hi = n * (t + 1) / nt;
            std::memcpy(&b[lo], &a[lo], sizeof(float) * (hi - lo));
          }
        } else {
#pragma omp parallel for schedule(static)
          for (long i = 0; i < static_cast<long>(n); i += 4096)
            std::memcpy(&b[i], &a[i], sizeof(float) * std::min<size_t>(4096, n - i));
        }
      },
      reps);
  return 2.0 * n * sizeof(float) / ms / 1e6;
}

}  // namespace anydnn::bench
