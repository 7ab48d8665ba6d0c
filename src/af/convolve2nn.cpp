// anydnn_convolve2_nn / anydnn_convolve2_gradient_nn (include/anydnn/convolve2nn.h) on the public
// MIOpen C API only: ArrayFire's W x H x C x N arrays are NCHW tensors byte for byte, its true
// convolution is MIOpen's cross-correlation with the filter flipped along W and H, and the
// filter gradient is flipped back. Each direction runs the first solution that MIOpen's
// immediate mode ranks (find-db timings where they exist, else its estimates).
#include "anydnn/convolve2nn.h"

#include <miopen/anydnn.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <new>
#include <sstream>
#include <string>
#include <vector>

namespace {

thread_local std::string last_error;

struct AfError {
  anydnn_af_err code;
  std::string what;
};

#define AF_REQUIRE(cond, code, msg)      \
  do {                                   \
    if (!(cond)) {                       \
      std::ostringstream af_os_;         \
      af_os_ << msg;                     \
      throw AfError{code, af_os_.str()}; \
    }                                    \
  } while (0)

void check_status(miopenStatus_t s, const char* call) {
  if (s == miopenStatusSuccess) return;
  anydnn_af_err code = ANYDNN_AF_ERR_RUNTIME;
  if (s == miopenStatusBadParm) code = ANYDNN_AF_ERR_ARG;
  if (s == miopenStatusNotImplemented) code = ANYDNN_AF_ERR_NOT_SUPPORTED;
  if (s == miopenStatusAllocFailed) code = ANYDNN_AF_ERR_NO_MEM;
  throw AfError{code, std::string(call) + " failed: " + miopenGetErrorString(s) +
                          " (MIOPEN_LOG_LEVEL=3 logs the reason)"};
}

struct Geometry {
  int pad[2] = {0, 0}, stride[2] = {1, 1}, dil[2] = {1, 1};
};

// ArrayFire's rules: strides and dilations 1..2 values (>= 1), paddings 0..2 values (>= 0);
// index 0 is the width. Missing heights: 1 for stride and dilation, 0 for padding.
Geometry parse(const anydnn_af_conv_params& p) {
  Geometry g;
  auto read = [](unsigned n, const anydnn_dim_t* v, unsigned lo, const char* name, long long min,
                 int* out) {
    AF_REQUIRE(n >= lo && n <= 2, ANYDNN_AF_ERR_ARG,
               name << "_dims must be " << lo << ".." << 2 << " (got " << n << ")");
    AF_REQUIRE(n == 0 || v != nullptr, ANYDNN_AF_ERR_ARG, name << "s is a null pointer");
    for (unsigned i = 0; i < n; ++i) {
      AF_REQUIRE(v[i] >= min && v[i] <= INT_MAX, ANYDNN_AF_ERR_ARG,
                 name << "[" << i << "] = " << v[i] << " must be >= " << min);
      out[i] = static_cast<int>(v[i]);
    }
  };
  read(p.stride_dims, p.strides, 1, "stride", 1, g.stride);
  read(p.padding_dims, p.paddings, 0, "padding", 0, g.pad);
  read(p.dilation_dims, p.dilations, 1, "dilation", 1, g.dil);
  return g;
}

struct Dims {
  int d[4];
  long long elements() const { return 1LL * d[0] * d[1] * d[2] * d[3]; }
};

Dims dims_of(const anydnn_af_view& v, const char* name, bool need_data) {
  AF_REQUIRE(!need_data || v.data != nullptr, ANYDNN_AF_ERR_ARG, name << " data is a null pointer");
  Dims out{};
  for (int i = 0; i < 4; ++i) {
    AF_REQUIRE(v.dims[i] >= 1 && v.dims[i] <= INT_MAX, ANYDNN_AF_ERR_SIZE,
               name << " dims[" << i << "] = " << v.dims[i] << " must be in 1..INT_MAX");
    out.d[i] = static_cast<int>(v.dims[i]);
  }
  AF_REQUIRE(out.elements() <= INT_MAX, ANYDNN_AF_ERR_SIZE,
             name << " has " << out.elements() << " elements: above the 2^31 - 1 supported");
  return out;
}

std::string str(const Dims& d) {
  std::ostringstream os;
  os << "[" << d.d[0] << " " << d.d[1] << " " << d.d[2] << " " << d.d[3] << "]";
  return os.str();
}

Dims output_dims(const Dims& s, const Dims& f, const Geometry& g) {
  AF_REQUIRE(s.d[2] == f.d[2], ANYDNN_AF_ERR_SIZE,
             "signal " << str(s) << " has " << s.d[2] << " channels (dim 2) but filter " << str(f)
                       << " has " << f.d[2]);
  Dims o{{0, 0, f.d[3], s.d[3]}};
  for (int a = 0; a < 2; ++a) {
    const long long span = static_cast<long long>(f.d[a] - 1) * g.dil[a] + 1;
    const long long room = static_cast<long long>(s.d[a]) + 2LL * g.pad[a] - span;
    AF_REQUIRE(room >= 0, ANYDNN_AF_ERR_SIZE,
               "the dilated filter (" << span << " along dim " << a
                                      << ") is larger than the padded "
                                      << "signal (" << s.d[a] + 2LL * g.pad[a] << ")");
    o.d[a] = static_cast<int>(1 + room / g.stride[a]);
  }
  return o;
}

// RAII for the MIOpen objects of one call.
struct HandleScope {
  miopenHandle_t h = nullptr;
  bool owned = false;
  explicit HandleScope(miopenHandle_t given) : h(given) {
    if (!h) {
      // The convolve2 functions take host buffers, so the handle they make for themselves is a
      // CPU one even where the default backend is CUDA.
      check_status(anydnnCreateWithBackend(&h, anydnnBackendCpu, nullptr),
                   "anydnnCreateWithBackend");
      owned = true;
    }
    anydnnBackend_t backend;
    check_status(anydnnGetBackend(h, &backend), "anydnnGetBackend");
    AF_REQUIRE(backend == anydnnBackendCpu, ANYDNN_AF_ERR_NOT_SUPPORTED,
               "the convolve2 functions take host buffers: CPU backend handles only");
  }
  ~HandleScope() {
    if (owned) miopenDestroy(h);
  }
};

struct Tensor {
  miopenTensorDescriptor_t d = nullptr;
  Tensor(miopenDataType_t type, int n, int c, int h, int w) {
    check_status(miopenCreateTensorDescriptor(&d), "miopenCreateTensorDescriptor");
    check_status(miopenSet4dTensorDescriptor(d, type, n, c, h, w), "miopenSet4dTensorDescriptor");
  }
  ~Tensor() { miopenDestroyTensorDescriptor(d); }
};

struct Conv {
  miopenConvolutionDescriptor_t d = nullptr;
  explicit Conv(const Geometry& g) {
    check_status(miopenCreateConvolutionDescriptor(&d), "miopenCreateConvolutionDescriptor");
    check_status(miopenInitConvolutionDescriptor(d, miopenConvolution, g.pad[1], g.pad[0],
                                                 g.stride[1], g.stride[0], g.dil[1], g.dil[0]),
                 "miopenInitConvolutionDescriptor");
  }
  ~Conv() { miopenDestroyConvolutionDescriptor(d); }
};

size_t type_size(miopenDataType_t t) {
  return t == miopenHalf ? 2 : 4;
}

// The filter flipped along dims 0 and 1 (W and H), or back.
std::vector<unsigned char> flip(const void* src, const Dims& f, size_t es) {
  std::vector<unsigned char> out(static_cast<size_t>(f.elements()) * es);
  const auto* in = static_cast<const unsigned char*>(src);
  const size_t plane = static_cast<size_t>(f.d[0]) * f.d[1];
  for (size_t p = 0; p < static_cast<size_t>(f.d[2]) * f.d[3]; ++p)
    for (int y = 0; y < f.d[1]; ++y)
      for (int x = 0; x < f.d[0]; ++x)
        std::memcpy(
            &out[(p * plane + static_cast<size_t>(y) * f.d[0] + x) * es],
            &in[(p * plane + static_cast<size_t>(f.d[1] - 1 - y) * f.d[0] + (f.d[0] - 1 - x)) * es],
            es);
  return out;
}

// The best-ranked immediate-mode solution of one direction and its workspace.
template <class Count, class Get>
miopenConvSolution_t first_solution(const char* what, Count count, Get get) {
  size_t n = 0;
  check_status(count(&n), what);
  AF_REQUIRE(n > 0, ANYDNN_AF_ERR_NOT_SUPPORTED, what << ": no applicable solution");
  std::vector<miopenConvSolution_t> s(n);
  check_status(get(n, &n, s.data()), what);
  return s[0];
}

anydnn_af_err guarded(const char* fn, const auto& body) {
  try {
    body();
    last_error.clear();
    return ANYDNN_AF_SUCCESS;
  } catch (const AfError& e) {
    last_error = std::string(fn) + ": " + e.what;
    return e.code;
  } catch (const std::bad_alloc&) {
    last_error = std::string(fn) + ": out of memory";
    return ANYDNN_AF_ERR_NO_MEM;
  } catch (const std::exception& e) {
    last_error = std::string(fn) + ": " + e.what();
    return ANYDNN_AF_ERR_INTERNAL;
  } catch (...) {
    last_error = std::string(fn) + ": unknown error";
    return ANYDNN_AF_ERR_INTERNAL;
  }
}

void check_type(miopenDataType_t type) {
  AF_REQUIRE(
      type == miopenFloat || type == miopenHalf, ANYDNN_AF_ERR_TYPE,
      "type must be miopenFloat or miopenHalf (f32, f16; got " << static_cast<int>(type) << ")");
}

// Reports the result's dims; true when there is something to compute into `out`.
bool deliver(void* out, anydnn_dim_t out_dims[4], size_t capacity, const Dims& d) {
  AF_REQUIRE(out_dims != nullptr, ANYDNN_AF_ERR_ARG, "out_dims is a null pointer");
  for (int i = 0; i < 4; ++i)
    out_dims[i] = d.d[i];
  if (!out) return false;
  AF_REQUIRE(capacity >= static_cast<size_t>(d.elements()), ANYDNN_AF_ERR_SIZE,
             "out_capacity = " << capacity << " elements is below the result's " << d.elements()
                               << " " << str(d));
  return true;
}

}  // namespace

