#include <chrono>

#include "layers_bench.hpp"

namespace anydnn::bench::layers {

std::vector<float> random_floats(size_t n, float lo, float hi) {
  static std::mt19937 rng(
      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (auto& e : v)
    e = u(rng);
  return v;
}

MTensor::MTensor(const std::vector<int>& lens) {
  miopenCreateTensorDescriptor(&d);
  miopenSetTensorDescriptor(d, miopenFloat, static_cast<int>(lens.size()), lens.data(), nullptr);
}

MTensor::~MTensor() {
  miopenDestroyTensorDescriptor(d);
}

dnnl::memory::desc dnnl_desc(const std::vector<int>& lens) {
  using tag = dnnl::memory::format_tag;
  static const tag tags[] = {tag::a, tag::ab, tag::abc, tag::abcd, tag::abcde};
  return dnnl::memory::desc(dnnl::memory::dims(lens.begin(), lens.end()),
                            dnnl::memory::data_type::f32, tags[lens.size() - 1]);
}

std::string lens_name(const std::vector<int>& lens) {
  std::string s;
  for (size_t i = 0; i < lens.size(); ++i)
    s += (i ? "x" : "") + std::to_string(lens[i]);
  return s;
}

}  // namespace anydnn::bench::layers
