// MIOpenDriver: MIOpen's benchmark and verification command line, on anydnn.
//   MIOpenDriver <base> [flags]     bases: conv, convfp16, convbfp16, convint8, bnorm,
//                                   bnormfp16, bnormfp16fp32, bnormbfp16fp32, rnn, rnnfp16,
//                                   rnn_seq, rnn_seqfp16, activ, activfp16, activbfp16,
//                                   tensorop, tensoropfp16, softmax, softmaxfp16, softmaxbfp16,
//                                   lrn, lrnfp16, pool, poolfp16, poolbfp16,
//                                   reduce, reducefp16, reducefp64 (anydnn: reducefp,
//                                   reducebfp16), ctc, CBAInfer, CBAInferfp16
#include <iostream>
#include <string>
#include <utility>

#include "activ_driver.hpp"
#include "activ_spec.hpp"
#include "bn_driver.hpp"
#include "bn_spec.hpp"
#include "cba_driver.hpp"
#include "conv_driver.hpp"
#include "ctc_driver.hpp"
#include "decode_main.hpp"
#include "lrn_driver.hpp"
#include "lrn_spec.hpp"
#include "pool_driver.hpp"
#include "pool_spec.hpp"
#include "reduce_driver.hpp"
#include "reduce_spec.hpp"
#include "rnn_driver.hpp"
#include "softmax_driver.hpp"
#include "softmax_spec.hpp"
#include "tensorop_driver.hpp"

namespace {

void print_bases() {
  std::cout << "Usage: MIOpenDriver <base> [flags]   (MIOpenDriver <base> -h lists the flags)\n"
               "Supported bases: conv, convfp16, convbfp16, convint8, bnorm, bnormfp16,\n"
               "                 bnormfp16fp32, bnormbfp16fp32, rnn, rnnfp16, rnn_seq,\n"
               "                 rnn_seqfp16, activ, activfp16, activbfp16, tensorop,\n"
               "                 tensoropfp16, softmax, softmaxfp16, softmaxbfp16, lrn,\n"
               "                 lrnfp16, reduce, reducefp16, reducefp64, reducefp, reducebfp16,\n"
               "                 pool, poolfp16, poolbfp16, ctc, CBAInfer, CBAInferfp16\n"
               "       MIOpenDriver decode [--replay] [FILE...]   (log text -> driver commands)\n";
}

}  // namespace

int main(int argc, char** argv) {
  // decode prints a table, not a run: no echo.
  if (argc >= 2 && std::string(argv[1]) == "decode") return anydnn::driver::run_decode(argc, argv);
  // MIOpenDriver echoes its command line first; logs and scripts rely on it.
  std::cout << "MIOpenDriver";
  for (int i = 1; i < argc; ++i)
    std::cout << ' ' << argv[i];
  std::cout << std::endl;

  if (argc < 2) {
    print_bases();
    return anydnn::driver::kExitUsage;
  }
  const std::string base = argv[1];
  const auto type = anydnn::driver::conv_base_type(base);
  if (base == "--help" || base == "-h") {
    print_bases();
    return 0;
  }
  // The subcommands other than conv: which bases each takes, and its entry point. An exception
  // out of one is a usage error (MIOpen's driver would abort).
  namespace drv = anydnn::driver;
  using Takes = bool (*)(const std::string&);
  using Run = int (*)(const std::string&, int, const char* const*);
  static const std::pair<Takes, Run> subcommands[] = {
      {[](const std::string& b) {
         miopenDataType_t d, p;
         return drv::bn_base_types(b, d, p);
       },
       drv::run_bn_driver},
      {[](const std::string& b) {
         miopenDataType_t t;
         return drv::activ_base_type(b, t);
       },
       drv::run_activ_driver},
      {[](const std::string& b) {
         return b == "rnn" || b == "rnnfp16" || b == "rnn_seq" || b == "rnn_seqfp16";
       },
       drv::run_rnn_driver},
      {[](const std::string& b) {
         miopenDataType_t t;
         return drv::softmax_base_type(b, t);
       },
       drv::run_softmax_driver},
      {[](const std::string& b) {
         miopenDataType_t t;
         return drv::lrn_base_type(b, t);
       },
       drv::run_lrn_driver},
      {[](const std::string& b) {
         miopenDataType_t t;
         return drv::reduce_base_type(b, t);
       },
       drv::run_reduce_driver},
      {[](const std::string& b) {
         miopenDataType_t t;
         return drv::pool_base_type(b, t);
       },
       drv::run_pool_driver},
      {[](const std::string& b) { return b == "ctc"; },
       [](const std::string&, int ac, const char* const* av) {
         return drv::run_ctc_driver(ac, av);
       }},
      {[](const std::string& b) { return drv::is_tensorop_base(b); }, drv::run_tensorop_driver},
      {[](const std::string& b) { return drv::is_cba_base(b); }, drv::run_cba_driver},
  };
  for (const auto& [takes, run] : subcommands) {
    if (!takes(base)) continue;
    try {
      return run(base, argc, argv);
    } catch (const std::exception& e) {
      std::cerr << "MIOpenDriver: " << e.what() << std::endl;
      return drv::kExitUsage;
    }
  }
  if (!type) {
    const bool later = false;
    std::cerr << "MIOpenDriver: base '" << base << "' is "
              << (later ? "not implemented yet (see docs/api-status.md)" : "not supported")
              << std::endl;
    print_bases();
    return anydnn::driver::kExitUsage;
  }
  try {
    anydnn::driver::ConvDriver driver(base, *type);
    return driver.run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "MIOpenDriver: " << e.what() << std::endl;
    return anydnn::driver::kExitUsage;
  }
}
