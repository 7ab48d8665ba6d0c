// Fusion plans and miopenConvolutionBiasActivationForward on the CUDA backend with device
// memory: every chain MIOpen fuses against the same plan on a CPU handle (host memory), whose
// results tests/api/fusion_api_test.cpp checks against the separate calls and double references;
// and the chains the CUDA solvers fuse (their epilogues: gpu/conv_epilogue_gpu_test.cpp,
// gpu/bn_activation_gpu_test.cpp) compile to the fused solvers, not to the sequence.
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "api/api_objects.hpp"
#include "common_test_util.hpp"
#include "gpu/gpu_test_util.hpp"
#include "host_buffer.hpp"
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

// A descriptor of `type` with NCHW lengths in NCHW or NHWC memory order.
miopenTensorDescriptor_t tensor_in(miopenDataType_t type, std::vector<int> lens, bool nhwc) {
  miopenTensorDescriptor_t t = nullptr;
  EXPECT_EQ(miopenCreateTensorDescriptor(&t), miopenStatusSuccess);
  const int c = lens[1], h = lens[2], w = lens[3];
  std::vector<int> strides =
      nhwc ? std::vector<int>{h * w * c, 1, w * c, c} : std::vector<int>{c * h * w, h * w, w, 1};
  EXPECT_EQ(miopenSetTensorDescriptor(t, type, 4, lens.data(), strides.data()),
            miopenStatusSuccess);
  return t;
}

// Host data of a descriptor's size and type, uniform in [lo, hi].
driver::HostTensor host_data(miopenDataType_t type, size_t elements, std::mt19937& rng, double lo,
                             double hi) {
  driver::HostTensor t;
  t.type = type;
  t.lens = {elements};
  t.strides = {1};
  t.bytes.assign(elements * (type == miopenFloat ? 4 : 2), 0);
  t.fill_uniform(rng, lo, hi, 1.0);
  return t;
}

std::vector<double> as_doubles(const driver::HostTensor& t, size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = t.get(i);
  return v;
}

