#include "conv_driver.hpp"

#include <miopen/anydnn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <utility>

#include "conv_driver_text.hpp"
#include "conv_reference.hpp"
#if ANYDNN_DRIVER_CUDA
#include "conv_reference_gpu.hpp"
#endif
#include "verify.hpp"

namespace anydnn::driver {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

ConvDriver::ConvDriver(std::string base, miopenDataType_t type)
    : base_(std::move(base)), type_(type) {
  add_flags();
  miopenCreateTensorDescriptor(&x_desc_);
  miopenCreateTensorDescriptor(&w_desc_);
  miopenCreateTensorDescriptor(&y_desc_);
  miopenCreateTensorDescriptor(&b_desc_);
  miopenCreateConvolutionDescriptor(&conv_desc_);
}

ConvDriver::~ConvDriver() {
  miopenDestroyTensorDescriptor(x_desc_);
  miopenDestroyTensorDescriptor(w_desc_);
  miopenDestroyTensorDescriptor(y_desc_);
  miopenDestroyTensorDescriptor(b_desc_);
  miopenDestroyConvolutionDescriptor(conv_desc_);
  if (handle_ != nullptr) miopenDestroy(handle_);
}

void ConvDriver::add_flags() {
  add_conv_flags(flags_);
}

std::optional<std::string> ConvDriver::check_flags() {
  spec_.base = base_;
  spec_.type = type_;
  if (auto err = conv_spec_from_flags(flags_, spec_)) return err;
  transpose_ = spec_.transpose;
  iterations_ = flags_.get_int("iter");
  if (iterations_ < 1) return "Fatal: Number of iterations must be > 0";
  find2_ = flags_.get_int("find2");
  if (find2_ < 0 || find2_ > 2) return "--find2 must be 0, 1 or 2";
  if (!flags_.get_str("verification_cache").empty()) return "--verification_cache is not supported";
  time_ = flags_.get_int("time") != 0;
  if (flags_.get_int("wall") >= 1) {
    if (time_) {
      wall_ = true;
    } else {
      std::cout << "Info: '--wall " << flags_.get_int("wall")
                << "' is ignored because '--time' is not set" << std::endl;
    }
  }
  return std::nullopt;
}

miopenStatus_t ConvDriver::set_descriptors() {
  const ConvSpec& sp = spec_;
  const int dims = sp.spatial_dims;
  miopenStatus_t rc =
      miopenSetNdTensorDescriptorWithLayout(x_desc_, type_, *layout_enum(sp.in_layout),
                                            sp.in_lens.data(), static_cast<int>(sp.in_lens.size()));
  if (rc == miopenStatusSuccess)
    rc = miopenSetNdTensorDescriptorWithLayout(w_desc_, type_, *layout_enum(sp.fil_layout),
                                               sp.wei_lens.data(),
                                               static_cast<int>(sp.wei_lens.size()));
  if (rc == miopenStatusSuccess)
    rc = miopenInitConvolutionNdDescriptor(conv_desc_, dims, sp.pads.data(), sp.strides.data(),
                                           sp.dilations.data(),
                                           sp.transpose ? miopenTranspose : miopenConvolution);
  if (rc == miopenStatusSuccess) rc = miopenSetConvolutionGroupCount(conv_desc_, sp.groups);
  if (rc == miopenStatusSuccess && sp.transpose)
    rc = miopenSetTransposeConvNdOutputPadding(conv_desc_, dims, sp.trans_output_pads.data());
  std::vector<int> out_lens(static_cast<size_t>(dims + 2));
  int out_dims = 0;
  if (rc == miopenStatusSuccess)
    rc = miopenGetConvolutionNdForwardOutputDim(conv_desc_, x_desc_, w_desc_, &out_dims,
                                                out_lens.data());
  if (rc == miopenStatusSuccess)
    rc = miopenSetNdTensorDescriptorWithLayout(
        y_desc_, sp.output_type(), *layout_enum(sp.out_layout), out_lens.data(), out_dims);
  if (rc == miopenStatusSuccess && flags_.get_int("bias") != 0) {
    std::vector<int> bias_lens(static_cast<size_t>(dims + 2), 1);
    bias_lens[1] = flags_.get_int("out_channels");
    rc = miopenSetTensorDescriptor(b_desc_, type_, dims + 2, bias_lens.data(), nullptr);
  }
  return rc;
}

std::optional<std::string> ConvDriver::init_data() {
  const bool fwd = spec_.forward(), bwd = spec_.backward_data(), wrw = spec_.backward_weights();
  // Independent streams per tensor keep each tensor's data the same whatever -F selects.
  const unsigned seed = static_cast<unsigned>(rng_());
  std::mt19937 x_rng(seed + 1), w_rng(seed + 2), dy_rng(seed + 3), b_rng(seed + 4);
  // MIOpen's distributions: 0.01 * U(0, 1) data, 0.01 * U(-0.5, 0.5) weights (fp16 weights
  // U(-1/3, 0.5) so that Winograd-like algorithms stay accurate); int8: 127 * U(0, 1) data and
  // 127 * U(-1, 1) weights.
  const bool int8 = type_ == miopenInt8;
  const double scale = int8 ? 127.0 : 0.01;
  const double wlo = type_ == miopenHalf ? -1.0 / 3.0 : -0.5;
  const double wscale = int8 ? 2 * 127.0 : 0.01;
  const auto load = [&](HostTensor& t, const char* flag, std::mt19937& rng, double lo, double hi,
                        double scale) -> std::optional<std::string> {
    const std::string& file = flags_.get_str(flag);
    if (!file.empty()) {
      if (!t.read_file(file))
        return "cannot read " + std::to_string(t.bytes.size()) + " bytes from " + file;
      std::cout << "Read data from input file " << file << std::endl;
      return std::nullopt;
    }
    t.fill_uniform(rng, lo, hi, scale);
    return std::nullopt;
  };
  // The driver's tensors are the user's: x is the input of the forward call, y its output.
  if (fwd || wrw) {
    x_ = HostTensor::from_descriptor(x_desc_);
    if (auto e = load(x_, "in_data", x_rng, 0.0, 1.0, scale)) return e;
  }
  if (fwd || bwd) {
    w_ = HostTensor::from_descriptor(w_desc_);
    if (auto e = load(w_, "weights", w_rng, wlo, 0.5, wscale)) return e;
  }
  if (bwd || wrw) {
    dy_ = HostTensor::from_descriptor(y_desc_);
    if (auto e = load(dy_, "dout_data", dy_rng, 0.0, 1.0, scale)) return e;
  }
  if (fwd) y_ = HostTensor::from_descriptor(y_desc_);
  if (bwd) dx_ = HostTensor::from_descriptor(x_desc_);
  if (wrw) dw_ = HostTensor::from_descriptor(w_desc_);
  if (flags_.get_int("bias") != 0) {
    b_ = HostTensor::from_descriptor(b_desc_);
    db_ = HostTensor::from_descriptor(b_desc_);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (size_t i = 0; i < b_.elements(); ++i)
      b_.set(i, static_cast<double>(i % 8) + u(b_rng));
    if (const auto& file = flags_.get_str("in_bias"); !file.empty() && !b_.read_file(file))
      return "cannot read bias from " + file;
  }
  if (flags_.get_int("dump_output") != 0) {
    if (fwd || wrw) x_.write_file("dump_in.bin");
    if (fwd || bwd) w_.write_file("dump_wei.bin");
    if (bwd || wrw) dy_.write_file("dump_dout.bin");
  }
  return std::nullopt;
}

DeviceBuffer& ConvDriver::device_output_of(Dir d) {
  switch (d) {
    case Dir::Fwd:
      return y_dev_;
    case Dir::Bwd:
      return dx_dev_;
    case Dir::Wrw:
      return dw_dev_;
  }
  return y_dev_;
}

miopenStatus_t ConvDriver::init_device() {
  // Every tensor, also the outputs: on the device they start as the host copies do. Tensors the
  // directions do not use are empty and get null pointers, as before.
  const std::pair<DeviceBuffer*, HostTensor*> all[] = {
      {&x_dev_, &x_},   {&w_dev_, &w_},   {&y_dev_, &y_}, {&dx_dev_, &dx_},
      {&dw_dev_, &dw_}, {&dy_dev_, &dy_}, {&b_dev_, &b_}, {&db_dev_, &db_}};
  for (const auto& [dev, host] : all) {
    miopenStatus_t rc = dev->mirror(memory_, *host);
    if (rc == miopenStatusSuccess) rc = dev->upload();
    if (rc != miopenStatusSuccess) return rc;
  }
  return miopenStatusSuccess;
}

HostTensor& ConvDriver::output_of(Dir d) {
  switch (d) {
    case Dir::Fwd:
      return y_;
    case Dir::Bwd:
      return dx_;
    case Dir::Wrw:
      return dw_;
  }
  return y_;
}

miopenStatus_t ConvDriver::call_workspace_size(Dir d, size_t* bytes) {
  switch (d) {
    case Dir::Fwd:
      return miopenConvolutionForwardGetWorkSpaceSize(handle_, w_desc_, x_desc_, conv_desc_,
                                                      y_desc_, bytes);
    case Dir::Bwd:
      return miopenConvolutionBackwardDataGetWorkSpaceSize(handle_, y_desc_, w_desc_, conv_desc_,
                                                           x_desc_, bytes);
    case Dir::Wrw:
      return miopenConvolutionBackwardWeightsGetWorkSpaceSize(handle_, y_desc_, x_desc_, conv_desc_,
                                                              w_desc_, bytes);
  }
  return miopenStatusInternalError;
}

miopenStatus_t ConvDriver::call_run(Dir d, int algo, void* ws, size_t ws_size) {
  const float alpha = 1.0f, beta = 0.0f;
  switch (d) {
    case Dir::Fwd:
      return miopenConvolutionForward(
          handle_, &alpha, x_desc_, x_dev_.data(), w_desc_, w_dev_.data(), conv_desc_,
          static_cast<miopenConvFwdAlgorithm_t>(algo), &beta, y_desc_, y_dev_.data(), ws, ws_size);
    case Dir::Bwd:
      return miopenConvolutionBackwardData(handle_, &alpha, y_desc_, dy_dev_.data(), w_desc_,
                                           w_dev_.data(), conv_desc_,
                                           static_cast<miopenConvBwdDataAlgorithm_t>(algo), &beta,
                                           x_desc_, dx_dev_.data(), ws, ws_size);
    case Dir::Wrw:
      return miopenConvolutionBackwardWeights(handle_, &alpha, y_desc_, dy_dev_.data(), x_desc_,
                                              x_dev_.data(), conv_desc_,
                                              static_cast<miopenConvBwdWeightsAlgorithm_t>(algo),
                                              &beta, w_desc_, dw_dev_.data(), ws, ws_size);
  }
  return miopenStatusInternalError;
}

miopenStatus_t ConvDriver::call_immediate(Dir d, uint64_t id, void* ws, size_t ws_size) {
  switch (d) {
    case Dir::Fwd:
      return miopenConvolutionForwardImmediate(handle_, w_desc_, w_dev_.data(), x_desc_,
                                               x_dev_.data(), conv_desc_, y_desc_, y_dev_.data(),
                                               ws, ws_size, id);
    case Dir::Bwd:
      return miopenConvolutionBackwardDataImmediate(handle_, y_desc_, dy_dev_.data(), w_desc_,
                                                    w_dev_.data(), conv_desc_, x_desc_,
                                                    dx_dev_.data(), ws, ws_size, id);
    case Dir::Wrw:
      return miopenConvolutionBackwardWeightsImmediate(handle_, y_desc_, dy_dev_.data(), x_desc_,
                                                       x_dev_.data(), conv_desc_, w_desc_,
                                                       dw_dev_.data(), ws, ws_size, id);
  }
  return miopenStatusInternalError;
}

std::string ConvDriver::solver_name(uint64_t id) const {
  const char* name = nullptr;
  if (id == 0 || anydnnGetConvSolverName(handle_, id, &name) != miopenStatusSuccess)
    return "UNKNOWN";
  return name;
}

miopenConvSolution_t ConvDriver::solution_after_find(Dir d, int algo) {
  // Find stored its timings; immediate mode now lists the chosen solver first.
  miopenConvSolution_t s{};
  size_t count = 0;
  miopenStatus_t rc = miopenStatusSuccess;
  switch (d) {
    case Dir::Fwd:
      rc = miopenConvolutionForwardGetSolution(handle_, w_desc_, x_desc_, conv_desc_, y_desc_, 1,
                                               &count, &s);
      break;
    case Dir::Bwd:
      rc = miopenConvolutionBackwardDataGetSolution(handle_, y_desc_, w_desc_, conv_desc_, x_desc_,
                                                    1, &count, &s);
      break;
    case Dir::Wrw:
      rc = miopenConvolutionBackwardWeightsGetSolution(handle_, y_desc_, x_desc_, conv_desc_,
                                                       w_desc_, 1, &count, &s);
      break;
  }
  if (rc != miopenStatusSuccess || count < 1 || static_cast<int>(s.algorithm) != algo ||
      s.time < 0) {
    s.solution_id = 0;
    s.algorithm = static_cast<miopenConvAlgorithm_t>(algo);
  }
  return s;
}

void ConvDriver::print_time(Dir d, float total_ms, float first_ms) const {
  const auto& t = kText[static_cast<int>(d)];
  const float avg =
      iterations_ > 1 ? (total_ms - first_ms) / static_cast<float>(iterations_ - 1) : first_ms;
  std::printf("GPU Kernel Time %s Elapsed: %f ms (average)\n", t.time_label, avg);
  const int dims = spec_.spatial_dims;
  const int groups = spec_.groups;
  // The tensors as MIOpenDriver names them: input = x, weights, output = y.
  const auto& in = (d == Dir::Fwd || d == Dir::Wrw) ? x_.lens : dx_.lens;
  const auto& wei = d == Dir::Wrw ? dw_.lens : w_.lens;
  const auto& out = d == Dir::Fwd ? y_.lens : dy_.lens;
  const size_t esize = type_ == miopenFloat ? 4 : type_ == miopenInt8 ? 1 : 2;
  const size_t out_esize = d == Dir::Fwd && type_ == miopenInt8 ? 4 : esize;
  auto prod = [](const std::vector<size_t>& v) {
    size_t p = 1;
    for (size_t x : v)
      p *= x;
    return p;
  };
  const size_t sp = dims == 2 ? 2 : 3;  // first spatial index of the last two (h, w)
  const size_t in_c = in[1], out_c = out[1];
  double flops = 2.0 * static_cast<double>(in[0]) * static_cast<double>(in_c) *
                 static_cast<double>(out_c) / groups;
  for (size_t i = 2; i < wei.size(); ++i)
    flops *= static_cast<double>(wei[i]) * static_cast<double>(out[i]);
  // Bytes moved: the two read tensors and the written one.
  const size_t in_b = prod(in) * esize, wei_b = prod(wei) * esize, out_b = prod(out) * out_esize;
  size_t rd = 0, wr = 0;
  switch (d) {
    case Dir::Fwd:
      rd = in_b + wei_b, wr = out_b;
      break;
    case Dir::Bwd:
      rd = out_b + wei_b, wr = in_b;
      break;
    case Dir::Wrw:
      rd = in_b + out_b, wr = wei_b;
      break;
  }
  const unsigned long flop_count = static_cast<unsigned long>(flops);
  const double gflops = flops / avg / 1e6, gbs = static_cast<double>(rd + wr) / avg / 1e6;
  const unsigned stride0 =
      static_cast<unsigned>(flags_.get_int(dims == 2 ? "conv_stride_h" : "conv_stride_d"));
  const auto u = [](size_t v) { return static_cast<unsigned>(v); };
  if (dims == 2) {
    const unsigned fy = u(wei[sp]), fx = u(wei[sp + 1]);
    std::printf(
        "stats: name, n, c, ho, wo, x, y, k, flopCnt, bytesRead, bytesWritten, GFLOPs, GB/s, "
        "timeMs\n");
    // Field order per direction follows MIOpenDriver so existing parsers read the same columns.
    if (d == Dir::Bwd) {
      std::printf("stats: %s%ux%uu%u, %u, %u, %u, %u, %u, %u, %u,  %lu, %zu, %zu, %.0f, %.0f, %f\n",
                  t.stats_prefix, fy, fx, stride0, u(in[0]), u(in_c), fy, fx, u(out_c), u(out[sp]),
                  u(out[sp + 1]), flop_count, rd, wr, gflops, gbs, avg);
    } else {
      std::printf("stats: %s%ux%uu%u, %u, %u, %u, %u, %u, %u, %u,  %lu, %zu, %zu, %.0f, %.0f, %f\n",
                  t.stats_prefix, fy, fx, stride0, u(in[0]), u(in_c), u(out[sp]), u(out[sp + 1]),
                  fy, fx, u(out_c), flop_count, rd, wr, gflops, gbs, avg);
    }
  } else {
    const unsigned fz = u(wei[2]), fy = u(wei[3]), fx = u(wei[4]);
    std::printf(
        "stats: name  , n, c, do, ho, wo, z, y, x, k, flopCnt, bytesRead, bytesWritten, GFLOPs, "
        "GB/s, timeMs\n");
    std::printf(
        "stats: %s%ux%ux%uu%u, %u, %u, %u, %u, %u, %u, %u, %u, %u,  %lu, %zu, %zu, %.0f, %.0f, "
        "%f\n",
        t.stats_prefix, fz, fy, fx, stride0, u(in[0]), u(in_c), u(out[2]), u(out[3]), u(out[4]), fz,
        fy, fx, u(out_c), flop_count, rd, wr, gflops, gbs, avg);
  }
}

miopenStatus_t ConvDriver::run_find(Dir d) {
  const auto aux_start = Clock::now();
  size_t ws_size = 0;
  miopenStatus_t rc = call_workspace_size(d, &ws_size);
  aux_gwss_ms_ = ms_since(aux_start);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error getting workspace size, status = " << rc << std::endl;
    return rc;
  }
  if ((rc = workspace_.scratch(memory_, ws_size)) != miopenStatusSuccess) return rc;
  void* ws = workspace_.data();
  const bool search = flags_.get_int("search") == 1;
  constexpr int kRequest = 2;
  miopenConvAlgoPerf_t perf[kRequest] = {};
  int found = 0;
  switch (d) {
    case Dir::Fwd:
      rc = miopenFindConvolutionForwardAlgorithm(handle_, x_desc_, x_dev_.data(), w_desc_,
                                                 w_dev_.data(), conv_desc_, y_desc_, y_dev_.data(),
                                                 kRequest, &found, perf, ws, ws_size, search);
      break;
    case Dir::Bwd:
      rc = miopenFindConvolutionBackwardDataAlgorithm(
          handle_, y_desc_, dy_dev_.data(), w_desc_, w_dev_.data(), conv_desc_, x_desc_,
          dx_dev_.data(), kRequest, &found, perf, ws, ws_size, search);
      break;
    case Dir::Wrw:
      rc = miopenFindConvolutionBackwardWeightsAlgorithm(
          handle_, y_desc_, dy_dev_.data(), x_desc_, x_dev_.data(), conv_desc_, w_desc_,
          dw_dev_.data(), kRequest, &found, perf, ws, ws_size, search);
      break;
  }
  aux_ms_ = ms_since(aux_start);
  if (rc != miopenStatusSuccess) return rc;
  if (found == 0) {
    std::cout << "Find " << kText[static_cast<int>(d)].time_label << " ret_algo_count == 0"
              << std::endl;
    return miopenStatusUnknownError;
  }
  // Both algorithm members of the union hold the same number.
  const int algo = static_cast<int>(perf[0].fwd_algo);
  chosen_algo_[static_cast<int>(d)] = algo;
  // What is verified must come from the run calls, not from Find.
  if ((rc = device_output_of(d).poison()) != miopenStatusSuccess) return rc;

