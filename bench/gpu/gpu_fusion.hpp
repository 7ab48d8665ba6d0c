// Fusion mode of the GPU benchmark: conv + bias + ReLU (gpu_fusion.cpp) and BN + ReLU
// (gpu_fusion_bn.cpp), anydnn's fusion plans against the unfused anydnn sequence and against
// cuDNN's fused paths (conv: gpu_fusion_cudnn.cpp, the frontend graph conv -> add -> ReLU,
// autotuned). Rows go to their own CSV (the columns below); bench/gpu/merge_fusion.py joins them
// with the PyTorch peer (torch_fusion_peer.py) and the hardware limits.
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "gpu_common.hpp"
#include "gpu_conv.hpp"

namespace anydnn::gpubench {

// One result line of the mode.
struct FusionRow {
  std::string group, shape, dir;  // dir: fwd (conv), train, bwd, infer (BN)
  int count = 1;
  double work = 0;      // GFLOP (conv) or GB of compulsory traffic of the fused op (BN)
  std::string unit;     // GFLOP or GB
  double extra_gb = 0;  // bytes the unfused sequence moves beyond the fused op
  double fused_ms = NAN, unfused_ms = NAN, cudnn_ms = NAN;
  std::string unfused_path = "-", cudnn_path = "-";
  std::string verify = "-";  // the worst of fused vs unfused and fused vs cuDNN
  double err_unfused = NAN, err_cudnn = NAN;
  bool bits_equal = false;  // fused output bitwise equal to the unfused one
  double copy_gbs = NAN;    // the device's copy rate (BN rows: the limit)
  std::string note;
};

struct FusionPrecision {
  std::string group;  // cbr-fp32, cbr-tf32, cbr-fp16-nhwc, bnrelu-fp32-nchw, bnrelu-fp16-nhwc
  DType type;
  bool nhwc, tf32, bn;
  double tol;  // relative L2 still counted as a match
};
// fp32, tf32, fp16 (conv + bias + ReLU), bn-fp32, bn-fp16 (BN + ReLU); Fatal otherwise.
FusionPrecision fusion_precision_of(const std::string& p);

// The mode: one precision per call (ANYDNN_CONV_ALLOW_TF32 is read once per process).
void run_fusion(const Options& o, const std::string& precision);
// The CSV's header line (rows are appended by the mode).
void write_fusion_csv_header(const std::string& path);

// --- shared by the two halves ---------------------------------------------------------------

void append_fusion_row(const std::string& csv, const FusionRow& r);
void print_fusion_title(const std::string& title);
void print_fusion_row(const FusionRow& r);
// Count-weighted sums and geometric means per direction.
void print_fusion_totals(const std::vector<FusionRow>& rows, const std::string& group);
// `got` against `want` (relative L2, NaN-aware) into *err; the row's verify keeps the worst.
void fusion_check(FusionRow& r, const void* got, const void* want, DType t, size_t n, double tol,
                  cudaStream_t st, double* err, const char* what);
bool same_bits(const void* a, const void* b, size_t bytes);

// Owners of anydnn's descriptors, fusion plans and operator arguments.
class MiopenObjects {
 public:
  MiopenObjects() = default;
  MiopenObjects(const MiopenObjects&) = delete;
  MiopenObjects& operator=(const MiopenObjects&) = delete;
  ~MiopenObjects();
  // NCHW lengths in NCHW or NHWC memory order.
  miopenTensorDescriptor_t tensor(DType t, const std::array<int, 4>& lens, bool nhwc);
  miopenActivationDescriptor_t relu();
  miopenFusionPlanDescriptor_t plan(miopenTensorDescriptor_t input);
  miopenOperatorArgs_t op_args();
  miopenConvolutionDescriptor_t conv = nullptr;  // created by the caller, destroyed here

 private:
  std::vector<miopenTensorDescriptor_t> tensors_;
  miopenActivationDescriptor_t act_ = nullptr;
  std::vector<miopenFusionPlanDescriptor_t> plans_;
  std::vector<miopenOperatorArgs_t> args_;
};

// BN + ReLU rows of one precision (gpu_fusion_bn.cpp).
std::vector<FusionRow> run_bn_relu(const Options& o, const FusionPrecision& p);

// One conv + bias + ReLU layer as cuDNN's graph sees it: the convolution of gpu_conv.hpp, a
// 1 x K x 1 x 1 bias of the I/O type, packed NCHW or NHWC tensors.
struct CbrProblem {
  ConvGeometry g;
  DType type = DType::F32;
  bool nhwc = false;
  bool strict_fp32 = false;  // exclude the TENSOR_CORE (TF32) engines, as allow_tf32 = False
};

// cuDNN's fused conv -> pointwise add (bias) -> pointwise ReLU graph through the frontend API:
// every engine configuration of heuristics A + fallback that builds, each timed on the buffers,
// the fastest kept and then timed under `plan` (the conv peer's autotuning). Writes y; `*algo`
// names the plan. Failure when no configuration runs the graph, or without the frontend
// headers at build time.
double cudnn_fused_conv_bias_relu(cudnnHandle_t h, cudaStream_t st, const CbrProblem& p,
                                  const void* x, const void* w, const void* bias, void* y,
                                  const DeviceMem& ws, const TimingPlan& plan, std::string* algo);
bool have_cudnn_frontend();

}  // namespace anydnn::gpubench
