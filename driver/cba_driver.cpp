#include "cba_driver.hpp"

#include <miopen/miopen.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "activation_reference.hpp"
#include "bn_reference.hpp"
#include "conv_driver.hpp"  // exit codes
#include "conv_reference.hpp"
#include "device_buffer.hpp"
#include "driver_prologue.hpp"
#include "host_buffer.hpp"
#include "input_flags.hpp"
#include "verify.hpp"

namespace anydnn::driver {

namespace {

// MIOpen's fusion modes (-F).
enum Mode { kCbna = 0, kCna = 1, kNa = 2, kCn = 3, kCba = 4, kCa = 5, kCb = 6 };
constexpr const char* kModeNames[] = {"Convolution+Bias+BatchNorm+Activation",
                                      "Convolution+BatchNorm+Activation",
                                      "BatchNorm+Activation",
                                      "Convolution+BatchNorm",
                                      "Convolution+Bias+Activation",
                                      "Convolution+Activation",
                                      "Convolution+Bias"};
constexpr double kEpsilon = 1e-3;  // MIOpen's driver's BN epsilon

void add_cba_flags(InputFlags& f) {
  using T = InputFlags::Type;
  f.add("batchsize", 'n', "32", "Mini-batch size");
  f.add("in_channels", 'c', "3", "Number of input channels");
  f.add("in_h", 'H', "32", "Input height");
  f.add("in_w", 'W', "32", "Input width");
  f.add("out_channels", 'k', "32", "Number of output channels");
  f.add("group_count", 'g', "1", "Number of groups in convolution");
  f.add("fil_h", 'y', "3", "Filter height");
  f.add("fil_w", 'x', "3", "Filter width");
  f.add("conv_stride_h", 'u', "1", "Convolution stride vertical");
  f.add("conv_stride_w", 'v', "1", "Convolution stride horizontal");
  f.add("pad_h", 'p', "0", "Zero padding height");
  f.add("pad_w", 'q', "0", "Zero padding width");
  f.add("pad_val", 'r', "0", "Padding value (MIOpen: unused)");
  f.add("alpha", 'A', "1.0", "Activation alpha", T::String);
  f.add("beta", 'B', "0.", "Activation beta", T::String);
  f.add("gamma", 'G', "1", "Activation gamma", T::String);
  f.add("iter", 'i', "1", "Number of iterations");
  f.add("verify", 'V', "1", "Verify against the CPU reference (1)");
  f.add("time", 't', "0", "Time each call (1)");
  f.add("activMode", 'm', "3", "Activation mode (0 PASTHRU ... 9 ELU; 3 RELU)");
  f.add("bnMode", 'M', "0", "Normalization mode (per-activation (0) or spatial (1))");
  f.add("wall", 'w', "0", "Wall-clock time (1, needs -t 1)");
  f.add("dilation_h", 'l', "1", "Dilation of filter height");
  f.add("dilation_w", 'j', "1", "Dilation of filter width");
  f.add("pad_mode", 'z', "conv", "Padding mode (conv: default; same and valid not supported)",
        T::String);
  f.add("fusion_mode", 'F', "0",
        "Fusion mode (cbna = 0, cna = 1, na = 2, cn = 3, cba = 4, ca = 5, cb = 6)");
}

struct Owned {
  miopenHandle_t handle = nullptr;
  std::vector<miopenTensorDescriptor_t> tensors;
  miopenConvolutionDescriptor_t conv = nullptr;
  miopenFusionPlanDescriptor_t plan = nullptr;
  miopenOperatorArgs_t args = nullptr;
  ~Owned() {
    if (args != nullptr) miopenDestroyOperatorArgs(args);
    if (plan != nullptr) miopenDestroyFusionPlan(plan);
    if (conv != nullptr) miopenDestroyConvolutionDescriptor(conv);
    for (auto t : tensors)
      miopenDestroyTensorDescriptor(t);
    if (handle != nullptr) miopenDestroy(handle);
  }
  miopenTensorDescriptor_t tensor(miopenDataType_t type, const std::vector<int>& lens) {
    miopenTensorDescriptor_t t = nullptr;
    if (miopenCreateTensorDescriptor(&t) != miopenStatusSuccess) return nullptr;
    tensors.push_back(t);
    if (miopenSetTensorDescriptor(t, type, static_cast<int>(lens.size()), lens.data(), nullptr) !=
        miopenStatusSuccess)
      return nullptr;
    return t;
  }
};

}  // namespace

bool is_cba_base(const std::string& base) {
  return base == "CBAInfer" || base == "CBAInferfp16";
}

int run_cba_driver(const std::string& base, int argc, const char* const* argv) {
  InputFlags flags;
  add_cba_flags(flags);
  if (const auto err = flags.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags.help_requested()) {
    flags.print_usage(std::cout, base);
    return 0;
  }
  const miopenDataType_t type = base == "CBAInfer" ? miopenFloat : miopenHalf;
  const int mode = flags.get_int("fusion_mode");
  if (mode < 0 || mode > 6) {
    std::cout << "Fusion mode out of range.\n Exiting..." << std::endl;
    return kExitUsage;
  }
  const int bn_flag = flags.get_int("bnMode");
  if (bn_flag != 0 && bn_flag != 1) {
    std::printf("Incorrect Batch Normalization Mode\n");
    return kExitUsage;
  }
  if (flags.get_str("pad_mode") != "conv" && flags.get_str("pad_mode") != "default") {
    std::cerr << "MIOpenDriver " << base << ": -z same / valid are not supported" << std::endl;
    return kExitUsage;
  }
  const miopenBatchNormMode_t bn_mode = bn_flag == 0 ? miopenBNPerActivation : miopenBNSpatial;
  const bool use_conv = mode != kNa, use_bn = mode != kCba && mode != kCa && mode != kCb;
  const bool use_bias = mode == kCbna || mode == kCba || mode == kCb;
  const bool use_activ = mode != kCb && mode != kCn;
  ref::ActivationDesc activ;
  try {
    activ.alpha = std::stod(flags.get_str("alpha"));
    activ.beta = std::stod(flags.get_str("beta"));
    activ.gamma = std::stod(flags.get_str("gamma"));
  } catch (const std::exception&) {
    std::cerr << "MIOpenDriver " << base << ": -A / -B / -G must be numbers" << std::endl;
    return kExitUsage;
  }
  const int m = flags.get_int("activMode");
  if (m < miopenActivationPASTHRU || m > miopenActivationELU) {
    std::cerr << "MIOpenDriver " << base << ": -m must be an activation mode, 0 to 9" << std::endl;
    return kExitUsage;
  }
  activ.mode = static_cast<miopenActivationMode_t>(m);
  RunOptions run;
  if (const auto err = read_run_options(flags, run)) {
    std::cerr << "MIOpenDriver " << base << ": " << *err << std::endl;
    return kExitUsage;
  }
  const int iters = run.iters;
  const bool time = run.time, wall = run.wall;

  std::mt19937 rng = driver_rng();

  Owned o;
  Memory memory = Memory::Host;
  // Timed by wall clock around the fused call (below), not by kernel profiling.
  miopenStatus_t rc = create_driver_handle(&o.handle, memory, /*profile=*/false);
  if (rc != miopenStatusSuccess) return rc;
  const std::vector<int> in_len{flags.get_int("batchsize"), flags.get_int("in_channels"),
                                flags.get_int("in_h"), flags.get_int("in_w")};
  const std::vector<int> w_len{
      flags.get_int("out_channels"),
      flags.get_int("in_channels") / std::max(1, flags.get_int("group_count")),
      flags.get_int("fil_h"), flags.get_int("fil_w")};
  miopenTensorDescriptor_t x_desc = o.tensor(type, in_len), w_desc = o.tensor(type, w_len);
  if (x_desc == nullptr || w_desc == nullptr) {
    std::cerr << "MIOpenDriver " << base << ": bad tensor lengths" << std::endl;
    return kExitUsage;
  }
  const std::vector<int> pads{flags.get_int("pad_h"), flags.get_int("pad_w")},
      strides{flags.get_int("conv_stride_h"), flags.get_int("conv_stride_w")},
      dilations{flags.get_int("dilation_h"), flags.get_int("dilation_w")};
  std::vector<int> out_len = in_len;
  if (use_conv) {
    if ((rc = miopenCreateConvolutionDescriptor(&o.conv)) == miopenStatusSuccess)
      rc = miopenInitConvolutionNdDescriptor(o.conv, 2, pads.data(), strides.data(),
                                             dilations.data(), miopenConvolution);
    if (rc == miopenStatusSuccess)
      rc = miopenSetConvolutionGroupCount(o.conv, flags.get_int("group_count"));
    if (rc == miopenStatusSuccess)
      rc = miopenGetConvolutionForwardOutputDim(o.conv, x_desc, w_desc, &out_len[0], &out_len[1],
                                                &out_len[2], &out_len[3]);
    if (rc != miopenStatusSuccess) {
      std::cout << "Error setting up the convolution, status = " << rc << std::endl;
      return rc;
    }
  }
  miopenTensorDescriptor_t y_desc = o.tensor(type, out_len);
  miopenTensorDescriptor_t b_desc = o.tensor(type, {1, out_len[1], 1, 1});
  miopenTensorDescriptor_t bn_desc = nullptr;
  if (miopenCreateTensorDescriptor(&bn_desc) == miopenStatusSuccess) o.tensors.push_back(bn_desc);
  if (use_bn) miopenDeriveBNTensorDescriptor(bn_desc, y_desc, bn_mode);

  // MIOpen's data: the input, weights and bias |U(0, 1)|, scale, BN bias, running mean and
  // variance U(0, 1).
  HostTensor x = HostTensor::from_descriptor(x_desc), y = HostTensor::from_descriptor(y_desc);
  HostTensor w = HostTensor::from_descriptor(w_desc), b = HostTensor::from_descriptor(b_desc);
  x.fill_uniform(rng, 0.0, 1.0, 1.0);
  w.fill_uniform(rng, 0.0, 1.0, 1.0);
  b.fill_uniform(rng, 0.0, 1.0, 1.0);
  std::vector<HostTensor> bn(4);  // scale, bias, mean, variance
  if (use_bn)
    for (auto& t : bn) {
      t = HostTensor::from_descriptor(bn_desc);
      t.fill_uniform(rng, 0.0, 1.0, 1.0);
    }
  DeviceBuffer xd, yd, wd, bd;
  std::vector<DeviceBuffer> bnd(4);
  for (auto [dev, host] :
       {std::pair{&xd, &x}, std::pair{&yd, &y}, std::pair{&wd, &w}, std::pair{&bd, &b}}) {
    if ((rc = dev->mirror(memory, *host)) != miopenStatusSuccess) return rc;
    if ((rc = dev->upload()) != miopenStatusSuccess) return rc;
  }
  if (use_bn)
    for (size_t i = 0; i < 4; ++i) {
      if ((rc = bnd[i].mirror(memory, bn[i])) != miopenStatusSuccess) return rc;
      if ((rc = bnd[i].upload()) != miopenStatusSuccess) return rc;
    }

  // The plan, as MIOpen's driver builds it for the mode.
  const float one = 1.0f, zero = 0.0f;
  miopenFusionOpDescriptor_t cop = nullptr, bop = nullptr, nop = nullptr, aop = nullptr;
  rc = miopenCreateFusionPlan(&o.plan, miopenVerticalFusion, x_desc);
  if (rc == miopenStatusSuccess) rc = miopenCreateOperatorArgs(&o.args);
  if (rc == miopenStatusSuccess && use_conv)
    rc = miopenCreateOpConvForward(o.plan, &cop, o.conv, w_desc);
  if (rc == miopenStatusSuccess && use_bias) rc = miopenCreateOpBiasForward(o.plan, &bop, b_desc);
  if (rc == miopenStatusSuccess && use_bn)
    rc = miopenCreateOpBatchNormInference(o.plan, &nop, bn_mode, bn_desc);
  if (rc == miopenStatusSuccess && use_activ)
    rc = miopenCreateOpActivationForward(o.plan, &aop, activ.mode);
  if (rc == miopenStatusSuccess) rc = miopenCompileFusionPlan(o.handle, o.plan);
  if (rc != miopenStatusSuccess) {
    std::cerr << kModeNames[mode] << " plan not supported." << std::endl;
    return rc;
  }
  if (use_conv) miopenSetOpArgsConvForward(o.args, cop, &one, &zero, wd.data());
  if (use_bias) miopenSetOpArgsBiasForward(o.args, bop, &one, &zero, bd.data());
  if (use_bn)
    miopenSetOpArgsBatchNormInference(o.args, nop, &one, &zero, bnd[0].data(), bnd[1].data(),
                                      bnd[2].data(), bnd[3].data(), kEpsilon);
  if (use_activ)
    miopenSetOpArgsActivForward(o.args, aop, &one, &zero, activ.alpha, activ.beta, activ.gamma);

  std::cout << "Running fusion: " << kModeNames[mode] << std::endl;
  // The times are wall-clock around each run (the plan runs several kernels in sequence).
  double fulltime = 0.0, avgtime = 0.0, lowtime = std::numeric_limits<double>::max(), last = 0.0;
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    rc = miopenExecuteFusionPlan(o.handle, o.plan, x_desc, xd.data(), y_desc, yd.data(), o.args);
    if (rc == miopenStatusSuccess) rc = synchronize(memory);
    last = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != miopenStatusSuccess) {
      std::printf("RunForwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
      return rc;
    }
    lowtime = std::min(lowtime, last);
    if (iters > 1 && i > 0) {
      avgtime += last;
      fulltime += last;
    } else if (iters == 1) {
      fulltime = last;
    }
  }
  if (wall)
    std::printf("Wall-clock Time Elapsed: %f ms, for %d iterations.\n",
                iters == 1 ? last : fulltime / static_cast<double>(iters - 1),
                iters > 1 ? iters - 1 : 1);
  if (time) {
    std::printf("GPU Fused Kernel Min Time Elapsed: %f ms\n", lowtime);
    if (iters > 1)
      std::printf("GPU Fused Kernel Avg Time Elapsed: %f ms, for %d iterations.\n",
                  avgtime / (iters - 1), iters - 1);
  }
  if ((rc = yd.download()) != miopenStatusSuccess) return rc;
  if (flags.get_int("verify") == 0) return 0;

