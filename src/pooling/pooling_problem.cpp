#include "pooling/pooling_problem.hpp"

#include <sstream>
#include <vector>

#include "core/data_type.hpp"
#include "core/elementwise_geometry.hpp"  // elements_disjoint
#include "core/errors.hpp"

namespace anydnn {

namespace {

std::string joined(const std::vector<size_t>& v) {
  std::ostringstream ss;
  for (size_t i = 0; i < v.size(); ++i)
    ss << (i ? "x" : "") << v[i];
  return ss.str();
}

const TensorDescriptor& checked(const TensorDescriptor* d, const char* name) {
  ANYDNN_CHECK_BADPARM(d != nullptr && d->is_set(), name << " has not been set");
  return *d;
}

void same_type(const TensorDescriptor& a, const char* an, const TensorDescriptor& b,
               const char* bn) {
  ANYDNN_CHECK_BADPARM(a.type() == b.type(), an << " is " << data_type_name(a.type()) << " but "
                                                << bn << " is " << data_type_name(b.type()));
}

void same_lens(const TensorDescriptor& a, const char* an, const TensorDescriptor& b,
               const char* bn) {
  ANYDNN_CHECK_BADPARM(a.lens() == b.lens(), an << " is " << joined(a.lens()) << " but " << bn
                                                << " is " << joined(b.lens()));
}

// n, c, d, h, w strides of a 4-D / 5-D tensor (2-D: depth stride 0).
void strides5(const TensorDescriptor& t, long long (&s)[5]) {
  const auto& st = t.strides();
  const bool is3d = t.num_dims() == 5;
  s[0] = static_cast<long long>(st[0]);
  s[1] = static_cast<long long>(st[1]);
  s[2] = is3d ? static_cast<long long>(st[2]) : 0;
  s[3] = static_cast<long long>(st[st.size() - 2]);
  s[4] = static_cast<long long>(st[st.size() - 1]);
}

}  // namespace

std::string PoolingProblem::driver_base(miopenDataType_t type) {
  if (type == miopenHalf) return "poolfp16";
  if (type == miopenBFloat16) return "poolbfp16";
  return "pool";
}

PoolingProblem::PoolingProblem(PoolDirection direction, const PoolingDesc& desc,
                               const PoolDescriptors& d, bool save_index)
    : direction_(direction), desc_(desc) {
  ANYDNN_CHECK_BADPARM(desc.is_set(), "the pooling descriptor has not been set");
  ANYDNN_CHECK_BADPARM(desc.mode >= miopenPoolingMax && desc.mode <= miopenPoolingAverageInclusive,
                       "pooling mode " << static_cast<int>(desc.mode) << " is not valid");
  x_ = checked(d.x, "xDesc");
  y_ = checked(d.y, "yDesc");
  ANYDNN_CHECK(x_.num_dims() == 4 || x_.num_dims() == 5, miopenStatusNotImplemented,
               "pooling takes 4-D (2-D pooling) or 5-D (3-D pooling) tensors, not " << x_.num_dims()
                                                                                    << "-D");
  const size_t sd = desc.lens.size();
  ANYDNN_CHECK_BADPARM(x_.num_dims() == sd + 2, "a " << sd << "-D pooling window needs " << sd + 2
                                                     << "-D tensors, xDesc is " << x_.num_dims()
                                                     << "-D");
  ANYDNN_CHECK_BADPARM(y_.num_dims() == x_.num_dims(),
                       "yDesc is " << y_.num_dims() << "-D but xDesc is " << x_.num_dims() << "-D");
  ANYDNN_CHECK_BADPARM(y_.lens()[0] == x_.lens()[0] && y_.lens()[1] == x_.lens()[1],
                       "yDesc is " << joined(y_.lens()) << " but xDesc is " << joined(x_.lens())
                                   << " (batch and channel counts must match)");
  same_type(y_, "yDesc", x_, "xDesc");
  ANYDNN_CHECK(x_.type() == miopenFloat || x_.type() == miopenHalf || x_.type() == miopenBFloat16,
               miopenStatusNotImplemented,
               "pooling supports float, half and bfloat16 data, not " << data_type_name(x_.type()));
  save_index_ = forward() && save_index && desc.mode == miopenPoolingMax;
  if (forward()) {
    ANYDNN_CHECK_BADPARM(elements_disjoint(y_), "yDesc has strides under which elements overlap");
  } else {
    dx_ = checked(d.dx, "dxDesc");
    dy_ = checked(d.dy, "dyDesc");
    same_lens(dx_, "dxDesc", x_, "xDesc");
    same_lens(dy_, "dyDesc", y_, "yDesc");
    same_type(dx_, "dxDesc", x_, "xDesc");
    same_type(dy_, "dyDesc", x_, "xDesc");
    ANYDNN_CHECK_BADPARM(elements_disjoint(dx_), "dxDesc has strides under which elements overlap");
  }
  // MIOpen's range check (pooling_ocl.cpp): the largest index value marks "no element" in its
  // backward kernels, so the window (mask) or image (image) must have fewer positions.
  if (save_index_ || reads_index()) {
    unsigned long long positions = 1;
    if (desc.index_mode == miopenPoolingWorkspaceIndexMask) {
      for (int k : desc.lens)
        positions *= static_cast<unsigned long long>(k);
    } else {
      for (size_t i = 2; i < x_.num_dims(); ++i)
        positions *= x_.lens()[i];
    }
    ANYDNN_CHECK_BADPARM(pooling_index_max(desc.index_type) > positions,
                         "the index type holds at most "
                             << pooling_index_max(desc.index_type) << " but the "
                             << (desc.index_mode ? "image" : "window") << " has " << positions
                             << " positions");
  }

  pool::PoolGeometry& g = geometry_;
  const bool is3d = x_.num_dims() == 5;
  const int off = is3d ? 0 : 1;  // 2-D fills h, w
  g.n = static_cast<long long>(x_.lens()[0]);
  g.c = static_cast<long long>(x_.lens()[1]);
  for (size_t i = 0; i < sd; ++i) {
    g.in[i + off] = static_cast<long long>(x_.lens()[i + 2]);
    g.out[i + off] = static_cast<long long>(y_.lens()[i + 2]);
    g.k[i + off] = desc.lens[i];
    g.pad[i + off] = desc.pads[i];
    g.stride[i + off] = desc.strides[i];
  }
  strides5(forward() ? x_ : dx_, g.xs);
  strides5(forward() ? y_ : dy_, g.ys);
  g.mode = desc.mode;
  g.index_mode = desc.index_mode;
  g.index_type = desc.index_type;

  // MIOpen's Pooling_logging_cmd, field by field.
  std::ostringstream k;
  k << driver_base(x_.type()) << " -M " << static_cast<int>(desc.index_mode) << " --input "
    << joined(x_.lens()) << "," << joined(x_.strides());
  if (is3d) k << " -Z " << desc.lens[0];
  k << " -y " << desc.lens[sd - 2] << " -x " << desc.lens[sd - 1];
  if (is3d) k << " -o " << desc.pads[0];
  k << " -p " << desc.pads[sd - 2] << " -q " << desc.pads[sd - 1];
  if (is3d) k << " -s " << desc.strides[0];
  k << " -v " << desc.strides[sd - 2] << " -u " << desc.strides[sd - 1] << " -m "
    << (desc.mode == miopenPoolingMax ? "max"
                                      : (desc.mode == miopenPoolingAverage ? "avg" : "avg_in"))
    << " -F " << (forward() ? 1 : 0) << " -t 1";
  key_ = k.str();
}

bool PoolingProblem::channels_last() const {
  const TensorDescriptor& o = forward() ? y_ : dx_;
  return o.is_packed_layout(o.num_dims() == 5 ? "NDHWC" : "NHWC");
}

}  // namespace anydnn
