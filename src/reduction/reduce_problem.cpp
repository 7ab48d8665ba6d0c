#include "reduction/reduce_problem.hpp"

#include <cstring>
#include <sstream>

#include "core/data_type.hpp"
#include "core/errors.hpp"

namespace anydnn {

namespace {

// MIOpen throws these without a status, which its try_ turns into UnknownError.
#define ANYDNN_CHECK_UNKNOWN(cond, msg) ANYDNN_CHECK(cond, miopenStatusUnknownError, msg)

// MIOpen's limit (ReduceTensor: "at most number of dimensions of 6 is supported").
constexpr size_t kMaxReduceRank = 6;

double read_scalar(const void* p, miopenDataType_t type, const char* name) {
  ANYDNN_CHECK_BADPARM(p != nullptr, name << " is a null pointer");
  if (type == miopenDouble) {
    double v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  float v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

const char* key_base(miopenDataType_t t) {
  switch (t) {
    case miopenHalf:
      return "reducefp16";
    case miopenFloat:
      return "reducefp";
    case miopenBFloat16:
      return "reducebfp16";
    case miopenDouble:
      return "reducefp64";
    case miopenInt32:
      return "reduceint";
    case miopenInt8:
      return "reduceint8";
    default:
      return "reduce";
  }
}

}  // namespace

bool ReduceTensorDesc::needs_indices() const {
  return indices == MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES &&
         (op == MIOPEN_REDUCE_TENSOR_MIN || op == MIOPEN_REDUCE_TENSOR_MAX ||
          op == MIOPEN_REDUCE_TENSOR_AMAX);
}

ReduceTensorDesc make_reduce_desc(long long op, long long comp_type, long long nan_opt,
                                  long long indices, long long indices_type) {
  ANYDNN_CHECK_BADPARM(op >= MIOPEN_REDUCE_TENSOR_ADD && op <= MIOPEN_REDUCE_TENSOR_NORM2,
                       "reduceTensorOp " << op << " is not a miopenReduceTensorOp_t");
  ANYDNN_CHECK_BADPARM(is_valid_data_type(comp_type),
                       "reduceTensorCompType " << comp_type << " is not a miopenDataType_t");
  ANYDNN_CHECK_BADPARM(nan_opt == MIOPEN_NOT_PROPAGATE_NAN || nan_opt == MIOPEN_PROPAGATE_NAN,
                       "reduceTensorNanOpt " << nan_opt << " is not a miopenNanPropagation_t");
  ANYDNN_CHECK_BADPARM(
      indices == MIOPEN_REDUCE_TENSOR_NO_INDICES ||
          indices == MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES,
      "reduceTensorIndices " << indices << " is not a miopenReduceTensorIndices_t");
  ANYDNN_CHECK_BADPARM(
      indices_type >= MIOPEN_32BIT_INDICES && indices_type <= MIOPEN_8BIT_INDICES,
      "reduceTensorIndicesType " << indices_type << " is not a miopenIndicesType_t");
  ANYDNN_CHECK_UNKNOWN(
      indices != MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES || indices_type == MIOPEN_32BIT_INDICES,
      "Only int32 type is supported for ReduceTensor indices.");
  ReduceTensorDesc d;
  d.op = static_cast<miopenReduceTensorOp_t>(op);
  d.comp_type = static_cast<miopenDataType_t>(comp_type);
  d.nan_opt = static_cast<miopenNanPropagation_t>(nan_opt);
  d.indices = static_cast<miopenReduceTensorIndices_t>(indices);
  d.indices_type = static_cast<miopenIndicesType_t>(indices_type);
  return d;
}

void check_reduce_shapes(const TensorDescriptor& a, const TensorDescriptor& c) {
  ANYDNN_CHECK_UNKNOWN(a.num_dims() == c.num_dims(),
                       "The number of dimensions of the input and output tensor should match ("
                           << a.num_dims() << " vs " << c.num_dims() << ").");
  for (size_t i = 0; i < a.num_dims(); ++i)
    ANYDNN_CHECK_UNKNOWN(c.lens()[i] == 1 || c.lens()[i] == a.lens()[i],
                         "The length of the output tensor dimension "
                             << i << " (" << c.lens()[i]
                             << ") should either be 1 or be equal to the input's (" << a.lens()[i]
                             << ").");
}

size_t reduce_indices_size(const ReduceTensorDesc& d, const TensorDescriptor& a,
                           const TensorDescriptor& c) {
  check_reduce_shapes(a, c);
  return d.needs_indices() ? c.element_count() * sizeof(int) : 0;
}

size_t reduce_workspace_size(const ReduceTensorDesc& d, const TensorDescriptor& a,
                             const TensorDescriptor& c) {
  check_reduce_shapes(a, c);
  // MIOpen's ReductionKernelConfigurator with block 256 and wave 64: only the multi-block
  // method (reduced extent > 4 blocks' worth) keeps partial results, one per block.
  constexpr size_t kBlock = 256, kBlockWiseMax = kBlock * 4, kMaxBlocksPerReduction = 32;
  const size_t invariant = c.element_count();
  const size_t to_reduce = invariant == 0 ? 0 : a.element_count() / invariant;
  size_t partials = 0;
  if (to_reduce > kBlockWiseMax) {
    if (invariant == 1) {
      partials = (to_reduce + kBlock - 1) / kBlock;
    } else {
      const size_t blocks = (to_reduce + kBlockWiseMax - 1) / kBlockWiseMax;
      partials = invariant * (blocks > kMaxBlocksPerReduction ? kMaxBlocksPerReduction : blocks);
    }
  }
  const size_t type_size = data_type_size(a.type());
  const size_t bytes = !d.needs_indices()
                           ? partials * type_size
                           : partials * (type_size + sizeof(int)) + 64 + sizeof(int) + 64;
  return bytes + 4096;
}

std::string reduce_key(const ReduceTensorDesc& d, const TensorDescriptor& a,
                       const TensorDescriptor& c, double alpha, double beta) {
  // MIOpen streams the scalars as floats (default formatting: "1", "0.5").
  std::ostringstream ss;
  ss << key_base(a.type()) << " -A " << static_cast<float>(alpha) << " -B "
     << static_cast<float>(beta) << " -C " << static_cast<int>(d.comp_type) << " -D ";
  for (size_t i = 0; i < a.num_dims(); ++i)
    ss << (i ? "," : "") << a.lens()[i];
  ss << " -I " << static_cast<int>(d.indices) << " -N " << static_cast<int>(d.nan_opt) << " -O "
     << static_cast<int>(d.op) << " -R ";
  bool first = true;
  for (size_t i = 0; i < c.num_dims(); ++i) {
    if (c.lens()[i] != 1) continue;
    ss << (first ? "" : ",") << i;
    first = false;
  }
  return ss.str();
}

ReduceProblem::ReduceProblem(const ReduceTensorDesc& d, const TensorDescriptor& a,
                             const TensorDescriptor& c, const void* alpha, const void* beta,
                             size_t indices_bytes, size_t workspace_bytes)
    : desc_(d), a_(a), c_(c) {
  ANYDNN_CHECK_UNKNOWN(a.num_dims() <= kMaxReduceRank,
                       "Invalid TensorDescriptor, at most number of dimensions of 6 is supported ("
                           << a.num_dims() << ").");
  check_reduce_shapes(a, c);
  bool any_reduced = false;
  for (size_t i = 0; i < c.num_dims(); ++i)
    any_reduced = any_reduced || c.lens()[i] == 1;
  ANYDNN_CHECK_UNKNOWN(any_reduced,
                       "Invalid TensorDescriptor, at least one dimension of the input tensor "
                       "should be reduced (C has no length-1 dimension).");
  const miopenDataType_t t = a.type();
  ANYDNN_CHECK(t == miopenFloat || t == miopenHalf || t == miopenBFloat16 || t == miopenDouble,
               miopenStatusNotImplemented,
               "reduction of " << data_type_name(t) << " data is not implemented");
  ANYDNN_CHECK(c.type() == t, miopenStatusNotImplemented,
               "A is " << data_type_name(t) << " but C is " << data_type_name(c.type())
                       << ": mixed-type reduction is not implemented");
  const miopenDataType_t ct = d.comp_type;
  ANYDNN_CHECK(ct == miopenFloat || ct == miopenHalf || ct == miopenBFloat16 || ct == miopenDouble,
               miopenStatusNotImplemented,
               "reduceTensorCompType " << data_type_name(ct) << " is not implemented");
  // Indices land at C's offsets (MIOpen writes indices[dst_offset]) in a buffer sized for C's
  // elements: only a packed C keeps them inside it.
  ANYDNN_CHECK(!d.needs_indices() || c.is_packed(), miopenStatusNotImplemented,
               "indices with a non-packed C are not implemented");
  const double al = read_scalar(alpha, t, "alpha"), be = read_scalar(beta, t, "beta");
  ANYDNN_CHECK_UNKNOWN(reduce_workspace_size(d, a, c) <= workspace_bytes,
                       "The workspace size allocated is not enough! ("
                           << workspace_bytes << " < " << reduce_workspace_size(d, a, c) << ")");
  ANYDNN_CHECK_UNKNOWN(reduce_indices_size(d, a, c) <= indices_bytes,
                       "The indices size allocated is not enough! ("
                           << indices_bytes << " < " << reduce_indices_size(d, a, c) << ")");
  plan_ = plan_reduce(d.op, t, d.nan_opt == MIOPEN_PROPAGATE_NAN, d.needs_indices(),
                      static_cast<int>(a.num_dims()), a.lens().data(), a.strides().data(),
                      c.lens().data(), c.strides().data());
  // The compute precision: fp32 scalars for the float types, as the kernels multiply by them.
  plan_.alpha = t == miopenDouble ? al : static_cast<double>(static_cast<float>(al));
  plan_.beta = t == miopenDouble ? be : static_cast<double>(static_cast<float>(be));
  key_ = reduce_key(d, a, c, al, be);
}

}  // namespace anydnn
