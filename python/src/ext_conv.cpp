// Convolution on DLPack arrays: output shape, immediate-mode solutions and runs, legacy Find and
// its algorithms, workspace sizes, bias. Directions: 0 forward (a = x, b = w, c = y), 1 backward
// data (a = dy, b = w, c = dx), 2 backward weights (a = dy, b = x, c = dw); c is written.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <tuple>

#include "ext_common.hpp"

namespace anydnn::py {
namespace {

// A convolution descriptor built once from the module's arguments.
class ConvParams {
 public:
  ConvParams(const std::vector<int>& pads, const std::vector<int>& strides,
             const std::vector<int>& dilations, int groups, bool transposed,
             const std::vector<int>& output_padding) {
    const size_t n = pads.size();
    if (n < 1 || n > 3 || strides.size() != n || dilations.size() != n ||
        (!output_padding.empty() && output_padding.size() != n))
      value_error(
          "padding, stride, dilation (and output_padding) need one value per spatial "
          "dimension, 1 to 3 of them");
    check(miopenCreateConvolutionDescriptor(&d_));
    // MIOpen has no 1-D convolution: Python passes a unit height (conv1d as conv2d).
    check(miopenInitConvolutionNdDescriptor(d_, static_cast<int>(n), pads.data(), strides.data(),
                                            dilations.data(),
                                            transposed ? miopenTranspose : miopenConvolution));
    check(miopenSetConvolutionGroupCount(d_, groups));
    if (!output_padding.empty())
      check(miopenSetTransposeConvNdOutputPadding(d_, static_cast<int>(n), output_padding.data()));
  }
  ~ConvParams() { miopenDestroyConvolutionDescriptor(d_); }
  ConvParams(const ConvParams&) = delete;
  ConvParams& operator=(const ConvParams&) = delete;
  miopenConvolutionDescriptor_t get() const { return d_; }

 private:
  miopenConvolutionDescriptor_t d_ = nullptr;
};

// alpha and beta as MIOpen reads them: double for double tensors, float otherwise.
class Blend {
 public:
  Blend(const ArrayView& out, double alpha, double beta)
      : dbl_(data_type_of(out, "output") == miopenDouble),
        d_{alpha, beta},
        f_{static_cast<float>(alpha), static_cast<float>(beta)} {}
  const void* alpha() const { return dbl_ ? static_cast<const void*>(&d_[0]) : &f_[0]; }
  const void* beta() const { return dbl_ ? static_cast<const void*>(&d_[1]) : &f_[1]; }

