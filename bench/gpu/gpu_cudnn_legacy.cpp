// cuDNN through its legacy API: cudnnFindConvolution*AlgorithmEx over every algorithm with the
// benchmark's workspace, then the fastest one that ran, with the math type it was measured with.
// Only the fallback peer: the legacy heuristics/Find skip many of cuDNN 9's engines (tensor-core
// kernels among them), so the frontend graph API (gpu_cudnn_fe.cpp) is what frameworks use.
#include <algorithm>
#include <functional>
#include <vector>

#include "gpu_conv.hpp"

namespace anydnn::gpubench {

namespace {

std::string math_suffix(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_TENSOR_OP_MATH:
      return "/TC";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return "/TC-conv";
    case CUDNN_FMA_MATH:
      return "/FMA";
    default:
      return "";
  }
}

std::string fwd_algo_name(cudnnConvolutionFwdAlgo_t a) {
  static const char* n[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 8 ? n[i] : "fwd-algo-" + std::to_string(i);
}
std::string bwdd_algo_name(cudnnConvolutionBwdDataAlgo_t a) {
  static const char* n[] = {"ALGO_0",     "ALGO_1",   "FFT",
                            "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 6 ? n[i] : "bwdd-algo-" + std::to_string(i);
}
std::string bwdw_algo_name(cudnnConvolutionBwdFilterAlgo_t a) {
  static const char* n[] = {"ALGO_0",    "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED",
                            "FFT_TILING"};
  const int i = static_cast<int>(a);
  return i >= 0 && i < 7 ? n[i] : "bwdw-algo-" + std::to_string(i);
}

// The layer's legacy descriptors.
struct Descs {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t c = nullptr;
  Descs(const ConvGeometry& g, const ConvPrecision& p) {
    const cudnnDataType_t t = cudnn_type(p.type);
    const cudnnTensorFormat_t f = p.nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW;
    check_cudnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&c), "cudnnCreateConvolutionDescriptor");
    check_cudnn(cudnnSetTensor4dDescriptor(x, f, t, g.x[0], g.x[1], g.x[2], g.x[3]), "x desc");
    check_cudnn(cudnnSetFilter4dDescriptor(w, t, f, g.w[0], g.w[1], g.w[2], g.w[3]), "w desc");
    check_cudnn(cudnnSetTensor4dDescriptor(y, f, t, g.y[0], g.y[1], g.y[2], g.y[3]), "y desc");
    // fp32 accumulation for fp16 / bf16 too (what MIOpen's half convolutions do).
    check_cudnn(cudnnSetConvolution2dDescriptor(c, g.pad[0], g.pad[1], g.stride[0], g.stride[1],
                                                g.dilation[0], g.dilation[1],
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "cudnnSetConvolution2dDescriptor");
    check_cudnn(cudnnSetConvolutionGroupCount(c, g.groups), "cudnnSetConvolutionGroupCount");
    int n = 0, k = 0, ho = 0, wo = 0;
    check_cudnn(cudnnGetConvolution2dForwardOutputDim(c, x, w, &n, &k, &ho, &wo),
                "cudnnGetConvolution2dForwardOutputDim");
    if (n != g.y[0] || k != g.y[1] || ho != g.y[2] || wo != g.y[3])
      throw Failure("output sizes differ between anydnn and cuDNN");
  }
  Descs(const Descs&) = delete;
  Descs& operator=(const Descs&) = delete;
  ~Descs() {
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (c) cudnnDestroyConvolutionDescriptor(c);
  }
};

// Strict fp32: FMA math only (no TF32); TF32: cuDNN's default math (tensor cores with TF32
// allowed); fp16 / bf16: tensor-op math.
cudnnMathType_t math_of(const ConvPrecision& p) {
  if (p.type != DType::F32) return CUDNN_TENSOR_OP_MATH;
  return p.tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

class LegacyPeer final : public CudnnConvPeer {
 public:
  LegacyPeer(cudnnHandle_t h, cudaStream_t st, const ConvPrecision& p, const DeviceMem& ws)
      : h_(h), st_(st), p_(p), ws_(ws) {}
  std::string api() const override { return "legacy"; }
  std::string description() const override {
    return "cuDNN legacy API: cudnnFind*AlgorithmEx, fastest algorithm that ran";
  }

  double run(const ConvGeometry& g, ConvDir dir, const ConvIo& io, const TimingPlan& plan,
             std::string* algo_name) override {
    const Descs d(g, p_);
    void* w = ws_.get();
    const size_t wb = ws_.bytes();
    check_cudnn(cudnnSetConvolutionMathType(d.c, math_of(p_)), "cudnnSetConvolutionMathType");
    const float alpha = 1.0f, beta = 0.0f;
    std::function<void()> call;
    if (dir == kFwd) {
      int max = 0, got = 0;
      check_cudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(h_, &max), "MaxCount");
      std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(1, max)));
      check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(h_, d.x, io.x, d.w, io.w, d.c, d.y, io.out,
                                                         max, &got, perf.data(), w, wb),
                  "cudnnFindConvolutionForwardAlgorithmEx");
      const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
      for (int i = 0; i < got && !best; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= wb) best = &perf[i];
      if (!best) throw Failure("cuDNN FindEx: no forward algorithm ran");
      const cudnnConvolutionFwdAlgo_t a = best->algo;
      check_cudnn(cudnnSetConvolutionMathType(d.c, best->mathType), "cudnnSetConvolutionMathType");
      *algo_name = fwd_algo_name(a) + math_suffix(best->mathType);
      call = [&, a] {
        check_cudnn(cudnnConvolutionForward(h_, &alpha, d.x, io.x, d.w, io.w, d.c, a, w, wb, &beta,
                                            d.y, io.out),
                    "cudnnConvolutionForward");
      };
    } else if (dir == kBwdData) {
      int max = 0, got = 0;
      check_cudnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h_, &max), "MaxCount");
      std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<size_t>(std::max(1, max)));
      check_cudnn(cudnnFindConvolutionBackwardDataAlgorithmEx(
                      h_, d.w, io.w, d.y, io.dy, d.c, d.x, io.out, max, &got, perf.data(), w, wb),
                  "cudnnFindConvolutionBackwardDataAlgorithmEx");
      const cudnnConvolutionBwdDataAlgoPerf_t* best = nullptr;
      for (int i = 0; i < got && !best; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= wb) best = &perf[i];
      if (!best) throw Failure("cuDNN FindEx: no backward-data algorithm ran");
      const cudnnConvolutionBwdDataAlgo_t a = best->algo;
      check_cudnn(cudnnSetConvolutionMathType(d.c, best->mathType), "cudnnSetConvolutionMathType");
      *algo_name = bwdd_algo_name(a) + math_suffix(best->mathType);
      call = [&, a] {
        check_cudnn(cudnnConvolutionBackwardData(h_, &alpha, d.w, io.w, d.y, io.dy, d.c, a, w, wb,
                                                 &beta, d.x, io.out),
                    "cudnnConvolutionBackwardData");
      };
    } else {
      int max = 0, got = 0;
      check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h_, &max), "MaxCount");
      std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(static_cast<size_t>(std::max(1, max)));
      check_cudnn(cudnnFindConvolutionBackwardFilterAlgorithmEx(
                      h_, d.x, io.x, d.y, io.dy, d.c, d.w, io.out, max, &got, perf.data(), w, wb),
                  "cudnnFindConvolutionBackwardFilterAlgorithmEx");
      const cudnnConvolutionBwdFilterAlgoPerf_t* best = nullptr;
      for (int i = 0; i < got && !best; ++i)
        if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= wb) best = &perf[i];
      if (!best) throw Failure("cuDNN FindEx: no backward-filter algorithm ran");
      const cudnnConvolutionBwdFilterAlgo_t a = best->algo;
      check_cudnn(cudnnSetConvolutionMathType(d.c, best->mathType), "cudnnSetConvolutionMathType");
      *algo_name = bwdw_algo_name(a) + math_suffix(best->mathType);
      call = [&, a] {
        check_cudnn(cudnnConvolutionBackwardFilter(h_, &alpha, d.x, io.x, d.y, io.dy, d.c, a, w, wb,
                                                   &beta, d.w, io.out),
                    "cudnnConvolutionBackwardFilter");
      };
    }
    check_context(st_);
    return time_call(st_, call, plan);
  }

 private:
  cudnnHandle_t h_;
  cudaStream_t st_;
  ConvPrecision p_;
  const DeviceMem& ws_;
};

}  // namespace

std::unique_ptr<CudnnConvPeer> make_legacy_cudnn_peer(cudnnHandle_t h, cudaStream_t stream,
                                                      const ConvPrecision& p, const DeviceMem& ws) {
  return std::make_unique<LegacyPeer>(h, stream, p, ws);
}

}  // namespace anydnn::gpubench