  float total = 0.0f, first = 0.0f;
  const auto wall_start = Clock::now();
  for (int i = 0; i < iterations_; ++i) {
    rc = call_run(d, algo, ws, perf[0].memory);
    if (rc != miopenStatusSuccess) return rc;
    if (time_) {
      float ms = 0.0f;
      miopenGetKernelTime(handle_, &ms);
      total += ms;
      if (i == 0) first = ms;
    }
  }
  // The wall clock measures the work, not its queueing.
  if (wall_ && (rc = synchronize(memory_)) != miopenStatusSuccess) return rc;
  const auto& t = kText[static_cast<int>(d)];
  if (wall_) {
    std::cout << "Wall-clock Time " << t.time_label
              << " Elapsed: " << ms_since(wall_start) / iterations_
              << " ms, Auxiliary API calls: " << aux_ms_ << " ms (GWSS: " << aux_gwss_ms_ << ')'
              << std::endl;
  }
  if (time_) {
    const miopenConvSolution_t s = solution_after_find(d, algo);
    std::cout << "MIOpen " << t.time_label << " Algorithm: " << algo
              << ", Solution: " << s.solution_id << '/' << solver_name(s.solution_id) << std::endl;
    print_time(d, total, first);
  }
  return miopenStatusSuccess;
}