 private:
  bool dbl_;
  double d_[2];
  float f_[2];
};

// The three tensors of one call, described and checked against the handle's device.
struct Call {
  TensorDesc a, b, c;
  const void* pa;
  const void* pb;
  void* pc;
  Call(const Handle& h, int direction, const In& a_, const In& b_, const Array& c_) {
    static const char* names[3][3] = {{"x", "w", "y"}, {"dy", "w", "dx"}, {"dy", "x", "dw"}};
    if (direction < 0 || direction > 2) value_error("direction must be 0, 1 or 2");
    const char* const* n = names[direction];
    describe(h, a, a_, n[0]);
    describe(h, b, b_, n[1]);
    describe(h, c, c_, n[2]);
    pa = a_.data();
    pb = b_.data();
    pc = c_.data();
  }
};

std::pair<void*, size_t> workspace_of(const Handle& h, const std::optional<Array>& ws) {
  if (!ws) return {nullptr, 0};
  h.check_device(*ws, "workspace");
  return {ws->data(), ws->nbytes()};
}

std::vector<int> output_shape(const std::vector<int>& x_shape, const std::vector<int>& w_shape,
                              const ConvParams& p) {
  TensorDesc x, w;
  describe_packed(x, x_shape, miopenFloat);
  describe_packed(w, w_shape, miopenFloat);
  int n = 0;
  std::vector<int> out(8);
  check(miopenGetConvolutionNdForwardOutputDim(p.get(), x.get(), w.get(), &n, out.data()));
  out.resize(static_cast<size_t>(n));
  return out;
}

using Solution = std::tuple<uint64_t, int, float, size_t, std::string>;

std::vector<Solution> solutions(const Handle& h, int direction, const In& a, const In& b,
                                const Array& c, const ConvParams& p) {
  Call k(h, direction, a, b, c);
  size_t count = 0;
  std::vector<miopenConvSolution_t> s(64);
  if (direction == 0)
    check(miopenConvolutionForwardGetSolution(h.get(), k.b.get(), k.a.get(), p.get(), k.c.get(),
                                              s.size(), &count, s.data()));
  else if (direction == 1)
    check(miopenConvolutionBackwardDataGetSolution(h.get(), k.a.get(), k.b.get(), p.get(),
                                                   k.c.get(), s.size(), &count, s.data()));
  else
    check(miopenConvolutionBackwardWeightsGetSolution(h.get(), k.a.get(), k.b.get(), p.get(),
                                                      k.c.get(), s.size(), &count, s.data()));
  std::vector<Solution> out;
  for (size_t i = 0; i < count; ++i) {
    const char* name = "";
    check(anydnnGetConvSolverName(h.get(), s[i].solution_id, &name));
    out.emplace_back(s[i].solution_id, static_cast<int>(s[i].algorithm), s[i].time,
                     s[i].workspace_size, name);
  }
  return out;
}

size_t solution_workspace(const Handle& h, int direction, const In& a, const In& b, const Array& c,
                          const ConvParams& p, uint64_t id) {
  Call k(h, direction, a, b, c);
  size_t ws = 0;
  if (direction == 0)
    check(miopenConvolutionForwardGetSolutionWorkspaceSize(h.get(), k.b.get(), k.a.get(), p.get(),
                                                           k.c.get(), id, &ws));
  else if (direction == 1)
    check(miopenConvolutionBackwardDataGetSolutionWorkspaceSize(h.get(), k.a.get(), k.b.get(),
                                                                p.get(), k.c.get(), id, &ws));
  else
    check(miopenConvolutionBackwardWeightsGetSolutionWorkspaceSize(h.get(), k.a.get(), k.b.get(),
                                                                   p.get(), k.c.get(), id, &ws));
  return ws;
}

void immediate(const Handle& h, int direction, const In& a, const In& b, Array& c,
               const ConvParams& p, uint64_t id, const std::optional<Array>& workspace) {
  Call k(h, direction, a, b, c);
  const auto [ws, ws_size] = workspace_of(h, workspace);
  nb::gil_scoped_release release;  // other Python threads run while the kernel does
  if (direction == 0) {
    check(miopenConvolutionForwardCompileSolution(h.get(), k.b.get(), k.a.get(), p.get(), k.c.get(),
                                                  id));
    check(miopenConvolutionForwardImmediate(h.get(), k.b.get(), k.pb, k.a.get(), k.pa, p.get(),
                                            k.c.get(), k.pc, ws, ws_size, id));
  } else if (direction == 1) {
    check(miopenConvolutionBackwardDataCompileSolution(h.get(), k.a.get(), k.b.get(), p.get(),
                                                       k.c.get(), id));
    check(miopenConvolutionBackwardDataImmediate(h.get(), k.a.get(), k.pa, k.b.get(), k.pb, p.get(),
                                                 k.c.get(), k.pc, ws, ws_size, id));
  } else {
    check(miopenConvolutionBackwardWeightsCompileSolution(h.get(), k.a.get(), k.b.get(), p.get(),
                                                          k.c.get(), id));
    check(miopenConvolutionBackwardWeightsImmediate(h.get(), k.a.get(), k.pa, k.b.get(), k.pb,
                                                    p.get(), k.c.get(), k.pc, ws, ws_size, id));
  }
}

size_t find_workspace(const Handle& h, int direction, const In& a, const In& b, const Array& c,
                      const ConvParams& p) {
  Call k(h, direction, a, b, c);
  size_t ws = 0;
  if (direction == 0)
    check(miopenConvolutionForwardGetWorkSpaceSize(h.get(), k.b.get(), k.a.get(), p.get(),
                                                   k.c.get(), &ws));
  else if (direction == 1)
    check(miopenConvolutionBackwardDataGetWorkSpaceSize(h.get(), k.a.get(), k.b.get(), p.get(),
                                                        k.c.get(), &ws));
  else
    check(miopenConvolutionBackwardWeightsGetWorkSpaceSize(h.get(), k.a.get(), k.b.get(), p.get(),
                                                           k.c.get(), &ws));
  return ws;
}

// Legacy Find: (algorithm, time in ms, workspace bytes), fastest first; c holds a result.
std::vector<std::tuple<int, float, size_t>> find(const Handle& h, int direction, const In& a,
                                                 const In& b, Array& c, const ConvParams& p,
                                                 const std::optional<Array>& workspace,
                                                 bool exhaustive) {
  Call k(h, direction, a, b, c);
  const auto [ws, ws_size] = workspace_of(h, workspace);
  miopenConvAlgoPerf_t perf[8];
  int n = 0;
  {
    nb::gil_scoped_release release;
    if (direction == 0)
      check(miopenFindConvolutionForwardAlgorithm(h.get(), k.a.get(), k.pa, k.b.get(), k.pb,
                                                  p.get(), k.c.get(), k.pc, 8, &n, perf, ws,
                                                  ws_size, exhaustive));
    else if (direction == 1)
      check(miopenFindConvolutionBackwardDataAlgorithm(h.get(), k.a.get(), k.pa, k.b.get(), k.pb,
                                                       p.get(), k.c.get(), k.pc, 8, &n, perf, ws,
                                                       ws_size, exhaustive));
    else
      check(miopenFindConvolutionBackwardWeightsAlgorithm(h.get(), k.a.get(), k.pa, k.b.get(), k.pb,
                                                          p.get(), k.c.get(), k.pc, 8, &n, perf, ws,
                                                          ws_size, exhaustive));
  }
  std::vector<std::tuple<int, float, size_t>> out;
  for (int i = 0; i < n; ++i) {
    const int algo = direction == 0   ? static_cast<int>(perf[i].fwd_algo)
                     : direction == 1 ? static_cast<int>(perf[i].bwd_data_algo)
                                      : static_cast<int>(perf[i].bwd_weights_algo);
    out.emplace_back(algo, perf[i].time, perf[i].memory);
  }
  return out;
}

// The legacy call with a Find algorithm: c = alpha * conv + beta * c.
void run_algorithm(const Handle& h, int direction, const In& a, const In& b, Array& c,
                   const ConvParams& p, int algo, const std::optional<Array>& workspace,
                   double alpha, double beta) {
  Call k(h, direction, a, b, c);
  const auto [ws, ws_size] = workspace_of(h, workspace);
  const Blend blend(c, alpha, beta);
  const void* al = blend.alpha();
  const void* be = blend.beta();
  nb::gil_scoped_release release;
  if (direction == 0)
    check(miopenConvolutionForward(h.get(), al, k.a.get(), k.pa, k.b.get(), k.pb, p.get(),
                                   static_cast<miopenConvFwdAlgorithm_t>(algo), be, k.c.get(), k.pc,
                                   ws, ws_size));
  else if (direction == 1)
    check(miopenConvolutionBackwardData(h.get(), al, k.a.get(), k.pa, k.b.get(), k.pb, p.get(),
                                        static_cast<miopenConvBwdDataAlgorithm_t>(algo), be,
                                        k.c.get(), k.pc, ws, ws_size));
  else
    check(miopenConvolutionBackwardWeights(h.get(), al, k.a.get(), k.pa, k.b.get(), k.pb, p.get(),
                                           static_cast<miopenConvBwdWeightsAlgorithm_t>(algo), be,
                                           k.c.get(), k.pc, ws, ws_size));
}

// y += b (b shaped 1 x C x 1 x 1 ...), and db = the sum of dy over all but the channel axis.
void bias_forward(const Handle& h, const In& b, Array& y) {
  TensorDesc bd, yd;
  describe(h, bd, b, "bias");
  describe(h, yd, y, "y");
  // MIOpen's forward bias is an OpTensor add, y = alpha * y + alpha * b + beta * y: alpha 1 and
  // beta 0 give y + b.
  const Blend blend(y, 1.0, 0.0);
  check(miopenConvolutionForwardBias(h.get(), blend.alpha(), bd.get(), b.data(), blend.beta(),
                                     yd.get(), y.data()));
}

void bias_backward(const Handle& h, const In& dy, Array& db) {
  TensorDesc dyd, dbd;
  describe(h, dyd, dy, "dy");
  describe(h, dbd, db, "db");
  const Blend blend(db, 1.0, 0.0);
  check(miopenConvolutionBackwardBias(h.get(), blend.alpha(), dyd.get(), dy.data(), blend.beta(),
                                      dbd.get(), db.data()));
}

}  // namespace

void register_conv(nb::module_& m) {
  nb::class_<ConvParams>(m, "ConvParams")
      .def(nb::init<const std::vector<int>&, const std::vector<int>&, const std::vector<int>&, int,
                    bool, const std::vector<int>&>(),
           nb::arg("padding"), nb::arg("stride"), nb::arg("dilation"), nb::arg("groups"),
           nb::arg("transposed"), nb::arg("output_padding"));
  m.def("conv_output_shape", &output_shape, nb::arg("x_shape"), nb::arg("w_shape"),
        nb::arg("params"));
  m.def("conv_solutions", &solutions, nb::arg("handle"), nb::arg("direction"), nb::arg("a"),
        nb::arg("b"), nb::arg("c"), nb::arg("params"));
  m.def("conv_solution_workspace", &solution_workspace, nb::arg("handle"), nb::arg("direction"),
        nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("params"), nb::arg("solution_id"));
  m.def("conv_immediate", &immediate, nb::arg("handle"), nb::arg("direction"), nb::arg("a"),
        nb::arg("b"), nb::arg("c"), nb::arg("params"), nb::arg("solution_id"),
        nb::arg("workspace").none());
  m.def("conv_find_workspace", &find_workspace, nb::arg("handle"), nb::arg("direction"),
        nb::arg("a"), nb::arg("b"), nb::arg("c"), nb::arg("params"));
  m.def("conv_find", &find, nb::arg("handle"), nb::arg("direction"), nb::arg("a"), nb::arg("b"),
        nb::arg("c"), nb::arg("params"), nb::arg("workspace").none(), nb::arg("exhaustive"));
  m.def("conv_run_algorithm", &run_algorithm, nb::arg("handle"), nb::arg("direction"), nb::arg("a"),
        nb::arg("b"), nb::arg("c"), nb::arg("params"), nb::arg("algorithm"),
        nb::arg("workspace").none(), nb::arg("alpha") = 1.0, nb::arg("beta") = 0.0);
  m.def("conv_bias_forward", &bias_forward, nb::arg("handle"), nb::arg("bias"), nb::arg("y"));
  m.def("conv_bias_backward", &bias_backward, nb::arg("handle"), nb::arg("dy"), nb::arg("db"));
}

}  // namespace anydnn::py
