// Fusion plans and miopenConvolutionBiasActivationForward on the CUDA backend with device
// memory: every chain MIOpen fuses against the same plan on a CPU handle (host memory), whose
// results tests/api/fusion_api_test.cpp checks against the separate calls and double references.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "common_test_util.hpp"
#include "gpu/gpu_test_util.hpp"
#include "verify.hpp"

namespace anydnn {
namespace {

// Device copies of host float vectors, freed at the end of the test.
class DeviceArena {
 public:
  ~DeviceArena() {
    for (void* p : ptrs_)
      cudaFree(p);
  }
  float* copy(const std::vector<float>& v) {
    void* p = nullptr;
    if (cudaMalloc(&p, v.size() * sizeof(float)) != cudaSuccess) return nullptr;
    cudaMemcpy(p, v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice);
    ptrs_.push_back(p);
    return static_cast<float*>(p);
  }
  static std::vector<float> back(const float* d, size_t n) {
    std::vector<float> v(n);
    cudaDeviceSynchronize();
    cudaMemcpy(v.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost);
    return v;
  }

 private:
  std::vector<void*> ptrs_;
};

miopenTensorDescriptor_t tensor(std::vector<int> lens) {
  miopenTensorDescriptor_t t = nullptr;
  EXPECT_EQ(miopenCreateTensorDescriptor(&t), miopenStatusSuccess);
  EXPECT_EQ(miopenSetTensorDescriptor(t, miopenFloat, static_cast<int>(lens.size()), lens.data(),
                                      nullptr),
            miopenStatusSuccess);
  return t;
}

TEST(FusionApiGpu, ChainsMatchTheCpuBackend) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  miopenHandle_t cpu = nullptr, gpu = nullptr;
  ASSERT_EQ(anydnnCreateWithBackend(&cpu, anydnnBackendCpu, nullptr), miopenStatusSuccess);
  ASSERT_EQ(anydnnCreateWithBackend(&gpu, anydnnBackendCuda, nullptr), miopenStatusSuccess);
  const int n = 2, c = 3, h = 9, w = 9, k = 4;
  auto x = tensor({n, c, h, w}), wt = tensor({k, c, 3, 3}), y = tensor({n, k, h, w});
  auto pk = tensor({1, k, 1, 1});
  miopenConvolutionDescriptor_t conv = nullptr;
  ASSERT_EQ(miopenCreateConvolutionDescriptor(&conv), miopenStatusSuccess);
  ASSERT_EQ(miopenInitConvolutionDescriptor(conv, miopenConvolution, 1, 1, 1, 1, 1, 1),
            miopenStatusSuccess);
  const size_t nx = static_cast<size_t>(n) * c * h * w, ny = static_cast<size_t>(n) * k * h * w;
  const auto xv = test::random_floats(rng, nx, -1, 1), wv = test::random_floats(rng, k * c * 9);
  const auto dyv = test::random_floats(rng, nx, -1, 1);
  const auto kb = test::random_floats(rng, k), ks = test::random_floats(rng, k, 0.5f, 1.5f);
  const auto km = test::random_floats(rng, k), kv = test::random_floats(rng, k, 0.5f, 2.0f);
  const auto cs = test::random_floats(rng, c, 0.5f, 1.5f), cb = test::random_floats(rng, c);
  // Saved statistics for the backward chain: any positive inverse std will do for the comparison.
  const auto sm = test::random_floats(rng, c), si = test::random_floats(rng, c, 0.5f, 2.0f);

  // Runs `chain` on a handle: buffers on the host (CPU) or copied to the device (CUDA);
  // returns the output and the named extra outputs (saved statistics, parameter gradients).
  using Run = std::function<std::vector<std::vector<float>>(miopenHandle_t, bool)>;
  const auto compare = [&](const char* name, const Run& run) {
    SCOPED_TRACE(name);
    const auto on_cpu = run(cpu, false), on_gpu = run(gpu, true);
    ASSERT_EQ(on_cpu.size(), on_gpu.size());
    for (size_t i = 0; i < on_cpu.size(); ++i)
      EXPECT_LE(ref::max_relative_error(on_cpu[i], on_gpu[i]), 1e-4) << name;
  };

  compare("conv + bias + BN inference + leaky ReLU", [&](miopenHandle_t hd, bool dev) {
    DeviceArena arena;
    std::vector<float> out(ny, NAN);
    const auto put = [&](const std::vector<float>& v) {
      return dev ? arena.copy(v) : const_cast<float*>(v.data());
    };
    float* o = put(out);
    miopenFusionPlanDescriptor_t plan = nullptr;
    miopenFusionOpDescriptor_t co, bo, no, ao;
    miopenOperatorArgs_t args = nullptr;
    EXPECT_EQ(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpConvForward(plan, &co, conv, wt), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpBiasForward(plan, &bo, pk), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpBatchNormInference(plan, &no, miopenBNSpatial, pk),
              miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpActivationForward(plan, &ao, miopenActivationLEAKYRELU),
              miopenStatusSuccess);
    EXPECT_EQ(miopenCompileFusionPlan(hd, plan), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOperatorArgs(&args), miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsConvForward(args, co, nullptr, nullptr, put(wv)), miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsBiasForward(args, bo, nullptr, nullptr, put(kb)), miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsBatchNormInference(args, no, nullptr, nullptr, put(ks), put(kb),
                                                put(km), put(kv), 1e-5),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsActivForward(args, ao, nullptr, nullptr, 0.1, 0, 0),
              miopenStatusSuccess);
    EXPECT_EQ(miopenExecuteFusionPlan(hd, plan, x, put(xv), y, o, args), miopenStatusSuccess);
    std::vector<std::vector<float>> r{dev ? DeviceArena::back(o, ny) : out};
    miopenDestroyOperatorArgs(args);
    miopenDestroyFusionPlan(plan);
    return r;
  });