miopenStatus_t ConvDriver::run_immediate(Dir d) {
  const auto& t = kText[static_cast<int>(d)];
  size_t count = 0;
  miopenStatus_t rc = miopenStatusSuccess;
  switch (d) {
    case Dir::Fwd:
      rc = miopenConvolutionForwardGetSolutionCount(handle_, w_desc_, x_desc_, conv_desc_, y_desc_,
                                                    &count);
      break;
    case Dir::Bwd:
      rc = miopenConvolutionBackwardDataGetSolutionCount(handle_, y_desc_, w_desc_, conv_desc_,
                                                         x_desc_, &count);
      break;
    case Dir::Wrw:
      rc = miopenConvolutionBackwardWeightsGetSolutionCount(handle_, y_desc_, x_desc_, conv_desc_,
                                                            w_desc_, &count);
      break;
  }
  if (rc != miopenStatusSuccess) return rc;
  if (count < 1) return miopenStatusNotImplemented;
  std::vector<miopenConvSolution_t> sols(count);
  switch (d) {
    case Dir::Fwd:
      rc = miopenConvolutionForwardGetSolution(handle_, w_desc_, x_desc_, conv_desc_, y_desc_,
                                               count, &count, sols.data());
      break;
    case Dir::Bwd:
      rc = miopenConvolutionBackwardDataGetSolution(handle_, y_desc_, w_desc_, conv_desc_, x_desc_,
                                                    count, &count, sols.data());
      break;
    case Dir::Wrw:
      rc = miopenConvolutionBackwardWeightsGetSolution(handle_, y_desc_, x_desc_, conv_desc_,
                                                       w_desc_, count, &count, sols.data());
      break;
  }
  if (rc != miopenStatusSuccess) return rc;
  sols.resize(count);
  std::cout << t.solutions << " solutions available: " << count << std::endl;
  for (const auto& s : sols) {
    std::cout << "- id: " << s.solution_id << " algo: " << s.algorithm << ", time: " << s.time
              << " ms, ws: " << s.workspace_size << ", name: " << solver_name(s.solution_id)
              << std::endl;
  }
  miopenConvSolution_t selected{-1.0f, 0, *immediate_solution_,
                                static_cast<miopenConvAlgorithm_t>(-1)};
  if (*immediate_solution_ == 0) {
    selected = sols.front();
  } else {
    const auto it = std::find_if(sols.begin(), sols.end(), [&](const auto& s) {
      return s.solution_id == *immediate_solution_;
    });
    if (it != sols.end()) {
      selected = *it;
    } else {
      std::cout << "Warning: Solution id (" << *immediate_solution_
                << ") is not reported by the library. Trying it anyway..." << std::endl;
    }
  }
  size_t ws_size = 0;
  switch (d) {
    case Dir::Fwd:
      rc = miopenConvolutionForwardGetSolutionWorkspaceSize(
          handle_, w_desc_, x_desc_, conv_desc_, y_desc_, selected.solution_id, &ws_size);
      if (rc == miopenStatusSuccess)
        rc = miopenConvolutionForwardCompileSolution(handle_, w_desc_, x_desc_, conv_desc_, y_desc_,
                                                     selected.solution_id);
      break;
    case Dir::Bwd:
      rc = miopenConvolutionBackwardDataGetSolutionWorkspaceSize(
          handle_, y_desc_, w_desc_, conv_desc_, x_desc_, selected.solution_id, &ws_size);
      if (rc == miopenStatusSuccess)
        rc = miopenConvolutionBackwardDataCompileSolution(handle_, y_desc_, w_desc_, conv_desc_,
                                                          x_desc_, selected.solution_id);
      break;
    case Dir::Wrw:
      rc = miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize(
          handle_, y_desc_, x_desc_, conv_desc_, w_desc_, selected.solution_id, &ws_size);
      if (rc == miopenStatusSuccess)
        rc = miopenConvolutionBackwardWeightsCompileSolution(handle_, y_desc_, x_desc_, conv_desc_,
                                                             w_desc_, selected.solution_id);
      break;
  }
  if (rc != miopenStatusSuccess) return rc;
  if ((rc = workspace_.scratch(memory_, ws_size)) != miopenStatusSuccess) return rc;
  void* ws = workspace_.data();
  chosen_algo_[static_cast<int>(d)] = static_cast<int>(selected.algorithm);
  if ((rc = device_output_of(d).poison()) != miopenStatusSuccess) return rc;
  float total = 0.0f, first = 0.0f;
  auto wall_start = Clock::now();
  for (int i = 0; i < iterations_; ++i) {
    rc = call_immediate(d, selected.solution_id, ws, ws_size);
    if (rc != miopenStatusSuccess) return rc;
    if (time_) {
      float ms = 0.0f;
      miopenGetKernelTime(handle_, &ms);
      total += ms;
      if (i == 0) {
        first = ms;
        if (iterations_ > 1) {  // the first run is warm-up
          if (wall_ && (rc = synchronize(memory_)) != miopenStatusSuccess) return rc;
          wall_start = Clock::now();
        }
      }
    }
  }
  if (wall_ && (rc = synchronize(memory_)) != miopenStatusSuccess) return rc;
  if (wall_) {
    std::cout << "Wall-clock Time " << t.time_label
              << " Elapsed: " << ms_since(wall_start) / std::max(iterations_ - 1, 1)
              << " ms, Auxiliary API calls: 0 ms (GWSS: 0)" << std::endl;
  }
  if (time_) {
    std::cout << "MIOpen " << t.time_label << " Algorithm: " << selected.algorithm
              << ", Solution: " << selected.solution_id << '/' << solver_name(selected.solution_id)
              << std::endl;
    print_time(d, total, first);
  }
  return miopenStatusSuccess;
}

