// The public C API on the CUDA backend with device buffers: Find + run in every direction,
// immediate mode for every solution, alpha/beta blending, the bias calls, and a second Find in
// a new handle answered by the find-db; every result against the double reference.
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "api/api_test_util.hpp"
#include "common_test_util.hpp"
#include "conv_reference.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn::test {
namespace {

using driver::HostTensor;

// Run by hand (outside ctest), this program must not write to ~/.config/miopen: a scratch
// find-db directory, set before the first test makes the library read its environment.
struct ScratchFindDb : ::testing::Environment {
  std::string dir;
  void SetUp() override {
    if (std::getenv("MIOPEN_USER_DB_PATH") != nullptr) return;
    dir = (std::filesystem::temp_directory_path() / "anydnn-gpu-tests-XXXXXX").string();
    if (mkdtemp(dir.data()) == nullptr) {
      dir.clear();
      return;
    }
    setenv("MIOPEN_USER_DB_PATH", dir.c_str(), 1);
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};
[[maybe_unused]] ::testing::Environment* const scratch_find_db =
    ::testing::AddGlobalTestEnvironment(new ScratchFindDb);

bool on_cuda(miopenHandle_t h) {
  anydnnBackend_t kind = anydnnBackendCpu;
  return anydnnGetBackend(h, &kind) == miopenStatusSuccess && kind == anydnnBackendCuda;
}

// A 2-D fp32 convolution set up through the API, with random host data for x, w and y (dy)
// and device copies of all three.
struct GpuProblem {
  Handle handle;
  Tensor x, w, y;
  Conv conv;
  HostTensor hx, hw, hy;
  DeviceTensor dx, dw, dy;
  ref::ConvParams params;
  unsigned seed = fresh_seed();

  GpuProblem(std::vector<int> xl, std::vector<int> wl, int pad, int stride, int groups)
      : x(miopenFloat, xl), w(miopenFloat, wl), conv(pad, stride, 1, groups) {
    int nd = 0;
    std::vector<int> yl(4);
    EXPECT_EQ(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &nd, yl.data()),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetTensorDescriptor(y.d, miopenFloat, 4, yl.data(), nullptr),
              miopenStatusSuccess);
    hx = HostTensor::from_descriptor(x);
    hw = HostTensor::from_descriptor(w);
    hy = HostTensor::from_descriptor(y);
    std::mt19937 rng(seed);
    for (HostTensor* t : {&hx, &hw, &hy})
      fill_random(*t, rng);
    dx = DeviceTensor(hx);
    dw = DeviceTensor(hw);
    dy = DeviceTensor(hy);
    params = {{pad, pad}, {stride, stride}, {1, 1}, groups};
  }
  std::vector<double> expect_y() const {
    return ref::conv_forward(hx.view(), hw.view(), params, hy.lens);
  }
  std::vector<double> expect_dx() const {
    return ref::conv_backward_data(hy.view(), hw.view(), params, hx.lens);
  }
  std::vector<double> expect_dw() const {
    return ref::conv_backward_weights(hx.view(), hy.view(), params, hw.lens);
  }
};

// Device `out` downloaded into a host tensor shaped like `like`, in logical order.
std::vector<double> result(const DeviceTensor& out, const HostTensor& like) {
  HostTensor h = like;
  out.download(h);
  return ref::to_logical(h.view());
}

std::string solver_name(miopenHandle_t h, uint64_t id) {
  const char* name = nullptr;
  if (anydnnGetConvSolverName(h, id, &name) != miopenStatusSuccess || name == nullptr) return "?";
  return name;
}

TEST(CudaConvApi, FindThenRunEveryDirection) {
  REQUIRE_GPU();
  GpuProblem p({2, 6, 11, 13}, {4, 3, 3, 3}, 1, 2, 2);
  ASSERT_TRUE(on_cuda(p.handle));
  SCOPED_TRACE(seed_trace(p.seed));
  const float alpha = 1.0f, beta = 0.0f;
  miopenConvAlgoPerf_t perf[5];
  int found = 0;

  // Forward: GEMM and the tiled direct kernel both apply (the naive one is only a fallback); an
  // exhaustive search times both (the default mode times only the solvers the cost models
  // predict near the best: tests/gpu/conv_heuristic_gpu_test.cpp).
  size_t ws_size = 0;
  ASSERT_EQ(miopenConvolutionForwardGetWorkSpaceSize(p.handle, p.w, p.x, p.conv, p.y, &ws_size),
            miopenStatusSuccess);
  EXPECT_GT(ws_size, 0u);
  DeviceTensor ws(ws_size);
  DeviceTensor out_y(p.hy.bytes.size());
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(p.handle, p.x, p.dx.data(), p.w, p.dw.data(),
                                                  p.conv, p.y, out_y.data(), 5, &found, perf,
                                                  ws.data(), ws_size, true),
            miopenStatusSuccess);
  std::set<int> algos;
  for (int i = 0; i < found; ++i)
    algos.insert(perf[i].fwd_algo);
  EXPECT_TRUE(algos.count(miopenConvolutionFwdAlgoGEMM));
  EXPECT_TRUE(algos.count(miopenConvolutionFwdAlgoDirect));
  const auto y_ref = p.expect_y();
  for (int i = 0; i < found; ++i) {
    SCOPED_TRACE(perf[i].fwd_algo);
    EXPECT_GE(perf[i].time, 0.0f);
    if (i > 0) EXPECT_LE(perf[i - 1].time, perf[i].time);
    out_y.poison();
    ASSERT_EQ(miopenConvolutionForward(p.handle, &alpha, p.x, p.dx.data(), p.w, p.dw.data(), p.conv,
                                       perf[i].fwd_algo, &beta, p.y, out_y.data(), ws.data(),
                                       perf[i].memory),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(y_ref, result(out_y, p.hy)), 1.5e-6);
  }

