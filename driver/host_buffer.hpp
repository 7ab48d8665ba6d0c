// Host-side tensor storage for the driver: raw bytes of one tensor plus its descriptor facts,
// random initialisation with MIOpen's distributions, and a view for the reference code.
#pragma once

#include <miopen/miopen.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "conv_reference.hpp"

namespace anydnn::driver {

struct HostTensor {
  miopenDataType_t type = miopenFloat;
  std::vector<size_t> lens;
  std::vector<size_t> strides;
  std::vector<uint8_t> bytes;

  // Reads type, lengths and strides back from the descriptor and allocates its bytes.
  static HostTensor from_descriptor(miopenTensorDescriptor_t desc);
  // Flat buffers of n elements of `type`, no shape (the RNN drivers' tensors): zeroed; drawn
  // from `dist` in fp32 and stored rounded to the type; poisoned (see poison()).
  static HostTensor zeros(miopenDataType_t type, size_t n);
  static HostTensor drawn(miopenDataType_t type, size_t n, std::mt19937& rng,
                          std::uniform_real_distribution<float>& dist);
  static HostTensor poisoned(miopenDataType_t type, size_t n);
  size_t elements() const;  // allocation size in elements
  void* data() { return bytes.data(); }
  const void* data() const { return bytes.data(); }
  void set(size_t i, double v);
  double get(size_t i) const;
  std::vector<double> values() const;  // every element, as get() reads it
  ref::TensorView view() const { return {bytes.data(), type, lens, strides}; }

  void fill_uniform(std::mt19937& rng, double lo, double hi, double scale);
  // Fills with a bit pattern that is NaN for every float type, so unwritten outputs show.
  void poison();
  bool read_file(const std::string& path);
  bool write_file(const std::string& path) const;
};

}  // namespace anydnn::driver