miopenStatus_t ConvDriver::run_direction(Dir d) {
  if (find2_ != 0) return run_find2(d);  // conv_find2.cpp
  return immediate_solution_ ? run_immediate(d) : run_find(d);
}

miopenStatus_t ConvDriver::run_bias(bool forward) {
  const float alpha = 1.0f, beta = 0.0f;
  const miopenStatus_t rc =
      forward ? miopenConvolutionForwardBias(handle_, &alpha, b_desc_, b_dev_.data(), &beta,
                                             y_desc_, y_dev_.data())
              : miopenConvolutionBackwardBias(handle_, &alpha, y_desc_, dy_dev_.data(), &beta,
                                              b_desc_, db_dev_.data());
  if (rc == miopenStatusSuccess && time_) {
    float ms = 0.0f;
    miopenGetKernelTime(handle_, &ms);
    std::printf(forward ? "GPU Kernel Time Forward Conv. Bias Elapsed: %f ms\n"
                        : "GPU Kernel Time Backward Bias Conv. Elapsed: %f ms\n",
                ms);
  }
  return rc;
}

// The reference result of direction d: on the GPU when the tensors live there and
// MIOPEN_DRIVER_USE_GPU_REFERENCE is not 0 (MIOpen's driver default), else on the CPU. A GPU
// reference that fails (out of memory, say) falls back to the CPU one with a note.
std::vector<double> ConvDriver::reference(Dir d, bool& on_gpu) {
  const ref::ConvParams p{spec_.pads, spec_.strides, spec_.dilations, spec_.groups};
  // A transposed convolution's forward is the plain convolution's backward data, and so on.
  const auto compute = [&](auto fwd, auto bwd, auto wrw, const ref::TensorView& x,
                           const ref::TensorView& w, const ref::TensorView& dy) {
    switch (d) {
      case Dir::Fwd:
        return transpose_ ? bwd(x, w, p, y_.lens) : fwd(x, w, p, y_.lens);
      case Dir::Bwd:
        return transpose_ ? fwd(dy, w, p, dx_.lens) : bwd(dy, w, p, dx_.lens);
      case Dir::Wrw:
        break;
    }
    return transpose_ ? wrw(dy, x, p, dw_.lens) : wrw(x, dy, p, dw_.lens);
  };
  on_gpu = false;
#if ANYDNN_DRIVER_CUDA
  const char* env = std::getenv("MIOPEN_DRIVER_USE_GPU_REFERENCE");
  if (memory_ == Memory::Cuda && !(env != nullptr && std::string(env) == "0")) {
    try {
      const auto on_device = [](const HostTensor& h, const DeviceBuffer& b) {
        ref::TensorView v = h.view();
        v.data = b.data();
        return v;
      };
      auto r = compute(ref::gpu::conv_forward, ref::gpu::conv_backward_data,
                       ref::gpu::conv_backward_weights, on_device(x_, x_dev_),
                       on_device(w_, w_dev_), on_device(dy_, dy_dev_));
      on_gpu = true;
      return r;
    } catch (const std::exception& e) {
      std::cout << "GPU reference unavailable (" << e.what() << "), using the CPU reference"
                << std::endl;
    }
  }
#endif
  return compute(ref::conv_forward, ref::conv_backward_data, ref::conv_backward_weights, x_.view(),
                 w_.view(), dy_.view());
}

