// C API: convolution descriptors and output shapes.
#include <miopen/miopen.h>

#include <vector>

#include "api/api_guard.hpp"
#include "api/api_log.hpp"
#include "api/api_objects.hpp"

using namespace anydnn;
using namespace anydnn::api;

namespace {

std::vector<int> int_array(const int* values, int count, const char* name) {
  ANYDNN_CHECK_BADPARM(values != nullptr, name << " is a null pointer");
  return std::vector<int>(values, values + count);
}

}  // namespace

extern "C" miopenStatus_t miopenCreateConvolutionDescriptor(
    miopenConvolutionDescriptor_t* convDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc);
  return guard(cfg, __func__, [&] {
    auto& out = deref_out(convDesc, "convDesc");  // checked before allocating
    out = new ConvolutionObject();
  });
}

extern "C" miopenStatus_t miopenInitConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                          miopenConvolutionMode_t c_mode, int pad_h,
                                                          int pad_w, int stride_h, int stride_w,
                                                          int dilation_h, int dilation_w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, c_mode, pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w);
  return guard(cfg, __func__, [&] {
    auto& d = deref(convDesc);
    // Re-initialising resets group count and output padding, as in MIOpen.
    d = ConvolutionDescriptor(raw_enum(c_mode), {pad_h, pad_w}, {stride_h, stride_w},
                              {dilation_h, dilation_w});
  });
}

extern "C" miopenStatus_t miopenInitConvolutionNdDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                            int spatialDim, const int* padA,
                                                            const int* strideA,
                                                            const int* dilationA,
                                                            miopenConvolutionMode_t c_mode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, spatialDim, log_array(padA, spatialDim),
                 log_array(strideA, spatialDim), log_array(dilationA, spatialDim), c_mode);
  return guard(cfg, __func__, [&] {
    auto& d = deref(convDesc);
    ANYDNN_CHECK_BADPARM(spatialDim >= 1 && spatialDim <= 8,
                         "spatialDim = " << spatialDim << " is out of range");
    d = ConvolutionDescriptor(raw_enum(c_mode), int_array(padA, spatialDim, "padA"),
                              int_array(strideA, spatialDim, "strideA"),
                              int_array(dilationA, spatialDim, "dilationA"));
  });
}

extern "C" miopenStatus_t miopenGetConvolutionSpatialDim(miopenConvolutionDescriptor_t convDesc,
                                                         int* spatialDim) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, spatialDim);
  return guard(cfg, __func__,
               [&] { deref_out(spatialDim, "spatialDim") = deref(convDesc).spatial_dims(); });
}

extern "C" miopenStatus_t miopenGetConvolutionDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                         miopenConvolutionMode_t* c_mode,
                                                         int* pad_h, int* pad_w, int* stride_h,
                                                         int* stride_w, int* dilation_h,
                                                         int* dilation_w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, c_mode, pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(convDesc);
    ANYDNN_CHECK_BADPARM(d.spatial_dims() == 2,
                         "miopenGetConvolutionDescriptor needs a 2-D "
                         "descriptor; this one is "
                             << d.spatial_dims() << "-D (use miopenGetConvolutionNdDescriptor)");
    deref_out(c_mode, "c_mode") = d.mode();
    deref_out(pad_h, "pad_h") = d.pads()[0];
    deref_out(pad_w, "pad_w") = d.pads()[1];
    deref_out(stride_h, "stride_h") = d.strides()[0];
    deref_out(stride_w, "stride_w") = d.strides()[1];
    deref_out(dilation_h, "dilation_h") = d.dilations()[0];
    deref_out(dilation_w, "dilation_w") = d.dilations()[1];
  });
}

extern "C" miopenStatus_t miopenGetConvolutionNdDescriptor(miopenConvolutionDescriptor_t convDesc,
                                                           int requestedSpatialDim, int* spatialDim,
                                                           int* padA, int* strideA, int* dilationA,
                                                           miopenConvolutionMode_t* c_mode) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, requestedSpatialDim, spatialDim, padA, strideA, dilationA, c_mode);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(convDesc);
    ANYDNN_CHECK_BADPARM(requestedSpatialDim >= 0 && requestedSpatialDim <= d.spatial_dims(),
                         "requestedSpatialDim = " << requestedSpatialDim
                                                  << " exceeds the descriptor's spatial dimension "
                                                  << d.spatial_dims());
    ANYDNN_CHECK_BADPARM(padA != nullptr && strideA != nullptr && dilationA != nullptr,
                         "padA, strideA and dilationA must not be null");
    deref_out(spatialDim, "spatialDim") = d.spatial_dims();
    deref_out(c_mode, "c_mode") = d.mode();
    for (int i = 0; i < requestedSpatialDim; ++i) {
      padA[i] = d.pads()[i];
      strideA[i] = d.strides()[i];
      dilationA[i] = d.dilations()[i];
    }
  });
}

