// Find 2.0 through the C API with hostile arguments: up to 32 byte-chosen calls on a pool of
// tensor descriptors, operator descriptors, problems of every kind (created with any direction,
// tensors set under any id, fused in any order), find options (any order, limit, tuning value,
// preallocated workspace and tensors), solutions (found, saved, loaded) and blobs (saved ones
// mutated, truncated, extended, resealed with a valid checksum or not, or pure noise).
// Every call must return a status. The harness keeps the invariants the API cannot check: every
// tensor descriptor describes at most 7776 packed elements of at most 8 bytes, every buffer it
// hands out holds 4 MiB (more than any problem built from the pool needs, fused convolution
// outputs included: pads <= 2, strides <= 3 and dilations <= 2, transposed ones unit stride and
// dilation), every workspace size it passes is the buffer's or less, and it runs only
// solutions whose problem it knows (found, or loaded from an unaltered blob), so an access out
// of bounds is the library's.
#define MIOPEN_BETA_API 1  // the beta problem kinds and their tensor ids
#include <miopen/miopen.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "fuzz_common.hpp"

using anydnn::fuzz::data_type;
using anydnn::fuzz::enum_value;
using anydnn::fuzz::hostile_int;

namespace {

constexpr size_t kBufferBytes = 4 << 20;
constexpr size_t kWorkspaceBytes = 4 << 20;
constexpr size_t kMaxSolutions = 8;

struct Solution {
  miopenSolution_t s = nullptr;
  bool runnable = false;  // found, or loaded from a blob as saved
};

// The buffers outlive the inputs: allocating and filling 28 MiB for each input (page faults, a
// fill loop under coverage instrumentation) took a third of the harness's time. Each input
// still starts from the same contents: the data buffers are copied back from a pristine one;
// the workspace is scratch and is not.
struct SharedBuffers {
  std::vector<double> pristine = std::vector<double>(kBufferBytes / sizeof(double), 0.5);
  std::array<std::vector<double>, 6> data;
  std::vector<uint8_t> workspace = std::vector<uint8_t>(kWorkspaceBytes);
  SharedBuffers() {
    for (auto& b : data)
      b = pristine;
  }
  void reset() {
    for (auto& b : data)
      std::memcpy(b.data(), pristine.data(), kBufferBytes);
  }
};

SharedBuffers& shared_buffers() {
  static SharedBuffers b;
  return b;
}

struct Pool {
  miopenHandle_t handle = nullptr;
  std::array<miopenTensorDescriptor_t, 4> tensors{};
  miopenConvolutionDescriptor_t conv = nullptr;
  miopenActivationDescriptor_t activ = nullptr;
  // MIOpen has no destroy call for these two: one of each per process (reachable, so not
  // reported as a leak), reset at the start of every input.
  miopenSoftmaxDescriptor_t softmax = nullptr;
  miopenMhaDescriptor_t mha = nullptr;
  std::array<miopenProblem_t, 3> problems{};
  std::array<miopenFindOptions_t, 2> options{};
  std::vector<Solution> solutions;
  std::vector<std::vector<char>> blobs;
  std::array<std::vector<double>, 6>& buffers;
  std::vector<uint8_t>& workspace;

  Pool() : buffers(shared_buffers().data), workspace(shared_buffers().workspace) {
    shared_buffers().reset();
  }
  ~Pool() {
    for (auto& s : solutions)
      miopenDestroySolution(s.s);
    for (auto& o : options)
      if (o) miopenDestroyFindOptions(o);
    for (auto& p : problems)
      if (p) miopenDestroyProblem(p);
    for (auto& t : tensors)
      if (t) miopenDestroyTensorDescriptor(t);
    if (conv) miopenDestroyConvolutionDescriptor(conv);
    if (activ) miopenDestroyActivationDescriptor(activ);
    if (handle) miopenDestroy(handle);
  }
  void add_solution(miopenSolution_t s, bool runnable) {
    if (solutions.size() == kMaxSolutions) {
      miopenDestroySolution(solutions.front().s);
      solutions.erase(solutions.begin());
    }
    solutions.push_back({s, runnable});
  }
};

template <class T, size_t N>
T pick(FuzzedDataProvider& fdp, const std::array<T, N>& slots) {
  const size_t i = fdp.ConsumeIntegralInRange<size_t>(0, N);
  return i < N ? slots[i] : T{};
}

// Any of MIOpen's argument ids (scalars included), sometimes any value at all.
miopenTensorArgumentId_t argument_id(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange(0, 7)) {
    case 0:
      return static_cast<miopenTensorArgumentId_t>(fdp.ConsumeIntegral<uint32_t>());
    case 1:
      return static_cast<miopenTensorArgumentId_t>(miopenTensorArgumentIsScalar |
                                                   fdp.ConsumeIntegralInRange(0, 4));
    default:
      return static_cast<miopenTensorArgumentId_t>(fdp.ConsumeIntegralInRange(0, 62));
  }
}

