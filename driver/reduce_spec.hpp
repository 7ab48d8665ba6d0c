// A reduction as MIOpenDriver's reduce flags describe it, shared by the driver, the log decoder
// and the tests. Flags and defaults as MIOpen's driver/reduce_driver.hpp: -D DimLengths
// "100,60,16,240", -R DimsToReduce "0,2", -O ReduceOp "0,2" (read as an integer: 0, ADD), -C
// CompType 1 (float), -N NanPropagation 0, -I IndicesUsed "0,1" (read as 0), -A alpha 1.0, -B
// beta 0.0, -F forw 1 (unused, as in MIOpen), -i iter 1, -V verify 1, -t time 0, -w wall 0, -o
// dump_output 0, -d in_data "". Bases: MIOpen's reduce (float), reducefp16 (half data, -C
// compute type) and reducefp64 (double, compute type double whatever -C says), and anydnn's
// reducefp (the float base MIOpen's LogCmdRedux prints, which MIOpen's driver lacks, so its
// logged lines replay) and reducebfp16.
#pragma once

#include <miopen/miopen.h>

#include <optional>
#include <string>
#include <vector>

#include "input_flags.hpp"

namespace anydnn::driver {

struct ReduceSpec {
  std::string base = "reduce";
  miopenDataType_t type = miopenFloat;
  std::vector<int> lens;  // A's lengths
  std::vector<int> red;   // the dimensions -R names
  int op = 0, comp = 1, nan = 0, indices = 0;
  double alpha = 1.0, beta = 0.0;

  // C's lengths: A's with every reduced dimension 1.
  std::vector<int> out_lens() const;
  // MIOpen's need_indices: -I 1 with MIN, MAX or AMAX (the driver then runs alpha 1, beta 0).
  bool needs_indices() const { return indices == 1 && (op == 2 || op == 3 || op == 4); }
};

bool reduce_base_type(const std::string& base, miopenDataType_t& type);

void add_reduce_flags(InputFlags& flags);
// Reads the flags into `spec` (whose base and type are set); an error message, or nullopt.
std::optional<std::string> reduce_spec_from_flags(const InputFlags& flags, ReduceSpec& spec);
std::optional<std::string> parse_reduce_line(const std::string& line, ReduceSpec& spec);
// The problem as driver arguments in LogCmdRedux's order ("reducefp -A 1 -B 0 -C 1 -D 4,5 -I 0
// -N 0 -O 0 -R 1"; -R lists every dimension of length 1 in C, as MIOpen's line does).
std::string to_reduce_driver_args(const ReduceSpec& spec);

// The command for a miopenReduceTensor API-call block: A's and C's lengths and the
// reduceTensorDesc value, as anydnn's trace prints it ("{op 3, compType 1, nanOpt 0, indices 1,
// indicesType 0}") or as MIOpen's does (its operator<< over several lines, which the decoder
// joins: "ReduceTensor Descriptor : Reduction Operation Type : 3 Reduction CompType : 1
// NanPropagation Option : 0 Indices Option : 1"). The data type is not in the block: the
// command is `reduce` (float). alpha / beta are host pointers the trace does not dereference:
// 1 and 0 are assumed.
std::optional<std::string> reduce_block_command(const std::vector<int>& a_lens,
                                                const std::vector<int>& c_lens,
                                                const std::string& desc_value, std::string* error);

}  // namespace anydnn::driver
