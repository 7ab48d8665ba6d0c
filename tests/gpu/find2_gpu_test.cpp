// Find 2.0 on the CUDA backend through the public C API, on device memory: for each direction of
// fp32 and fp16 convolutions (grouped, strided, NHWC for the tensor-core solvers, transposed),
// find (on buffers the library allocates, or on the caller's device buffers attached to the
// options), run every solution and check it against the double reference; save, load and run a
// solution again (same bits), and refuse to run a CUDA solution on a CPU handle and the other way.
#include "api/find2_test_util.hpp"  // first: it asks for MIOpen's beta declarations

#include <gtest/gtest.h>
#include <miopen/anydnn.h>

#include "gpu/gpu_test_util.hpp"

namespace anydnn::test {
namespace {

using driver::HostTensor;

// The device copies of a setup's tensors and a run's arguments on them, writing `out`.
struct DeviceSetup {
  DeviceTensor x, w, y;
  explicit DeviceSetup(const ConvSetup& c) : x(c.hx), w(c.hw), y(c.hy) {}
  std::vector<miopenTensorArgument_t> args(miopenProblemDirection_t dir, DeviceTensor& out) {
    return arguments(
        {{miopenTensorConvolutionX, dir == miopenProblemDirectionBackward ? out.data() : x.data()},
         {miopenTensorConvolutionW,
          dir == miopenProblemDirectionBackwardWeights ? out.data() : w.data()},
         {miopenTensorConvolutionY, dir == miopenProblemDirectionForward ? out.data() : y.data()}});
  }
};

miopenStatus_t run_on_device(miopenHandle_t h, miopenSolution_t s,
                             const std::vector<miopenTensorArgument_t>& args) {
  size_t need = 0;
  EXPECT_EQ(miopenGetSolutionWorkspaceSize(s, &need), miopenStatusSuccess);
  DeviceTensor ws(need);
  return miopenRunSolution(h, s, args.size(), args.data(), need ? ws.data() : nullptr, need);
}

std::vector<double> downloaded(const DeviceTensor& d, const HostTensor& like) {
  HostTensor h = like;
  d.download(h);
  return ref::to_logical(h.view());
}

class CudaFind2 : public testing::TestWithParam<const char*> {};

TEST_P(CudaFind2, EveryDirectionEverySolutionOnDeviceMemory) {
  REQUIRE_GPU();
  ConvSetup c(GetParam());
  SCOPED_TRACE(seed_trace(c.seed));
  Handle h;
  anydnnBackend_t kind = anydnnBackendCpu;
  ASSERT_EQ(anydnnGetBackend(h, &kind), miopenStatusSuccess);
  ASSERT_EQ(kind, anydnnBackendCuda);
  DeviceSetup d(c);
  const bool attach = c.spec.type == miopenHalf;  // fp16: Find runs on the caller's buffers
  for (const auto dir : directions_of(c.spec)) {
    SCOPED_TRACE(direction_label(dir));
    const HostTensor& like = c.output(dir);
    DeviceTensor out(like.bytes.size());
    out.poison();
    FindOptions o;
    if (attach)
      for (const auto& a : d.args(dir, out))
        ASSERT_EQ(miopenSetFindOptionPreallocatedTensor(o, a.id, a.buffer), miopenStatusSuccess);
    Find2Problem p = c.problem(dir);
    const Solutions sols = find_solutions(h, p, o);
    ASSERT_GT(sols.size(), 0u);
    const auto expected = c.reference(dir);
    if (attach)  // Find's runs wrote the attached output
      EXPECT_LE(ref::relative_rms(expected, downloaded(out, like)), c.tolerance(dir));
    for (size_t i = 0; i < sols.size(); ++i) {
      SCOPED_TRACE("solver " + std::to_string(info_of(sols[i]).id));
      out.poison();
      ASSERT_EQ(run_on_device(h, sols[i], d.args(dir, out)), miopenStatusSuccess);
      EXPECT_LE(ref::relative_rms(expected, downloaded(out, like)), c.tolerance(dir));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Problems, CudaFind2,
    testing::Values(
        "conv -n 2 -c 6 -H 11 -W 13 -k 4 -y 3 -x 3 -p 1 -q 1 -u 2 -v 2 -g 2 -F 0",
        "convfp16 -n 2 -c 8 -H 11 -W 13 -k 8 -y 3 -x 3 -p 1 -q 1 -F 0",
        "convfp16 -n 2 -c 16 -H 8 -W 8 -k 32 -y 3 -x 3 -p 1 -q 1 -F 0 --in_layout NHWC "
        "--fil_layout NHWC --out_layout NHWC",
        "conv -m trans -n 1 -c 8 -H 6 -W 6 -k 4 -y 4 -x 3 -p 0 -q 1 -u 2 -v 1 -g 2 -F 0"),
    [](const auto& info) { return std::to_string(info.index) + "_" + test_name_of(info.param); });

TEST(CudaFind2, SavedSolutionsRunOnlyOnTheirBackend) {
  REQUIRE_GPU();
  ConvSetup c("convfp16 -n 2 -c 8 -H 9 -W 9 -k 8 -y 3 -x 3 -p 1 -q 1 -F 1");
  Handle h;
  miopenHandle_t cpu = nullptr;
  ASSERT_EQ(anydnnCreateWithBackend(&cpu, anydnnBackendCpu, nullptr), miopenStatusSuccess);
  DeviceSetup d(c);
  Find2Problem p = c.problem(miopenProblemDirectionForward);
  const Solutions sols = find_solutions(h, p);
  ASSERT_GT(sols.size(), 0u);
  const auto blob = save(sols[0]);
  miopenSolution_t loaded = nullptr;
  ASSERT_EQ(miopenLoadSolution(&loaded, blob.data(), blob.size()), miopenStatusSuccess);
  DeviceTensor a(c.hy.bytes.size()), b(c.hy.bytes.size());
  a.poison();
  b.poison();
  ASSERT_EQ(run_on_device(h, sols[0], d.args(miopenProblemDirectionForward, a)),
            miopenStatusSuccess);
  ASSERT_EQ(run_on_device(h, loaded, d.args(miopenProblemDirectionForward, b)),
            miopenStatusSuccess);
  HostTensor ha = c.hy, hb = c.hy;
  a.download(ha);
  b.download(hb);
  EXPECT_EQ(ha.bytes, hb.bytes);
  // A CUDA solution on a CPU handle, and a CPU one on the CUDA handle.
  EXPECT_EQ(run(cpu, loaded, c.args()), miopenStatusBadParm);
  const Solutions cpu_sols = find_solutions(cpu, p);
  ASSERT_GT(cpu_sols.size(), 0u);
  EXPECT_EQ(run_on_device(h, cpu_sols[0], d.args(miopenProblemDirectionForward, a)),
            miopenStatusBadParm);
  miopenDestroySolution(loaded);
  miopenDestroy(cpu);
}

}  // namespace
}  // namespace anydnn::test
