#include "conv/epilogue_fold.hpp"

#include <cmath>
#include <vector>

#include "backend/backend.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"
#include "core/float_types.hpp"

namespace anydnn {

namespace {

bool has_scale(const EpilogueFold& f) {
  return f.bn_desc != nullptr || f.alpha != 1.0f;
}

// Value k of a 1 x K x 1 ... parameter tensor of any float type and strides.
double param(const TensorDescriptor& d, const void* p, size_t k) {
  const size_t off = k * d.strides()[1];
  switch (d.type()) {
    case miopenFloat:
      return static_cast<const float*>(p)[off];
    case miopenHalf:
      return half_to_float(static_cast<const uint16_t*>(p)[off]);
    case miopenBFloat16:
      return bf16_to_float(static_cast<const uint16_t*>(p)[off]);
    case miopenDouble:
      return static_cast<const double*>(p)[off];
    default:
      ANYDNN_THROW(miopenStatusNotImplemented,
                   "fused epilogue parameters must be of a floating-point type");
  }
}

// A host copy of a parameter tensor (its whole element space), for the round trip.
std::vector<unsigned char> to_host(Backend& backend, const TensorDescriptor& d, const void* p) {
  std::vector<unsigned char> h(d.element_space() * data_type_size(d.type()));
  backend.copy(h.data(), p, h.size(), CopyKind::DeviceToHost);
  return h;
}

}  // namespace

bool fold_epilogue_host(const EpilogueFold& f, float* scale, float* shift) {
  for (size_t k = 0; k < f.channels; ++k) {
    const double bias = f.bias ? param(*f.bias_desc, f.bias, k) : 0.0;
    if (f.bn_desc != nullptr) {
      const TensorDescriptor& d = *f.bn_desc;
      // bn(alpha * conv + bias) = a * alpha * conv + a * (bias - mean) + beta: alpha scales
      // only the convolution.
      const double a = param(d, f.bn_scale, k) / std::sqrt(param(d, f.bn_var, k) + f.epsilon);
      scale[k] = static_cast<float>(a * static_cast<double>(f.alpha));
      shift[k] = static_cast<float>((bias - param(d, f.bn_mean, k)) * a + param(d, f.bn_shift, k));
    } else {
      if (f.alpha != 1.0f) scale[k] = f.alpha;
      shift[k] = static_cast<float>(bias);
    }
  }
  return has_scale(f);
}

bool fold_epilogue(Backend& backend, const EpilogueFold& f, float* scale, float* shift) {
  if (backend.kernels<const ConvKernels>().fold_epilogue(f, scale, shift)) return has_scale(f);
  // No kernel: read the parameters on the host and write the coefficients back.
  EpilogueFold h = f;
  std::vector<unsigned char> bias, g, b, m, v;
  if (f.bias) {
    bias = to_host(backend, *f.bias_desc, f.bias);
    h.bias = bias.data();
  }
  if (f.bn_desc) {
    g = to_host(backend, *f.bn_desc, f.bn_scale);
    b = to_host(backend, *f.bn_desc, f.bn_shift);
    m = to_host(backend, *f.bn_desc, f.bn_mean);
    v = to_host(backend, *f.bn_desc, f.bn_var);
    h.bn_scale = g.data();
    h.bn_shift = b.data();
    h.bn_mean = m.data();
    h.bn_var = v.data();
  }
  std::vector<float> s(f.channels), t(f.channels);
  const bool scaled = fold_epilogue_host(h, s.data(), t.data());
  if (scaled) backend.copy(scale, s.data(), s.size() * sizeof(float), CopyKind::HostToDevice);
  backend.copy(shift, t.data(), t.size() * sizeof(float), CopyKind::HostToDevice);
  return scaled;
}

}  // namespace anydnn