miopenProblemDirection_t direction(FuzzedDataProvider& fdp) {
  return enum_value<miopenProblemDirection_t>(fdp, 4);
}

// Packed tensors of 1-5 dimensions, each 1-6 long (at most 7776 elements), any data type; or a
// setter call with hostile lengths, which must fail.
void set_tensor(FuzzedDataProvider& fdp, Pool& p) {
  miopenTensorDescriptor_t t = pick(fdp, p.tensors);
  if (t == nullptr) return;
  const int nd = fdp.ConsumeIntegralInRange(1, 5);
  std::vector<int> lens(static_cast<size_t>(nd));
  for (int& l : lens)
    l = fdp.ConsumeIntegralInRange(1, 6);
  if (fdp.ConsumeIntegralInRange(0, 15) == 0) {
    lens[0] = fdp.ConsumeIntegralInRange(-2, 0);  // rejected: the descriptor keeps its state
  }
  const miopenDataType_t type = data_type(fdp);
  if ((nd == 4 || nd == 5) && fdp.ConsumeBool()) {
    miopenSetNdTensorDescriptorWithLayout(t, type, nd == 4 ? miopenTensorNHWC : miopenTensorNDHWC,
                                          lens.data(), nd);
  } else {
    miopenSetTensorDescriptor(t, type, nd, lens.data(), nullptr);
  }
}

void set_operators(FuzzedDataProvider& fdp, Pool& p) {
  switch (fdp.ConsumeIntegralInRange(0, 3)) {
    case 0: {  // small pads, strides and dilations keep fused outputs within the buffers
      const int dims = fdp.ConsumeIntegralInRange(1, 4);
      const auto mode = enum_value<miopenConvolutionMode_t>(fdp, 3);
      const bool transpose = mode == miopenTranspose;
      std::array<int, 4> pads{}, strides{}, dils{};
      for (int i = 0; i < 4; ++i) {
        pads[i] = fdp.ConsumeIntegralInRange(-1, 2);
        strides[i] = transpose ? 1 : fdp.ConsumeIntegralInRange(0, 3);
        dils[i] = transpose ? 1 : fdp.ConsumeIntegralInRange(0, 2);
      }
      miopenInitConvolutionNdDescriptor(p.conv, dims, pads.data(), strides.data(), dils.data(),
                                        mode);
      miopenSetConvolutionGroupCount(p.conv, fdp.ConsumeIntegralInRange(0, 3));
      break;
    }
    case 1:
      miopenSetActivationDescriptor(
          p.activ, enum_value<miopenActivationMode_t>(fdp, 9), fdp.ConsumeFloatingPoint<double>(),
          fdp.ConsumeFloatingPoint<double>(), fdp.ConsumeFloatingPoint<double>());
      break;
    case 2:
      miopenSetSoftmaxDescriptor(
          p.softmax, fdp.ConsumeFloatingPoint<float>(), fdp.ConsumeFloatingPoint<float>(),
          enum_value<miopenSoftmaxAlgorithm_t>(fdp, 2), enum_value<miopenSoftmaxMode_t>(fdp, 1));
      break;
    default: {
      miopenSetMhaDescriptor(p.mha, fdp.ConsumeFloatingPoint<float>());
      float scale = 0.0f;
      miopenGetMhaDescriptor(p.mha, fdp.ConsumeBool() ? &scale : nullptr);
      break;
    }
  }
}

