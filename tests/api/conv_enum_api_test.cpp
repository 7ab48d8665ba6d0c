// Every algorithm value the API hands out is one of MIOpen's for its direction (issue [one-path]
// 6): a MIOpen client switches on miopenConvFwdAlgorithm_t / miopenConvBwdDataAlgorithm_t /
// miopenConvBwdWeightsAlgorithm_t after Find, and on miopenConvAlgorithm_t in immediate mode.
// Walks every Find result (exhaustive, all algorithms requested) and every immediate-mode
// solution of every direction on problems where every CPU solver family applies somewhere (3x3
// for Winograd and FFT, 1x1, strided grouped 5x5, 3-D), and runs each Find result.
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <set>
#include <vector>

#include "api_test_util.hpp"

namespace anydnn::test {
namespace {

struct Problem {
  std::vector<int> x, w;
  int pad, stride, groups;
};

const Problem kProblems[] = {
    {{2, 8, 12, 12}, {8, 8, 3, 3}, 1, 1, 1},  // Winograd, FFT (weights too), GEMM, direct
    {{2, 8, 9, 9}, {4, 8, 1, 1}, 0, 1, 1},    // the 1x1 GEMM solvers
    {{2, 4, 11, 11}, {6, 2, 5, 5}, 2, 2, 2},  // strided, grouped
    {{1, 4, 5, 6, 7}, {4, 4, 3, 3, 3}, 1, 1, 1},
};

// MIOpen's values per direction (miopen.h).
const std::set<int> kFwd = {miopenConvolutionFwdAlgoGEMM, miopenConvolutionFwdAlgoDirect,
                            miopenConvolutionFwdAlgoFFT, miopenConvolutionFwdAlgoWinograd,
                            miopenConvolutionFwdAlgoImplicitGEMM};
const std::set<int> kBwdData = {
    miopenConvolutionBwdDataAlgoGEMM, miopenConvolutionBwdDataAlgoDirect,
    miopenConvolutionBwdDataAlgoFFT,  miopenConvolutionBwdDataAlgoWinograd,
    miopenTransposeBwdDataAlgoGEMM,   miopenConvolutionBwdDataAlgoImplicitGEMM};
const std::set<int> kBwdWeights = {
    miopenConvolutionBwdWeightsAlgoGEMM, miopenConvolutionBwdWeightsAlgoDirect,
    miopenConvolutionBwdWeightsAlgoWinograd, miopenConvolutionBwdWeightsAlgoImplicitGEMM};
const std::set<int> kAlgorithms = {miopenConvolutionAlgoGEMM, miopenConvolutionAlgoDirect,
                                   miopenConvolutionAlgoFFT, miopenConvolutionAlgoWinograd,
                                   miopenConvolutionAlgoImplicitGEMM};

TEST(ConvEnums, EveryFindResultAndSolutionIsOneOfMiopensValues) {
  Handle h;
  std::set<std::string> weights_solvers_seen;
  for (const Problem& pr : kProblems) {
    const int nd = static_cast<int>(pr.x.size()) - 2;
    Tensor x(miopenFloat, pr.x), w(miopenFloat, pr.w);
    miopenConvolutionDescriptor_t conv = nullptr;
    ASSERT_EQ(miopenCreateConvolutionDescriptor(&conv), miopenStatusSuccess);
    const std::vector<int> pads(nd, pr.pad), strides(nd, pr.stride), dil(nd, 1);
    ASSERT_EQ(miopenInitConvolutionNdDescriptor(conv, nd, pads.data(), strides.data(), dil.data(),
                                                miopenConvolution),
              miopenStatusSuccess);
    ASSERT_EQ(miopenSetConvolutionGroupCount(conv, pr.groups), miopenStatusSuccess);
    std::vector<int> ylen(pr.x.size());
    int n = 0;
    ASSERT_EQ(miopenGetConvolutionNdForwardOutputDim(conv, x, w, &n, ylen.data()),
              miopenStatusSuccess);
    Tensor y(miopenFloat, ylen);
    size_t xs = 0, ws = 0, ys = 0;
    miopenGetTensorNumBytes(x, &xs);
    miopenGetTensorNumBytes(w, &ws);
    miopenGetTensorNumBytes(y, &ys);
    std::vector<float> bx(xs / 4, 0.5f), bw(ws / 4, 0.25f), by(ys / 4, 0.125f);

    for (int dir = 0; dir < 3; ++dir) {
      SCOPED_TRACE("problem with x of " + std::to_string(pr.x.size()) + " dims, direction " +
                   std::to_string(dir));
      size_t wsz = 0;
      miopenStatus_t rc =
          dir == 0   ? miopenConvolutionForwardGetWorkSpaceSize(h, w, x, conv, y, &wsz)
          : dir == 1 ? miopenConvolutionBackwardDataGetWorkSpaceSize(h, y, w, conv, x, &wsz)
                     : miopenConvolutionBackwardWeightsGetWorkSpaceSize(h, y, x, conv, w, &wsz);
      ASSERT_EQ(rc, miopenStatusSuccess);
      std::vector<char> space(wsz + 1);
      miopenConvAlgoPerf_t perf[10];
      int found = 0;
      if (dir == 0)
        rc =
            miopenFindConvolutionForwardAlgorithm(h, x, bx.data(), w, bw.data(), conv, y, by.data(),
                                                  10, &found, perf, space.data(), wsz, true);
      else if (dir == 1)
        rc = miopenFindConvolutionBackwardDataAlgorithm(h, y, by.data(), w, bw.data(), conv, x,
                                                        bx.data(), 10, &found, perf, space.data(),
                                                        wsz, true);
      else
        rc = miopenFindConvolutionBackwardWeightsAlgorithm(h, y, by.data(), x, bx.data(), conv, w,
                                                           bw.data(), 10, &found, perf,
                                                           space.data(), wsz, true);
      ASSERT_EQ(rc, miopenStatusSuccess);
      ASSERT_GT(found, 0);
      const std::set<int>& valid = dir == 0 ? kFwd : dir == 1 ? kBwdData : kBwdWeights;
      const float alpha = 1.0f, beta = 0.0f;
      for (int i = 0; i < found; ++i) {
        const int algo = static_cast<int>(perf[i].fwd_algo);  // one union, one value
        EXPECT_TRUE(valid.count(algo)) << "Find returned algorithm value " << algo;
        // ... and the run call takes it back.
        if (dir == 0)
          rc = miopenConvolutionForward(h, &alpha, x, bx.data(), w, bw.data(), conv,
                                        perf[i].fwd_algo, &beta, y, by.data(), space.data(), wsz);
        else if (dir == 1)
          rc = miopenConvolutionBackwardData(h, &alpha, y, by.data(), w, bw.data(), conv,
                                             perf[i].bwd_data_algo, &beta, x, bx.data(),
                                             space.data(), wsz);
        else
          rc = miopenConvolutionBackwardWeights(h, &alpha, y, by.data(), x, bx.data(), conv,
                                                perf[i].bwd_weights_algo, &beta, w, bw.data(),
                                                space.data(), wsz);
        EXPECT_EQ(rc, miopenStatusSuccess) << "run with algorithm " << algo;
      }

      size_t count = 0;
      rc = dir == 0   ? miopenConvolutionForwardGetSolutionCount(h, w, x, conv, y, &count)
           : dir == 1 ? miopenConvolutionBackwardDataGetSolutionCount(h, y, w, conv, x, &count)
                      : miopenConvolutionBackwardWeightsGetSolutionCount(h, y, x, conv, w, &count);
      ASSERT_EQ(rc, miopenStatusSuccess);
      std::vector<miopenConvSolution_t> sols(count);
      size_t got = 0;
      rc =
          dir == 0 ? miopenConvolutionForwardGetSolution(h, w, x, conv, y, count, &got, sols.data())
          : dir == 1
              ? miopenConvolutionBackwardDataGetSolution(h, y, w, conv, x, count, &got, sols.data())
              : miopenConvolutionBackwardWeightsGetSolution(h, y, x, conv, w, count, &got,
                                                            sols.data());
      ASSERT_EQ(rc, miopenStatusSuccess);
      for (size_t i = 0; i < got; ++i) {
        EXPECT_TRUE(kAlgorithms.count(static_cast<int>(sols[i].algorithm)))
            << "solution " << sols[i].solution_id << " has algorithm value " << sols[i].algorithm;
        const char* name = nullptr;
        ASSERT_EQ(anydnnGetConvSolverName(h, sols[i].solution_id, &name), miopenStatusSuccess);
        if (dir == 2) weights_solvers_seen.insert(name);
      }
    }
    miopenDestroyConvolutionDescriptor(conv);
  }
  // The FFT weights solver was among them: the case the enum mapping exists for.
  EXPECT_TRUE(weights_solvers_seen.count("ConvFftWrw")) << "no FFT weights solver applied";
}

}  // namespace
}  // namespace anydnn::test
