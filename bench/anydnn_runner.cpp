#include "anydnn_runner.hpp"

#include <miopen/anydnn.h>

#include <random>
#include <stdexcept>
#include <vector>

namespace anydnn::bench {

namespace {
void check(miopenStatus_t s, const char* what) {
  if (s != miopenStatusSuccess)
    throw std::runtime_error(std::string(what) + ": " + miopenGetErrorString(s));
}
}  // namespace

AnydnnLayer::AnydnnLayer(miopenHandle_t handle, const driver::ConvSpec& s) : h_(handle) {
  check(miopenCreateTensorDescriptor(&x_), "create");
  check(miopenCreateTensorDescriptor(&w_), "create");
  check(miopenCreateTensorDescriptor(&y_), "create");
  check(miopenCreateConvolutionDescriptor(&c_), "create");
  check(miopenSetTensorDescriptor(x_, s.type, static_cast<int>(s.in_lens.size()), s.in_lens.data(),
                                  nullptr),
        "x");
  check(miopenSetTensorDescriptor(w_, s.type, static_cast<int>(s.wei_lens.size()),
                                  s.wei_lens.data(), nullptr),
        "w");
  check(miopenInitConvolutionNdDescriptor(c_, s.spatial_dims, s.pads.data(), s.strides.data(),
                                          s.dilations.data(), miopenConvolution),
        "conv");
  check(miopenSetConvolutionGroupCount(c_, s.groups), "groups");
  int nd = 0;
  std::vector<int> yl(s.in_lens.size());
  check(miopenGetConvolutionNdForwardOutputDim(c_, x_, w_, &nd, yl.data()), "out dims");
  check(miopenSetTensorDescriptor(y_, s.type, nd, yl.data(), nullptr), "y");
  hx_ = driver::HostTensor::from_descriptor(x_);
  hw_ = driver::HostTensor::from_descriptor(w_);
  hy_ = driver::HostTensor::from_descriptor(y_);
  std::mt19937 rng(7);
  hx_.fill_uniform(rng, -1, 1, 1);
  hw_.fill_uniform(rng, -1, 1, 1);
  hy_.fill_uniform(rng, -1, 1, 1);
}

AnydnnLayer::~AnydnnLayer() {
  miopenDestroyTensorDescriptor(x_);
  miopenDestroyTensorDescriptor(w_);
  miopenDestroyTensorDescriptor(y_);
  miopenDestroyConvolutionDescriptor(c_);
}

double AnydnnLayer::time_ms(Dir d, int reps, std::string* solver) {
  size_t ws_size = 0;
  switch (d) {
    case Dir::Fwd:
      check(miopenConvolutionForwardGetWorkSpaceSize(h_, w_, x_, c_, y_, &ws_size), "ws");
      break;
    case Dir::Bwd:
      check(miopenConvolutionBackwardDataGetWorkSpaceSize(h_, y_, w_, c_, x_, &ws_size), "ws");
      break;
    case Dir::Wrw:
      check(miopenConvolutionBackwardWeightsGetWorkSpaceSize(h_, y_, x_, c_, w_, &ws_size), "ws");
      break;
  }
  std::vector<uint8_t> ws(ws_size);
  // Separate outputs so that no direction reads another's result.
  driver::HostTensor out = driver::HostTensor::from_descriptor(d == Dir::Fwd   ? y_
                                                               : d == Dir::Bwd ? x_
                                                                               : w_);
  miopenConvAlgoPerf_t perf[4];
  int found = 0;
  switch (d) {
    case Dir::Fwd:
      check(miopenFindConvolutionForwardAlgorithm(h_, x_, hx_.data(), w_, hw_.data(), c_, y_,
                                                  out.data(), 4, &found, perf, ws.data(), ws.size(),
                                                  false),
            "find");
      break;
    case Dir::Bwd:
      check(miopenFindConvolutionBackwardDataAlgorithm(h_, y_, hy_.data(), w_, hw_.data(), c_, x_,
                                                       out.data(), 4, &found, perf, ws.data(),
                                                       ws.size(), false),
            "find");
      break;
    case Dir::Wrw:
      check(miopenFindConvolutionBackwardWeightsAlgorithm(h_, y_, hy_.data(), x_, hx_.data(), c_,
                                                          w_, out.data(), 4, &found, perf,
                                                          ws.data(), ws.size(), false),
            "find");
      break;
  }
  const float alpha = 1.0f, beta = 0.0f;
  const double ms = median_ms(
      [&] {
        switch (d) {
          case Dir::Fwd:
            check(miopenConvolutionForward(h_, &alpha, x_, hx_.data(), w_, hw_.data(), c_,
                                           perf[0].fwd_algo, &beta, y_, out.data(), ws.data(),
                                           perf[0].memory),
                  "run");
            break;
          case Dir::Bwd:
            check(miopenConvolutionBackwardData(h_, &alpha, y_, hy_.data(), w_, hw_.data(), c_,
                                                perf[0].bwd_data_algo, &beta, x_, out.data(),
                                                ws.data(), perf[0].memory),
                  "run");
            break;
          case Dir::Wrw:
            check(miopenConvolutionBackwardWeights(h_, &alpha, y_, hy_.data(), x_, hx_.data(), c_,
                                                   perf[0].bwd_weights_algo, &beta, w_, out.data(),
                                                   ws.data(), perf[0].memory),
                  "run");
            break;
        }
      },
      reps);
  if (solver != nullptr) {
    miopenConvSolution_t sol{};
    size_t count = 0;
    miopenStatus_t rc = miopenStatusSuccess;
    switch (d) {
      case Dir::Fwd:
        rc = miopenConvolutionForwardGetSolution(h_, w_, x_, c_, y_, 1, &count, &sol);
        break;
      case Dir::Bwd:
        rc = miopenConvolutionBackwardDataGetSolution(h_, y_, w_, c_, x_, 1, &count, &sol);
        break;
      case Dir::Wrw:
        rc = miopenConvolutionBackwardWeightsGetSolution(h_, y_, x_, c_, w_, 1, &count, &sol);
        break;
    }
    const char* name = "?";
    if (rc == miopenStatusSuccess && count == 1)
      anydnnGetConvSolverName(h_, sol.solution_id, &name);
    *solver = name;
  }
  return ms;
}

}  // namespace anydnn::bench