  // Backward data: dx from dy and w.
  ASSERT_EQ(
      miopenConvolutionBackwardDataGetWorkSpaceSize(p.handle, p.y, p.w, p.conv, p.x, &ws_size),
      miopenStatusSuccess);
  ws = DeviceTensor(ws_size);
  DeviceTensor out_dx(p.hx.bytes.size());
  ASSERT_EQ(miopenFindConvolutionBackwardDataAlgorithm(p.handle, p.y, p.dy.data(), p.w, p.dw.data(),
                                                       p.conv, p.x, out_dx.data(), 5, &found, perf,
                                                       ws.data(), ws_size, false),
            miopenStatusSuccess);
  ASSERT_GE(found, 1);
  const auto dx_ref = p.expect_dx();
  bool gemm = false;
  for (int i = 0; i < found; ++i) {
    SCOPED_TRACE(perf[i].bwd_data_algo);
    gemm = gemm || perf[i].bwd_data_algo == miopenConvolutionBwdDataAlgoGEMM;
    out_dx.poison();
    ASSERT_EQ(miopenConvolutionBackwardData(p.handle, &alpha, p.y, p.dy.data(), p.w, p.dw.data(),
                                            p.conv, perf[i].bwd_data_algo, &beta, p.x,
                                            out_dx.data(), ws.data(), perf[i].memory),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(dx_ref, result(out_dx, p.hx)), 1.5e-6);
  }
  EXPECT_TRUE(gemm);

  // Backward weights: dw from x and dy.
  ASSERT_EQ(
      miopenConvolutionBackwardWeightsGetWorkSpaceSize(p.handle, p.y, p.x, p.conv, p.w, &ws_size),
      miopenStatusSuccess);
  ws = DeviceTensor(ws_size);
  DeviceTensor out_dw(p.hw.bytes.size());
  ASSERT_EQ(miopenFindConvolutionBackwardWeightsAlgorithm(
                p.handle, p.y, p.dy.data(), p.x, p.dx.data(), p.conv, p.w, out_dw.data(), 5, &found,
                perf, ws.data(), ws_size, false),
            miopenStatusSuccess);
  ASSERT_GE(found, 1);
  const auto dw_ref = p.expect_dw();
  gemm = false;
  for (int i = 0; i < found; ++i) {
    SCOPED_TRACE(perf[i].bwd_weights_algo);
    gemm = gemm || perf[i].bwd_weights_algo == miopenConvolutionBwdWeightsAlgoGEMM;
    out_dw.poison();
    ASSERT_EQ(miopenConvolutionBackwardWeights(p.handle, &alpha, p.y, p.dy.data(), p.x, p.dx.data(),
                                               p.conv, perf[i].bwd_weights_algo, &beta, p.w,
                                               out_dw.data(), ws.data(), perf[i].memory),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(dw_ref, result(out_dw, p.hw)), 3e-6);
  }
  EXPECT_TRUE(gemm);
}