extern "C" anydnn_af_err anydnn_convolve2_nn(miopenHandle_t handle, miopenDataType_t type,
                                             void* out, anydnn_dim_t out_dims[4],
                                             size_t out_capacity, anydnn_af_view signal,
                                             anydnn_af_view filter, anydnn_af_conv_params params) {
  return guarded(__func__, [&] {
    check_type(type);
    const Geometry g = parse(params);
    const Dims s = dims_of(signal, "signal", out != nullptr);
    const Dims f = dims_of(filter, "filter", out != nullptr);
    const Dims o = output_dims(s, f, g);
    if (!deliver(out, out_dims, out_capacity, o)) return;
    HandleScope h(handle);
    const Tensor x(type, s.d[3], s.d[2], s.d[1], s.d[0]), w(type, f.d[3], f.d[2], f.d[1], f.d[0]),
        y(type, o.d[3], o.d[2], o.d[1], o.d[0]);
    const Conv c(g);
    const auto flipped = flip(filter.data, f, type_size(type));
    const miopenConvSolution_t sol = first_solution(
        "miopenConvolutionForwardGetSolution",
        [&](size_t* n) {
          return miopenConvolutionForwardGetSolutionCount(h.h, w.d, x.d, c.d, y.d, n);
        },
        [&](size_t max, size_t* n, miopenConvSolution_t* s) {
          return miopenConvolutionForwardGetSolution(h.h, w.d, x.d, c.d, y.d, max, n, s);
        });
    std::vector<unsigned char> ws(sol.workspace_size);
    check_status(miopenConvolutionForwardImmediate(h.h, w.d, flipped.data(), x.d, signal.data, c.d,
                                                   y.d, out, ws.data(), ws.size(), sol.solution_id),
                 "miopenConvolutionForwardImmediate");
  });
}