extern "C" miopenStatus_t miopenGetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc,
                                                         int* groupCount) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, groupCount);
  return guard(cfg, __func__,
               [&] { deref_out(groupCount, "groupCount") = deref(convDesc).group_count(); });
}

extern "C" miopenStatus_t miopenSetConvolutionGroupCount(miopenConvolutionDescriptor_t convDesc,
                                                         int groupCount) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, groupCount);
  return guard(cfg, __func__, [&] { deref(convDesc).set_group_count(groupCount); });
}

extern "C" miopenStatus_t miopenSetTransposeConvOutputPadding(
    miopenConvolutionDescriptor_t convDesc, int adj_h, int adj_w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, adj_h, adj_w);
  return guard(cfg, __func__, [&] {
    auto& d = deref(convDesc);
    ANYDNN_CHECK_BADPARM(d.spatial_dims() == 2, "a 2-D output padding was given for a "
                                                    << d.spatial_dims() << "-D convolution");
    d.set_trans_output_pads({adj_h, adj_w});
  });
}

extern "C" miopenStatus_t miopenSetTransposeConvNdOutputPadding(
    miopenConvolutionDescriptor_t convDesc, int spatialDim, const int* adjA) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, spatialDim, log_array(adjA, spatialDim));
  return guard(cfg, __func__, [&] {
    auto& d = deref(convDesc);
    ANYDNN_CHECK_BADPARM(
        spatialDim == d.spatial_dims(),
        "spatialDim = " << spatialDim << " but the descriptor is " << d.spatial_dims() << "-D");
    d.set_trans_output_pads(int_array(adjA, spatialDim, "adjA"));
  });
}

extern "C" miopenStatus_t miopenGetConvolutionForwardOutputDim(
    miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t inputTensorDesc,
    const miopenTensorDescriptor_t filterDesc, int* n, int* c, int* h, int* w) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, inputTensorDesc, filterDesc, n, c, h, w);
  return guard(cfg, __func__, [&] {
    const auto& d = deref(convDesc);
    ANYDNN_CHECK_BADPARM(d.spatial_dims() == 2,
                         "miopenGetConvolutionForwardOutputDim needs a 2-D convolution");
    const auto out = d.forward_output_lens(deref_set(inputTensorDesc, "inputTensorDesc"),
                                           deref_set(filterDesc, "filterDesc"));
    int* dst[] = {n, c, h, w};
    const char* names[] = {"n", "c", "h", "w"};
    for (int i = 0; i < 4; ++i) {
      ANYDNN_CHECK_BADPARM(out[i] <= 0x7fffffffu, "output length " << out[i] << " overflows int");
      deref_out(dst[i], names[i]) = static_cast<int>(out[i]);
    }
  });
}

extern "C" miopenStatus_t miopenGetConvolutionNdForwardOutputDim(
    miopenConvolutionDescriptor_t convDesc, const miopenTensorDescriptor_t inputTensorDesc,
    const miopenTensorDescriptor_t filterDesc, int* nDim, int* outputTensorDimA) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, inputTensorDesc, filterDesc, nDim, outputTensorDimA);
  return guard(cfg, __func__, [&] {
    const auto out = deref(convDesc).forward_output_lens(
        deref_set(inputTensorDesc, "inputTensorDesc"), deref_set(filterDesc, "filterDesc"));
    ANYDNN_CHECK_BADPARM(outputTensorDimA != nullptr, "outputTensorDimA is a null pointer");
    deref_out(nDim, "nDim") = static_cast<int>(out.size());
    for (size_t i = 0; i < out.size(); ++i) {
      ANYDNN_CHECK_BADPARM(out[i] <= 0x7fffffffu, "output length " << out[i] << " overflows int");
      outputTensorDimA[i] = static_cast<int>(out[i]);
    }
  });
}

extern "C" miopenStatus_t miopenDestroyConvolutionDescriptor(
    miopenConvolutionDescriptor_t convDesc) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc);
  return guard(cfg, __func__, [&] {
    deref(convDesc);
    delete static_cast<ConvolutionObject*>(convDesc);
  });
}

extern "C" miopenStatus_t miopenSetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                                        const miopenConvolutionAttrib_t attr,
                                                        int value) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, attr, value);
  return guard(cfg, __func__, [&] { deref(convDesc).set_attribute(raw_enum(attr), value); });
}

extern "C" miopenStatus_t miopenGetConvolutionAttribute(miopenConvolutionDescriptor_t convDesc,
                                                        const miopenConvolutionAttrib_t attr,
                                                        int* value) {
  const Config& cfg = process_config();
  ANYDNN_LOG_API(cfg, convDesc, attr, value);
  return guard(cfg, __func__,
               [&] { deref_out(value, "value") = deref(convDesc).get_attribute(raw_enum(attr)); });
}
