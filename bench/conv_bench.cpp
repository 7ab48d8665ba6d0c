// Convolution benchmark (not a test): measures this machine's SGEMM rate and anydnn's forward
// convolution on a list of layers, in one process, and prints each layer's time and its rate as
// a fraction of SGEMM. Times are medians over --reps runs after one warm-up.
//
//   conv_bench [--shapes FILE] [--batch N] [--reps R] [--algo best|gemm|direct]
//
// FILE holds MIOpenDriver lines (shared/cases/shapes_resnet50.txt works); --batch overrides -n.
#include <cblas.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "conv_spec.hpp"
#include "host_buffer.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double time_ms(F&& f, int reps) {
  f();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto s = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - s).count());
  }
  return median(t);
}

double sgemm_gflops(int reps) {
  const int n = 2048;
  std::vector<float> a(static_cast<size_t>(n) * n, 1.0f), b(a), c(a);
  const double ms = time_ms(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                    n, 0.0f, c.data(), n);
      },
      reps);
  return 2.0 * n * n * n / ms / 1e6;
}

// "n4 c64 56x56 k64 3x3 p1 s1 g1": the layer as it was run (after --batch).
std::string layer_name(const anydnn::driver::ConvSpec& s) {
  std::string r =
      s.base + " n" + std::to_string(s.in_lens[0]) + " c" + std::to_string(s.in_lens[1]);
  std::string in, f;
  for (size_t i = 2; i < s.in_lens.size(); ++i) {
    in += (i > 2 ? "x" : "") + std::to_string(s.in_lens[i]);
    f += (i > 2 ? "x" : "") + std::to_string(s.wei_lens[i]);
  }
  const int k = s.wei_lens[0];
  return r + " " + in + " k" + std::to_string(k) + " " + f + " p" + std::to_string(s.pads[0]) +
         " s" + std::to_string(s.strides[0]) + " g" + std::to_string(s.groups);
}

