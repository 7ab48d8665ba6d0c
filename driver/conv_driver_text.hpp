// MIOpenDriver conv's per-direction wording of its output lines, shared by the legacy Find and
// immediate-mode paths (conv_driver.cpp) and the Find 2.0 path (conv_find2.cpp).
#pragma once

namespace anydnn::driver {

// Per-direction wording of MIOpenDriver's output lines.
struct DirText {
  const char* time_label;    // "GPU Kernel Time <x> Elapsed", "MIOpen <x> Algorithm"
  const char* solutions;     // "<x> solutions available"
  const char* stats_prefix;  // "stats: <x>3x3u1, ..."
  const char* verify_label;  // "<x> Verifies OK on CPU reference"
  const char* run_failed;    // "<x>() FAILED, rc = 0x.."
};
constexpr DirText kText[3] = {
    {"Forward Conv.", "Forward Conv", "fwd-conv", "Forward Convolution", "RunForwardGPU"},
    {"Backward Data Conv.", "Backward Data Conv", "bwdd-conv", "Backward Convolution Data",
     "RunBackwardGPU"},
    {"Backward Weights Conv.", "Backward Weights Conv", "bwdw-conv", "Backward Convolution Weights",
     "RunBackwardGPU"},
};

}  // namespace anydnn::driver
