#include "find2/solution_blob.hpp"

#include <miopen/version.h>

#include <cstring>
#include <string>

#include "core/errors.hpp"
#include "find2/find2_ops.hpp"

namespace anydnn::find2 {

namespace {

constexpr char kMagic[8] = {'A', 'N', 'Y', 'D', 'N', 'N', 'S', '\0'};
constexpr size_t kHeaderBytes = 24;  // magic, version, flags, total size
constexpr size_t kChecksumBytes = 8;
// Bounds that no real blob reaches; a larger count means a corrupt blob, not an allocation.
constexpr uint32_t kMaxString = 4096;
constexpr uint32_t kMaxParts = 64;
constexpr uint32_t kMaxTensors = 64;

uint64_t fnv1a(const char* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string library_version() {
  return "anydnn " ANYDNN_VERSION_STRING " (MIOpen API " + std::to_string(MIOPEN_VERSION_MAJOR) +
         "." + std::to_string(MIOPEN_VERSION_MINOR) + "." + std::to_string(MIOPEN_VERSION_PATCH) +
         ")";
}

class Writer {
 public:
  void bytes(const void* p, size_t n) {
    const char* c = static_cast<const char*>(p);
    out_.insert(out_.end(), c, c + n);
  }
  void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void i32(int v) { u32(static_cast<uint32_t>(v)); }
  void f32(float v) {
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    u32(b);
  }
  void f64(double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    u64(b);
  }
  void str(const std::string& s) {
    u32(static_cast<uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  void ints(const std::vector<int>& v) {
    u32(static_cast<uint32_t>(v.size()));
    for (int x : v)
      i32(x);
  }
  std::vector<char>& out() { return out_; }

 private:
  std::vector<char> out_;
};

class Reader {
 public:
  Reader(const char* data, size_t size) : p_(data), end_(data + size) {}
  void need(size_t n, const char* what) {
    ANYDNN_CHECK_BADPARM(static_cast<size_t>(end_ - p_) >= n,
                         "corrupt solution blob: it ends inside the " << what);
  }
  uint8_t u8(const char* what) {
    need(1, what);
    return static_cast<uint8_t>(*p_++);
  }
  uint32_t u32(const char* what) {
    need(4, what);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(static_cast<unsigned char>(*p_++)) << (8 * i);
    return v;
  }
  uint64_t u64(const char* what) {
    need(8, what);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(static_cast<unsigned char>(*p_++)) << (8 * i);
    return v;
  }
  int i32(const char* what) { return static_cast<int>(u32(what)); }
  float f32(const char* what) {
    const uint32_t b = u32(what);
    float v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  double f64(const char* what) {
    const uint64_t b = u64(what);
    double v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
  std::string str(const char* what) {
    const uint32_t n = u32(what);
    ANYDNN_CHECK_BADPARM(n <= kMaxString,
                         "corrupt solution blob: the " << what << " has " << n << " bytes");
    need(n, what);
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  std::vector<int> ints(const char* what) {
    const uint32_t n = u32(what);
    ANYDNN_CHECK_BADPARM(n <= TensorDescriptor::kMaxDims,
                         "corrupt solution blob: the " << what << " has " << n << " values");
    std::vector<int> v(n);
    for (auto& x : v)
      x = i32(what);
    return v;
  }
  bool done() const { return p_ == end_; }

 private:
  const char* p_;
  const char* end_;
};

void write_operator(Writer& w, const OperatorDescriptor& op) {
  switch (static_cast<OperatorKind>(op.index())) {
    case OperatorKind::Convolution: {
      const auto& c = std::get<ConvolutionDescriptor>(op);
      w.i32(c.mode());
      w.i32(c.padding_mode());
      w.ints(c.pads());
      w.ints(c.strides());
      w.ints(c.dilations());
      w.ints(c.trans_output_pads());
      w.i32(c.group_count());
      w.i32(c.attributes().fp16_alt_impl);
      w.i32(c.attributes().deterministic);
      w.i32(c.attributes().fp8_rounding_mode);
      break;
    }
    case OperatorKind::Activation: {
      const auto& a = std::get<ActivMode>(op);
      w.i32(a.mode);
      w.f64(a.alpha);
      w.f64(a.beta);
      w.f64(a.gamma);
      break;
    }
    case OperatorKind::Bias:
      break;
    case OperatorKind::Softmax: {
      const auto& s = std::get<SoftmaxOperator>(op);
      w.f32(s.alpha);
      w.f32(s.beta);
      w.i32(s.algorithm);
      w.i32(s.mode);
      break;
    }
    case OperatorKind::Mha:
      w.f32(std::get<MhaOperator>(op).scale);
      break;
    case OperatorKind::Batchnorm: {
      const auto& b = std::get<BatchnormOperator>(op);
      w.i32(b.mode);
      w.u8(b.running_mean_variance ? 1 : 0);
      break;
    }
  }
}

OperatorDescriptor read_operator(Reader& r, uint8_t kind) {
  switch (static_cast<OperatorKind>(kind)) {
    case OperatorKind::Convolution: {
      const int mode = r.i32("convolution mode");
      ANYDNN_CHECK_BADPARM(mode == miopenConvolution || mode == miopenTranspose,
                           "corrupt solution blob: convolution mode " << mode);
      const int padding = r.i32("padding mode");
      auto pads = r.ints("pads");
      auto strides = r.ints("strides");
      auto dilations = r.ints("dilations");
      auto adj = r.ints("output pads");
      ConvolutionDescriptor c(static_cast<miopenConvolutionMode_t>(mode), pads, strides, dilations);
      c.set_padding_mode(static_cast<miopenPaddingMode_t>(padding));
      c.set_trans_output_pads(adj);
      c.set_group_count(r.i32("group count"));
      c.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_FP16_ALT_IMPL, r.i32("attribute"));
      c.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_DETERMINISTIC, r.i32("attribute"));
      c.set_attribute(MIOPEN_CONVOLUTION_ATTRIB_FP8_ROUNDING_MODE, r.i32("attribute"));
      return c;
    }
    case OperatorKind::Activation: {
      const int mode = r.i32("activation mode");
      ANYDNN_CHECK_BADPARM(mode >= miopenActivationPASTHRU && mode <= miopenActivationELU,
                           "corrupt solution blob: activation mode " << mode);
      ActivMode a;
      a.mode = static_cast<miopenActivationMode_t>(mode);
      a.alpha = r.f64("activation alpha");
      a.beta = r.f64("activation beta");
      a.gamma = r.f64("activation gamma");
      return a;
    }
    case OperatorKind::Bias:
      return BiasOperator{};
    case OperatorKind::Softmax: {
      SoftmaxOperator s;
      s.alpha = r.f32("softmax alpha");
      s.beta = r.f32("softmax beta");
      const int algorithm = r.i32("softmax algorithm");
      const int mode = r.i32("softmax mode");
      ANYDNN_CHECK_BADPARM(
          algorithm >= MIOPEN_SOFTMAX_FAST && algorithm <= MIOPEN_SOFTMAX_LOG &&
              (mode == MIOPEN_SOFTMAX_MODE_INSTANCE || mode == MIOPEN_SOFTMAX_MODE_CHANNEL),
          "corrupt solution blob: softmax algorithm " << algorithm << ", mode " << mode);
      s.algorithm = static_cast<miopenSoftmaxAlgorithm_t>(algorithm);
      s.mode = static_cast<miopenSoftmaxMode_t>(mode);
      return s;
    }
    case OperatorKind::Mha:
      return MhaOperator{r.f32("mha scale")};
    case OperatorKind::Batchnorm: {
      const int mode = r.i32("batch-norm mode");
      ANYDNN_CHECK_BADPARM(mode == miopenBNPerActivation || mode == miopenBNSpatial,
                           "corrupt solution blob: batch-norm mode " << mode);
      const uint8_t running = r.u8("batch-norm flag");
      ANYDNN_CHECK_BADPARM(running <= 1, "corrupt solution blob: batch-norm flag " << running);
      return BatchnormOperator{static_cast<miopenBatchNormMode_t>(mode), running == 1};
    }
  }
  ANYDNN_THROW(miopenStatusBadParm, "corrupt solution blob: operator kind " << int{kind});
}

void write_problem(Writer& w, const Problem& problem) {
  w.u8(problem.fused() ? 1 : 0);
  w.u32(static_cast<uint32_t>(problem.parts().size()));
  for (const auto& part : problem.parts()) {
    w.u8(static_cast<uint8_t>(part.kind()));
    w.i32(part.direction());
    write_operator(w, part.op());
    w.u32(static_cast<uint32_t>(part.tensors().size()));
    for (const auto& [id, desc] : part.tensors()) {
      w.u32(static_cast<uint32_t>(id));
      w.i32(desc.type());
      w.u32(static_cast<uint32_t>(desc.num_dims()));
      for (size_t l : desc.lens())
        w.u64(l);
      for (size_t s : desc.strides())
        w.u64(s);
    }
  }
}

Problem read_problem(Reader& r) {
  const uint8_t fused = r.u8("problem");
  ANYDNN_CHECK_BADPARM(fused <= 1, "corrupt solution blob: fused flag " << int{fused});
  const uint32_t n = r.u32("problem");
  ANYDNN_CHECK_BADPARM(n >= 1 && n <= kMaxParts && (fused == 1 || n == 1),
                       "corrupt solution blob: " << n << " operators");
  std::vector<OperatorProblem> parts;
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t kind = r.u8("operator");
    ANYDNN_CHECK_BADPARM(kind <= static_cast<uint8_t>(OperatorKind::Batchnorm),
                         "corrupt solution blob: operator kind " << int{kind});
    const int direction = r.i32("direction");
    ANYDNN_CHECK_BADPARM(direction == miopenProblemDirectionForward ||
                             direction == miopenProblemDirectionBackward ||
                             direction == miopenProblemDirectionBackwardWeights ||
                             direction == miopenProblemDirectionInference,
                         "corrupt solution blob: direction " << direction);
    OperatorProblem part(read_operator(r, kind), static_cast<miopenProblemDirection_t>(direction));
    const uint32_t count = r.u32("tensor count");
    ANYDNN_CHECK_BADPARM(count <= kMaxTensors, "corrupt solution blob: " << count << " tensors");
    for (uint32_t t = 0; t < count; ++t) {
      const auto id = static_cast<miopenTensorArgumentId_t>(r.u32("tensor id"));
      const int type = r.i32("data type");
      ANYDNN_CHECK_BADPARM(type >= miopenHalf && type <= miopenInt64 && type != 4,
                           "corrupt solution blob: data type " << type);
      const uint32_t dims = r.u32("tensor rank");
      ANYDNN_CHECK_BADPARM(dims >= 1 && dims <= TensorDescriptor::kMaxDims,
                           "corrupt solution blob: a tensor of rank " << dims);
      std::vector<size_t> lens(dims), strides(dims);
      for (auto& l : lens)
        l = r.u64("tensor lengths");
      for (auto& s : strides)
        s = r.u64("tensor strides");
      part.set_tensor(id, TensorDescriptor(static_cast<miopenDataType_t>(type), lens, strides));
    }
    parts.push_back(std::move(part));
  }
  return Problem(std::move(parts), fused == 1);
}

Solution read_body(const char* data, size_t size) {
  Reader r(data + kHeaderBytes, size - kHeaderBytes - kChecksumBytes);
  r.str("library version");
  const uint8_t backend = r.u8("backend");
  ANYDNN_CHECK_BADPARM(backend <= 1, "corrupt solution blob: backend " << int{backend});
  std::string device = r.str("device id");
  FoundSolver f;
  f.solver_id = r.u64("solver id");
  f.solver_name = r.str("solver name");
  f.time_ms = r.f32("time");
  f.workspace_size = r.u64("workspace size");
  Problem problem = read_problem(r);
  ANYDNN_CHECK_BADPARM(r.done(), "corrupt solution blob: bytes after the problem");
  return Solution(std::move(problem), std::move(f),
                  backend == 1 ? BackendKind::Cuda : BackendKind::Cpu, std::move(device));
}

}  // namespace

std::vector<char> save_solution_blob(const Solution& s) {
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  w.u32(kSolutionBlobVersion);
  w.u32(0);  // flags
  w.u64(0);  // total size, patched below
  w.str(library_version());
  w.u8(s.backend() == BackendKind::Cuda ? 1 : 0);
  w.str(s.device_id());
  w.u64(s.solver_id());
  w.str(s.solver_name());
  w.f32(s.time_ms());
  w.u64(s.workspace_size());
  write_problem(w, s.problem());
  std::vector<char>& out = w.out();
  const uint64_t total = out.size() + kChecksumBytes;
  for (int i = 0; i < 8; ++i)
    out[16 + i] = static_cast<char>((total >> (8 * i)) & 0xff);
  w.u64(fnv1a(out.data(), out.size()));
  return std::move(out);
}

Solution load_solution_blob(const char* data, size_t size) {
  ANYDNN_CHECK_BADPARM(data != nullptr, "Data parameter should not be a nullptr.");
  ANYDNN_CHECK_BADPARM(size >= sizeof kMagic + 4, "a solution blob has at least "
                                                      << kHeaderBytes + kChecksumBytes << " bytes; "
                                                      << size << " given");
  ANYDNN_CHECK_BADPARM(std::memcmp(data, kMagic, sizeof kMagic) == 0,
                       "not a solution blob of this library (its first bytes are not \"ANYDNNS\")");
  Reader header(data + sizeof kMagic, size - sizeof kMagic);
  const uint32_t version = header.u32("format version");
  ANYDNN_CHECK(version == kSolutionBlobVersion, miopenStatusVersionMismatch,
               "the solution blob has format version " << version << "; " << library_version()
                                                       << " reads version " << kSolutionBlobVersion
                                                       << ": find the solution again");
  ANYDNN_CHECK_BADPARM(size >= kHeaderBytes + kChecksumBytes,
                       "truncated solution blob: " << size << " bytes");
  header.u32("flags");
  const uint64_t total = header.u64("size");
  ANYDNN_CHECK_BADPARM(total == size, "the solution blob says it has " << total << " bytes, but "
                                                                       << size << " were given");
  uint64_t stored = 0;
  for (int i = 0; i < 8; ++i)
    stored |= static_cast<uint64_t>(static_cast<unsigned char>(data[size - 8 + i])) << (8 * i);
  ANYDNN_CHECK_BADPARM(stored == fnv1a(data, size - kChecksumBytes),
                       "corrupt solution blob: its checksum does not match");

  // The checksum matched: a field that still does not validate was written by something else.
  try {
    return read_body(data, size);
  } catch (const Error& e) {
    if (e.status() == miopenStatusBadParm) throw;
    ANYDNN_THROW(miopenStatusBadParm, "corrupt solution blob: " << e.message());
  }
}

}  // namespace anydnn::find2