bool ConvDriver::verify(Dir d) {
  bool on_gpu = false;
  std::vector<double> expected = reference(d, on_gpu);
  HostTensor& out = output_of(d);
  switch (d) {
    case Dir::Fwd:
      if (flags_.get_int("bias") != 0) {
        const size_t k = y_.lens[1], inner = expected.size() / (y_.lens[0] * k);
        for (size_t i = 0; i < expected.size(); ++i)
          expected[i] += b_.get((i / inner) % k);
      }
      break;
    case Dir::Bwd:
    case Dir::Wrw:
      break;
  }
  const double err = ref::rms_range(expected, ref::to_logical(out.view()));
  double tol = ref::conv_default_tolerance(type_);
  const int algo = chosen_algo_[static_cast<int>(d)];
  const bool fp32 = type_ == miopenFloat;
  if (d == Dir::Wrw) {
    tol *= 2.0;  // more roundings in a weight gradient
    if (fp32 && transpose_) tol *= 2.0;
    if (fp32 && algo == miopenConvolutionAlgoWinograd) tol *= 10.0;
    if (algo == miopenConvolutionAlgoImplicitGEMM) tol = fp32 ? 0.01 : tol * 5.0;
  } else if (algo == miopenConvolutionAlgoImplicitGEMM) {
    tol *= 10.0;
  }
  const auto& t = kText[static_cast<int>(d)];
  if (!std::isfinite(err) || err > tol) {
    std::cout << t.verify_label << " FAILED: " << err << " > " << tol << std::endl;
    return false;
  }
  std::cout << t.verify_label << " Verifies OK on " << (on_gpu ? "GPU" : "CPU") << " reference ("
            << err << " < " << tol << ')' << std::endl;
  return true;
}

