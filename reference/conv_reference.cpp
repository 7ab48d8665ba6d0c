#include "conv_reference.hpp"

#include <array>
#include <stdexcept>

#include "core/float_types.hpp"

namespace anydnn::ref {

namespace {

// A view reshaped to 5 logical dimensions (N, C, D, H, W); 4-D views get D = 1.
struct View5 {
  const void* data;
  miopenDataType_t type;
  std::array<size_t, 5> len;
  std::array<size_t, 5> stride;

  explicit View5(const TensorView& t) : data(t.data), type(t.type) {
    if (t.lens.size() == 4) {
      len = {t.lens[0], t.lens[1], 1, t.lens[2], t.lens[3]};
      stride = {t.strides[0], t.strides[1], 0, t.strides[2], t.strides[3]};
    } else if (t.lens.size() == 5) {
      for (int i = 0; i < 5; ++i) {
        len[i] = t.lens[i];
        stride[i] = t.strides[i];
      }
    } else {
      throw std::invalid_argument("reference convolution needs 4-D or 5-D tensors");
    }
  }
  double at(size_t a, size_t b, size_t d, size_t h, size_t w) const {
    return load_element(
        data, type, a * stride[0] + b * stride[1] + d * stride[2] + h * stride[3] + w * stride[4]);
  }
};

std::array<size_t, 5> lens5(const std::vector<size_t>& l) {
  if (l.size() == 4) return {l[0], l[1], 1, l[2], l[3]};
  return {l[0], l[1], l[2], l[3], l[4]};
}

// Spatial parameters padded to (d, h, w).
struct Spatial {
  std::array<long, 3> pad{0, 0, 0}, stride{1, 1, 1}, dil{1, 1, 1};
  explicit Spatial(const ConvParams& p) {
    const size_t first = 3 - p.pads.size();
    for (size_t i = 0; i < p.pads.size(); ++i) {
      pad[first + i] = p.pads[i];
      stride[first + i] = p.strides[i];
      dil[first + i] = p.dilations[i];
    }
  }
};

size_t flat(const std::array<size_t, 5>& len, size_t a, size_t b, size_t d, size_t h, size_t w) {
  return (((a * len[1] + b) * len[2] + d) * len[3] + h) * len[4] + w;
}

size_t count(const std::array<size_t, 5>& len) {
  return len[0] * len[1] * len[2] * len[3] * len[4];
}

}  // namespace

double load_element(const void* data, miopenDataType_t type, size_t offset) {
  switch (type) {
    case miopenFloat:
      return static_cast<const float*>(data)[offset];
    case miopenHalf:
      return half_to_float(static_cast<const uint16_t*>(data)[offset]);
    case miopenBFloat16:
      return bf16_to_float(static_cast<const uint16_t*>(data)[offset]);
    case miopenDouble:
      return static_cast<const double*>(data)[offset];
    case miopenInt32:
      return static_cast<const int32_t*>(data)[offset];
    case miopenInt8:
      return static_cast<const int8_t*>(data)[offset];
    default:
      throw std::invalid_argument("reference: unsupported data type");
  }
}

std::vector<double> to_logical(const TensorView& t) {
  size_t n = 1;
  for (size_t l : t.lens)
    n *= l;
  std::vector<double> out(n);
  std::vector<size_t> idx(t.lens.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    size_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      off += idx[d] * t.strides[d];
    out[i] = load_element(t.data, t.type, off);
    for (size_t d = idx.size(); d-- > 0;) {
      if (++idx[d] < t.lens[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

std::vector<double> conv_forward(const TensorView& xv, const TensorView& wv, const ConvParams& p,
                                 const std::vector<size_t>& y_lens) {
  const View5 x(xv), w(wv);
  const Spatial s(p);
  const auto yl = lens5(y_lens);
  const size_t groups = static_cast<size_t>(p.groups);
  const size_t cg = x.len[1] / groups;
  const size_t kg = yl[1] / groups;
  std::vector<double> y(count(yl));
  const long nk = static_cast<long>(yl[0] * yl[1]);
#pragma omp parallel for schedule(dynamic)
  for (long i = 0; i < nk; ++i) {
    const size_t n = static_cast<size_t>(i) / yl[1];
    const size_t k = static_cast<size_t>(i) % yl[1];
    const size_t c_base = (k / kg) * cg;
    for (size_t od = 0; od < yl[2]; ++od)
      for (size_t oh = 0; oh < yl[3]; ++oh)
        for (size_t ow = 0; ow < yl[4]; ++ow) {
          double acc = 0.0;
          for (size_t c = 0; c < cg; ++c)
            for (size_t fd = 0; fd < w.len[2]; ++fd) {
              const long id =
                  static_cast<long>(od) * s.stride[0] + static_cast<long>(fd) * s.dil[0] - s.pad[0];
              if (id < 0 || id >= static_cast<long>(x.len[2])) continue;
              for (size_t fh = 0; fh < w.len[3]; ++fh) {
                const long ih = static_cast<long>(oh) * s.stride[1] +
                                static_cast<long>(fh) * s.dil[1] - s.pad[1];
                if (ih < 0 || ih >= static_cast<long>(x.len[3])) continue;
                for (size_t fw = 0; fw < w.len[4]; ++fw) {
                  const long iw = static_cast<long>(ow) * s.stride[2] +
                                  static_cast<long>(fw) * s.dil[2] - s.pad[2];
                  if (iw < 0 || iw >= static_cast<long>(x.len[4])) continue;
                  acc += x.at(n, c_base + c, id, ih, iw) * w.at(k, c, fd, fh, fw);
                }
              }
            }
          y[flat(yl, n, k, od, oh, ow)] = acc;
        }
  }
  return y;
}

std::vector<double> conv_backward_data(const TensorView& dyv, const TensorView& wv,
                                       const ConvParams& p, const std::vector<size_t>& dx_lens) {
  const View5 dy(dyv), w(wv);
  const Spatial s(p);
  const auto xl = lens5(dx_lens);
  const size_t groups = static_cast<size_t>(p.groups);
  const size_t cg = xl[1] / groups;
  const size_t kg = dy.len[1] / groups;
  std::vector<double> dx(count(xl));
  const long nc = static_cast<long>(xl[0] * xl[1]);
#pragma omp parallel for schedule(dynamic)
  for (long i = 0; i < nc; ++i) {
    const size_t n = static_cast<size_t>(i) / xl[1];
    const size_t c = static_cast<size_t>(i) % xl[1];
    const size_t g = c / cg;
    for (size_t id = 0; id < xl[2]; ++id)
      for (size_t ih = 0; ih < xl[3]; ++ih)
        for (size_t iw = 0; iw < xl[4]; ++iw) {
          double acc = 0.0;
          for (size_t kk = 0; kk < kg; ++kk) {
            const size_t k = g * kg + kk;
            for (size_t fd = 0; fd < w.len[2]; ++fd) {
              const long td = static_cast<long>(id) + s.pad[0] - static_cast<long>(fd) * s.dil[0];
              if (td < 0 || td % s.stride[0] != 0) continue;
              const long od = td / s.stride[0];
              if (od >= static_cast<long>(dy.len[2])) continue;
              for (size_t fh = 0; fh < w.len[3]; ++fh) {
                const long th = static_cast<long>(ih) + s.pad[1] - static_cast<long>(fh) * s.dil[1];
                if (th < 0 || th % s.stride[1] != 0) continue;
                const long oh = th / s.stride[1];
                if (oh >= static_cast<long>(dy.len[3])) continue;
                for (size_t fw = 0; fw < w.len[4]; ++fw) {
                  const long tw =
                      static_cast<long>(iw) + s.pad[2] - static_cast<long>(fw) * s.dil[2];
                  if (tw < 0 || tw % s.stride[2] != 0) continue;
                  const long ow = tw / s.stride[2];
                  if (ow >= static_cast<long>(dy.len[4])) continue;
                  acc += dy.at(n, k, od, oh, ow) * w.at(k, c % cg, fd, fh, fw);
                }
              }
            }
          }
          dx[flat(xl, n, c, id, ih, iw)] = acc;
        }
  }
  return dx;
}

std::vector<double> conv_backward_weights(const TensorView& xv, const TensorView& dyv,
                                          const ConvParams& p, const std::vector<size_t>& dw_lens) {
  const View5 x(xv), dy(dyv);
  const Spatial s(p);
  const auto wl = lens5(dw_lens);
  const size_t groups = static_cast<size_t>(p.groups);
  const size_t cg = wl[1];
  const size_t kg = wl[0] / groups;
  std::vector<double> dw(count(wl));
  const long kc = static_cast<long>(wl[0] * wl[1]);
#pragma omp parallel for schedule(dynamic)
  for (long i = 0; i < kc; ++i) {
    const size_t k = static_cast<size_t>(i) / wl[1];
    const size_t c = static_cast<size_t>(i) % wl[1];
    const size_t xc = (k / kg) * cg + c;
    for (size_t fd = 0; fd < wl[2]; ++fd)
      for (size_t fh = 0; fh < wl[3]; ++fh)
        for (size_t fw = 0; fw < wl[4]; ++fw) {
          double acc = 0.0;
          for (size_t n = 0; n < x.len[0]; ++n)
            for (size_t od = 0; od < dy.len[2]; ++od) {
              const long id =
                  static_cast<long>(od) * s.stride[0] + static_cast<long>(fd) * s.dil[0] - s.pad[0];
              if (id < 0 || id >= static_cast<long>(x.len[2])) continue;
              for (size_t oh = 0; oh < dy.len[3]; ++oh) {
                const long ih = static_cast<long>(oh) * s.stride[1] +
                                static_cast<long>(fh) * s.dil[1] - s.pad[1];
                if (ih < 0 || ih >= static_cast<long>(x.len[3])) continue;
                for (size_t ow = 0; ow < dy.len[4]; ++ow) {
                  const long iw = static_cast<long>(ow) * s.stride[2] +
                                  static_cast<long>(fw) * s.dil[2] - s.pad[2];
                  if (iw < 0 || iw >= static_cast<long>(x.len[4])) continue;
                  acc += x.at(n, xc, id, ih, iw) * dy.at(n, k, od, oh, ow);
                }
              }
            }
          dw[flat(wl, k, c, fd, fh, fw)] = acc;
        }
  }
  return dw;
}

std::vector<double> bias_backward(const TensorView& dyv) {
  const View5 dy(dyv);
  std::vector<double> db(dy.len[1], 0.0);
  for (size_t k = 0; k < dy.len[1]; ++k) {
    double acc = 0.0;
    for (size_t n = 0; n < dy.len[0]; ++n)
      for (size_t d = 0; d < dy.len[2]; ++d)
        for (size_t h = 0; h < dy.len[3]; ++h)
          for (size_t w = 0; w < dy.len[4]; ++w)
            acc += dy.at(n, k, d, h, w);
    db[k] = acc;
  }
  return db;
}

}  // namespace anydnn::ref
