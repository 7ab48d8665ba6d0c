// Shared pieces of the Python extension: the error type (a miopenStatus_t and the library's
// one-line reason), the Handle, and tensor descriptors made from DLPack arrays without copies.
#pragma once

#include <miopen/anydnn.h>
#include <miopen/miopen.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>
#include <string>
#include <vector>

namespace anydnn::py {

namespace nb = nanobind;

// Any DLPack array (NumPy, PyTorch CPU or CUDA, ...), any strides: descriptors carry the strides,
// and a solver that needs packed tensors says so through the library's own error. Outputs are
// Arrays (a read-only NumPy array is refused there); inputs are In, which takes read-only ones.
using Array = nb::ndarray<>;
using In = nb::ndarray<nb::ro>;

// What the descriptor helpers read of an array, whichever of the two it is.
struct ArrayView {
  template <class A>
  ArrayView(const A& a)  // NOLINT: implicit on purpose, both array kinds convert
      : ndim(a.ndim()), dtype(a.dtype()), device_type(a.device_type()), data(a.data()) {
    for (size_t i = 0; i < ndim; ++i) {
      shape.push_back(a.shape(i));
      stride.push_back(a.stride(i));
    }
  }
  size_t ndim;
  nb::dlpack::dtype dtype;
  int device_type;
  const void* data;
  std::vector<size_t> shape;
  std::vector<int64_t> stride;
  size_t numel() const {
    size_t n = 1;
    for (size_t s : shape)
      n *= s;
    return n;
  }
};

// A failed call: raised in Python as anydnn.Error(status, status_name, reason).
struct StatusError {
  miopenStatus_t status;
  std::string reason;
};

// Throws StatusError with the reason the library recorded for this thread.
void check(miopenStatus_t status);

// Throws a Python ValueError (argument checks done before the library is called).
[[noreturn]] void value_error(const std::string& what);

class Handle {
 public:
  Handle(const std::string& backend, std::uintptr_t stream);
  ~Handle();
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  miopenHandle_t get() const { return h_; }
  bool cuda() const { return cuda_; }
  std::string backend() const { return cuda_ ? "cuda" : "cpu"; }
  std::uintptr_t stream() const;
  void set_stream(std::uintptr_t stream);
  // Raises ValueError when `a` lives where this handle's backend cannot read it.
  void check_device(const ArrayView& a, const char* name) const;

 private:
  miopenHandle_t h_ = nullptr;
  bool cuda_ = false;
};

class TensorDesc {
 public:
  TensorDesc();
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
  miopenTensorDescriptor_t get() const { return d_; }

 private:
  miopenTensorDescriptor_t d_ = nullptr;
};

// The MIOpen data type of a DLPack dtype; ValueError for one MIOpen lacks.
miopenDataType_t data_type_of(const ArrayView& a, const char* name);
// Lengths and strides (in elements) of `a` into `d`, after checking that `a` lives where the
// handle's backend reads (ValueError otherwise).
void describe(const Handle& h, TensorDesc& d, const ArrayView& a, const char* name);
// A packed descriptor of the given lengths.
void describe_packed(TensorDesc& d, const std::vector<int>& lens, miopenDataType_t type);

void register_conv(nb::module_& m);
void register_batchnorm(nb::module_& m);
void register_rnn(nb::module_& m);

}  // namespace anydnn::py