TEST(CudaConvApi, ImmediateModeEverySolutionOfEveryDirection) {
  REQUIRE_GPU();
  GpuProblem p({2, 4, 9, 9}, {8, 4, 3, 3}, 1, 1, 1);
  ASSERT_TRUE(on_cuda(p.handle));
  SCOPED_TRACE(seed_trace(p.seed));
  miopenConvSolution_t sols[16];
  size_t count = 0;

  // Forward: every applicable solver in registry order, the naive fallback last.
  ASSERT_EQ(miopenConvolutionForwardGetSolutionCount(p.handle, p.w, p.x, p.conv, p.y, &count),
            miopenStatusSuccess);
  ASSERT_GE(count, 3u);  // GemmFwdRest, ConvDirectFwdCuda, ConvDirectNaiveConvFwd
  ASSERT_LE(count, 16u);
  ASSERT_EQ(miopenConvolutionForwardGetSolution(p.handle, p.w, p.x, p.conv, p.y, 16, &count, sols),
            miopenStatusSuccess);
  EXPECT_EQ(solver_name(p.handle, sols[count - 1].solution_id), "ConvDirectNaiveConvFwd");
  DeviceTensor out_y(p.hy.bytes.size());
  const auto y_ref = p.expect_y();
  for (size_t i = 0; i < count; ++i) {
    const miopenConvSolution_t& s = sols[i];
    SCOPED_TRACE(solver_name(p.handle, s.solution_id));
    size_t ws_size = 0;
    ASSERT_EQ(miopenConvolutionForwardGetSolutionWorkspaceSize(p.handle, p.w, p.x, p.conv, p.y,
                                                               s.solution_id, &ws_size),
              miopenStatusSuccess);
    EXPECT_EQ(ws_size, s.workspace_size);
    ASSERT_EQ(
        miopenConvolutionForwardCompileSolution(p.handle, p.w, p.x, p.conv, p.y, s.solution_id),
        miopenStatusSuccess);
    DeviceTensor ws(ws_size);
    out_y.poison();
    ASSERT_EQ(
        miopenConvolutionForwardImmediate(p.handle, p.w, p.dw.data(), p.x, p.dx.data(), p.conv, p.y,
                                          out_y.data(), ws.data(), ws_size, s.solution_id),
        miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(y_ref, result(out_y, p.hy)), 1.5e-6);
  }

  // Backward data.
  ASSERT_EQ(
      miopenConvolutionBackwardDataGetSolution(p.handle, p.y, p.w, p.conv, p.x, 16, &count, sols),
      miopenStatusSuccess);
  ASSERT_GE(count, 2u);  // GemmBwdRest, ConvDirectNaiveConvBwd
  EXPECT_EQ(solver_name(p.handle, sols[count - 1].solution_id), "ConvDirectNaiveConvBwd");
  DeviceTensor out_dx(p.hx.bytes.size());
  const auto dx_ref = p.expect_dx();
  for (size_t i = 0; i < count; ++i) {
    const miopenConvSolution_t& s = sols[i];
    SCOPED_TRACE(solver_name(p.handle, s.solution_id));
    size_t ws_size = 0;
    ASSERT_EQ(miopenConvolutionBackwardDataGetSolutionWorkspaceSize(p.handle, p.y, p.w, p.conv, p.x,
                                                                    s.solution_id, &ws_size),
              miopenStatusSuccess);
    EXPECT_EQ(ws_size, s.workspace_size);
    ASSERT_EQ(miopenConvolutionBackwardDataCompileSolution(p.handle, p.y, p.w, p.conv, p.x,
                                                           s.solution_id),
              miopenStatusSuccess);
    DeviceTensor ws(ws_size);
    out_dx.poison();
    ASSERT_EQ(miopenConvolutionBackwardDataImmediate(p.handle, p.y, p.dy.data(), p.w, p.dw.data(),
                                                     p.conv, p.x, out_dx.data(), ws.data(), ws_size,
                                                     s.solution_id),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(dx_ref, result(out_dx, p.hx)), 1.5e-6);
  }

  // Backward weights.
  ASSERT_EQ(miopenConvolutionBackwardWeightsGetSolution(p.handle, p.y, p.x, p.conv, p.w, 16, &count,
                                                        sols),
            miopenStatusSuccess);
  ASSERT_GE(count, 2u);  // GemmWrwUniversal, ConvDirectNaiveConvWrw
  EXPECT_EQ(solver_name(p.handle, sols[count - 1].solution_id), "ConvDirectNaiveConvWrw");
  DeviceTensor out_dw(p.hw.bytes.size());
  const auto dw_ref = p.expect_dw();
  for (size_t i = 0; i < count; ++i) {
    const miopenConvSolution_t& s = sols[i];
    SCOPED_TRACE(solver_name(p.handle, s.solution_id));
    size_t ws_size = 0;
    ASSERT_EQ(miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize(
                  p.handle, p.y, p.x, p.conv, p.w, s.solution_id, &ws_size),
              miopenStatusSuccess);
    EXPECT_EQ(ws_size, s.workspace_size);
    ASSERT_EQ(miopenConvolutionBackwardWeightsCompileSolution(p.handle, p.y, p.x, p.conv, p.w,
                                                              s.solution_id),
              miopenStatusSuccess);
    DeviceTensor ws(ws_size);
    out_dw.poison();
    ASSERT_EQ(miopenConvolutionBackwardWeightsImmediate(p.handle, p.y, p.dy.data(), p.x,
                                                        p.dx.data(), p.conv, p.w, out_dw.data(),
                                                        ws.data(), ws_size, s.solution_id),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(dw_ref, result(out_dw, p.hw)), 3e-6);
  }
}

