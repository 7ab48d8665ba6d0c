// BnFwdTrgActivationFused: BN forward training + activation in one BN pass
// (fusion/bn_activation_fused.hpp).
#include <memory>

#include "fusion/bn_activation_fused.hpp"
#include "fusion/fusion_registry.hpp"

namespace anydnn {

std::unique_ptr<FusionSolver> make_bn_fwd_trg_activation_fused() {
  return std::make_unique<BnActivationFused>("BnFwdTrgActivationFused",
                                             FusionChain::BnTrainingActiv);
}

}  // namespace anydnn