  compare("BN training + logistic", [&](miopenHandle_t hd, bool dev) {
    DeviceArena arena;
    std::vector<float> out(nx, NAN), smo(c, NAN), sio(c, NAN), rm(c, 0.0f), rv(c, 1.0f);
    const auto put = [&](const std::vector<float>& v) {
      return dev ? arena.copy(v) : const_cast<float*>(v.data());
    };
    float *o = put(out), *dsm = put(smo), *dsi = put(sio), *drm = put(rm), *drv = put(rv);
    miopenFusionPlanDescriptor_t plan = nullptr;
    miopenFusionOpDescriptor_t no, ao;
    miopenOperatorArgs_t args = nullptr;
    EXPECT_EQ(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpBatchNormForward(plan, &no, miopenBNSpatial, true),
              miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpActivationForward(plan, &ao, miopenActivationLOGISTIC),
              miopenStatusSuccess);
    EXPECT_EQ(miopenCompileFusionPlan(hd, plan), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOperatorArgs(&args), miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsBatchNormForward(args, no, nullptr, nullptr, put(cs), put(cb), dsm,
                                              dsi, drm, drv, 0.1, 1e-5),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsActivForward(args, ao, nullptr, nullptr, 0, 0, 0),
              miopenStatusSuccess);
    EXPECT_EQ(miopenExecuteFusionPlan(hd, plan, x, put(xv), x, o, args), miopenStatusSuccess);
    std::vector<std::vector<float>> r;
    for (auto [p, v] : {std::pair{o, &out}, std::pair{dsm, &smo}, std::pair{dsi, &sio},
                        std::pair{drm, &rm}, std::pair{drv, &rv}})
      r.push_back(dev ? DeviceArena::back(p, v->size()) : *v);
    miopenDestroyOperatorArgs(args);
    miopenDestroyFusionPlan(plan);
    return r;
  });

  compare("BN backward + logistic backward", [&](miopenHandle_t hd, bool dev) {
    DeviceArena arena;
    std::vector<float> dx(nx, NAN), ds(c, NAN), db(c, NAN);
    const auto put = [&](const std::vector<float>& v) {
      return dev ? arena.copy(v) : const_cast<float*>(v.data());
    };
    float *o = put(dx), *dds = put(ds), *ddb = put(db);
    miopenFusionPlanDescriptor_t plan = nullptr;
    miopenFusionOpDescriptor_t no, ao;
    miopenOperatorArgs_t args = nullptr;
    EXPECT_EQ(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpBatchNormBackward(plan, &no, miopenBNSpatial), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOpActivationBackward(plan, &ao, miopenActivationLOGISTIC),
              miopenStatusSuccess);
    EXPECT_EQ(miopenCompileFusionPlan(hd, plan), miopenStatusSuccess);
    EXPECT_EQ(miopenCreateOperatorArgs(&args), miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsBatchNormBackward(args, no, nullptr, nullptr, put(xv), put(cs),
                                               put(cb), dds, ddb, put(sm), put(si)),
              miopenStatusSuccess);
    EXPECT_EQ(miopenSetOpArgsActivBackward(args, ao, nullptr, nullptr, nullptr, nullptr, 0, 0, 0),
              miopenStatusSuccess);
    EXPECT_EQ(miopenExecuteFusionPlan(hd, plan, x, put(dyv), x, o, args), miopenStatusSuccess);
    std::vector<std::vector<float>> r;
    for (auto [p, v] : {std::pair{o, &dx}, std::pair{dds, &ds}, std::pair{ddb, &db}})
      r.push_back(dev ? DeviceArena::back(p, v->size()) : *v);
    miopenDestroyOperatorArgs(args);
    miopenDestroyFusionPlan(plan);
    return r;
  });

  compare("miopenConvolutionBiasActivationForward with z", [&](miopenHandle_t hd, bool dev) {
    DeviceArena arena;
    const auto zv = std::vector<float>(ny, 0.25f);
    std::vector<float> out(ny, NAN);
    const auto put = [&](const std::vector<float>& v) {
      return dev ? arena.copy(v) : const_cast<float*>(v.data());
    };
    float* o = put(out);
    miopenActivationDescriptor_t act = nullptr;
    EXPECT_EQ(miopenCreateActivationDescriptor(&act), miopenStatusSuccess);
    EXPECT_EQ(miopenSetActivationDescriptor(act, miopenActivationRELU, 0, 0, 0),
              miopenStatusSuccess);
    const float a1 = 0.5f, a2 = 2.0f;
    EXPECT_EQ(miopenConvolutionBiasActivationForward(hd, &a1, x, put(xv), wt, put(wv), conv,
                                                     miopenConvolutionFwdAlgoDirect, nullptr, 0,
                                                     &a2, y, put(zv), pk, put(kb), act, y, o),
              miopenStatusSuccess);
    miopenDestroyActivationDescriptor(act);
    return std::vector<std::vector<float>>{dev ? DeviceArena::back(o, ny) : out};
  });

  for (auto t : {x, wt, y, pk})
    miopenDestroyTensorDescriptor(t);
  miopenDestroyConvolutionDescriptor(conv);
  miopenDestroy(cpu);
  miopenDestroy(gpu);
}

}  // namespace
}  // namespace anydnn
