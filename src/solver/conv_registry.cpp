#include "solver/conv_registry.hpp"

#include <set>
#include <string>

#include "core/errors.hpp"

namespace anydnn {

ConvSolverRegistry::ConvSolverRegistry(std::vector<ConvSolverEntry> entries)
    : entries_(std::move(entries)) {
  std::set<uint64_t> ids;
  std::set<std::string> names;
  for (const auto& e : entries_) {
    ANYDNN_CHECK(e.id != 0 && ids.insert(e.id).second, miopenStatusInternalError,
                 "solver id " << e.id << " is invalid or used twice");
    ANYDNN_CHECK(names.insert(std::string(e.solver->name())).second, miopenStatusInternalError,
                 "solver name " << e.solver->name() << " is used twice");
  }
}

const ConvSolverEntry* ConvSolverRegistry::find(uint64_t id) const {
  for (const auto& e : entries_)
    if (e.id == id) return &e;
  return nullptr;
}

const ConvSolverEntry* ConvSolverRegistry::find(std::string_view name) const {
  for (const auto& e : entries_)
    if (e.solver->name() == name) return &e;
  return nullptr;
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
