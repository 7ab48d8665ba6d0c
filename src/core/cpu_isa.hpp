// The x86 vector instruction sets the CPU kernels are built for, chosen at run time: the best
// one the CPU supports, or a lower one named by ANYDNN_CPU_ISA (for testing the fallbacks and
// for comparing them). Generic is portable C++ that any CPU runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace anydnn {

enum class CpuIsa : int { Generic = 0, Avx2 = 1, Avx512 = 2 };

// The best instruction set this CPU (and this build) supports: AVX-512 needs AVX512F/VL/DQ/BW,
// AVX2 needs AVX2, FMA and F16C.
CpuIsa best_cpu_isa();
// Every instruction set this CPU supports, lowest first (Generic is always there).
std::vector<CpuIsa> supported_cpu_isas();
const char* cpu_isa_name(CpuIsa isa);
// "avx512", "avx2", "generic" (any case).
std::optional<CpuIsa> parse_cpu_isa(const std::string& name);

}  // namespace anydnn
