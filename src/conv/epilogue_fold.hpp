// Folding a fused convolution chain's per-channel steps (bias, spatial BN inference, alpha1) into
// the fp32 scale / shift of its epilogue (EpilogueFold in conv/conv_kernels.hpp has the
// formulas). The arithmetic is written once, on host-readable memory; the CPU backend's
// ConvKernels::fold_epilogue calls it directly, and a backend without its own kernel gets it
// through copies (fold_epilogue below).
#pragma once

#include "conv/conv_kernels.hpp"

namespace anydnn {

class Backend;

// Every pointer of `f` readable by the host; scale / shift host memory of f.channels floats.
// Returns whether `scale` was written (BN, or alpha != 1); shift always is.
bool fold_epilogue_host(const EpilogueFold& f, float* scale, float* shift);

// On the backend's memory: its kernel when it has one, else a round trip through the host.
// Returns whether `scale` was written.
bool fold_epilogue(Backend& backend, const EpilogueFold& f, float* scale, float* shift);

}  // namespace anydnn