// output = alpha * convolution + beta * output, in every direction, on device memory.
TEST(CudaConvApi, AlphaBetaBlendIntoTheOutputInEveryDirection) {
  REQUIRE_GPU();
  GpuProblem p({2, 4, 7, 9}, {6, 4, 3, 3}, 1, 1, 1);
  ASSERT_TRUE(on_cuda(p.handle));
  SCOPED_TRACE(seed_trace(p.seed));
  const float alpha = 0.75f, beta = -1.5f;
  std::mt19937 rng(p.seed + 1);
  const auto blended = [&](const std::vector<double>& conv, const std::vector<double>& old) {
    std::vector<double> r(conv.size());
    for (size_t i = 0; i < r.size(); ++i)
      r[i] = alpha * conv[i] + beta * old[i];
    return r;
  };
  miopenConvAlgoPerf_t perf[4];
  int found = 0;
  size_t ws_size = 0;

  HostTensor y0 = p.hy;
  fill_random(y0, rng);
  DeviceTensor out(y0);
  ASSERT_EQ(miopenConvolutionForwardGetWorkSpaceSize(p.handle, p.w, p.x, p.conv, p.y, &ws_size),
            miopenStatusSuccess);
  DeviceTensor ws(ws_size), scratch(y0.bytes.size());
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(p.handle, p.x, p.dx.data(), p.w, p.dw.data(),
                                                  p.conv, p.y, scratch.data(), 4, &found, perf,
                                                  ws.data(), ws_size, false),
            miopenStatusSuccess);
  ASSERT_EQ(
      miopenConvolutionForward(p.handle, &alpha, p.x, p.dx.data(), p.w, p.dw.data(), p.conv,
                               perf[0].fwd_algo, &beta, p.y, out.data(), ws.data(), perf[0].memory),
      miopenStatusSuccess);
  EXPECT_LE(ref::relative_rms(blended(p.expect_y(), ref::to_logical(y0.view())), result(out, y0)),
            1.5e-6);

  HostTensor dx0 = p.hx;
  fill_random(dx0, rng);
  out = DeviceTensor(dx0);
  ASSERT_EQ(
      miopenConvolutionBackwardDataGetWorkSpaceSize(p.handle, p.y, p.w, p.conv, p.x, &ws_size),
      miopenStatusSuccess);
  ws = DeviceTensor(ws_size);
  scratch = DeviceTensor(dx0.bytes.size());
  ASSERT_EQ(miopenFindConvolutionBackwardDataAlgorithm(p.handle, p.y, p.dy.data(), p.w, p.dw.data(),
                                                       p.conv, p.x, scratch.data(), 4, &found, perf,
                                                       ws.data(), ws_size, false),
            miopenStatusSuccess);
  ASSERT_EQ(miopenConvolutionBackwardData(p.handle, &alpha, p.y, p.dy.data(), p.w, p.dw.data(),
                                          p.conv, perf[0].bwd_data_algo, &beta, p.x, out.data(),
                                          ws.data(), perf[0].memory),
            miopenStatusSuccess);
  EXPECT_LE(
      ref::relative_rms(blended(p.expect_dx(), ref::to_logical(dx0.view())), result(out, dx0)),
      1.5e-6);

  HostTensor dw0 = p.hw;
  fill_random(dw0, rng);
  out = DeviceTensor(dw0);
  ASSERT_EQ(
      miopenConvolutionBackwardWeightsGetWorkSpaceSize(p.handle, p.y, p.x, p.conv, p.w, &ws_size),
      miopenStatusSuccess);
  ws = DeviceTensor(ws_size);
  scratch = DeviceTensor(dw0.bytes.size());
  ASSERT_EQ(miopenFindConvolutionBackwardWeightsAlgorithm(
                p.handle, p.y, p.dy.data(), p.x, p.dx.data(), p.conv, p.w, scratch.data(), 4,
                &found, perf, ws.data(), ws_size, false),
            miopenStatusSuccess);
  ASSERT_EQ(miopenConvolutionBackwardWeights(p.handle, &alpha, p.y, p.dy.data(), p.x, p.dx.data(),
                                             p.conv, perf[0].bwd_weights_algo, &beta, p.w,
                                             out.data(), ws.data(), perf[0].memory),
            miopenStatusSuccess);
  EXPECT_LE(
      ref::relative_rms(blended(p.expect_dw(), ref::to_logical(dw0.view())), result(out, dw0)),
      3e-6);
}