// A convolution whose tensors agree (tensors 0-2 become x, w and y, tensor 3 a bias), as a
// problem of any direction, sometimes fused with a bias and an activation: the path to solutions
// that random calls rarely find.
void coherent_conv(FuzzedDataProvider& fdp, Pool& p) {
  const int n = fdp.ConsumeIntegralInRange(1, 3), c = fdp.ConsumeIntegralInRange(1, 4);
  const int k = fdp.ConsumeIntegralInRange(1, 4), h = fdp.ConsumeIntegralInRange(1, 6);
  const int w = fdp.ConsumeIntegralInRange(1, 6), r = fdp.ConsumeIntegralInRange(1, 3);
  const int pad = fdp.ConsumeIntegralInRange(0, 2), stride = fdp.ConsumeIntegralInRange(1, 2);
  const miopenDataType_t type = fdp.ConsumeBool() ? miopenFloat : miopenHalf;
  const bool nhwc = fdp.ConsumeBool();
  const std::array<int, 4> xl{n, c, h, w}, wl{k, c, r, r}, bl{1, k, 1, 1};
  std::array<int, 4> yl{};
  int nd = 0;
  const miopenTensorLayout_t layout = nhwc ? miopenTensorNHWC : miopenTensorNCHW;
  if (miopenInitConvolutionDescriptor(p.conv, miopenConvolution, pad, pad, stride, stride, 1, 1) !=
          miopenStatusSuccess ||
      miopenSetConvolutionGroupCount(p.conv, 1) != miopenStatusSuccess ||
      miopenSetNdTensorDescriptorWithLayout(p.tensors[0], type, layout, xl.data(), 4) != 0 ||
      miopenSetNdTensorDescriptorWithLayout(p.tensors[1], type, layout, wl.data(), 4) != 0 ||
      miopenGetConvolutionNdForwardOutputDim(p.conv, p.tensors[0], p.tensors[1], &nd, yl.data()) !=
          miopenStatusSuccess ||
      miopenSetNdTensorDescriptorWithLayout(p.tensors[2], type, layout, yl.data(), 4) != 0 ||
      miopenSetTensorDescriptor(p.tensors[3], type, 4, bl.data(), nullptr) != 0)
    return;
  const miopenProblemDirection_t dir =
      static_cast<miopenProblemDirection_t>(fdp.ConsumeIntegralInRange(0, 2));
  miopenProblem_t made = nullptr;
  if (miopenCreateConvProblem(&made, p.conv, dir) != miopenStatusSuccess) return;
  miopenSetProblemTensorDescriptor(made, miopenTensorConvolutionX, p.tensors[0]);
  miopenSetProblemTensorDescriptor(made, miopenTensorConvolutionW, p.tensors[1]);
  miopenSetProblemTensorDescriptor(made, miopenTensorConvolutionY, p.tensors[2]);
  if (fdp.ConsumeBool()) {
    miopenProblem_t bias = nullptr, act = nullptr;
    if (miopenCreateBiasProblem(&bias, miopenProblemDirectionForward) == miopenStatusSuccess) {
      miopenSetProblemTensorDescriptor(bias, miopenTensorBias, p.tensors[3]);
      miopenFuseProblems(made, bias);
      miopenDestroyProblem(bias);
    }
    if (miopenCreateActivationProblem(&act, p.activ, miopenProblemDirectionForward) ==
        miopenStatusSuccess) {
      miopenFuseProblems(made, act);
      miopenDestroyProblem(act);
    }
  }
  const size_t slot = fdp.ConsumeIntegralInRange<size_t>(0, p.problems.size() - 1);
  if (p.problems[slot]) miopenDestroyProblem(p.problems[slot]);
  p.problems[slot] = made;
}

