// C API: Find 2.0 problems (convolution, MHA and MIOpen's beta activation, bias, batch-norm and
// softmax problems; fusing them), tensor descriptors per argument, the MHA descriptor and the
// find options. Finding, running, saving and loading solutions: find2_solution_api.cpp.
#include <miopen/miopen.h>

#include <cmath>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"
#include "api/enum_args.hpp"

using namespace anydnn;
using namespace anydnn::api;
using find2::OperatorProblem;

namespace {

// Checks the output pointer, builds the operator's problem (copying its descriptor), and only
// then hands out the new object: a failing call writes nothing.
template <class MakeOperator>
miopenStatus_t make_problem(const char* fn, miopenProblem_t* problem,
                            const miopenProblemDirection_t& direction, MakeOperator&& make_op) {
  const Config& cfg = process_config();
  return guard(cfg, fn, [&] {
    miopenProblem_t& out = deref_out(problem, "problem");
    OperatorProblem p(make_op(), checked(direction));
    out = new ProblemObject(find2::Problem(std::move(p)));
  });
}

}  // namespace

extern "C" miopenStatus_t miopenCreateConvProblem(miopenProblem_t* problem,
                                                  miopenConvolutionDescriptor_t operatorDesc,
                                                  miopenProblemDirection_t direction) {
  ANYDNN_LOG_API(process_config(), problem, operatorDesc, direction);
  return make_problem(__func__, problem, direction, [&]() -> find2::OperatorDescriptor {
    return deref(operatorDesc, "operatorDesc");
  });
}

extern "C" miopenStatus_t miopenCreateActivationProblem(miopenProblem_t* problem,
                                                        miopenActivationDescriptor_t operatorDesc,
                                                        miopenProblemDirection_t direction) {
  ANYDNN_LOG_API(process_config(), problem, operatorDesc, direction);
  return make_problem(__func__, problem, direction, [&]() -> find2::OperatorDescriptor {
    return deref(operatorDesc, "operatorDesc");
  });
}

extern "C" miopenStatus_t miopenCreateBiasProblem(miopenProblem_t* problem,
                                                  miopenProblemDirection_t direction) {
  ANYDNN_LOG_API(process_config(), problem, direction);
  return make_problem(__func__, problem, direction,
                      []() -> find2::OperatorDescriptor { return find2::BiasOperator{}; });
}

extern "C" miopenStatus_t miopenCreateSoftmaxProblem(miopenProblem_t* problem,
                                                     miopenSoftmaxDescriptor_t operatorDesc,
                                                     miopenProblemDirection_t direction) {
  ANYDNN_LOG_API(process_config(), problem, operatorDesc, direction);
  return make_problem(__func__, problem, direction, [&]() -> find2::OperatorDescriptor {
    const SoftmaxDesc& d = deref(operatorDesc, "operatorDesc");
    return find2::SoftmaxOperator{d.alpha, d.beta, d.algorithm, d.mode};
  });
}

extern "C" miopenStatus_t miopenCreateBatchnormProblem(miopenProblem_t* problem,
                                                       miopenBatchNormMode_t mode,
                                                       bool runningMeanVariance,
                                                       miopenProblemDirection_t direction) {
  ANYDNN_LOG_API(process_config(), problem, mode, runningMeanVariance, direction);
  return make_problem(__func__, problem, direction, [&]() -> find2::OperatorDescriptor {
    return find2::BatchnormOperator{checked(mode), runningMeanVariance};
  });
}

extern "C" miopenStatus_t miopenCreateMhaProblem(miopenProblem_t* problem,
                                                 miopenMhaDescriptor_t operatorDesc,
                                                 miopenProblemDirection_t direction) {
  ANYDNN_LOG_API(process_config(), problem, operatorDesc, direction);
  return make_problem(__func__, problem, direction, [&]() -> find2::OperatorDescriptor {
    return deref(operatorDesc, "operatorDesc");
  });
}

extern "C" miopenStatus_t miopenCreateMhaDescriptor(miopenMhaDescriptor_t* mhaDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, mhaDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(mhaDesc, "mhaDesc");  // checked before allocating
    out = new MhaObject();
  });
}

extern "C" miopenStatus_t miopenSetMhaDescriptor(miopenMhaDescriptor_t mhaDesc, float scale) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, mhaDesc, scale);
  return guard(cfg, __func__, [&] {
    find2::MhaOperator& d = deref(mhaDesc);
    ANYDNN_CHECK_BADPARM(std::isfinite(scale), "scale = " << scale << " is not finite");
    d.scale = scale;
  });
}

