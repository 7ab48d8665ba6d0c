// Batch normalization on DLPack arrays: forward training (running statistics and saved mean /
// inverse variance optional), forward inference, backward. Parameter arrays may have any shape
// with the element count and data type of MIOpen's derived descriptor (1 x C x 1 x 1 spatial,
// 1 x C x H x W per activation; float for half / bfloat16 data, as MIOpen derives it).
#include <nanobind/stl/optional.h>

#include <optional>
#include <string>

#include "ext_common.hpp"

namespace anydnn::py {
namespace {

class BnParams {
 public:
  BnParams(const Handle& h, const TensorDesc& x, int mode) : h_(h) {
    if (mode != miopenBNPerActivation && mode != miopenBNSpatial)
      value_error("mode must be 0 (per activation) or 1 (spatial)");
    check(miopenDeriveBNTensorDescriptor(desc_.get(), x.get(),
                                         static_cast<miopenBatchNormMode_t>(mode)));
    miopenDataType_t type;
    int n = 0;
    check(miopenGetTensorDescriptorSize(desc_.get(), &n));
    std::vector<int> lens(static_cast<size_t>(n)), strides(static_cast<size_t>(n));
    check(miopenGetTensorDescriptor(desc_.get(), &type, lens.data(), strides.data()));
    type_ = type;
    numel_ = 1;
    for (int l : lens)
      numel_ *= static_cast<size_t>(l);
  }
  miopenTensorDescriptor_t get() const { return desc_.get(); }

  // The pointer of a parameter array after checking device, element count and type.
  template <class A>
  void* ptr(const A& a, const char* name) const {
    const ArrayView v(a);
    h_.check_device(v, name);
    if (v.numel() != numel_)
      value_error(std::string(name) + " has " + std::to_string(v.numel()) + " elements, the " +
                  "normalization needs " + std::to_string(numel_));
    if (data_type_of(v, name) != type_)
      value_error(std::string(name) + " must have the parameter type (float32 for float16 / " +
                  "bfloat16 data, else the data type)");
    // MIOpen reads parameters as packed vectors.
    size_t expect = 1;
    for (size_t i = v.ndim; i-- > 0;) {
      if (v.shape[i] != 1 && static_cast<size_t>(v.stride[i]) != expect)
        value_error(std::string(name) + " must be contiguous");
      expect *= v.shape[i];
    }
    return const_cast<void*>(v.data);
  }
  template <class A>
  void* opt(const std::optional<A>& a, const char* name) const {
    return a ? ptr(*a, name) : nullptr;
  }

 private:
  const Handle& h_;
  TensorDesc desc_;
  miopenDataType_t type_;
  size_t numel_;
};

void forward_training(const Handle& h, int mode, const In& x, Array& y, const In& scale,
                      const In& bias, double factor, std::optional<Array> running_mean,
                      std::optional<Array> running_var, double eps, std::optional<Array> save_mean,
                      std::optional<Array> save_inv_var) {
  TensorDesc xd, yd;
  describe(h, xd, x, "x");
  describe(h, yd, y, "y");
  BnParams p(h, xd, mode);
  void* s = p.ptr(scale, "scale");
  void* b = p.ptr(bias, "bias");
  void* rm = p.opt(running_mean, "running_mean");
  void* rv = p.opt(running_var, "running_var");
  void* sm = p.opt(save_mean, "save_mean");
  void* sv = p.opt(save_inv_var, "save_inv_var");
  float one = 1.0f, zero = 0.0f;
  nb::gil_scoped_release release;
  check(miopenBatchNormalizationForwardTraining(h.get(), static_cast<miopenBatchNormMode_t>(mode),
                                                &one, &zero, xd.get(), x.data(), yd.get(), y.data(),
                                                p.get(), s, b, factor, rm, rv, eps, sm, sv));
}

void forward_inference(const Handle& h, int mode, const In& x, Array& y, const In& scale,
                       const In& bias, const In& mean, const In& var, double eps) {
  TensorDesc xd, yd;
  describe(h, xd, x, "x");
  describe(h, yd, y, "y");
  BnParams p(h, xd, mode);
  void* s = p.ptr(scale, "scale");
  void* b = p.ptr(bias, "bias");
  void* m = p.ptr(mean, "mean");
  void* v = p.ptr(var, "var");
  float one = 1.0f, zero = 0.0f;
  nb::gil_scoped_release release;
  check(miopenBatchNormalizationForwardInference(h.get(), static_cast<miopenBatchNormMode_t>(mode),
                                                 &one, &zero, xd.get(), x.data(), yd.get(),
                                                 y.data(), p.get(), s, b, m, v, eps));
}

void backward(const Handle& h, int mode, const In& x, const In& dy, Array& dx, const In& scale,
              Array& dscale, Array& dbias, double eps, std::optional<In> save_mean,
              std::optional<In> save_inv_var) {
  TensorDesc xd, dyd, dxd;
  describe(h, xd, x, "x");
  describe(h, dyd, dy, "dy");
  describe(h, dxd, dx, "dx");
  BnParams p(h, xd, mode);
  void* s = p.ptr(scale, "scale");
  void* ds = p.ptr(dscale, "dscale");
  void* db = p.ptr(dbias, "dbias");
  void* sm = p.opt(save_mean, "save_mean");
  void* sv = p.opt(save_inv_var, "save_inv_var");
  float one = 1.0f, zero = 0.0f;
  nb::gil_scoped_release release;
  check(miopenBatchNormalizationBackward(
      h.get(), static_cast<miopenBatchNormMode_t>(mode), &one, &zero, &one, &zero, xd.get(),
      x.data(), dyd.get(), dy.data(), dxd.get(), dx.data(), p.get(), s, ds, db, eps, sm, sv));
}

}  // namespace

void register_batchnorm(nb::module_& m) {
  m.def("bn_forward_training", &forward_training, nb::arg("handle"), nb::arg("mode"), nb::arg("x"),
        nb::arg("y"), nb::arg("scale"), nb::arg("bias"), nb::arg("factor"),
        nb::arg("running_mean").none(), nb::arg("running_var").none(), nb::arg("eps"),
        nb::arg("save_mean").none(), nb::arg("save_inv_var").none());
  m.def("bn_forward_inference", &forward_inference, nb::arg("handle"), nb::arg("mode"),
        nb::arg("x"), nb::arg("y"), nb::arg("scale"), nb::arg("bias"), nb::arg("mean"),
        nb::arg("var"), nb::arg("eps"));
  m.def("bn_backward", &backward, nb::arg("handle"), nb::arg("mode"), nb::arg("x"), nb::arg("dy"),
        nb::arg("dx"), nb::arg("scale"), nb::arg("dscale"), nb::arg("dbias"), nb::arg("eps"),
        nb::arg("save_mean").none(), nb::arg("save_inv_var").none());
}

}  // namespace anydnn::py