// conv + bias + ReLU (PyTorch's fused path) and conv + BN inference + activation, fp32 NCHW
// (default math: the direct / cuBLAS solvers), TF32 and fp16 NHWC (the tensor-core solver): on
// the CUDA handle the plan compiles to ConvEpilogueFused and gives the CPU handle's result.
TEST(FusionApiGpu, ConvChainsCompileToTheEpilogue) {
  REQUIRE_GPU();
  const unsigned seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_trace(seed));
  std::mt19937 rng(seed);
  struct Setup {
    const char* name;
    miopenDataType_t type;
    bool nhwc, tf32, bn;
    double tol;
  };
  for (const Setup& s : {Setup{"fp32 NCHW bias relu", miopenFloat, false, false, false, 1e-4},
                         Setup{"fp32 NCHW bn relu", miopenFloat, false, false, true, 1e-4},
                         Setup{"tf32 NCHW bias relu", miopenFloat, false, true, false, 5e-3},
                         Setup{"fp16 NHWC bias relu", miopenHalf, true, false, false, 5e-3},
                         Setup{"fp16 NHWC bn relu", miopenHalf, true, false, true, 5e-3}}) {
    SCOPED_TRACE(s.name);
    miopenHandle_t cpu = nullptr, gpu = nullptr;
    ASSERT_EQ(anydnnCreateWithBackend(&cpu, anydnnBackendCpu, nullptr), miopenStatusSuccess);
    // A handle reads its environment once, when it is created.
    if (s.tf32) setenv("ANYDNN_CONV_ALLOW_TF32", "1", 1);
    const miopenStatus_t made = anydnnCreateWithBackend(&gpu, anydnnBackendCuda, nullptr);
    if (s.tf32) unsetenv("ANYDNN_CONV_ALLOW_TF32");
    ASSERT_EQ(made, miopenStatusSuccess);
    const int n = 2, c = 16, h = 10, w = 9, k = 32;
    auto x = tensor_in(s.type, {n, c, h, w}, s.nhwc), wt = tensor_in(s.type, {k, c, 3, 3}, s.nhwc);
    auto y = tensor_in(s.type, {n, k, h, w}, s.nhwc);
    // BN parameters are fp32 for every data type; a bias is of the output's type (as MIOpen's).
    auto pk = tensor_in(s.bn ? miopenFloat : s.type, {1, k, 1, 1}, false);
    miopenConvolutionDescriptor_t conv = nullptr;
    ASSERT_EQ(miopenCreateConvolutionDescriptor(&conv), miopenStatusSuccess);
    ASSERT_EQ(miopenInitConvolutionDescriptor(conv, miopenConvolution, 1, 1, 1, 1, 1, 1),
              miopenStatusSuccess);
    const size_t nx = static_cast<size_t>(n) * c * h * w, nw = static_cast<size_t>(k) * c * 9;
    const size_t ny = static_cast<size_t>(n) * k * h * w;
    const auto hx = host_data(s.type, nx, rng, -1, 1), hw = host_data(s.type, nw, rng, -0.2, 0.2);
    const auto kb = test::random_floats(rng, k), ks = test::random_floats(rng, k, 0.5f, 1.5f);
    const auto km = test::random_floats(rng, k), kv = test::random_floats(rng, k, 0.5f, 2.0f);
    const auto bias = host_data(s.type, k, rng, -0.5, 0.5);
    const size_t y_bytes = ny * (s.type == miopenFloat ? 4 : 2);

    const auto run = [&](miopenHandle_t hd, bool dev, std::string* solver) {
      std::vector<void*> dev_bufs;
      const auto put = [&](const void* p, size_t bytes) -> void* {
        if (!dev) return const_cast<void*>(p);
        void* d = nullptr;
        if (cudaMalloc(&d, bytes) != cudaSuccess) return nullptr;
        cudaMemcpy(d, p, bytes, cudaMemcpyHostToDevice);
        dev_bufs.push_back(d);
        return d;
      };
      const auto putf = [&](const std::vector<float>& v) {
        return put(v.data(), v.size() * sizeof(float));
      };
      std::vector<unsigned char> out(y_bytes, 0xFF);  // NaN in every float type
      void* o = put(out.data(), out.size());
      miopenFusionPlanDescriptor_t plan = nullptr;
      miopenFusionOpDescriptor_t co, bo, ao;
      miopenOperatorArgs_t args = nullptr;
      EXPECT_EQ(miopenCreateFusionPlan(&plan, miopenVerticalFusion, x), miopenStatusSuccess);
      EXPECT_EQ(miopenCreateOpConvForward(plan, &co, conv, wt), miopenStatusSuccess);
      if (s.bn)
        EXPECT_EQ(miopenCreateOpBatchNormInference(plan, &bo, miopenBNSpatial, pk),
                  miopenStatusSuccess);
      else
        EXPECT_EQ(miopenCreateOpBiasForward(plan, &bo, pk), miopenStatusSuccess);
      EXPECT_EQ(miopenCreateOpActivationForward(plan, &ao, miopenActivationRELU),
                miopenStatusSuccess);
      EXPECT_EQ(miopenCompileFusionPlan(hd, plan), miopenStatusSuccess);
      *solver = api::deref(plan).plan.solver_name();
      EXPECT_EQ(miopenCreateOperatorArgs(&args), miopenStatusSuccess);
      EXPECT_EQ(miopenSetOpArgsConvForward(args, co, nullptr, nullptr,
                                           put(hw.bytes.data(), hw.bytes.size())),
                miopenStatusSuccess);
      if (s.bn)
        EXPECT_EQ(miopenSetOpArgsBatchNormInference(args, bo, nullptr, nullptr, putf(ks), putf(kb),
                                                    putf(km), putf(kv), 1e-5),
                  miopenStatusSuccess);
      else
        EXPECT_EQ(miopenSetOpArgsBiasForward(args, bo, nullptr, nullptr,
                                             put(bias.bytes.data(), bias.bytes.size())),
                  miopenStatusSuccess);
      EXPECT_EQ(miopenSetOpArgsActivForward(args, ao, nullptr, nullptr, 0, 0, 0),
                miopenStatusSuccess);
      EXPECT_EQ(
          miopenExecuteFusionPlan(hd, plan, x, put(hx.bytes.data(), hx.bytes.size()), y, o, args),
          miopenStatusSuccess);
      if (dev) {
        EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        cudaMemcpy(out.data(), o, out.size(), cudaMemcpyDeviceToHost);
      }
      for (void* d : dev_bufs)
        cudaFree(d);
      miopenDestroyOperatorArgs(args);
      miopenDestroyFusionPlan(plan);
      driver::HostTensor r;
      r.type = s.type;
      r.lens = {ny};
      r.strides = {1};
      r.bytes = out;
      return as_doubles(r, ny);
    };
    std::string cpu_solver, gpu_solver;
    const auto want = run(cpu, false, &cpu_solver);
    const auto got = run(gpu, true, &gpu_solver);
    EXPECT_EQ(gpu_solver, "ConvEpilogueFused");
    EXPECT_LE(ref::max_relative_error(want, got), s.tol);
    for (auto t : {x, wt, y, pk})
      miopenDestroyTensorDescriptor(t);
    miopenDestroyConvolutionDescriptor(conv);
    miopenDestroy(cpu);
    miopenDestroy(gpu);
  }
}

}  // namespace
}  // namespace anydnn
