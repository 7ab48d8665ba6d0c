// The convolution solvers that both backends implement, as far as they are not kernel code:
// name, algorithm, fallback flag and applicability, written once here. A backend's solver file
// derives from its spec and adds only what runs on its device (workspace size, cost model,
// invoker), so a solver keeps one name, one id and the same applicability on every backend.
// A solver that exists on one backend only derives from ConvSolver directly.
#pragma once

#include <string_view>

#include "conv/conv_solver.hpp"
#include "conv/gemm_shape.hpp"

namespace anydnn {

// The GEMM solvers: a direction, and either any filter (im2col / col2im around the GEMM) or
// the 1x1, stride 1, unpadded case (the image is the column matrix).
class GemmSolverSpec : public ConvSolver {
 public:
  std::string_view name() const final { return name_; }
  miopenConvAlgorithm_t algorithm() const final { return miopenConvolutionAlgoGEMM; }
  Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const final;

 protected:
  GemmSolverSpec(std::string_view name, ConvDirection dir, bool one_by_one, const GemmBlas& blas)
      : name_(name), dir_(dir), one_by_one_(one_by_one), blas_(blas) {}

 private:
  std::string_view name_;
  ConvDirection dir_;
  bool one_by_one_;
  GemmBlas blas_;
};

// The naive direct solvers: every problem of their direction, for coverage (fallback_only).
class ConvDirectNaiveSpec : public ConvSolver {
 public:
  std::string_view name() const final { return name_; }
  miopenConvAlgorithm_t algorithm() const final { return miopenConvolutionAlgoDirect; }
  bool fallback_only() const final { return true; }
  Applicability applicable(const ExecutionContext& ctx, const ConvProblem& p) const final;

 protected:
  ConvDirectNaiveSpec(std::string_view name, ConvDirection dir) : name_(name), dir_(dir) {}

 private:
  std::string_view name_;
  ConvDirection dir_;
};

// One spec per solver: the stable name lives here, next to the direction and shape it takes.
struct GemmFwdRestSpec : GemmSolverSpec {
  explicit GemmFwdRestSpec(const GemmBlas& b)
      : GemmSolverSpec("GemmFwdRest", ConvDirection::Forward, false, b) {}
};
struct GemmFwd1x1Spec : GemmSolverSpec {
  explicit GemmFwd1x1Spec(const GemmBlas& b)
      : GemmSolverSpec("GemmFwd1x1_0_1", ConvDirection::Forward, true, b) {}
};
struct GemmBwdRestSpec : GemmSolverSpec {
  explicit GemmBwdRestSpec(const GemmBlas& b)
      : GemmSolverSpec("GemmBwdRest", ConvDirection::BackwardData, false, b) {}
};
struct GemmBwd1x1Spec : GemmSolverSpec {
  explicit GemmBwd1x1Spec(const GemmBlas& b)
      : GemmSolverSpec("GemmBwd1x1_stride1", ConvDirection::BackwardData, true, b) {}
};
struct GemmWrwUniversalSpec : GemmSolverSpec {
  explicit GemmWrwUniversalSpec(const GemmBlas& b)
      : GemmSolverSpec("GemmWrwUniversal", ConvDirection::BackwardWeights, false, b) {}
};
struct GemmWrw1x1Spec : GemmSolverSpec {
  explicit GemmWrw1x1Spec(const GemmBlas& b)
      : GemmSolverSpec("GemmWrw1x1_stride1", ConvDirection::BackwardWeights, true, b) {}
};
struct ConvDirectNaiveFwdSpec : ConvDirectNaiveSpec {
  ConvDirectNaiveFwdSpec()
      : ConvDirectNaiveSpec("ConvDirectNaiveConvFwd", ConvDirection::Forward) {}
};
struct ConvDirectNaiveBwdSpec : ConvDirectNaiveSpec {
  ConvDirectNaiveBwdSpec()
      : ConvDirectNaiveSpec("ConvDirectNaiveConvBwd", ConvDirection::BackwardData) {}
};
struct ConvDirectNaiveWrwSpec : ConvDirectNaiveSpec {
  ConvDirectNaiveWrwSpec()
      : ConvDirectNaiveSpec("ConvDirectNaiveConvWrw", ConvDirection::BackwardWeights) {}
};

}  // namespace anydnn
