// MIOpenDriver conv / convfp16 / convbfp16: MIOpen's flags, defaults and output lines
// (shared/reference/miopen.md §c), run through the public C API and verified against the
// double-accumulating reference.
#pragma once

#include <miopen/miopen.h>

#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "conv_spec.hpp"
#include "device_buffer.hpp"
#include "host_buffer.hpp"
#include "input_flags.hpp"

namespace anydnn::driver {

// Exit codes: 0 success; 1..10 the miopenStatus_t of the first failing library call;
// kExitVerifyFailed when a result does not match the reference; kExitUsage for bad flags.
constexpr int kExitVerifyFailed = 64;
constexpr int kExitUsage = 100;

class ConvDriver {
 public:
  ConvDriver(std::string base, miopenDataType_t type);
  ~ConvDriver();
  ConvDriver(const ConvDriver&) = delete;
  ConvDriver& operator=(const ConvDriver&) = delete;

  int run(int argc, const char* const* argv);

 private:
  enum class Dir { Fwd = 0, Bwd = 1, Wrw = 2 };

  void add_flags();
  std::optional<std::string> check_flags();
  miopenStatus_t set_descriptors();
  std::optional<std::string> init_data();
  miopenStatus_t init_device();

  miopenStatus_t run_direction(Dir d);
  miopenStatus_t run_find(Dir d);
  miopenStatus_t run_immediate(Dir d);
  // --find2 1 / 2: miopenFindSolutions, then runs the fastest solution (or solver -S), with 2
  // through a copy saved by miopenSaveSolution and loaded by miopenLoadSolution (conv_find2.cpp).
  miopenStatus_t run_find2(Dir d);
  miopenStatus_t call_workspace_size(Dir d, size_t* bytes);
  miopenStatus_t call_run(Dir d, int algo, void* ws, size_t ws_size);
  miopenStatus_t call_immediate(Dir d, uint64_t id, void* ws, size_t ws_size);
  miopenStatus_t run_bias(bool forward);
  miopenConvSolution_t solution_after_find(Dir d, int algo);
  void print_time(Dir d, float total_ms, float first_ms) const;
  std::vector<double> reference(Dir d, bool& on_gpu);
  bool verify(Dir d);
  bool verify_bias();
  std::string solver_name(uint64_t id) const;
  HostTensor& output_of(Dir d);
  DeviceBuffer& device_output_of(Dir d);

  std::string base_;
  miopenDataType_t type_;
  InputFlags flags_;
  ConvSpec spec_;
  miopenHandle_t handle_ = nullptr;
  miopenTensorDescriptor_t x_desc_ = nullptr, w_desc_ = nullptr, y_desc_ = nullptr,
                           b_desc_ = nullptr;
  miopenConvolutionDescriptor_t conv_desc_ = nullptr;
  HostTensor x_, w_, y_, dx_, dw_, dy_, b_, db_;
  // What the library reads and writes: the host tensors themselves on the CPU backend, device
  // copies on CUDA (inputs uploaded once, outputs downloaded before verification and dumps).
  Memory memory_ = Memory::Host;
  DeviceBuffer x_dev_, w_dev_, y_dev_, dx_dev_, dw_dev_, dy_dev_, b_dev_, db_dev_;
  DeviceBuffer workspace_;
  std::array<int, 3> chosen_algo_{-1, -1, -1};
  std::optional<uint64_t> immediate_solution_;
  int find2_ = 0;  // --find2
  bool time_ = false, wall_ = false, transpose_ = false;
  int iterations_ = 10;
  std::mt19937 rng_;
  double aux_ms_ = 0.0, aux_gwss_ms_ = 0.0;
};

}  // namespace anydnn::driver