extern "C" miopenStatus_t miopenGetMhaDescriptor(miopenMhaDescriptor_t mhaDesc, float* scale) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, mhaDesc, scale);
  return guard(cfg, __func__, [&] {
    const find2::MhaOperator& d = deref(mhaDesc);
    deref_out(scale, "scale") = d.scale;
  });
}

extern "C" miopenStatus_t miopenDestroyProblem(miopenProblem_t problem) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, problem);
  return guard(cfg, __func__, [&] {
    deref(problem);
    delete static_cast<ProblemObject*>(problem);
  });
}

extern "C" miopenStatus_t miopenSetProblemTensorDescriptor(
    miopenProblem_t problem, miopenTensorArgumentId_t id,
    const miopenTensorDescriptor_t descriptor) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, problem, id, descriptor);
  return guard(cfg, __func__, [&] {
    find2::Problem& p = deref(problem);
    const TensorObject& t = deref_tensor_object(descriptor, "descriptor");
    ANYDNN_CHECK(!t.has_cast_type || t.cast_type == t.desc.type(), miopenStatusNotImplemented,
                 "the descriptor has a cast type (miopenSetTensorCastType, MIOpen's fp8 "
                 "convolutions): not supported");
    p.single().set_tensor(id, t.desc);
  });
}

extern "C" miopenStatus_t miopenFuseProblems(miopenProblem_t problem1, miopenProblem_t problem2) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, problem1, problem2);
  return guard(cfg, __func__, [&] {
    find2::Problem& p1 = deref(problem1, "problem1");
    const find2::Problem& p2 = deref(problem2, "problem2");
    p1.fuse(p2);
  });
}

extern "C" miopenStatus_t miopenCreateFindOptions(miopenFindOptions_t* options) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(options, "options");
    out = new FindOptionsObject();
  });
}

extern "C" miopenStatus_t miopenDestroyFindOptions(miopenFindOptions_t options) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options);
  return guard(cfg, __func__, [&] {
    deref(options);
    delete static_cast<FindOptionsObject*>(options);
  });
}

extern "C" miopenStatus_t miopenSetFindOptionTuning(miopenFindOptions_t options, int value) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options, value);
  return guard(cfg, __func__, [&] { deref(options).tuning = value != 0; });
}

extern "C" miopenStatus_t miopenSetFindOptionResultsOrder(miopenFindOptions_t options,
                                                          miopenFindResultsOrder_t value) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options, value);
  return guard(cfg, __func__, [&] {
    find2::FindOptions& o = deref(options);
    o.results_order = checked(value);
  });
}

extern "C" miopenStatus_t miopenSetFindOptionWorkspaceLimit(miopenFindOptions_t options,
                                                            size_t value) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options, value);
  return guard(cfg, __func__, [&] { deref(options).workspace_limit = value; });
}

extern "C" miopenStatus_t miopenSetFindOptionPreallocatedWorkspace(miopenFindOptions_t options,
                                                                   void* buffer, size_t size) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options, buffer, size);
  return guard(cfg, __func__, [&] {
    find2::FindOptions& o = deref(options);
    ANYDNN_CHECK_BADPARM(buffer != nullptr || size == 0,
                         "buffer is a null pointer but size is " << size);
    o.has_workspace = buffer != nullptr;
    o.workspace = buffer;
    o.workspace_size = buffer == nullptr ? 0 : size;
  });
}

extern "C" miopenStatus_t miopenSetFindOptionPreallocatedTensor(miopenFindOptions_t options,
                                                                miopenTensorArgumentId_t id,
                                                                void* buffer) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options, id, buffer);
  return guard(cfg, __func__, [&] {
    find2::FindOptions& o = deref(options);
    ANYDNN_CHECK_BADPARM(id != miopenTensorArgumentIdInvalid,
                         "miopenTensorArgumentIdInvalid is not an argument");
    ANYDNN_CHECK_BADPARM(buffer != nullptr, "the buffer for " << find2::tensor_argument_name(id)
                                                              << " is a null pointer");
    o.tensors[id] = buffer;  // a second call for the same id replaces the buffer
  });
}

extern "C" miopenStatus_t miopenSetFindOptionAttachBinaries(miopenFindOptions_t options,
                                                            unsigned attach) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, options, attach);
  return guard(cfg, __func__, [&] { deref(options).attach_binaries = attach; });
}
