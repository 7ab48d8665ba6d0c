// The parameter of the CPU "<Family>SolverAlone" tests: one solver under one instruction set,
// printed as "<solver> <isa>" in test names (--gtest_filter='*GemmFwdRest*' runs one solver).
#pragma once

#include <ostream>
#include <string>

#include "core/cpu_isa.hpp"

namespace anydnn::test {

struct SolverIsa {
  std::string solver;
  CpuIsa isa;
};

inline void PrintTo(const SolverIsa& c, std::ostream* os) {
  *os << c.solver << " " << cpu_isa_name(c.isa);
}

}  // namespace anydnn::test
