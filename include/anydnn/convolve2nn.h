/*
 * ArrayFire-style convolution for neural networks over plain buffers, in the spirit of
 * af_convolve2_nn / af_convolve2_gradient_nn (ArrayFire's include/af/ml.h), built on the public
 * MIOpen C API (libanydnn_af links libMIOpen and nothing internal).
 *
 * Layout as in ArrayFire: column-major, dimension 0 fastest.
 *   signal  W x H x C x N      (the same bytes as an NCHW tensor)
 *   filter  fW x fH x C x K    (the same bytes as a KCYX filter)
 *   output  Wo x Ho x K x N    Wo = 1 + (W + 2 * pad0 - ((fW - 1) * dil0 + 1)) / stride0
 * Index 0 of stride / padding / dilation is the width (dimension 0), index 1 the height. The
 * operation is a true convolution (the filter flipped along W and H), as every ArrayFire
 * backend computes it; MIOpen's miopenConvolution is a cross-correlation.
 *
 * Buffers are host memory (the CPU backend); a handle on the CUDA backend is rejected with
 * ANYDNN_AF_ERR_NOT_SUPPORTED. Types: miopenFloat or miopenHalf (ArrayFire's f32, f16; MIOpen
 * has no f64). Every function returns ANYDNN_AF_SUCCESS or an error code and keeps a one-line
 * reason for anydnn_af_get_last_error (per thread, as af_get_last_error).
 */
#ifndef ANYDNN_CONVOLVE2NN_H
#define ANYDNN_CONVOLVE2NN_H

#include <miopen/miopen.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef long long anydnn_dim_t;

/* ArrayFire's af_err values. */
typedef enum {
  ANYDNN_AF_SUCCESS = 0,
  ANYDNN_AF_ERR_NO_MEM = 101,
  ANYDNN_AF_ERR_RUNTIME = 103,
  ANYDNN_AF_ERR_ARG = 202,
  ANYDNN_AF_ERR_SIZE = 203,
  ANYDNN_AF_ERR_TYPE = 204,
  ANYDNN_AF_ERR_NOT_SUPPORTED = 301,
  ANYDNN_AF_ERR_INTERNAL = 998
} anydnn_af_err;

/* ArrayFire's af_conv_gradient_type. DEFAULT and DATA return the data gradient, FILTER the
 * filter gradient, BIAS the bias gradient (1 x 1 x K x 1: the sum of the incoming gradient per
 * output channel), which ArrayFire declares but never implemented. */
typedef enum {
  ANYDNN_CONV_GRADIENT_DEFAULT = 0,
  ANYDNN_CONV_GRADIENT_FILTER = 1,
  ANYDNN_CONV_GRADIENT_DATA = 2,
  ANYDNN_CONV_GRADIENT_BIAS = 3
} anydnn_conv_gradient_type;

/* A 4-D array over caller memory: data and dims (d0 fastest; unused trailing dims are 1). */
typedef struct {
  const void* data;
  anydnn_dim_t dims[4];
} anydnn_af_view;

/* strides / dilations: 1 or 2 values (a missing height value is 1); paddings: 0, 1 or 2
 * values (missing ones are 0), each >= 0. */
typedef struct {
  unsigned stride_dims;
  const anydnn_dim_t* strides;
  unsigned padding_dims;
  const anydnn_dim_t* paddings;
  unsigned dilation_dims;
  const anydnn_dim_t* dilations;
} anydnn_af_conv_params;

/* out = signal (*) filter. out_dims receives the result's dims; with out == NULL nothing is
 * computed (a shape query). out_capacity counts elements; a smaller one is ANYDNN_AF_ERR_SIZE.
 * handle may be NULL: a handle is created for the call. */
anydnn_af_err anydnn_convolve2_nn(miopenHandle_t handle, miopenDataType_t type, void* out,
                                  anydnn_dim_t out_dims[4], size_t out_capacity,
                                  anydnn_af_view signal, anydnn_af_view filter,
                                  anydnn_af_conv_params params);

/* The gradient of convolve2_nn's output with respect to grad_type's operand (see
 * anydnn_conv_gradient_type). convolved_output is only checked against incoming_gradient's
 * dims, as in ArrayFire; its data may be NULL. */
anydnn_af_err anydnn_convolve2_gradient_nn(
    miopenHandle_t handle, miopenDataType_t type, void* out, anydnn_dim_t out_dims[4],
    size_t out_capacity, anydnn_af_view incoming_gradient, anydnn_af_view original_signal,
    anydnn_af_view original_filter, anydnn_af_view convolved_output, anydnn_af_conv_params params,
    anydnn_conv_gradient_type grad_type);

/* Copies this thread's last error message (NUL-terminated, truncated to len) and returns its
 * full length. */
size_t anydnn_af_get_last_error(char* buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* ANYDNN_CONVOLVE2NN_H */