// A Find result is stored in the find-db; a new handle's (non-exhaustive) Find reuses it
// without measuring again, so it reports the very same solvers and times.
TEST(CudaConvApi, SecondFindInANewHandleUsesTheFindDb) {
  REQUIRE_GPU();
  GpuProblem p({1, 5, 12, 10}, {7, 5, 3, 3}, 1, 1, 1);
  ASSERT_TRUE(on_cuda(p.handle));
  size_t ws_size = 0;
  ASSERT_EQ(miopenConvolutionForwardGetWorkSpaceSize(p.handle, p.w, p.x, p.conv, p.y, &ws_size),
            miopenStatusSuccess);
  DeviceTensor ws(ws_size), out(p.hy.bytes.size());
  miopenConvAlgoPerf_t first[4], second[4];
  int found1 = 0, found2 = 0;
  // Exhaustive: always measures (and stores), whatever an earlier run left in the find-db.
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(p.handle, p.x, p.dx.data(), p.w, p.dw.data(),
                                                  p.conv, p.y, out.data(), 4, &found1, first,
                                                  ws.data(), ws_size, true),
            miopenStatusSuccess);
  ASSERT_GE(found1, 2);
  Handle fresh;
  ASSERT_TRUE(on_cuda(fresh));
  ASSERT_EQ(miopenFindConvolutionForwardAlgorithm(fresh, p.x, p.dx.data(), p.w, p.dw.data(), p.conv,
                                                  p.y, out.data(), 4, &found2, second, ws.data(),
                                                  ws_size, false),
            miopenStatusSuccess);
  ASSERT_EQ(found2, found1);
  for (int i = 0; i < found1; ++i) {
    EXPECT_EQ(second[i].fwd_algo, first[i].fwd_algo) << i;
    EXPECT_FLOAT_EQ(second[i].time, first[i].time) << i;  // stored, not measured again
    EXPECT_EQ(second[i].memory, first[i].memory) << i;
  }
  // The new handle runs what the record names.
  out.poison();
  const float alpha = 1.0f, beta = 0.0f;
  ASSERT_EQ(miopenConvolutionForward(fresh, &alpha, p.x, p.dx.data(), p.w, p.dw.data(), p.conv,
                                     second[0].fwd_algo, &beta, p.y, out.data(), ws.data(),
                                     second[0].memory),
            miopenStatusSuccess);
  EXPECT_LE(ref::relative_rms(p.expect_y(), result(out, p.hy)), 1.5e-6);
}