bool ConvDriver::verify_bias() {
  const double err = ref::rms_range(ref::bias_backward(dy_.view()), ref::to_logical(db_.view()));
  const double tol = ref::conv_default_tolerance(type_);
  if (!std::isfinite(err) || err > tol) {
    std::cout << "Backward Convolution Bias FAILED: " << err << " > " << tol << std::endl;
    return false;
  }
  std::cout << "Backward Convolution Bias Verifies OK on CPU reference (" << err << ')'
            << std::endl;
  return true;
}

int ConvDriver::run(int argc, const char* const* argv) {
  if (const auto err = flags_.parse(argc, argv, 2)) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if (flags_.help_requested()) {
    flags_.print_usage(std::cout, base_);
    return 0;
  }
  if (const auto err = check_flags()) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  // -S: a number, or a solver name; anything else (and negative numbers) means Find.
  const std::string sol = flags_.get_str("solution");

  unsigned seed = 12345678;
  if (const char* s = std::getenv("MIOPEN_DEBUG_DRIVER_PRNG_SEED"))
    seed = static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  std::cout << "PRNG seed: " << seed << std::endl;
  rng_.seed(seed);

  miopenStatus_t rc = miopenCreate(&handle_);
  if (rc != miopenStatusSuccess) {
    std::cout << "Error creating a handle, status = " << rc << std::endl;
    return rc;
  }
  if ((rc = memory_of(handle_, memory_)) != miopenStatusSuccess) return rc;
  if (time_) miopenEnableProfiling(handle_, true);

  if (!sol.empty()) {
    char* end = nullptr;
    const long v = std::strtol(sol.c_str(), &end, 10);
    if (*end == '\0') {
      if (v >= 0) immediate_solution_ = static_cast<uint64_t>(v);
    } else {
      uint64_t id = 0;
      if (anydnnGetConvSolverId(handle_, sol.c_str(), &id) == miopenStatusSuccess)
        immediate_solution_ = id;
    }
  }

  rc = set_descriptors();
  if (rc != miopenStatusSuccess) {
    std::cout << "Error setting up the convolution descriptors, status = " << rc << std::endl;
    return rc;
  }
  if (const auto err = init_data()) {
    std::cerr << "MIOpenDriver " << base_ << ": " << *err << std::endl;
    return kExitUsage;
  }
  if ((rc = init_device()) != miopenStatusSuccess) return rc;

  const bool fwd = spec_.forward(), bwd = spec_.backward_data(), wrw = spec_.backward_weights();
  const bool verify_on = flags_.get_int("verify") != 0;
  const bool bias = flags_.get_int("bias") != 0;
  bool ok = true;

  if (fwd) {
    rc = run_direction(Dir::Fwd);
    if (rc == miopenStatusSuccess && bias) rc = run_bias(true);
    if (rc != miopenStatusSuccess) {
      std::printf("RunForwardGPU() FAILED, rc = 0x%x\n", static_cast<unsigned>(rc));
      return rc;
    }
    if ((rc = y_dev_.download()) != miopenStatusSuccess) return rc;
    if (flags_.get_int("dump_output") != 0) y_.write_file("dump_fwd_out_gpu.bin");
    if (verify_on) ok = verify(Dir::Fwd) && ok;
  }
  if ((bwd || wrw) && type_ == miopenInt8) {
    std::cout << "Int8 Backward Convolution is not supported" << std::endl;  // as MIOpenDriver
  } else if (bwd || wrw) {
    unsigned combined = 0;
    miopenStatus_t first_error = miopenStatusSuccess;
    if (bwd) {
      const auto r = run_direction(Dir::Bwd);
      combined |= static_cast<unsigned>(r);
      if (r != miopenStatusSuccess) first_error = r;
    }
    if (wrw) {
      const auto r = run_direction(Dir::Wrw);
      combined |= static_cast<unsigned>(r) << 16;  // MIOpen tells the two apart this way
      if (r != miopenStatusSuccess && first_error == miopenStatusSuccess) first_error = r;
    }
    if (first_error == miopenStatusSuccess && bias) first_error = run_bias(false);
    if (first_error != miopenStatusSuccess) {
      std::printf("RunBackwardGPU() FAILED, rc = 0x%x\n",
                  combined != 0 ? combined : static_cast<unsigned>(first_error));
      return first_error;
    }
    for (DeviceBuffer* out : {&dx_dev_, &dw_dev_, &db_dev_})
      if ((rc = out->download()) != miopenStatusSuccess) return rc;
    if (flags_.get_int("dump_output") != 0) {
      if (bwd) dx_.write_file("dump_bwd_din_gpu.bin");
      if (wrw) dw_.write_file("dump_bwd_dwei_gpu.bin");
    }
    if (verify_on) {
      if (bwd) ok = verify(Dir::Bwd) && ok;
      if (wrw) ok = verify(Dir::Wrw) && ok;
      if (bias) ok = verify_bias() && ok;
    }
  }
  return ok ? 0 : kExitVerifyFailed;
}

}  // namespace anydnn::driver
