#include "conv/conv_bias.hpp"

#include "conv/conv_kernels.hpp"
#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn {

void check_bias_shape(const TensorDescriptor& bias, const TensorDescriptor& t, const char* bname,
                      const char* tname) {
  ANYDNN_CHECK_BADPARM(t.num_dims() == 4 || t.num_dims() == 5,
                       tname << " must be 4-D or 5-D, not " << t.num_dims() << "-D");
  ANYDNN_CHECK_BADPARM(bias.num_dims() == t.num_dims(), bname << " has " << bias.num_dims()
                                                              << " dimensions, " << tname << " "
                                                              << t.num_dims());
  for (size_t i = 0; i < bias.num_dims(); ++i) {
    const size_t want = i == 1 ? t.lens()[1] : 1;
    ANYDNN_CHECK_BADPARM(bias.lens()[i] == want, bname << " must have lengths [1, " << t.lens()[1]
                                                       << ", 1, ...]; dimension " << i << " is "
                                                       << bias.lens()[i]);
  }
  ANYDNN_CHECK_BADPARM(bias.type() == t.type(),
                       bname << " and " << tname << " have different data types");
  ANYDNN_CHECK(is_float_like(t.type()), miopenStatusNotImplemented,
               "convolution bias on " << data_type_name(t.type()) << " data is not supported");
}

void conv_bias_forward(Handle& handle, const TensorDescriptor& b_desc, const void* b,
                       const TensorDescriptor& y_desc, void* y, float alpha, float beta) {
  check_bias_shape(b_desc, y_desc, "bDesc", "yDesc");
  ANYDNN_CHECK_BADPARM(b != nullptr && y != nullptr, "Buffers cannot be NULL");
  const float ms = handle.run_primitive([&] {
    handle.backend().kernels<const ConvKernels>().bias_forward(b_desc, b, y_desc, y, alpha, beta);
  });
  handle.record_kernel_time(ms);
}

void conv_bias_backward(Handle& handle, const TensorDescriptor& dy_desc, const void* dy,
                        const TensorDescriptor& db_desc, void* db, float alpha, float beta) {
  check_bias_shape(db_desc, dy_desc, "dbDesc", "dyDesc");
  ANYDNN_CHECK_BADPARM(dy != nullptr && db != nullptr, "Buffers cannot be NULL");
  const float ms = handle.run_primitive([&] {
    handle.backend().kernels<const ConvKernels>().bias_backward(dy_desc, dy, db_desc, db, alpha,
                                                                beta);
  });
  handle.record_kernel_time(ms);
}

}  // namespace anydnn
