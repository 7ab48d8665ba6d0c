// The objects behind MIOpen's opaque C handles. Each derives from the public (empty) struct so a
// miopenXxx_t converts to it with a static_cast after its tag is checked: a pointer to a
// different kind of object, or to a destroyed one, is reported as BadParm instead of being used.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "activation/activation_problem.hpp"
#include "core/conv_descriptor.hpp"
#include "core/dropout_descriptor.hpp"
#include "core/errors.hpp"
#include "core/rnn_descriptor.hpp"
#include "core/seq_tensor_descriptor.hpp"
#include "core/tensor_descriptor.hpp"
#include "ctc/ctc_problem.hpp"
#include "find2/find2_ops.hpp"
#include "fusion/fusion_plan.hpp"
#include "handle/handle.hpp"
#include "lrn/lrn_problem.hpp"
#include "pooling/pooling_desc.hpp"
#include "reduction/reduce_problem.hpp"

namespace anydnn::api {

enum class ObjectTag : uint32_t {
  Dead = 0xdeadbeefu,
  Handle = 0x414e4831u,  // "ANH1"
  Tensor = 0x414e5431u,
  Convolution = 0x414e4331u,
  Rnn = 0x414e5231u,
  Dropout = 0x414e4431u,
  SeqTensor = 0x414e5331u,
  Activation = 0x414e4131u,
  Pooling = 0x414e5031u,
  Softmax = 0x414e5831u,
  Lrn = 0x414e4c31u,
  ReduceTensor = 0x414e5531u,  // "ANU1"
  CtcLoss = 0x414e4531u,       // "ANE1" (0x414e4c31 is Lrn's)
  FusionPlan = 0x414e4631u,    // "ANF1"
  FusionOp = 0x414e4f31u,      // "ANO1"
  OperatorArgs = 0x414e4731u,  // "ANG1"
  Problem = 0x414e3250u,       // "AN2P": Find 2.0
  FindOptions = 0x414e324fu,   // "AN2O"
  Solution = 0x414e3253u,      // "AN2S"
  Mha = 0x414e4d31u,           // "ANM1"
};

// A descriptor object: the public struct it is handed out as, its live tag, and the descriptor
// it holds (`desc`). The objects with more than a descriptor are written out below.
template <class Public, ObjectTag kTag, class Desc>
struct TaggedObject : Public {
  ~TaggedObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = kTag;
  Desc desc;
};

// The object behind a handle, checked: non-null and a live object of its type (BadParm naming
// the argument otherwise).
template <class Object, ObjectTag Tag, class Public>
Object& deref_object(Public p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
  Object* o = static_cast<Object*>(p);
  ANYDNN_CHECK_BADPARM(o->tag == Tag, name << " does not point to a live object of its type");
  return *o;
}

// A descriptor object and its deref() in one line: `Alias` is handed out as `Public*`, and
// deref(p, name) returns its descriptor (`name` defaults to the argument's usual name).
#define ANYDNN_TAGGED_OBJECT(Alias, Public, Tag, Desc, default_name) \
  using Alias = TaggedObject<Public, ObjectTag::Tag, Desc>;          \
  inline Desc& deref(Public* p, const char* name = default_name) {   \
    return deref_object<Alias, ObjectTag::Tag>(p, name).desc;        \
  }

struct HandleObject : miopenHandle {
  explicit HandleObject(const Config& config, void* stream) : handle(config, stream) {}
  ~HandleObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::Handle;
  Handle handle;
};

struct TensorObject : miopenTensorDescriptor {
  ~TensorObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::Tensor;
  TensorDescriptor desc;  // empty (not set) until a Set* call
  // miopenSetTensorCastType: the type MIOpen's fp8 convolutions round this tensor to; the
  // descriptor's own type until set. The tensor ops ignore it (as MIOpen's do); a convolution
  // refuses a tensor whose cast type differs (conv_call.cpp) rather than run without the rounding.
  miopenDataType_t cast_type = miopenFloat;
  bool has_cast_type = false;
};

ANYDNN_TAGGED_OBJECT(ConvolutionObject, miopenConvolutionDescriptor, Convolution,
                     ConvolutionDescriptor, "convDesc")

ANYDNN_TAGGED_OBJECT(RnnObject, miopenRNNDescriptor, Rnn, RnnDescriptor, "rnnDesc")

ANYDNN_TAGGED_OBJECT(DropoutObject, miopenDropoutDescriptor, Dropout, DropoutDescriptor,
                     "dropoutDesc")

ANYDNN_TAGGED_OBJECT(SeqTensorObject, miopenSeqTensorDescriptor, SeqTensor, SeqTensorDescriptor,
                     "seqDesc")

// miopenSetActivationDescriptor's arguments; a new descriptor is PASTHRU with zeros.
ANYDNN_TAGGED_OBJECT(ActivationObject, miopenActivationDescriptor, Activation, ActivMode,
                     "activDesc")

// The pooling descriptor (pooling/pooling_desc.hpp); a new one is unset max pooling.
ANYDNN_TAGGED_OBJECT(PoolingObject, miopenPoolingDescriptor, Pooling, PoolingDesc, "poolDesc")

// miopenSetSoftmaxDescriptor's arguments; a new descriptor is alpha 1, beta 0, ACCURATE, CHANNEL
// (MIOpen leaves them uninitialised).
struct SoftmaxDesc {
  float alpha = 1.0f, beta = 0.0f;
  miopenSoftmaxAlgorithm_t algorithm = MIOPEN_SOFTMAX_ACCURATE;
  miopenSoftmaxMode_t mode = MIOPEN_SOFTMAX_MODE_CHANNEL;
};
ANYDNN_TAGGED_OBJECT(SoftmaxObject, miopenSoftmaxDescriptor, Softmax, SoftmaxDesc, "softmaxDesc")

// miopenSetLRNDescriptor's arguments; a new descriptor is within-channel, lrnN 0 and zeros
// (MIOpen's has lrnN 0 and no alpha / beta / K: its Get reads past an empty vector), so a
// compute call with one that was never set is BadParm. `set` tells the API trace.
struct LrnDesc {
  LrnParams params;
  bool set = false;
};
ANYDNN_TAGGED_OBJECT(LrnObject, miopenLRNDescriptor, Lrn, LrnDesc, "lrnDesc")

// miopenSetReduceTensorDescriptor's arguments; a new descriptor is MIOpen's default (ADD, fp32,
// no NaN propagation, no indices, 32-bit indices).
ANYDNN_TAGGED_OBJECT(ReduceTensorObject, miopenReduceTensorDescriptor, ReduceTensor,
                     ReduceTensorDesc, "reduceTensorDesc")

// miopenSetCTCLossDescriptor's arguments (a new descriptor holds MIOpen's defaults).
ANYDNN_TAGGED_OBJECT(CtcLossObject, miopenCTCLossDescriptor, CtcLoss, CtcLossDesc, "ctcLossDesc")

// An operator of a fusion plan: the plan owns both the core operator and this handle object,
// so the handle lives as long as the plan (as MIOpen's do).
struct FusionOpObject : miopenFusionOpDescriptor {
  explicit FusionOpObject(FusionOp& o) : op(&o) {}
  ~FusionOpObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::FusionOp;
  FusionOp* op;
};

struct FusionPlanObject : miopenFusionPlanDescriptor {
  explicit FusionPlanObject(FusionPlan p) : plan(std::move(p)) {}
  ~FusionPlanObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::FusionPlan;
  FusionPlan plan;
  std::vector<std::unique_ptr<FusionOpObject>> ops;  // the handles miopenCreateOp* gave out
};

struct OperatorArgsObject : miopenOperatorArgs {
  ~OperatorArgsObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::OperatorArgs;
  OperatorArgs args;
};

// Find 2.0 (find2/): a problem, find options, a solution, an MHA descriptor.
struct ProblemObject : miopenProblem {
  explicit ProblemObject(find2::Problem p) : problem(std::move(p)) {}
  ~ProblemObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::Problem;
  find2::Problem problem;
};

struct FindOptionsObject : miopenFindOptions {
  ~FindOptionsObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::FindOptions;
  find2::FindOptions options;
};

struct SolutionObject : miopenSolution {
  explicit SolutionObject(find2::Solution s) : solution(std::move(s)) {}
  ~SolutionObject() { tag = ObjectTag::Dead; }
  ObjectTag tag = ObjectTag::Solution;
  find2::Solution solution;
};

// miopenSetMhaDescriptor's argument; a new descriptor has scale 1 (MIOpen leaves it unset).
ANYDNN_TAGGED_OBJECT(MhaObject, miopenMhaDescriptor, Mha, find2::MhaOperator, "mhaDesc")

// Also makes the handle's device current on the calling thread (Backend::make_current).
inline Handle& deref(miopenHandle_t h, const char* name = "handle") {
  Handle& handle = deref_object<HandleObject, ObjectTag::Handle>(h, name).handle;
  handle.backend().make_current();
  return handle;
}
inline TensorDescriptor& deref(miopenTensorDescriptor_t t, const char* name = "tensorDesc") {
  return deref_object<TensorObject, ObjectTag::Tensor>(t, name).desc;
}
inline TensorObject& deref_tensor_object(miopenTensorDescriptor_t t, const char* name) {
  return deref_object<TensorObject, ObjectTag::Tensor>(t, name);
}

inline FusionPlanObject& deref(miopenFusionPlanDescriptor_t p, const char* name = "fusePlanDesc") {
  return deref_object<FusionPlanObject, ObjectTag::FusionPlan>(p, name);
}
inline FusionOp& deref(miopenFusionOpDescriptor_t o, const char* name) {
  return *deref_object<FusionOpObject, ObjectTag::FusionOp>(o, name).op;
}
inline OperatorArgs& deref(miopenOperatorArgs_t a, const char* name = "args") {
  return deref_object<OperatorArgsObject, ObjectTag::OperatorArgs>(a, name).args;
}

inline find2::Problem& deref(miopenProblem_t p, const char* name = "problem") {
  return deref_object<ProblemObject, ObjectTag::Problem>(p, name).problem;
}
inline find2::FindOptions& deref(miopenFindOptions_t o, const char* name = "options") {
  return deref_object<FindOptionsObject, ObjectTag::FindOptions>(o, name).options;
}
inline find2::Solution& deref(miopenSolution_t s, const char* name = "solution") {
  return deref_object<SolutionObject, ObjectTag::Solution>(s, name).solution;
}

// A descriptor that must have been set (a compute call's argument).
inline const TensorDescriptor& deref_set(miopenTensorDescriptor_t t, const char* name) {
  const TensorDescriptor& d = deref(t, name);
  ANYDNN_CHECK_BADPARM(d.is_set(), name << " has not been set");
  return d;
}

template <class T>
T& deref_out(T* p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
  return *p;
}

}  // namespace anydnn::api