void create_problem(FuzzedDataProvider& fdp, Pool& p) {
  const size_t slot = fdp.ConsumeIntegralInRange<size_t>(0, p.problems.size() - 1);
  miopenProblem_t made = nullptr;
  const miopenProblemDirection_t dir = direction(fdp);
  miopenStatus_t rc = miopenStatusSuccess;
  switch (fdp.ConsumeIntegralInRange(0, 6)) {
    case 0:
      rc = miopenCreateConvProblem(&made, fdp.ConsumeBool() ? p.conv : nullptr, dir);
      break;
    case 1:
      rc = miopenCreateActivationProblem(&made, p.activ, dir);
      break;
    case 2:
      rc = miopenCreateBiasProblem(&made, dir);
      break;
    case 3:
      rc = miopenCreateSoftmaxProblem(&made, p.softmax, dir);
      break;
    case 4:
      rc = miopenCreateMhaProblem(&made, p.mha, dir);
      break;
    case 5:
      rc = miopenCreateBatchnormProblem(&made, enum_value<miopenBatchNormMode_t>(fdp, 1),
                                        fdp.ConsumeBool(), dir);
      break;
    default:
      rc = miopenCreateConvProblem(nullptr, p.conv, dir);
      break;
  }
  if (rc != miopenStatusSuccess || made == nullptr) return;
  if (p.problems[slot]) miopenDestroyProblem(p.problems[slot]);
  p.problems[slot] = made;
}

void set_options(FuzzedDataProvider& fdp, Pool& p) {
  const size_t slot = fdp.ConsumeIntegralInRange<size_t>(0, p.options.size() - 1);
  miopenFindOptions_t& o = p.options[slot];
  if (o == nullptr) {
    miopenCreateFindOptions(&o);
    return;
  }
  switch (fdp.ConsumeIntegralInRange(0, 7)) {
    case 0:
      miopenSetFindOptionTuning(o, hostile_int(fdp));
      break;
    case 1:
      miopenSetFindOptionResultsOrder(o, enum_value<miopenFindResultsOrder_t>(fdp, 1));
      break;
    case 2:
      miopenSetFindOptionWorkspaceLimit(o, fdp.ConsumeBool()
                                               ? fdp.ConsumeIntegral<size_t>()
                                               : fdp.ConsumeIntegralInRange<size_t>(0, 1 << 16));
      break;
    case 3: {  // the buffer or null; a size never beyond the buffer
      const bool null = fdp.ConsumeIntegralInRange(0, 3) == 0;
      miopenSetFindOptionPreallocatedWorkspace(
          o, null ? nullptr : p.workspace.data(),
          fdp.ConsumeIntegralInRange<size_t>(0, null ? 16 : kWorkspaceBytes));
      break;
    }
    case 4: {
      const size_t b = fdp.ConsumeIntegralInRange<size_t>(0, p.buffers.size());
      miopenSetFindOptionPreallocatedTensor(o, argument_id(fdp),
                                            b < p.buffers.size() ? p.buffers[b].data() : nullptr);
      break;
    }
    case 5:
      miopenSetFindOptionAttachBinaries(o, fdp.ConsumeIntegral<unsigned>());
      break;
    case 6:
      miopenSetFindOptionTuning(nullptr, 1);
      break;
    default:
      miopenDestroyFindOptions(o);
      o = nullptr;
      break;
  }
}

void find(FuzzedDataProvider& fdp, Pool& p) {
  miopenProblem_t problem = pick(fdp, p.problems);
  miopenFindOptions_t options = pick(fdp, p.options);
  const size_t max = fdp.ConsumeIntegralInRange<size_t>(0, 4);
  std::array<miopenSolution_t, 4> found{};
  size_t n = 0;
  const bool count = fdp.ConsumeBool();
  if (miopenFindSolutions(p.handle, problem, options,
                          fdp.ConsumeIntegralInRange(0, 15) ? found.data() : nullptr,
                          count ? &n : nullptr, max) != miopenStatusSuccess)
    return;
  for (auto s : found)
    if (s != nullptr) p.add_solution(s, true);
}

