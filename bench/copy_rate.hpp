// The CPU's memory ceiling for the memory-bound benchmarks: threaded copies of a buffer far larger
// than the caches, in GB/s of read + write.
#pragma once

namespace anydnn::bench {

// `streaming`: one large memcpy per thread (glibc switches to non-temporal stores at that size:
// the fastest copy it has); else 16 KiB memcpy pieces (ordinary cached stores, which also read
// each destination line before writing it). Median of `reps` after one warm-up.
double copy_gbps(int reps, bool streaming);

}  // namespace anydnn::bench
