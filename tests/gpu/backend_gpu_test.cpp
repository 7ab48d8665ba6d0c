// The CUDA backend itself: device id, stream handling, timing, memory moves and conversions.
#include <gtest/gtest.h>
#include <miopen/anydnn.h>
#include <miopen/miopen.h>

#include <cmath>
#include <vector>

#include "backend/backend.hpp"
#include "core/config.hpp"
#include "core/float_types.hpp"
#include "gpu/gpu_test_util.hpp"
#include "rnn/rnn_kernels.hpp"

namespace anydnn {
namespace {

TEST(CudaBackend, DeviceIdNamesArchitectureAndModel) {
  REQUIRE_GPU();
  Config cfg;
  auto b = make_cuda_backend(cfg, nullptr);
  const std::string id = b->device_id();
  EXPECT_EQ(id.rfind("cuda-sm", 0), 0u) << id;
  EXPECT_NE(id.find("cu-"), std::string::npos) << id;
  EXPECT_EQ(id.find(' '), std::string::npos) << id;
}

TEST(CudaBackend, CopiesFillsAndConvertsOnTheDevice) {
  REQUIRE_GPU();
  Config cfg;
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  auto b = make_cuda_backend(cfg, stream);
  EXPECT_EQ(b->stream(), stream);
  const size_t n = 1000;
  {  // Library scratch is stream-ordered: it must go back before its stream is destroyed.
    std::vector<float> host(n);
    for (size_t i = 0; i < n; ++i)
      host[i] = 0.25f * static_cast<float>(i) - 7.0f;
    auto f = b->allocate(n * sizeof(float));
    auto g = b->allocate(n * sizeof(float));
    auto h = b->allocate(n * sizeof(uint16_t));
    b->copy(f.get(), host.data(), n * sizeof(float), CopyKind::HostToDevice);
    // The fp16 conversions are the RNN kernels' (fp16 staging).
    b->kernels<RnnKernels>().float_to_half(static_cast<const float*>(f.get()), n,
                                           static_cast<uint16_t*>(h.get()));
    b->fill_zero(g.get(), n * sizeof(float));
    b->kernels<RnnKernels>().half_to_float(static_cast<const uint16_t*>(h.get()), n,
                                           static_cast<float*>(g.get()));
    std::vector<float> back(n, NAN);
    b->copy(back.data(), g.get(), n * sizeof(float), CopyKind::DeviceToHost);
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(back[i], half_to_float(float_to_half(host[i]))) << i;
    // Timing covers work enqueued on the stream.
    const float ms = b->run_timed([&] { b->fill_zero(f.get(), n * sizeof(float)); });
    EXPECT_GE(ms, 0.0f);
  }
  b.reset();
  cudaStreamDestroy(stream);
}

TEST(CudaBackend, DefaultBackendIsCudaWhenAGpuIsPresent) {
  REQUIRE_GPU();
  // The suite runs with MIOPEN_BACKEND=cuda; without it the rule gives the same answer.
  Config cfg;
  cfg.backend_from_env = false;
  EXPECT_TRUE(cuda_device_present());
  miopenHandle_t handle = nullptr;
  ASSERT_EQ(miopenCreate(&handle), miopenStatusSuccess);
  anydnnBackend_t kind = anydnnBackendCpu;
  ASSERT_EQ(anydnnGetBackend(handle, &kind), miopenStatusSuccess);
  EXPECT_EQ(kind, anydnnBackendCuda);
  miopenDestroy(handle);
}

TEST(CudaBackend, KernelTimeComesFromCudaEvents) {
  REQUIRE_GPU();
  miopenHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  ASSERT_EQ(miopenCreateWithStream(&handle, stream), miopenStatusSuccess);
  miopenAcceleratorQueue_t got = nullptr;
  ASSERT_EQ(miopenGetStream(handle, &got), miopenStatusSuccess);
  EXPECT_EQ(got, stream);
  ASSERT_EQ(miopenEnableProfiling(handle, true), miopenStatusSuccess);
  float ms = -1.0f;
  ASSERT_EQ(miopenGetKernelTime(handle, &ms), miopenStatusSuccess);
  EXPECT_GE(ms, 0.0f);
  miopenDestroy(handle);
  cudaStreamDestroy(stream);
}

// Without profiling a call only enqueues its work (MIOpen's asynchronous semantics; the
// front-ends used to wait on an event after every call): 20 tanh passes over 256 MiB take
// milliseconds on the GPU and microseconds to enqueue, so the stream is still busy when the
// last call returns. With profiling on, each call waits (to time itself), and the stream is idle.
TEST(CudaBackend, CallsReturnBeforeTheirKernelsFinishUnlessProfiling) {
  REQUIRE_GPU();
  miopenHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  ASSERT_CUDA_OK(cudaStreamCreate(&stream));
  ASSERT_EQ(miopenCreateWithStream(&handle, stream), miopenStatusSuccess);
  const int n = 64 << 20;  // floats
  test::DeviceTensor x(size_t{4} * n), y(size_t{4} * n);
  ASSERT_CUDA_OK(cudaMemset(x.data(), 0, size_t{4} * n));
  miopenTensorDescriptor_t d = nullptr;
  miopenActivationDescriptor_t a = nullptr;
  const int lens[4] = {64, 1024, 32, 32};
  ASSERT_EQ(miopenCreateTensorDescriptor(&d), miopenStatusSuccess);
  ASSERT_EQ(miopenSetTensorDescriptor(d, miopenFloat, 4, lens, nullptr), miopenStatusSuccess);
  ASSERT_EQ(miopenCreateActivationDescriptor(&a), miopenStatusSuccess);
  ASSERT_EQ(miopenSetActivationDescriptor(a, miopenActivationTANH, 1.0, 1.0, 1.0),
            miopenStatusSuccess);
  const float one = 1.0f, zero = 0.0f;
  auto burst = [&] {
    for (int i = 0; i < 20; ++i)
      ASSERT_EQ(miopenActivationForward(handle, a, &one, d, x.data(), &zero, d, y.data()),
                miopenStatusSuccess);
  };
  burst();  // first calls: module loading, solver choice
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  burst();
  EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);
  ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
  ASSERT_EQ(miopenEnableProfiling(handle, true), miopenStatusSuccess);
  burst();
  EXPECT_EQ(cudaStreamQuery(stream), cudaSuccess);
  float ms = 0.0f;
  ASSERT_EQ(miopenGetKernelTime(handle, &ms), miopenStatusSuccess);
  EXPECT_GT(ms, 0.0f);
  miopenDestroyActivationDescriptor(a);
  miopenDestroyTensorDescriptor(d);
  miopenDestroy(handle);
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace anydnn