extern "C" anydnn_af_err anydnn_convolve2_gradient_nn(
    miopenHandle_t handle, miopenDataType_t type, void* out, anydnn_dim_t out_dims[4],
    size_t out_capacity, anydnn_af_view incoming_gradient, anydnn_af_view original_signal,
    anydnn_af_view original_filter, anydnn_af_view convolved_output, anydnn_af_conv_params params,
    anydnn_conv_gradient_type grad_type) {
  return guarded(__func__, [&] {
    check_type(type);
    int kind = 0;
    std::memcpy(&kind, &grad_type, sizeof kind);  // any int can arrive from C
    AF_REQUIRE(kind >= ANYDNN_CONV_GRADIENT_DEFAULT && kind <= ANYDNN_CONV_GRADIENT_BIAS,
               ANYDNN_AF_ERR_ARG, "grad_type " << kind << " is not an anydnn_conv_gradient_type");
    const Geometry g = parse(params);
    const bool run = out != nullptr;
    const Dims dy = dims_of(incoming_gradient, "incoming_gradient", run);
    const Dims co = dims_of(convolved_output, "convolved_output", false);
    // The filter is read for the data gradient only; the signal for the filter gradient.
    const Dims s =
        dims_of(original_signal, "original_signal", run && kind == ANYDNN_CONV_GRADIENT_FILTER);
    const Dims f =
        dims_of(original_filter, "original_filter",
                run && (kind == ANYDNN_CONV_GRADIENT_DEFAULT || kind == ANYDNN_CONV_GRADIENT_DATA));
    AF_REQUIRE(std::memcmp(dy.d, co.d, sizeof dy.d) == 0, ANYDNN_AF_ERR_SIZE,
               "incoming_gradient " << str(dy) << " and convolved_output " << str(co)
                                    << " must have the same dims");
    const Dims o = output_dims(s, f, g);
    AF_REQUIRE(std::memcmp(dy.d, o.d, sizeof dy.d) == 0, ANYDNN_AF_ERR_SIZE,
               "incoming_gradient " << str(dy) << " is not the forward output's dims " << str(o)
                                    << " for signal " << str(s) << " and filter " << str(f));
    const Dims result = kind == ANYDNN_CONV_GRADIENT_FILTER ? f
                        : kind == ANYDNN_CONV_GRADIENT_BIAS ? Dims{{1, 1, f.d[3], 1}}
                                                            : s;
    if (!deliver(out, out_dims, out_capacity, result)) return;
    HandleScope h(handle);
    const Tensor x(type, s.d[3], s.d[2], s.d[1], s.d[0]), w(type, f.d[3], f.d[2], f.d[1], f.d[0]),
        y(type, o.d[3], o.d[2], o.d[1], o.d[0]);
    const Conv c(g);
    if (kind == ANYDNN_CONV_GRADIENT_BIAS) {
      const Tensor db(type, 1, f.d[3], 1, 1);
      const float one = 1.0f, zero = 0.0f;
      check_status(
          miopenConvolutionBackwardBias(h.h, &one, y.d, incoming_gradient.data, &zero, db.d, out),
          "miopenConvolutionBackwardBias");
    } else if (kind == ANYDNN_CONV_GRADIENT_FILTER) {
      const miopenConvSolution_t sol = first_solution(
          "miopenConvolutionBackwardWeightsGetSolution",
          [&](size_t* n) {
            return miopenConvolutionBackwardWeightsGetSolutionCount(h.h, y.d, x.d, c.d, w.d, n);
          },
          [&](size_t max, size_t* n, miopenConvSolution_t* sl) {
            return miopenConvolutionBackwardWeightsGetSolution(h.h, y.d, x.d, c.d, w.d, max, n, sl);
          });
      std::vector<unsigned char> ws(sol.workspace_size);
      std::vector<unsigned char> dw(static_cast<size_t>(f.elements()) * type_size(type));
      check_status(miopenConvolutionBackwardWeightsImmediate(
                       h.h, y.d, incoming_gradient.data, x.d, original_signal.data, c.d, w.d,
                       dw.data(), ws.data(), ws.size(), sol.solution_id),
                   "miopenConvolutionBackwardWeightsImmediate");
      // The gradient of the flipped filter MIOpen correlated with, flipped back.
      const auto back = flip(dw.data(), f, type_size(type));
      std::memcpy(out, back.data(), back.size());
    } else {
      const auto flipped = flip(original_filter.data, f, type_size(type));
      const miopenConvSolution_t sol = first_solution(
          "miopenConvolutionBackwardDataGetSolution",
          [&](size_t* n) {
            return miopenConvolutionBackwardDataGetSolutionCount(h.h, y.d, w.d, c.d, x.d, n);
          },
          [&](size_t max, size_t* n, miopenConvSolution_t* sl) {
            return miopenConvolutionBackwardDataGetSolution(h.h, y.d, w.d, c.d, x.d, max, n, sl);
          });
      std::vector<unsigned char> ws(sol.workspace_size);
      check_status(miopenConvolutionBackwardDataImmediate(h.h, y.d, incoming_gradient.data, w.d,
                                                          flipped.data(), c.d, x.d, out, ws.data(),
                                                          ws.size(), sol.solution_id),
                   "miopenConvolutionBackwardDataImmediate");
    }
  });
}

extern "C" size_t anydnn_af_get_last_error(char* buf, size_t len) {
  if (buf && len > 0) {
    const size_t n = std::min(len - 1, last_error.size());
    std::memcpy(buf, last_error.data(), n);
    buf[n] = '\0';
  }
  return last_error.size();
}