// Bias: y = alpha * (y + b) + beta * y; db = alpha * sum(dy) + beta * db; 4-D NCHW and NHWC,
// 5-D NCDHW, fp32 and fp16.
TEST(CudaConvApi, BiasForwardAndBackward) {
  REQUIRE_GPU();
  Handle h;
  ASSERT_TRUE(on_cuda(h));
  const unsigned seed = fresh_seed();
  SCOPED_TRACE(seed_trace(seed));
  std::mt19937 rng(seed);
  struct Case {
    miopenDataType_t type;
    miopenTensorLayout_t layout;
    std::vector<int> lens;
    double tol;
  };
  const Case cases[] = {{miopenFloat, miopenTensorNCHW, {3, 5, 4, 6}, 1e-5},
                        {miopenFloat, miopenTensorNHWC, {3, 5, 4, 6}, 1e-5},
                        {miopenFloat, miopenTensorNCDHW, {2, 3, 3, 4, 5}, 1e-5},
                        {miopenHalf, miopenTensorNCHW, {2, 4, 33, 17}, 1e-2}};
  for (const Case& c : cases) {
    SCOPED_TRACE(static_cast<int>(c.layout));
    const size_t k = static_cast<size_t>(c.lens[1]);
    Tensor y;
    ASSERT_EQ(miopenSetNdTensorDescriptorWithLayout(y, c.type, c.layout, c.lens.data(),
                                                    static_cast<int>(c.lens.size())),
              miopenStatusSuccess);
    std::vector<int> bl(c.lens.size(), 1);
    bl[1] = c.lens[1];
    Tensor b(c.type, bl);
    HostTensor hy = HostTensor::from_descriptor(y), hb = HostTensor::from_descriptor(b);
    fill_random(hy, rng);
    fill_random(hb, rng);
    const auto y0 = ref::to_logical(hy.view());
    DeviceTensor dy(hy), db(hb);
    const float alpha = 0.5f, beta = 2.0f;
    ASSERT_EQ(miopenConvolutionForwardBias(h, &alpha, b, db.data(), &beta, y, dy.data()),
              miopenStatusSuccess);
    const auto y1 = result(dy, hy);
    size_t plane = 1;
    for (size_t i = 2; i < c.lens.size(); ++i)
      plane *= static_cast<size_t>(c.lens[i]);
    for (size_t i = 0; i < y0.size(); ++i) {
      const double bias = hb.get((i / plane) % k);
      ASSERT_NEAR(y1[i], alpha * (y0[i] + bias) + beta * y0[i], c.tol * 4) << i;
    }
    // Backward into db with old contents, then with beta = 0 into poisoned memory.
    HostTensor hdb = HostTensor::from_descriptor(b);
    fill_random(hdb, rng);
    const auto old = ref::to_logical(hdb.view());
    DeviceTensor ddb(hdb);
    ASSERT_EQ(miopenConvolutionBackwardBias(h, &alpha, y, dy.data(), &beta, b, ddb.data()),
              miopenStatusSuccess);
    HostTensor y1_host = hy;
    dy.download(y1_host);
    const auto sums = ref::bias_backward(y1_host.view());
    const auto got = result(ddb, hdb);
    for (size_t i = 0; i < k; ++i)
      EXPECT_NEAR(got[i], alpha * sums[i] + beta * old[i], c.tol * (1 + std::abs(sums[i]))) << i;
    const float one = 1.0f, zero = 0.0f;
    ddb.poison();
    ASSERT_EQ(miopenConvolutionBackwardBias(h, &one, y, dy.data(), &zero, b, ddb.data()),
              miopenStatusSuccess);
    EXPECT_LE(ref::relative_rms(sums, result(ddb, hdb)), c.type == miopenFloat ? 1.5e-6 : 8.2e-3);
  }
}

}  // namespace
}  // namespace anydnn::test
