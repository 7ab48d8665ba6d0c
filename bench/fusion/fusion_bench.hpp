// Pieces of bench/fusion (fusion_vs_onednn): one row of results and the two halves, the
// convolution chains (fusion_conv_cases.cpp) and BN + ReLU (fusion_bn_cases.cpp).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace anydnn::bench {

// One case: anydnn's fusion plan, the same operators called one by one through anydnn's API,
// and oneDNN's fused primitive; ms are medians.
struct FusionRow {
  std::string set, name, chain;
  int count = 1;
  double fused = 0, unfused = 0, peer = 0;
};

struct FusionOptions {
  int reps = 11;
  bool onednn_blocked = true;  // oneDNN in its own layouts (conv, spatial BN), reorders untimed
  std::string filter;
};

// conv + bias + ReLU and conv + BN inference + ReLU on every layer of `layers`.
std::vector<FusionRow> run_conv_chains(const std::vector<Layer>& layers, dnnl::engine& eng,
                                       const FusionOptions& o);
// BN (inference, training forward, backward) + ReLU on every shape of the bnorm shape file.
std::vector<FusionRow> run_bn_chains(const std::string& shape_file, dnnl::engine& eng,
                                     const FusionOptions& o);

}  // namespace anydnn::bench
