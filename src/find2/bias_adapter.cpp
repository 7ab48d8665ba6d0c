// Find 2.0 for bias problems (MIOpen's beta miopenCreateBiasProblem, for which MIOpen itself
// finds nothing): forward, Y = X + Bias with the bias one value per channel, through the
// convolution bias front-end (conv/conv_bias.hpp, miopenConvolutionForwardBias's kernel); X
// is copied to Y first unless they are the same buffer. MIOpen gives a bias problem's backward
// direction no meaning (its inputs would be BiasY, its output BiasX), so Find on one is
// NotImplemented; miopenConvolutionBackwardBias computes the bias gradient.
#include <sstream>

#include "conv/conv_bias.hpp"
#include "conv/conv_kernels.hpp"
#include "conv/conv_ops.hpp"  // find_time_ms
#include "core/errors.hpp"
#include "find2/operator_adapter.hpp"

namespace anydnn::find2 {

namespace {

constexpr uint64_t kBiasSolverId = solver_id_of(SolverFamily::Bias, 1);
constexpr const char* kBiasSolverName = "ConvBiasForward";

struct BiasTensors {
  const TensorDescriptor* x;
  const TensorDescriptor* bias;
  const TensorDescriptor* y;
};

BiasTensors bias_tensors(const Problem& problem) {
  const OperatorProblem& p = problem.single();
  ANYDNN_CHECK(p.direction() == miopenProblemDirectionForward, miopenStatusNotImplemented,
               "a backward bias problem has no solution (MIOpen defines none; "
               "miopenConvolutionBackwardBias computes the bias gradient)");
  BiasTensors t{&p.tensor(miopenTensorBiasX), &p.tensor(miopenTensorBias),
                &p.tensor(miopenTensorBiasY)};
  check_bias_shape(*t.bias, *t.y, "miopenTensorBias", "miopenTensorBiasY");
  ANYDNN_CHECK(*t.x == *t.y, miopenStatusNotImplemented,
               "miopenTensorBiasY must have miopenTensorBiasX's descriptor (lengths, strides and "
               "type)");
  return t;
}

// y = x + b: the copy (when not in place), then the bias kernel.
void add_bias(Handle& handle, const BiasTensors& t, const RunBuffers& b) {
  const void* x = b.get(miopenTensorBiasX);
  void* y = b.get(miopenTensorBiasY);
  if (x != y) handle.backend().copy(y, x, t.y->num_bytes(), CopyKind::DeviceToDevice);
  handle.backend().kernels<const ConvKernels>().bias_forward(*t.bias, b.get(miopenTensorBias), *t.y,
                                                             y, 1.0f, 0.0f);
}

class BiasAdapter final : public OperatorAdapter {
 public:
  bool takes(miopenProblemDirection_t, miopenTensorArgumentId_t id) const override {
    return id == miopenTensorBiasX || id == miopenTensorBiasY || id == miopenTensorBias;
  }

  std::string key(Handle&, const Problem& p) const override {
    const BiasTensors t = bias_tensors(p);
    std::ostringstream ss;
    ss << "bias";
    for (size_t l : t.y->lens())
      ss << ' ' << l;
    ss << " type " << static_cast<int>(t.y->type()) << " layout " << t.y->layout();
    return ss.str();
  }

  std::vector<FoundSolver> find(Handle& handle, const Problem& p, const RunBuffers& bufs,
                                const FindSettings&) const override {
    const BiasTensors t = bias_tensors(p);
    const float ms = find_time_ms(handle, [&] { add_bias(handle, t, bufs); });
    return {{kBiasSolverId, kBiasSolverName, ms, 0}};
  }

  void run(Handle& handle, const Problem& p, uint64_t solver_id, const RunBuffers& bufs,
           RunCache&) const override {
    ANYDNN_CHECK_BADPARM(solver_id == kBiasSolverId,
                         "solver id " << solver_id << " is not the bias solver's");
    const BiasTensors t = bias_tensors(p);
    handle.record_kernel_time(handle.run_primitive([&] { add_bias(handle, t, bufs); }));
  }
};

}  // namespace

const OperatorAdapter& bias_adapter() {
  static const BiasAdapter adapter;
  return adapter;
}

}  // namespace anydnn::find2
