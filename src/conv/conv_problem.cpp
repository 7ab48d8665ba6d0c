#include "conv/conv_problem.hpp"

#include <sstream>

#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn {

namespace {

std::string join(const std::vector<size_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

const char* driver_base(miopenDataType_t t) {
  switch (t) {
    case miopenHalf:
      return "convfp16";
    case miopenBFloat16:
      return "convbfp16";
    case miopenInt8:
      return "convint8";
    default:
      return "conv";
  }
}

}  // namespace

const char* direction_name(ConvDirection d) {
  switch (d) {
    case ConvDirection::Forward:
      return "Forward";
    case ConvDirection::BackwardData:
      return "BackwardData";
    case ConvDirection::BackwardWeights:
      return "BackwardWeights";
  }
  return "Unknown";
}

ConvProblem::ConvProblem(ConvDirection direction, const TensorDescriptor& x,
                         const TensorDescriptor& w, const ConvolutionDescriptor& conv,
                         const TensorDescriptor& y)
    : direction_(direction), x_(x), w_(w), y_(y) {
  const char* xname = direction == ConvDirection::BackwardData ? "dx" : "x";
  const char* wname = direction == ConvDirection::BackwardWeights ? "dw" : "w";
  const char* yname = direction == ConvDirection::Forward ? "y" : "dy";
  ANYDNN_CHECK_BADPARM(x.is_set(), xname << " tensor descriptor is not set");
  ANYDNN_CHECK_BADPARM(w.is_set(), wname << " tensor descriptor is not set");
  ANYDNN_CHECK_BADPARM(y.is_set(), yname << " tensor descriptor is not set");

  // Shapes: the output lengths implied by x, w and conv must be y's.
  const auto expected = conv.forward_output_lens(x, w);
  if (expected != y.lens()) {
    std::ostringstream ss;
    ss << yname << " tensor lengths {" << join(y.lens()) << "} do not match the convolution of "
       << xname << " {" << join(x.lens()) << "} with " << wname << " {" << join(w.lens())
       << "}, which gives {" << join(expected) << "}";
    ANYDNN_THROW(miopenStatusBadParm, ss.str());
  }

  // Types: one storage type for all three tensors, except int8 forward, which writes int32 or
  // float (MIOpen's convint8).
  if (x.type() == miopenInt8 || w.type() == miopenInt8) {
    ANYDNN_CHECK_BADPARM(x.type() == miopenInt8 && w.type() == miopenInt8 &&
                             (y.type() == miopenInt32 || y.type() == miopenFloat),
                         "int8 convolution needs int8 " << xname << " and " << wname
                                                        << " and an int32 or float " << yname);
    ANYDNN_CHECK(direction == ConvDirection::Forward && conv.mode() == miopenConvolution,
                 miopenStatusNotImplemented,
                 "int8 convolution is supported for forward, non-transposed problems only");
  } else {
    ANYDNN_CHECK_BADPARM(x.type() == w.type() && x.type() == y.type(),
                         "data types differ: " << xname << " " << data_type_name(x.type()) << ", "
                                               << wname << " " << data_type_name(w.type()) << ", "
                                               << yname << " " << data_type_name(y.type()));
    ANYDNN_CHECK(is_float_like(x.type()), miopenStatusNotImplemented,
                 "convolution on " << data_type_name(x.type())
                                   << " data is not supported (float, half, bfloat16 and int8 "
                                      "forward are)");
  }

  spatial_ = conv.spatial_dims();
  groups_ = conv.group_count();
  attributes_ = conv.attributes();
  transposed_ = conv.mode() == miopenTranspose;
  key_ = make_key(x, w, conv, y);

  // Normalise a transposed convolution to the equivalent plain one: its input plays the role
  // of dy and its output the role of dx, so forward <-> backward-data and x <-> y.
  if (transposed_) {
    std::swap(x_, y_);
    if (direction_ == ConvDirection::Forward) {
      direction_ = ConvDirection::BackwardData;
    } else if (direction_ == ConvDirection::BackwardData) {
      direction_ = ConvDirection::Forward;
    }
  }

  const int first = 3 - spatial_;  // 2-D fills the last two of three slots
  for (int i = 0; i < spatial_; ++i) {
    in_[first + i] = x_.lens()[2 + i];
    filter_[first + i] = w_.lens()[2 + i];
    out_[first + i] = y_.lens()[2 + i];
    pad_[first + i] = conv.pads()[i];
    stride_[first + i] = conv.strides()[i];
    dilation_[first + i] = conv.dilations()[i];
  }
}

double ConvProblem::flop_count() const {
  double f = 2.0 * static_cast<double>(batch()) * static_cast<double>(out_channels()) *
             static_cast<double>(in_channels() / groups());
  for (int i = 0; i < 3; ++i)
    f *= static_cast<double>(filter_[i]) * static_cast<double>(out_[i]);
  return f;
}

namespace {

// " <flag> <value>": the key is rebuilt on every convolution call, so plain appends rather
// than a stream (whose construction alone costs about as much as the rest).
template <class T>
void flag(std::string& out, const char* name, T value) {
  out += ' ';
  out += name;
  out += ' ';
  out += std::to_string(value);
}

void append_conv_flags(std::string& out, const TensorDescriptor& x, const TensorDescriptor& w,
                       const ConvolutionDescriptor& conv, const TensorDescriptor& y) {
  const auto& xl = x.lens();
  const auto& wl = w.lens();
  const auto& p = conv.pads();
  const auto& s = conv.strides();
  const auto& d = conv.dilations();
  const size_t k = conv.mode() == miopenTranspose ? wl[1] * conv.group_count() : wl[0];
  std::string default_layout;
  if (conv.spatial_dims() == 2) {
    flag(out, "-n", xl[0]);
    flag(out, "-c", xl[1]);
    flag(out, "-H", xl[2]);
    flag(out, "-W", xl[3]);
    flag(out, "-k", k);
    flag(out, "-y", wl[2]);
    flag(out, "-x", wl[3]);
    flag(out, "-p", p[0]);
    flag(out, "-q", p[1]);
    flag(out, "-u", s[0]);
    flag(out, "-v", s[1]);
    flag(out, "-l", d[0]);
    flag(out, "-j", d[1]);
    default_layout = "NCHW";
  } else {
    flag(out, "-n", xl[0]);
    flag(out, "-c", xl[1]);
    flag(out, "--in_d", xl[2]);
    flag(out, "-H", xl[3]);
    flag(out, "-W", xl[4]);
    flag(out, "-k", k);
    flag(out, "--fil_d", wl[2]);
    flag(out, "-y", wl[3]);
    flag(out, "-x", wl[4]);
    flag(out, "--pad_d", p[0]);
    flag(out, "-p", p[1]);
    flag(out, "-q", p[2]);
    flag(out, "--conv_stride_d", s[0]);
    flag(out, "-u", s[1]);
    flag(out, "-v", s[2]);
    flag(out, "--dilation_d", d[0]);
    flag(out, "-l", d[1]);
    flag(out, "-j", d[2]);
    out += " --spatial_dim 3";
    default_layout = "NCDHW";
  }
  const std::string xl_s = x.layout(default_layout);
  const std::string wl_s = w.layout(default_layout);
  const std::string yl_s = y.layout(default_layout);
  if (xl_s != default_layout) out += " --in_layout " + xl_s;
  if (wl_s != default_layout) out += " --fil_layout " + wl_s;
  if (yl_s != default_layout) out += " --out_layout " + yl_s;
}

}  // namespace

void write_conv_flags(std::ostream& ss, const TensorDescriptor& x, const TensorDescriptor& w,
                      const ConvolutionDescriptor& conv, const TensorDescriptor& y) {
  std::string flags;
  append_conv_flags(flags, x, w, conv, y);
  ss << flags;
}

std::string ConvProblem::make_key(const TensorDescriptor& ux, const TensorDescriptor& uw,
                                  const ConvolutionDescriptor& conv,
                                  const TensorDescriptor& uy) const {
  // Same flag order as MIOpen's LogCmdConvolution, so existing tooling parses it. Two
  // differences keep the line replayable: -k is the true output channel count for grouped
  // transposed convolutions (MIOpen prints w[1]), and transpose output padding is printed.
  std::string out = driver_base(ux.type());
  out.reserve(160);
  append_conv_flags(out, ux, uw, conv, uy);
  out += conv.mode() == miopenTranspose ? " -m trans" : " -m conv";
  flag(out, "-g", conv.group_count());
  if (conv.mode() == miopenTranspose) {
    const auto& a = conv.trans_output_pads();
    if (conv.spatial_dims() == 3 && a[0] != 0) flag(out, "--trans_output_pad_d", a[0]);
    const size_t h = conv.spatial_dims() == 3 ? 1 : 0;
    if (a[h] != 0) flag(out, "-Y", a[h]);
    if (a[h + 1] != 0) flag(out, "-X", a[h + 1]);
  }
  flag(out, "-F", static_cast<int>(direction_));
  return out;
}

std::string ConvProblem::network_config() const {
  std::string cfg = key_;
  for (const TensorDescriptor* t : {&x_, &w_, &y_}) {
    if (!t->is_packed()) cfg += " strides:" + join(t->strides());
  }
  return cfg;
}

std::string ConvProblem::identifier() const {
  std::string id = key_;
  for (char& c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!ok) c = '_';
  }
  return id;
}

}  // namespace anydnn
