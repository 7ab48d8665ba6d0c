// Family-wide helpers of the convolution solver contract (conv_solver.hpp).
#include "conv/conv_solver.hpp"

namespace anydnn {

Applicability direction_is(const ConvProblem& p, ConvDirection dir) {
  ANYDNN_REJECT_IF(p.direction() != dir, dir == ConvDirection::Forward ? "not a forward problem"
                                         : dir == ConvDirection::BackwardData
                                             ? "not a backward-data problem"
                                             : "not a backward-weights problem");
  return Applicability::yes();
}

const char* algorithm_name(miopenConvAlgorithm_t algo, ConvDirection dir) {
  // MIOpen's enumerator names, which appear in find-db records and logs.
  const bool fwd = dir == ConvDirection::Forward;
  const bool bwd = dir == ConvDirection::BackwardData;
  switch (algo) {
    case miopenConvolutionAlgoGEMM:
      return fwd   ? "miopenConvolutionFwdAlgoGEMM"
             : bwd ? "miopenConvolutionBwdDataAlgoGEMM"
                   : "miopenConvolutionBwdWeightsAlgoGEMM";
    case miopenConvolutionAlgoDirect:
      return fwd   ? "miopenConvolutionFwdAlgoDirect"
             : bwd ? "miopenConvolutionBwdDataAlgoDirect"
                   : "miopenConvolutionBwdWeightsAlgoDirect";
    case miopenConvolutionAlgoFFT:
      return fwd ? "miopenConvolutionFwdAlgoFFT" : "miopenConvolutionBwdDataAlgoFFT";
    case miopenConvolutionAlgoWinograd:
      return fwd   ? "miopenConvolutionFwdAlgoWinograd"
             : bwd ? "miopenConvolutionBwdDataAlgoWinograd"
                   : "miopenConvolutionBwdWeightsAlgoWinograd";
    case miopenConvolutionAlgoImplicitGEMM:
      return fwd   ? "miopenConvolutionFwdAlgoImplicitGEMM"
             : bwd ? "miopenConvolutionBwdDataAlgoImplicitGEMM"
                   : "miopenConvolutionBwdWeightsAlgoImplicitGEMM";
  }
  return "unknown";
}

}  // namespace anydnn
