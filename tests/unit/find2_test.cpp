// Find 2.0's core (src/find2) with explicit configurations: one find-db record shared with the
// legacy Find (read straight from the handle's find-db), find modes, fused-problem propagation
// and run arguments, the blob's round trip for every operator kind, and solver ids.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "conv/conv_ops.hpp"
#include "find2/find2_ops.hpp"
#include "find2/solution_blob.hpp"
#include "temp_dir.hpp"

namespace anydnn::find2 {
namespace {

Config config_with_db(const std::string& dir, FindMode mode) {
  Config c;
  c.num_threads = 2;
  c.user_db_path = dir;
  c.system_db_path = "/nonexistent";
  c.find_mode = mode;
  return c;
}

struct SmallConv {
  TensorDescriptor x{miopenFloat, {2, 4, 9, 9}};
  TensorDescriptor w{miopenFloat, {6, 4, 3, 3}};
  ConvolutionDescriptor conv{miopenConvolution, {1, 1}, {1, 1}, {1, 1}};
  TensorDescriptor y{miopenFloat, {2, 6, 9, 9}};
  std::vector<float> hx = std::vector<float>(2 * 4 * 81, 0.5f), hw = std::vector<float>(216, 0.25f),
                     hy = std::vector<float>(2 * 6 * 81);
  std::vector<uint8_t> ws = std::vector<uint8_t>(1 << 22);