void run(FuzzedDataProvider& fdp, Pool& p) {
  if (p.solutions.empty()) return;
  const Solution& s = p.solutions[fdp.ConsumeIntegralInRange<size_t>(0, p.solutions.size() - 1)];
  if (!s.runnable) return;
  // The arguments of a (fused) convolution problem, each on its own buffer, sometimes; else any.
  static constexpr std::array<miopenTensorArgumentId_t, 3> kConv = {
      miopenTensorConvolutionX, miopenTensorConvolutionW, miopenTensorConvolutionY};
  static constexpr std::array<miopenTensorArgumentId_t, 4> kFused = {
      miopenTensorConvolutionX, miopenTensorConvolutionW, miopenTensorBias,
      miopenTensorActivationY};
  const bool natural = fdp.ConsumeBool(), fused = fdp.ConsumeBool();
  const size_t count = fused ? kFused.size() : kConv.size();
  std::vector<miopenTensorArgument_t> args(natural ? count
                                                   : fdp.ConsumeIntegralInRange<size_t>(0, 12));
  for (size_t i = 0; i < args.size(); ++i) {
    auto& a = args[i];
    const miopenTensorArgumentId_t id =
        natural ? (fused ? kFused[i] : kConv[i]) : miopenTensorArgumentIdInvalid;
    a.id = natural && fdp.ConsumeIntegralInRange(0, 7) != 0 ? id : argument_id(fdp);
    const size_t t = fdp.ConsumeIntegralInRange<size_t>(0, p.tensors.size() + 2);
    a.descriptor = t < p.tensors.size() ? &p.tensors[t] : nullptr;
    const size_t b = natural ? i : fdp.ConsumeIntegralInRange<size_t>(0, p.buffers.size());
    a.buffer = b < p.buffers.size() ? p.buffers[b].data() : nullptr;
    if (natural && fdp.ConsumeIntegralInRange(0, 3) != 0) a.descriptor = nullptr;
  }
  const bool null_ws = fdp.ConsumeIntegralInRange(0, 3) == 0;
  miopenRunSolution(p.handle, s.s, args.size(), args.empty() ? nullptr : args.data(),
                    null_ws ? nullptr : p.workspace.data(),
                    fdp.ConsumeIntegralInRange<size_t>(0, null_ws ? 64 : kWorkspaceBytes));
}

void query(FuzzedDataProvider& fdp, Pool& p) {
  miopenSolution_t s =
      p.solutions.empty()
          ? nullptr
          : p.solutions[fdp.ConsumeIntegralInRange<size_t>(0, p.solutions.size() - 1)].s;
  size_t size = 0;
  float time = 0.0f;
  uint64_t id = 0;
  miopenConvAlgorithm_t algo;
  const bool null = fdp.ConsumeIntegralInRange(0, 5) == 0;
  switch (fdp.ConsumeIntegralInRange(0, 5)) {
    case 0:
      miopenGetSolutionWorkspaceSize(s, null ? nullptr : &size);
      break;
    case 1:
      miopenGetSolutionTime(s, null ? nullptr : &time);
      break;
    case 2:
      miopenGetSolutionSolverId(s, null ? nullptr : &id);
      break;
    case 3:
      miopenGetSolverIdConvAlgorithm(fdp.ConsumeBool()
                                         ? fdp.ConsumeIntegral<uint64_t>()
                                         : fdp.ConsumeIntegralInRange<uint64_t>(0, 120),
                                     null ? nullptr : &algo);
      break;
    default: {  // save: a buffer of exactly the size the library reports
      if (miopenGetSolutionSize(s, &size) != miopenStatusSuccess || size > (1 << 20)) break;
      std::vector<char> blob(size);
      if (miopenSaveSolution(s, null ? nullptr : blob.data()) == miopenStatusSuccess)
        p.blobs.push_back(std::move(blob));
      if (p.blobs.size() > 4) p.blobs.erase(p.blobs.begin());
      break;
    }
  }
}

// The blob's FNV-1a 64 checksum rewritten (docs/find-and-heuristics.md): a mutated blob then
// reaches the field checks behind it.
void reseal(std::vector<char>& b) {
  if (b.size() < 8) return;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 < b.size(); ++i) {
    h ^= static_cast<unsigned char>(b[i]);
    h *= 0x100000001b3ull;
  }
  for (int i = 0; i < 8; ++i)
    b[b.size() - 8 + i] = static_cast<char>((h >> (8 * i)) & 0xff);
}

