// The anydnn._ext module: Handle, errors, and the primitive families' functions (ext_conv.cpp,
// ext_batchnorm.cpp). Everything here is thin: Python (anydnn/ops.py) shapes the calls.
#include <nanobind/stl/string.h>

#include <limits>
#include <stdexcept>

#include "ext_common.hpp"

namespace anydnn::py {

void check(miopenStatus_t status) {
  if (status == miopenStatusSuccess) return;
  char reason[2048];
  anydnnGetLastErrorString(reason, sizeof reason);
  throw StatusError{status, reason};
}

void value_error(const std::string& what) {
  throw nb::value_error(what.c_str());
}

Handle::Handle(const std::string& backend, std::uintptr_t stream) {
  if (backend != "cpu" && backend != "cuda")
    value_error("backend must be 'cpu' or 'cuda', got '" + backend + "'");
  cuda_ = backend == "cuda";
  check(anydnnCreateWithBackend(&h_, cuda_ ? anydnnBackendCuda : anydnnBackendCpu,
                                reinterpret_cast<miopenAcceleratorQueue_t>(stream)));
}

Handle::~Handle() {
  if (h_ != nullptr) miopenDestroy(h_);
}

std::uintptr_t Handle::stream() const {
  miopenAcceleratorQueue_t s = nullptr;
  check(miopenGetStream(h_, &s));
  return reinterpret_cast<std::uintptr_t>(s);
}

void Handle::set_stream(std::uintptr_t stream) {
  check(miopenSetStream(h_, reinterpret_cast<miopenAcceleratorQueue_t>(stream)));
}

void Handle::check_device(const ArrayView& a, const char* name) const {
  const int dev = a.device_type;
  const bool host = dev == nb::device::cpu::value;
  // CUDA-managed memory is readable from both sides.
  const bool device = dev == nb::device::cuda::value || dev == nb::device::cuda_managed::value;
  if (cuda_ ? !device : !host)
    value_error(std::string(name) + " is in " + (host ? "host" : "device") +
                " memory but the handle's backend is " + backend());
}

TensorDesc::TensorDesc() {
  check(miopenCreateTensorDescriptor(&d_));
}
TensorDesc::~TensorDesc() {
  miopenDestroyTensorDescriptor(d_);
}

miopenDataType_t data_type_of(const ArrayView& a, const char* name) {
  const nb::dlpack::dtype t = a.dtype;
  using C = nb::dlpack::dtype_code;
  if (t.lanes == 1) {
    if (t.code == static_cast<uint8_t>(C::Float) && t.bits == 32) return miopenFloat;
    if (t.code == static_cast<uint8_t>(C::Float) && t.bits == 16) return miopenHalf;
    if (t.code == static_cast<uint8_t>(C::Float) && t.bits == 64) return miopenDouble;
    if (t.code == static_cast<uint8_t>(C::Bfloat) && t.bits == 16) return miopenBFloat16;
    if (t.code == static_cast<uint8_t>(C::Int) && t.bits == 8) return miopenInt8;
    if (t.code == static_cast<uint8_t>(C::Int) && t.bits == 32) return miopenInt32;
  }
  value_error(std::string(name) + " has a data type MIOpen has no descriptor for (DLPack code " +
              std::to_string(t.code) + ", " + std::to_string(t.bits) + " bits)");
}

void describe(const Handle& h, TensorDesc& d, const ArrayView& a, const char* name) {
  h.check_device(a, name);
  const miopenDataType_t type = data_type_of(a, name);
  if (a.ndim == 0 || a.ndim > 8) value_error(std::string(name) + " must have 1 to 8 dimensions");
  std::vector<int> lens(a.ndim), strides(a.ndim);
  for (size_t i = 0; i < a.ndim; ++i) {
    // Negative strides (a flipped NumPy view) have no MIOpen descriptor.
    if (a.shape[i] > std::numeric_limits<int>::max() ||
        a.stride[i] > std::numeric_limits<int>::max() || a.stride[i] < 0)
      value_error(std::string(name) +
                  " has a length or stride MIOpen's int descriptors cannot hold");
    lens[i] = static_cast<int>(a.shape[i]);
    strides[i] = static_cast<int>(a.stride[i]);
  }
  check(miopenSetTensorDescriptor(d.get(), type, static_cast<int>(lens.size()), lens.data(),
                                  strides.data()));
}

void describe_packed(TensorDesc& d, const std::vector<int>& lens, miopenDataType_t type) {
  check(miopenSetTensorDescriptor(d.get(), type, static_cast<int>(lens.size()), lens.data(),
                                  nullptr));
}

}  // namespace anydnn::py

NB_MODULE(_ext, m) {
  using namespace anydnn::py;
  m.doc() = "anydnn's C++ extension: MIOpen's C API on DLPack arrays (use the anydnn package)";
  // Handles and RNN descriptors that per-thread and per-module caches still hold when the
  // interpreter exits are expected there, not reference-count bugs.
  nb::set_leak_warnings(false);
  // StatusError becomes anydnn.Error (defined in Python, so it can be subclassed and pickled).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      nb::object type = nb::module_::import_("anydnn._errors").attr("Error");
      nb::object err = type(static_cast<int>(e.status), miopenGetErrorString(e.status), e.reason);
      PyErr_SetObject(type.ptr(), err.ptr());
    }
  });
  size_t major = 0, minor = 0, patch = 0;
  miopenGetVersion(&major, &minor, &patch);
  m.attr("miopen_version") = nb::make_tuple(major, minor, patch);
#ifdef ANYDNN_PY_WITH_CUDA
  m.attr("built_with_cuda") = true;
#else
  m.attr("built_with_cuda") = false;
#endif

  nb::class_<Handle>(m, "Handle")
      .def(nb::init<const std::string&, std::uintptr_t>(), nb::arg("backend") = "cpu",
           nb::arg("stream") = 0)
      .def_prop_ro("backend", &Handle::backend)
      .def_prop_rw("stream", &Handle::stream, &Handle::set_stream);
  // The user find-db's records for the handle's device, as the library's opaque text
  // (anydnnFindDbExport / anydnnFindDbImport): the package never reads the database itself.
  m.def("find_db_export", [](const Handle& h) {
    size_t size = 0;
    check(anydnnFindDbExport(h.get(), nullptr, &size));
    std::string text(size, '\0');
    check(anydnnFindDbExport(h.get(), text.data(), &size));
    text.resize(text.find('\0'));
    return text;
  });
  m.def("find_db_import", [](const Handle& h, const std::string& text) {
    size_t added = 0;
    check(anydnnFindDbImport(h.get(), text.c_str(), &added));
    return added;
  });
  register_conv(m);
  register_batchnorm(m);
  register_rnn(m);
}