  // The CPU reference, step by step as MIOpen's RunForwardCPU.
  std::vector<double> v = ref::to_logical(x.view());
  std::vector<size_t> ylens(out_len.begin(), out_len.end());
  if (use_conv) {
    std::cout << "Running CPU fwd convolution." << std::endl;
    const ref::ConvParams p{pads, strides, dilations, flags.get_int("group_count")};
    v = ref::conv_forward(x.view(), w.view(), p, ylens);
  }
  if (use_bias) {
    const auto bv = ref::to_logical(b.view());
    const size_t plane = ylens[2] * ylens[3];
    for (size_t i = 0; i < v.size(); ++i)
      v[i] += bv[(i / plane) % ylens[1]];
  }
  if (use_bn) {
    std::cout << (bn_mode == miopenBNSpatial ? "Running CPU spatial BN."
                                             : "Running CPU per activation BN.")
              << std::endl;
    std::vector<size_t> packed{ylens[1] * ylens[2] * ylens[3], ylens[2] * ylens[3], ylens[3], 1};
    const ref::TensorView in{v.data(), miopenDouble, ylens, packed};
    v = ref::bn_forward_inference(in, bn_mode, ref::to_logical(bn[0].view()),
                                  ref::to_logical(bn[1].view()), ref::to_logical(bn[2].view()),
                                  ref::to_logical(bn[3].view()), kEpsilon);
  }
  if (use_activ) {
    std::cout << "Running CPU fwd activation." << std::endl;
    v = ref::activation_forward(activ, v);
  }
  const double allowed =
      80.0 * (type == miopenFloat ? std::numeric_limits<float>::epsilon() : 0.0009765625);
  // MIOpen's miopenInferVerify at the driver's allowance, over the largest reference magnitude.
  if (!(ref::max_relative_error(v, ref::to_logical(y.view())) <= allowed)) {
    std::cout << "Forward Activation FAILED" << std::endl;
    return kExitVerifyFailed;
  }
  std::cout << "Forward Activation Verifies on CPU and GPU" << std::endl;
  return 0;
}

}  // namespace anydnn::driver
