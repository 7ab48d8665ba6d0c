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

using ConvolutionObject =
    TaggedObject<miopenConvolutionDescriptor, ObjectTag::Convolution, ConvolutionDescriptor>;

using RnnObject = TaggedObject<miopenRNNDescriptor, ObjectTag::Rnn, RnnDescriptor>;

using DropoutObject = TaggedObject<miopenDropoutDescriptor, ObjectTag::Dropout, DropoutDescriptor>;

using SeqTensorObject =
    TaggedObject<miopenSeqTensorDescriptor, ObjectTag::SeqTensor, SeqTensorDescriptor>;

// miopenSetActivationDescriptor's arguments; a new descriptor is PASTHRU with zeros.
using ActivationObject = TaggedObject<miopenActivationDescriptor, ObjectTag::Activation, ActivMode>;

// The pooling descriptor (pooling/pooling_desc.hpp); a new one is unset max pooling.
using PoolingObject = TaggedObject<miopenPoolingDescriptor, ObjectTag::Pooling, PoolingDesc>;

// miopenSetSoftmaxDescriptor's arguments; a new descriptor is alpha 1, beta 0, ACCURATE, CHANNEL
// (MIOpen leaves them uninitialised).
struct SoftmaxDesc {
  float alpha = 1.0f, beta = 0.0f;
  miopenSoftmaxAlgorithm_t algorithm = MIOPEN_SOFTMAX_ACCURATE;
  miopenSoftmaxMode_t mode = MIOPEN_SOFTMAX_MODE_CHANNEL;
};
using SoftmaxObject = TaggedObject<miopenSoftmaxDescriptor, ObjectTag::Softmax, SoftmaxDesc>;

// miopenSetLRNDescriptor's arguments; a new descriptor is within-channel, lrnN 0 and zeros
// (MIOpen's has lrnN 0 and no alpha / beta / K: its Get reads past an empty vector), so a
// compute call with one that was never set is BadParm. `set` tells the API trace.
struct LrnDesc {
  LrnParams params;
  bool set = false;
};
using LrnObject = TaggedObject<miopenLRNDescriptor, ObjectTag::Lrn, LrnDesc>;

// miopenSetReduceTensorDescriptor's arguments; a new descriptor is MIOpen's default (ADD, fp32,
// no NaN propagation, no indices, 32-bit indices).
using ReduceTensorObject =
    TaggedObject<miopenReduceTensorDescriptor, ObjectTag::ReduceTensor, ReduceTensorDesc>;

// miopenSetCTCLossDescriptor's arguments (a new descriptor holds MIOpen's defaults).
using CtcLossObject = TaggedObject<miopenCTCLossDescriptor, ObjectTag::CtcLoss, CtcLossDesc>;

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
using MhaObject = TaggedObject<miopenMhaDescriptor, ObjectTag::Mha, find2::MhaOperator>;

template <class Object, ObjectTag Tag, class Public>
Object& deref_object(Public p, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
  Object* o = static_cast<Object*>(p);
  ANYDNN_CHECK_BADPARM(o->tag == Tag, name << " does not point to a live object of its type");
  return *o;
}

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
inline ConvolutionDescriptor& deref(miopenConvolutionDescriptor_t c,
                                    const char* name = "convDesc") {
  return deref_object<ConvolutionObject, ObjectTag::Convolution>(c, name).desc;
}

inline RnnDescriptor& deref(miopenRNNDescriptor_t r, const char* name = "rnnDesc") {
  return deref_object<RnnObject, ObjectTag::Rnn>(r, name).desc;
}
inline DropoutDescriptor& deref(miopenDropoutDescriptor_t d, const char* name = "dropoutDesc") {
  return deref_object<DropoutObject, ObjectTag::Dropout>(d, name).desc;
}

inline ActivMode& deref(miopenActivationDescriptor_t d, const char* name = "activDesc") {
  return deref_object<ActivationObject, ObjectTag::Activation>(d, name).desc;
}

inline ReduceTensorDesc& deref(miopenReduceTensorDescriptor_t d,
                               const char* name = "reduceTensorDesc") {
  return deref_object<ReduceTensorObject, ObjectTag::ReduceTensor>(d, name).desc;
}
inline PoolingDesc& deref(miopenPoolingDescriptor_t d, const char* name = "poolDesc") {
  return deref_object<PoolingObject, ObjectTag::Pooling>(d, name).desc;
}

inline SoftmaxDesc& deref(miopenSoftmaxDescriptor_t d, const char* name = "softmaxDesc") {
  return deref_object<SoftmaxObject, ObjectTag::Softmax>(d, name).desc;
}

inline LrnDesc& deref(miopenLRNDescriptor_t d, const char* name = "lrnDesc") {
  return deref_object<LrnObject, ObjectTag::Lrn>(d, name).desc;
}

inline CtcLossDesc& deref(miopenCTCLossDescriptor_t d, const char* name = "ctcLossDesc") {
  return deref_object<CtcLossObject, ObjectTag::CtcLoss>(d, name).desc;
}

inline SeqTensorDescriptor& deref(miopenSeqTensorDescriptor_t d, const char* name = "seqDesc") {
  return deref_object<SeqTensorObject, ObjectTag::SeqTensor>(d, name).desc;
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
inline find2::MhaOperator& deref(miopenMhaDescriptor_t d, const char* name = "mhaDesc") {
  return deref_object<MhaObject, ObjectTag::Mha>(d, name).desc;
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