#define CHECK(x)                                                             \
  do {                                                                       \
    const miopenStatus_t s_ = (x);                                           \
    if (s_ != miopenStatusSuccess) {                                         \
      std::fprintf(stderr, "%s failed: %s\n", #x, miopenGetErrorString(s_)); \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  std::string shapes = ANYDNN_DEFAULT_SHAPES;
  int batch = 0, reps = 5;
  std::string algo_choice = "best";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--shapes")
      shapes = argv[i + 1];
    else if (a == "--batch")
      batch = std::atoi(argv[i + 1]);
    else if (a == "--reps")
      reps = std::atoi(argv[i + 1]);
    else if (a == "--algo")
      algo_choice = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  const double sgemm = sgemm_gflops(reps);
  std::printf("sgemm 2048^3 (OpenBLAS): %.1f GFLOP/s\n", sgemm);

  miopenHandle_t h;
  CHECK(miopenCreate(&h));
  std::ifstream in(shapes);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", shapes.c_str());
    return 1;
  }
  std::mt19937 rng(1);
  double total_ms = 0.0, total_flop = 0.0;
  std::printf("%-70s %10s %10s %8s  %s\n", "layer", "ms", "GFLOP/s", "%sgemm", "solver");
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    anydnn::driver::ConvSpec s;
    if (auto err = anydnn::driver::parse_conv_line(line, s)) {
      std::fprintf(stderr, "skipping '%s': %s\n", line.c_str(), err->c_str());
      continue;
    }
    if (batch > 0) s.in_lens[0] = batch;
    miopenTensorDescriptor_t x, w, y;
    miopenConvolutionDescriptor_t c;
    CHECK(miopenCreateTensorDescriptor(&x));
    CHECK(miopenCreateTensorDescriptor(&w));
    CHECK(miopenCreateTensorDescriptor(&y));
    CHECK(miopenCreateConvolutionDescriptor(&c));
    CHECK(miopenSetTensorDescriptor(x, s.type, static_cast<int>(s.in_lens.size()), s.in_lens.data(),
                                    nullptr));
    CHECK(miopenSetTensorDescriptor(w, s.type, static_cast<int>(s.wei_lens.size()),
                                    s.wei_lens.data(), nullptr));
    CHECK(miopenInitConvolutionNdDescriptor(c, s.spatial_dims, s.pads.data(), s.strides.data(),
                                            s.dilations.data(), miopenConvolution));
    CHECK(miopenSetConvolutionGroupCount(c, s.groups));
    int nd = 0;
    std::vector<int> yl(s.in_lens.size());
    CHECK(miopenGetConvolutionNdForwardOutputDim(c, x, w, &nd, yl.data()));
    CHECK(miopenSetTensorDescriptor(y, s.type, nd, yl.data(), nullptr));
    auto hx = anydnn::driver::HostTensor::from_descriptor(x);
    auto hw = anydnn::driver::HostTensor::from_descriptor(w);
    auto hy = anydnn::driver::HostTensor::from_descriptor(y);
    hx.fill_uniform(rng, -1, 1, 1);
    hw.fill_uniform(rng, -1, 1, 1);
    size_t ws_size = 0;
    CHECK(miopenConvolutionForwardGetWorkSpaceSize(h, w, x, c, y, &ws_size));
    std::vector<uint8_t> ws(ws_size);
    miopenConvAlgoPerf_t perf[4];
    int found = 0;
    CHECK(miopenFindConvolutionForwardAlgorithm(h, x, hx.data(), w, hw.data(), c, y, hy.data(), 4,
                                                &found, perf, ws.data(), ws.size(), false));
    int pick = 0;
    if (algo_choice != "best") {
      const auto want =
          algo_choice == "gemm" ? miopenConvolutionFwdAlgoGEMM : miopenConvolutionFwdAlgoDirect;
      pick = -1;
      for (int i = 0; i < found; ++i)
        if (perf[i].fwd_algo == want) pick = i;
      if (pick < 0) {
        std::printf("%-70s %10s\n", layer_name(s).c_str(), "n/a");
        continue;
      }
    }
    const float alpha = 1.0f, beta = 0.0f;
    const double ms = time_ms(
        [&] {
          CHECK(miopenConvolutionForward(h, &alpha, x, hx.data(), w, hw.data(), c,
                                         perf[pick].fwd_algo, &beta, y, hy.data(), ws.data(),
                                         perf[pick].memory));
        },
        reps);
    // The solver behind the timed algorithm: immediate mode lists Find's timings, fastest first.
    miopenConvSolution_t sols[8];
    size_t count = 0;
    const char* name = "?";
    if (miopenConvolutionForwardGetSolution(h, w, x, c, y, 8, &count, sols) ==
        miopenStatusSuccess) {
      for (size_t i = 0; i < count; ++i) {
        if (static_cast<int>(sols[i].algorithm) == static_cast<int>(perf[pick].fwd_algo)) {
          anydnnGetConvSolverName(h, sols[i].solution_id, &name);
          break;
        }
      }
    }
    double flop = 2.0 * s.in_lens[0] * (s.in_lens[1] / s.groups) * yl[1];
    for (size_t i = 2; i < yl.size(); ++i)
      flop *= yl[i] * s.wei_lens[i];
    total_ms += ms;
    total_flop += flop;
    std::printf("%-70s %10.3f %10.1f %7.1f%%  %s\n", layer_name(s).c_str(), ms, flop / ms / 1e6,
                100.0 * flop / ms / 1e6 / sgemm, name);
    miopenDestroyTensorDescriptor(x);
    miopenDestroyTensorDescriptor(w);
    miopenDestroyTensorDescriptor(y);
    miopenDestroyConvolutionDescriptor(c);
  }
  std::printf("TOTAL %.3f ms, %.1f GFLOP/s, %.1f%% of sgemm\n", total_ms,
              total_flop / total_ms / 1e6, 100.0 * total_flop / total_ms / 1e6 / sgemm);
  miopenDestroy(h);
  return 0;
}