  ConvProblem conv_problem() const { return ConvProblem(ConvDirection::Forward, x, w, conv, y); }
  ConvBuffers buffers() { return {hx.data(), hw.data(), hy.data(), ws.data(), ws.size()}; }
  Problem problem() const {
    OperatorProblem p(conv, miopenProblemDirectionForward);
    p.set_tensor(miopenTensorConvolutionX, x);
    p.set_tensor(miopenTensorConvolutionW, w);
    p.set_tensor(miopenTensorConvolutionY, y);
    return Problem(std::move(p));
  }
};

std::set<std::pair<uint64_t, float>> record_of(Handle& h, const ConvProblem& p) {
  std::set<std::pair<uint64_t, float>> out;
  const auto rec = h.find_db().load(conv_db_key(h, p));
  EXPECT_TRUE(rec.has_value());
  if (rec)
    for (const auto& e : rec->entries)
      out.insert({e.solver_id, e.time_ms});
  return out;
}

std::set<std::pair<uint64_t, float>> solutions_of(const std::vector<Solution>& sols) {
  std::set<std::pair<uint64_t, float>> out;
  for (const auto& s : sols)
    out.insert({s.solver_id(), s.time_ms()});
  return out;
}

// Either API first: the second finds the first one's record (no timing), and Find 2.0's
// solutions are the record's entries, one per solver.
TEST(Find2Record, SharedWithTheLegacyFindEitherWay) {
  for (const bool legacy_first : {true, false}) {
    SCOPED_TRACE(legacy_first ? "legacy first" : "Find 2.0 first");
    test::TempDir dir;
    SmallConv s;
    Handle h(config_with_db(dir.path(), FindMode::DynamicHybrid), nullptr);
    std::vector<ConvFindEntry> legacy;
    std::vector<Solution> sols;
    if (legacy_first) {
      legacy = conv_find(h, s.conv_problem(), s.buffers(), false);
      sols = find_solutions(h, s.problem(), FindOptions{}, 64);
    } else {
      sols = find_solutions(h, s.problem(), FindOptions{}, 64);
      legacy = conv_find(h, s.conv_problem(), s.buffers(), false);
    }
    const auto record = record_of(h, s.conv_problem());
    EXPECT_EQ(solutions_of(sols), record);
    for (const auto& e : legacy)
      EXPECT_EQ(record.count({e.solver_id, e.time_ms}), 1u) << e.solver_name;
    // A new handle reads the same record from the user database.
    Handle fresh(config_with_db(dir.path(), FindMode::Hybrid), nullptr);
    EXPECT_EQ(solutions_of(find_solutions(fresh, s.problem(), FindOptions{}, 64)), record);
  }
}

// Tuning (an exhaustive search) always measures and replaces the record; FAST without a record
// answers from immediate mode's list, unmeasured, and stores nothing.
TEST(Find2Record, TuningMeasuresAndFastDoesNot) {
  test::TempDir dir;
  SmallConv s;
  {
    Handle h(config_with_db(dir.path(), FindMode::Fast), nullptr);
    const auto sols = find_solutions(h, s.problem(), FindOptions{}, 64);
    ASSERT_FALSE(sols.empty());
    for (const auto& x : sols)
      EXPECT_LT(x.time_ms(), 0.0f);
    EXPECT_FALSE(h.find_db().load(conv_db_key(h, s.conv_problem())).has_value());
  }
  Handle h(config_with_db(dir.path(), FindMode::DynamicHybrid), nullptr);
  const auto first = find_solutions(h, s.problem(), FindOptions{}, 64);
  FindOptions tuning;
  tuning.tuning = true;
  const auto tuned = find_solutions(h, s.problem(), tuning, 64);
  EXPECT_EQ(solutions_of(tuned), record_of(h, s.conv_problem()));
  EXPECT_NE(solutions_of(tuned), solutions_of(first)) << "an exhaustive search measures again";
}

TEST(Find2Problem, FusingPropagatesDescriptorsAndNamesRunArguments) {
  SmallConv s;
  Problem p = s.problem();
  OperatorProblem bias(BiasOperator{}, miopenProblemDirectionForward);
  bias.set_tensor(miopenTensorBias, TensorDescriptor(miopenFloat, {1, 6, 1, 1}));
  OperatorProblem act(ActivMode{miopenActivationRELU, 0, 0, 0}, miopenProblemDirectionForward);
  p.fuse(Problem(bias));
  p.fuse(Problem(act));
  ASSERT_TRUE(p.fused());
  ASSERT_EQ(p.parts().size(), 3u);
  EXPECT_EQ(p.parts()[1].tensor(miopenTensorBiasX), s.y);
  EXPECT_EQ(p.parts()[1].tensor(miopenTensorBiasY), s.y);
  EXPECT_EQ(p.parts()[2].tensor(miopenTensorActivationY), s.y);
  std::set<miopenTensorArgumentId_t> ids;
  for (const auto& [id, d] : p.run_tensors())
    ids.insert(id);
  EXPECT_EQ(ids,
            (std::set<miopenTensorArgumentId_t>{miopenTensorConvolutionX, miopenTensorConvolutionW,
                                                miopenTensorBias, miopenTensorActivationY}));
  EXPECT_EQ(p.input_id(), miopenTensorConvolutionX);
  EXPECT_EQ(p.output_id(), miopenTensorActivationY);
  // A conv problem's derived output follows its input's layout.
  OperatorProblem conv(s.conv, miopenProblemDirectionForward);
  conv.set_tensor(miopenTensorConvolutionX,
                  TensorDescriptor::with_layout(miopenFloat, "NHWC", {2, 4, 9, 9}));
  conv.set_tensor(miopenTensorConvolutionW, s.w);
  Problem q{OperatorProblem(conv)};
  q.fuse(Problem(act));
  EXPECT_EQ(q.parts()[0].tensor(miopenTensorConvolutionY),
            TensorDescriptor::with_layout(miopenFloat, "NHWC", {2, 6, 9, 9}));
  EXPECT_THROW(q.single(), Error);
}

// Every operator kind survives save / load: the problem describes itself the same.
TEST(Find2Blob, EveryOperatorKindRoundTrips) {
  const TensorDescriptor t(miopenHalf, {2, 3, 4, 5}, {60, 1, 15, 3});
  std::vector<Problem> problems;
  {
    ConvolutionDescriptor c(miopenTranspose, {1, 0, 2}, {2, 1, 1}, {1, 3, 1});
    c.set_group_count(3);
    c.set_trans_output_pads({1, 0, 0});
    c.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, 1);
    OperatorProblem p(c, miopenProblemDirectionBackwardWeights);
    p.set_tensor(miopenTensorConvolutionX, TensorDescriptor(miopenFloat, {1, 6, 3, 4, 5}));
    problems.emplace_back(std::move(p));
  }
  problems.emplace_back(OperatorProblem(
      SoftmaxOperator{0.5f, 0.25f, MIOPEN_SOFTMAX_LOG, MIOPEN_SOFTMAX_MODE_INSTANCE},
      miopenProblemDirectionBackward));
  problems.emplace_back(OperatorProblem(MhaOperator{0.125f}, miopenProblemDirectionForward));
  {
    OperatorProblem bn(BatchnormOperator{miopenBNPerActivation, true},
                       miopenProblemDirectionInference);
    bn.set_tensor(miopenTensorBatchnormX, t);
    Problem f{std::move(bn)};
    OperatorProblem act(ActivMode{miopenActivationELU, 0.5, 0.25, 2.0},
                        miopenProblemDirectionForward);
    f.fuse(Problem(act));
    OperatorProblem bias(BiasOperator{}, miopenProblemDirectionForward);
    f.fuse(Problem(bias));
    problems.push_back(std::move(f));
  }
  for (const auto& p : problems) {
    SCOPED_TRACE(p.describe());
    const Solution s(p, FoundSolver{0x0000000400000002ull, "SomeSolver", 1.5f, 4096},
                     BackendKind::Cuda, "cuda-sm90-132");
    const auto& blob = s.blob();
    const Solution back = load_solution_blob(blob.data(), blob.size());
    EXPECT_EQ(back.problem().describe(), p.describe());
    EXPECT_EQ(back.problem().fused(), p.fused());
    EXPECT_EQ(back.solver_id(), s.solver_id());
    EXPECT_EQ(back.solver_name(), "SomeSolver");
    EXPECT_EQ(back.time_ms(), 1.5f);
    EXPECT_EQ(back.workspace_size(), 4096u);
    EXPECT_EQ(back.backend(), BackendKind::Cuda);
    EXPECT_EQ(back.device_id(), "cuda-sm90-132");
    EXPECT_EQ(back.blob(), blob);
    // Any single flipped bit is caught.
    for (size_t i = 0; i < blob.size(); i += 7) {
      auto bad = blob;
      bad[i] ^= 0x04;
      EXPECT_THROW(load_solution_blob(bad.data(), bad.size()), Error) << "byte " << i;
    }
  }
}

TEST(Find2SolverIds, ConvolutionIdsAreUntaggedAndOthersTagged) {
  Config cfg;
  auto backend = make_cpu_backend(cfg);
  for (const auto& e : backend->solvers<ConvSolver>().entries())
    EXPECT_EQ(conv_solver_algorithm(e.id), e.solver->algorithm()) << e.solver->name();
  EXPECT_THROW(conv_solver_algorithm(solver_id_of(SolverFamily::Softmax, 1)), Error);
  EXPECT_EQ(solver_family(solver_id_of(SolverFamily::Fusion, 3)), SolverFamily::Fusion);
  EXPECT_EQ(registry_id(solver_id_of(SolverFamily::Batchnorm, 5)), 5u);
}

}  // namespace
}  // namespace anydnn::find2
