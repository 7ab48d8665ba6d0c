// Shared pieces of the benchmarks: timing, problem lists, result tables.
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "bn_spec.hpp"
#include "conv_spec.hpp"

namespace anydnn::bench {

// The PyPI oneDNN runs its CPU engine through the OpenCL CPU runtime bundled in its lib/, which
// must be named explicitly (OCL_ICD_FILENAMES, unless already set). Call before the first engine.
void use_bundled_opencl_runtime(const std::string& onednn_root);

enum class Dir { Fwd, Bwd, Wrw };
inline const char* dir_name(Dir d) {
  return d == Dir::Fwd ? "fwd" : d == Dir::Bwd ? "bwdd" : "bwdw";
}

// Wall times of `reps` calls after one warm-up, in ms, sorted.
template <class F>
std::vector<double> times_ms(F&& f, int reps) {
  f();
  std::vector<double> t;
  for (int i = 0; i < std::max(1, reps); ++i) {
    const auto s = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return t;
}

// Median wall time of `reps` calls after one warm-up, in ms.
template <class F>
double median_ms(F&& f, int reps) {
  const auto t = times_ms(f, reps);
  return t[t.size() / 2];
}

// Direct-convolution FLOPs of a layer (the usual 2 N K C/G taps out count).
double layer_flops(const driver::ConvSpec& s);
// "n4 c64 56x56 k64 3x3 p1 s1" and similar.
std::string layer_name(const driver::ConvSpec& s);
// A problem line of a shape file and how often the layer occurs in its network: the "xN" of the
// comment line right above it (shapes_resnet50.txt style), else 1.
struct Layer {
  driver::ConvSpec spec;
  int count = 1;
};
// Problem lines of a MIOpenDriver-syntax file, with -n replaced by `batch` when > 0.
std::vector<Layer> load_layers(const std::string& file, int batch);

// A shape of bench/shapes/bnorm.txt: its problem, its multiplicity in the network (the "xN" of
// the comment line above it, else 1) and its name ("n32 c64 56x56 sp"; pa: per activation).
struct BnShape {
  driver::BnSpec spec;
  int count = 1;
  std::string name;
};
std::vector<BnShape> load_bnorm_shapes(const std::string& file);

}  // namespace anydnn::bench
