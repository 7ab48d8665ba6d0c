// The solver registries that every backend holds in the same form: one list per family, built for
// backend K from the family's registry file (bn/bn_registry.hpp, pooling/pooling_registry.hpp,
// ...), and added to the backend's type-indexed Primitives in one place. A backend adds what is
// its own: the conv registry (its solver lists differ), the conv kernels, the RNN and dropout
// kernel contracts. Adding a primitive family with the same solvers on every backend = a member
// and an add() line here, not an edit of each backend or of the backend interface
// (docs/adding-a-primitive.md). It sits with the backends, above the families it names.
#pragma once

#include "activation/activation_registry.hpp"
#include "backend/backend.hpp"
#include "bn/bn_registry.hpp"
#include "ctc/ctc_registry.hpp"
#include "fusion/fusion_registry.hpp"
#include "lrn/lrn_registry.hpp"
#include "mha/mha_registry.hpp"
#include "pooling/pooling_registry.hpp"
#include "reduction/reduce_registry.hpp"
#include "softmax/softmax_registry.hpp"
#include "tensor_ops/tensor_op_registry.hpp"

namespace anydnn {

template <BackendKind K>
struct PrimitiveRegistries {
  BnSolverRegistry bn = make_bn_registry<K>();
  ActivationSolverRegistry activation = make_activation_registry<K>();
  SoftmaxSolverRegistry softmax = make_softmax_registry<K>();
  LrnSolverRegistry lrn = make_lrn_registry<K>();
  CtcLossSolverRegistry ctc_loss = make_ctc_loss_registry<K>();
  TensorOpSolverRegistry tensor_op = make_tensor_op_registry<K>();
  ReduceSolverRegistry reduce = make_reduce_registry<K>();
  PoolingSolverRegistry pooling = make_pooling_registry<K>();
  FusionSolverRegistry fusion = make_fusion_registry<K>();
  MhaSolverRegistry mha = make_mha_registry<K>();

  // Points `p` at these registries; the owner must outlive every use of `p`.
  void wire(Primitives& p) const {
    p.add<const BnSolverRegistry>(&bn);
    p.add<const ActivationSolverRegistry>(&activation);
    p.add<const SoftmaxSolverRegistry>(&softmax);
    p.add<const LrnSolverRegistry>(&lrn);
    p.add<const CtcLossSolverRegistry>(&ctc_loss);
    p.add<const TensorOpSolverRegistry>(&tensor_op);
    p.add<const ReduceSolverRegistry>(&reduce);
    p.add<const PoolingSolverRegistry>(&pooling);
    p.add<const FusionSolverRegistry>(&fusion);
    p.add<const MhaSolverRegistry>(&mha);
  }
};

}  // namespace anydnn
