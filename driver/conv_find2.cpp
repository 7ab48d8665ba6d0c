// MIOpenDriver conv --find2: the convolution through MIOpen's Find 2.0 API, as MIGraphX and
// newer clients call it: a convolution problem (miopenCreateConvProblem + the three tensor
// descriptors), find options (tuning with -s 1; the driver's own tensors preallocated, so Find
// times on them), miopenFindSolutions, then miopenRunSolution on the fastest solution or on the
// one of solver -S. --find2 2 runs a solution saved with miopenSaveSolution and loaded back with
// miopenLoadSolution instead, which is how a client reuses a solution in another process.
// MIOpen's driver has no such path; the output lines are the Find path's, plus the list of
// solutions found.
#include <miopen/miopen.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <vector>

#include "conv_driver.hpp"
#include "conv_driver_text.hpp"

namespace anydnn::driver {

namespace {

// Destroys what the Find 2.0 calls made, however run_find2 leaves.
struct Find2Objects {
  miopenProblem_t problem = nullptr;
  miopenFindOptions_t options = nullptr;
  std::vector<miopenSolution_t> found;
  miopenSolution_t loaded = nullptr;
  ~Find2Objects() {
    for (miopenSolution_t s : found)
      miopenDestroySolution(s);
    if (loaded != nullptr) miopenDestroySolution(loaded);
    if (options != nullptr) miopenDestroyFindOptions(options);
    if (problem != nullptr) miopenDestroyProblem(problem);
  }
};

constexpr size_t kMaxSolutions = 64;

}  // namespace

miopenStatus_t ConvDriver::run_find2(Dir d) {
  using Clock = std::chrono::steady_clock;
  const DirText& t = kText[static_cast<int>(d)];
  const auto aux_start = Clock::now();
  Find2Objects o;
  const miopenProblemDirection_t direction = d == Dir::Fwd ? miopenProblemDirectionForward
                                             : d == Dir::Bwd
                                                 ? miopenProblemDirectionBackward
                                                 : miopenProblemDirectionBackwardWeights;
  miopenStatus_t rc = miopenCreateConvProblem(&o.problem, conv_desc_, direction);
  // The problem's tensors are x, w and y whatever the direction; the buffers are the direction's.
  const miopenTensorArgumentId_t ids[3] = {miopenTensorConvolutionX, miopenTensorConvolutionW,
                                           miopenTensorConvolutionY};
  const miopenTensorDescriptor_t descs[3] = {x_desc_, w_desc_, y_desc_};
  void* const bufs[3] = {d == Dir::Bwd ? dx_dev_.data() : x_dev_.data(),
                         d == Dir::Wrw ? dw_dev_.data() : w_dev_.data(),
                         d == Dir::Fwd ? y_dev_.data() : dy_dev_.data()};
  for (int i = 0; i < 3 && rc == miopenStatusSuccess; ++i)
    rc = miopenSetProblemTensorDescriptor(o.problem, ids[i], descs[i]);
  if (rc == miopenStatusSuccess) rc = miopenCreateFindOptions(&o.options);
  if (rc == miopenStatusSuccess && flags_.get_int("search") == 1)
    rc = miopenSetFindOptionTuning(o.options, 1);
  for (int i = 0; i < 3 && rc == miopenStatusSuccess; ++i)
    rc = miopenSetFindOptionPreallocatedTensor(o.options, ids[i], bufs[i]);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error setting up the Find 2.0 problem, status = " << rc << std::endl;
    return rc;
  }
  std::vector<miopenSolution_t> sols(kMaxSolutions, nullptr);
  size_t count = 0;
  rc = miopenFindSolutions(handle_, o.problem, o.options, sols.data(), &count, kMaxSolutions);
  if (rc != miopenStatusSuccess) return rc;
  o.found.assign(sols.begin(), sols.begin() + static_cast<long>(count));
  aux_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - aux_start).count();
  if (count == 0) {
    std::cout << "Find 2.0 " << t.time_label << " ret_algo_count == 0" << std::endl;
    return miopenStatusUnknownError;
  }

  // The solutions, fastest first (the default results order), and the one to run.
  std::cout << "Find 2.0 " << t.solutions << ": " << count << " solutions found" << std::endl;
  miopenSolution_t chosen = o.found.front();
  bool matched = !immediate_solution_ || *immediate_solution_ == 0;
  for (miopenSolution_t s : o.found) {
    uint64_t id = 0;
    float ms = 0.0f;
    size_t ws = 0;
    miopenConvAlgorithm_t algo{};
    if ((rc = miopenGetSolutionSolverId(s, &id)) != miopenStatusSuccess ||
        (rc = miopenGetSolutionTime(s, &ms)) != miopenStatusSuccess ||
        (rc = miopenGetSolutionWorkspaceSize(s, &ws)) != miopenStatusSuccess ||
        (rc = miopenGetSolverIdConvAlgorithm(id, &algo)) != miopenStatusSuccess)
      return rc;
    std::cout << "- id: " << id << " algo: " << algo << ", time: " << ms << " ms, ws: " << ws
              << ", name: " << solver_name(id) << std::endl;
    if (!matched && id == *immediate_solution_) {
      chosen = s;
      matched = true;
    }
  }
  if (!matched)
    std::cout << "Warning: Solution id (" << *immediate_solution_
              << ") is not among the solutions found. Running the fastest." << std::endl;

  if (find2_ == 2) {
    // A client that keeps solutions (MIGraphX) saves the blob and loads it in a later run.
    size_t bytes = 0;
    if ((rc = miopenGetSolutionSize(chosen, &bytes)) != miopenStatusSuccess) return rc;
    std::vector<char> blob(bytes);
    if ((rc = miopenSaveSolution(chosen, blob.data())) != miopenStatusSuccess ||
        (rc = miopenLoadSolution(&o.loaded, blob.data(), blob.size())) != miopenStatusSuccess)
      return rc;
    std::cout << "Find 2.0 solution saved and loaded back: " << bytes << " bytes" << std::endl;
    chosen = o.loaded;
  }

  uint64_t id = 0;
  size_t ws_size = 0;
  miopenConvAlgorithm_t algo{};
  if ((rc = miopenGetSolutionSolverId(chosen, &id)) != miopenStatusSuccess ||
      (rc = miopenGetSolutionWorkspaceSize(chosen, &ws_size)) != miopenStatusSuccess ||
      (rc = miopenGetSolverIdConvAlgorithm(id, &algo)) != miopenStatusSuccess)
    return rc;
  if ((rc = workspace_.scratch(memory_, ws_size)) != miopenStatusSuccess) return rc;
  chosen_algo_[static_cast<int>(d)] = static_cast<int>(algo);
  // What is verified must come from the runs, not from Find (which wrote the same buffer).
  if ((rc = device_output_of(d).poison()) != miopenStatusSuccess) return rc;

  miopenTensorArgument_t args[3];
  for (int i = 0; i < 3; ++i)
    args[i] = {ids[i], nullptr, bufs[i]};
  float total = 0.0f, first = 0.0f;
  auto wall_start = Clock::now();
  for (int i = 0; i < iterations_; ++i) {
    rc = miopenRunSolution(handle_, chosen, 3, args, workspace_.data(), ws_size);
    if (rc != miopenStatusSuccess) return rc;
    if (time_) {
      float ms = 0.0f;
      miopenGetKernelTime(handle_, &ms);
      total += ms;
      if (i == 0) first = ms;
    }
    if (i == 0 && iterations_ > 1) {  // the first run is warm-up for the wall clock
      if (wall_ && (rc = synchronize(memory_)) != miopenStatusSuccess) return rc;
      wall_start = Clock::now();
    }
  }
  if (wall_ && (rc = synchronize(memory_)) != miopenStatusSuccess) return rc;
  if (wall_) {
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - wall_start).count();
    std::cout << "Wall-clock Time " << t.time_label
              << " Elapsed: " << ms / std::max(iterations_ - 1, 1)
              << " ms, Auxiliary API calls: " << aux_ms_ << " ms (GWSS: 0)" << std::endl;
  }
  if (time_) {
    std::cout << "MIOpen " << t.time_label << " Algorithm: " << algo << ", Solution: " << id << '/'
              << solver_name(id) << std::endl;
    print_time(d, total, first);
  }
  return miopenStatusSuccess;
}

}  // namespace anydnn::driver
