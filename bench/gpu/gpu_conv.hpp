// Convolution mode of the GPU benchmark: what the anydnn side (gpu_conv.cpp) shares with the two
// ways of driving cuDNN: the frontend graph API with autotuning (gpu_cudnn_fe.cpp, the peer) and
// the legacy cudnnFind*AlgorithmEx calls (gpu_cudnn_legacy.cpp, the fallback when the frontend
// headers were not found at build time, or on --cudnn-api legacy).
#pragma once

#include <array>
#include <memory>
#include <string>

#include "gpu_common.hpp"

namespace anydnn::gpubench {

struct ConvPrecision {
  std::string group;  // conv-fp32, conv-tf32, conv-fp16-nhwc, conv-bf16-nhwc
  DType type;
  bool nhwc;   // NHWC activations and KRSC weights on both sides
  bool tf32;   // fp32 storage, TF32 tensor cores allowed (anydnn: ANYDNN_CONV_ALLOW_TF32=1)
  double tol;  // relative L2 difference still counted as a match
};
// "fp32", "tf32", "fp16", "bf16"; Fatal otherwise.
ConvPrecision conv_precision_of(const std::string& p);

enum ConvDir { kFwd = 0, kBwdData = 1, kBwdWeights = 2 };

// One 2-D layer in logical order: x N C H W, w K C/G R S, y N K Ho Wo (Ho, Wo as anydnn computed
// them). Memory order follows ConvPrecision::nhwc.
struct ConvGeometry {
  std::array<int, 4> x{}, w{}, y{};
  std::array<int, 2> pad{}, stride{}, dilation{};
  int groups = 1;
};

// Device buffers of one (layer, direction): the inputs shared by every call, and the output the
// cuDNN peer writes (anydnn's paths write their own).
struct ConvIo {
  const void* x = nullptr;
  const void* w = nullptr;
  const void* dy = nullptr;
  void* out = nullptr;  // y (fwd), dx (bwd data) or dw (bwd weights)
};

// cuDNN as the peer: one object per process (one precision), one call per (layer, direction).
class CudnnConvPeer {
 public:
  virtual ~CudnnConvPeer() = default;
  // "frontend" or "legacy" (the CSV's cudnn_api column).
  virtual std::string api() const = 0;
  // For the table's title: how the peer is configured.
  virtual std::string description() const = 0;
  // Selects the fastest implementation of `dir` for the layer (within the workspace), writes its
  // output to io.out and returns its median time under `plan`; `*algo` names what ran. Throws
  // Failure when nothing could run.
  virtual double run(const ConvGeometry& g, ConvDir dir, const ConvIo& io, const TimingPlan& plan,
                     std::string* algo) = 0;
};

// Both on `stream` (the handle's stream), with the caller's workspace (its size is the cap).
std::unique_ptr<CudnnConvPeer> make_legacy_cudnn_peer(cudnnHandle_t h, cudaStream_t stream,
                                                      const ConvPrecision& p, const DeviceMem& ws);
// nullptr when this build has no cuDNN frontend headers (ANYDNN_HAVE_CUDNN_FRONTEND unset).
std::unique_ptr<CudnnConvPeer> make_frontend_cudnn_peer(cudnnHandle_t h, cudaStream_t stream,
                                                        const ConvPrecision& p,
                                                        const DeviceMem& ws);

}  // namespace anydnn::gpubench
