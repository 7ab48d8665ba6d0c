// BnBwdTrgActivationFused: BN backward + activation backward (the activation's derivative applied
// to dy on the fly, at bn(x) recomputed from the saved statistics) in one BN pass
// (fusion/bn_activation_fused.hpp).
#include <memory>

#include "fusion/bn_activation_fused.hpp"
#include "fusion/fusion_registry.hpp"

namespace anydnn {

std::unique_ptr<FusionSolver> make_bn_bwd_trg_activation_fused() {
  return std::make_unique<BnActivationFused>("BnBwdTrgActivationFused",
                                             FusionChain::BnBackwardActiv);
}

}  // namespace anydnn