void load(FuzzedDataProvider& fdp, Pool& p) {
  std::vector<char> b;
  bool altered = true;
  if (!p.blobs.empty() && fdp.ConsumeIntegralInRange(0, 7) != 0) {
    b = p.blobs[fdp.ConsumeIntegralInRange<size_t>(0, p.blobs.size() - 1)];
    altered = false;
    const int edits = fdp.ConsumeIntegralInRange(0, 3);
    for (int i = 0; i < edits && !b.empty(); ++i) {
      altered = true;
      const size_t at = fdp.ConsumeIntegralInRange<size_t>(0, b.size() - 1);
      switch (fdp.ConsumeIntegralInRange(0, 3)) {
        case 0:
          b[at] = static_cast<char>(fdp.ConsumeIntegral<uint8_t>());
          break;
        case 1:
          b.resize(at);
          break;
        case 2:
          b.insert(b.begin() + static_cast<long>(at),
                   static_cast<char>(fdp.ConsumeIntegral<uint8_t>()));
          break;
        default:
          b[at] ^= static_cast<char>(1 << fdp.ConsumeIntegralInRange(0, 7));
          break;
      }
    }
    if (altered && fdp.ConsumeBool()) reseal(b);
  } else {
    const auto bytes = fdp.ConsumeBytes<char>(fdp.ConsumeIntegralInRange<size_t>(0, 512));
    b.assign(bytes.begin(), bytes.end());
  }
  miopenSolution_t s = nullptr;
  const bool null_data = fdp.ConsumeIntegralInRange(0, 15) == 0;
  if (miopenLoadSolution(&s, null_data ? nullptr : b.data(), b.size()) == miopenStatusSuccess &&
      s != nullptr)
    p.add_solution(s, !altered);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  anydnn::fuzz::setup_environment(/*log_api_calls=*/true);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  Pool p;
  if (miopenCreate(&p.handle) != miopenStatusSuccess) return 0;
  for (auto& t : p.tensors)
    miopenCreateTensorDescriptor(&t);
  miopenCreateConvolutionDescriptor(&p.conv);
  miopenCreateActivationDescriptor(&p.activ);
  static miopenSoftmaxDescriptor_t softmax = nullptr;
  static miopenMhaDescriptor_t mha = nullptr;
  if (softmax == nullptr) miopenCreateSoftmaxDescriptor(&softmax);
  if (mha == nullptr) miopenCreateMhaDescriptor(&mha);
  miopenSetSoftmaxDescriptor(softmax, 1.0f, 0.0f, MIOPEN_SOFTMAX_ACCURATE,
                             MIOPEN_SOFTMAX_MODE_CHANNEL);
  miopenSetMhaDescriptor(mha, 1.0f);
  p.softmax = softmax;
  p.mha = mha;
  for (int call = 0; call < 32 && fdp.remaining_bytes() > 0; ++call) {
    switch (fdp.ConsumeIntegralInRange(0, 12)) {
      case 0:
      case 1:
        set_tensor(fdp, p);
        break;
      case 12:
        coherent_conv(fdp, p);
        break;
      case 2:
        set_operators(fdp, p);
        break;
      case 3:
        create_problem(fdp, p);
        break;
      case 4:
      case 5: {
        miopenProblem_t problem = pick(fdp, p.problems);
        const size_t t = fdp.ConsumeIntegralInRange<size_t>(0, p.tensors.size());
        miopenSetProblemTensorDescriptor(problem, argument_id(fdp),
                                         t < p.tensors.size() ? p.tensors[t] : nullptr);
        break;
      }
      case 6:
        miopenFuseProblems(pick(fdp, p.problems), pick(fdp, p.problems));
        break;
      case 7:
        set_options(fdp, p);
        break;
      case 8:
        find(fdp, p);
        break;
      case 9:
        run(fdp, p);
        break;
      case 10:
        query(fdp, p);
        break;
      default:
        load(fdp, p);
        break;
    }
  }
  return 0;
}
