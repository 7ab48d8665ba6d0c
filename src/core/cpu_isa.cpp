#include "core/cpu_isa.hpp"

#include <algorithm>
#include <cctype>

#if defined(__x86_64__) && defined(ANYDNN_HAVE_X86_KERNELS)
#include <cpuid.h>
#endif

namespace anydnn {

#if defined(__x86_64__) && defined(ANYDNN_HAVE_X86_KERNELS)
namespace {
// CPUID.1:ECX.F16C directly: clang before 15 rejects __builtin_cpu_supports("f16c").
bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
}
}  // namespace
#endif

CpuIsa best_cpu_isa() {
#if defined(__x86_64__) && defined(ANYDNN_HAVE_X86_KERNELS)
  __builtin_cpu_init();
  // The AVX-512 kernels are built for the Skylake-SP subset (F, VL, DQ, BW).
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw"))
    return CpuIsa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c())
    return CpuIsa::Avx2;
#endif
  return CpuIsa::Generic;
}

std::vector<CpuIsa> supported_cpu_isas() {
  std::vector<CpuIsa> out;
  for (int i = 0; i <= static_cast<int>(best_cpu_isa()); ++i)
    out.push_back(static_cast<CpuIsa>(i));
  return out;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::Generic:
      return "generic";
    case CpuIsa::Avx2:
      return "avx2";
    case CpuIsa::Avx512:
      return "avx512";
  }
  return "unknown";
}

std::optional<CpuIsa> parse_cpu_isa(const std::string& name) {
  std::string n = name;
  std::transform(n.begin(), n.end(), n.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (CpuIsa isa : {CpuIsa::Generic, CpuIsa::Avx2, CpuIsa::Avx512})
    if (n == cpu_isa_name(isa)) return isa;
  return std::nullopt;
}

}  // namespace anydnn
