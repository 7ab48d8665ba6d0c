#include "host_buffer.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/float_types.hpp"

namespace anydnn::driver {

namespace {
size_t type_size(miopenDataType_t t) {
  switch (t) {
    case miopenHalf:
    case miopenBFloat16:
      return 2;
    case miopenDouble:
      return 8;
    case miopenInt8:
      return 1;
    default:
      return 4;
  }
}
}  // namespace

HostTensor HostTensor::from_descriptor(miopenTensorDescriptor_t desc) {
  HostTensor t;
  int n = 0;
  if (miopenGetTensorDescriptorSize(desc, &n) != miopenStatusSuccess || n <= 0)
    throw std::runtime_error("cannot read a tensor descriptor");
  std::vector<int> lens(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
  if (miopenGetTensorDescriptor(desc, &t.type, lens.data(), strides.data()) != miopenStatusSuccess)
    throw std::runtime_error("cannot read a tensor descriptor");
  t.lens.assign(lens.begin(), lens.end());
  t.strides.assign(strides.begin(), strides.end());
  size_t bytes = 0;
  miopenGetTensorNumBytes(desc, &bytes);
  t.bytes.assign(bytes, 0);
  return t;
}

HostTensor HostTensor::zeros(miopenDataType_t type, size_t n) {
  HostTensor t;
  t.type = type;
  t.bytes.assign(n * type_size(type), 0);
  return t;
}

HostTensor HostTensor::drawn(miopenDataType_t type, size_t n, std::mt19937& rng,
                             std::uniform_real_distribution<float>& dist) {
  HostTensor t = zeros(type, n);
  for (size_t i = 0; i < n; ++i)
    t.set(i, dist(rng));
  return t;
}

HostTensor HostTensor::poisoned(miopenDataType_t type, size_t n) {
  HostTensor t = zeros(type, n);
  t.poison();
  return t;
}

size_t HostTensor::elements() const {
  return bytes.size() / type_size(type);
}

void HostTensor::set(size_t i, double v) {
  switch (type) {
    case miopenFloat:
      reinterpret_cast<float*>(bytes.data())[i] = static_cast<float>(v);
      break;
    case miopenHalf:
      reinterpret_cast<uint16_t*>(bytes.data())[i] = float_to_half(static_cast<float>(v));
      break;
    case miopenBFloat16:
      reinterpret_cast<uint16_t*>(bytes.data())[i] = float_to_bf16(static_cast<float>(v));
      break;
    case miopenInt8:
      reinterpret_cast<int8_t*>(bytes.data())[i] = static_cast<int8_t>(std::lround(v));
      break;
    case miopenInt32:
      reinterpret_cast<int32_t*>(bytes.data())[i] = static_cast<int32_t>(std::lround(v));
      break;
    case miopenDouble:
      reinterpret_cast<double*>(bytes.data())[i] = v;
      break;
    default:
      throw std::runtime_error("driver: unsupported data type");
  }
}

double HostTensor::get(size_t i) const {
  return ref::load_element(bytes.data(), type, i);
}

std::vector<double> HostTensor::values() const {
  std::vector<double> v(elements());
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = get(i);
  return v;
}

void HostTensor::fill_uniform(std::mt19937& rng, double lo, double hi, double scale) {
  std::uniform_real_distribution<double> dist(lo, hi);
  const size_t n = elements();
  for (size_t i = 0; i < n; ++i)
    set(i, scale * dist(rng));
}

void HostTensor::poison() {
  // 0xFF bytes: NaN in fp32, fp16 and bf16.
  std::memset(bytes.data(), 0xff, bytes.size());
}

bool HostTensor::read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return static_cast<size_t>(in.gcount()) == bytes.size();
}

bool HostTensor::write_file(const std::string& path) const {
  std::ofstream out(path, std::ios::binary);
  if (!out) return false;
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out);
}

}  // namespace anydnn::driver
