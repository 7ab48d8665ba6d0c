// RNN / LSTM / GRU on DLPack arrays, the way PyTorch's MIOpen path calls them: one descriptor per
// time step (batch sizes non-increasing: packed sequences), packed weights in MIOpen's layout
// (param_offset / bias_offset say where each matrix and bias lives), the legacy training /
// inference forward, backward data, then backward weights (which accumulates into dw).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <utility>

#include "ext_common.hpp"

namespace anydnn::py {
namespace {

miopenDataType_t type_named(const std::string& s) {
  if (s == "float32") return miopenFloat;
  if (s == "float16") return miopenHalf;
  if (s == "bfloat16") return miopenBFloat16;
  if (s == "float64") return miopenDouble;
  value_error("RNN data type must be float32, float16, bfloat16 or float64, got " + s);
}

// ValueError unless `a` is packed with exactly these lengths (the step descriptors are built
// from the RNN's sizes, so an array of other lengths would be misread, not rejected).
void expect_shape(const ArrayView& a, const std::vector<size_t>& lens, const char* name) {
  bool ok = a.shape == lens;
  size_t expect = 1;
  for (size_t i = a.ndim; ok && i-- > 0;) {
    if (a.shape[i] != 1 && static_cast<size_t>(a.stride[i]) != expect) ok = false;
    expect *= a.shape[i];
  }
  if (!ok) {
    std::string want;
    for (size_t l : lens)
      want += (want.empty() ? "" : " x ") + std::to_string(l);
    value_error(std::string(name) + " must be a contiguous " + want + " array");
  }
}

template <class A>
void* ptr(const std::optional<A>& a) {
  return a ? const_cast<void*>(static_cast<const void*>(a->data())) : nullptr;
}

class Rnn {
 public:
  Rnn(const Handle& h, int mode, int input_size, int hidden_size, int layers, bool bidirectional,
      bool bias, const std::string& dtype, float dropout, uint64_t seed,
      std::optional<Array> states)
      : h_(h),
        input_(input_size),
        hidden_(hidden_size),
        layers_(layers),
        dirs_(bidirectional ? 2 : 1),
        type_(type_named(dtype)),
        states_(std::move(states)) {
    if (mode < miopenRNNRELU || mode > miopenGRU) value_error("mode must be 0 to 3");
    check(miopenCreateRNNDescriptor(&r_));
    const auto dir = bidirectional ? miopenRNNbidirection : miopenRNNunidirection;
    const auto bias_mode = bias ? miopenRNNwithBias : miopenRNNNoBias;
    const auto rnn_mode = static_cast<miopenRNNMode_t>(mode);
    if (!states_) {
      if (dropout != 0.0f) value_error("dropout needs a states buffer");
      check(miopenSetRNNDescriptor(r_, hidden_size, layers, miopenRNNlinear, dir, rnn_mode,
                                   bias_mode, miopenRNNdefault, type_));
    } else {
      // PyTorch's RNN dropout: between layers, XORWOW states made once per descriptor.
      h.check_device(*states_, "dropout states");
      check(miopenCreateDropoutDescriptor(&drop_));
      check(miopenSetDropoutDescriptor(drop_, h.get(), dropout, states_->data(), states_->nbytes(),
                                       seed, false, false, MIOPEN_RNG_PSEUDO_XORWOW));
      check(miopenSetRNNDescriptor_V2(r_, hidden_size, layers, drop_, miopenRNNlinear, dir,
                                      rnn_mode, bias_mode, miopenRNNdefault, type_));
    }
    describe_packed(x0_, {1, input_size}, type_);
    TensorDesc one;
    describe_packed(one, {1}, type_);
    check(miopenGetTensorNumBytes(one.get(), &elem_size_));
    check(miopenGetRNNParamsSize(h_.get(), r_, x0_.get(), &weight_bytes_, type_));
  }
  ~Rnn() {
    miopenDestroyRNNDescriptor(r_);
    if (drop_ != nullptr) miopenDestroyDropoutDescriptor(drop_);
  }
  Rnn(const Rnn&) = delete;
  Rnn& operator=(const Rnn&) = delete;

  size_t weight_bytes() const { return weight_bytes_; }
  // (offset, count) in elements of one matrix (`bias` false) or bias of a pseudo-layer (layer *
  // directions + direction); ids as MIOpen numbers them (miopen_rnn.h).
  std::pair<size_t, size_t> offset(int layer, int id, bool bias) const {
    TensorDesc d;
    size_t off = 0;
    if (bias)
      check(miopenGetRNNLayerBiasOffset(r_, layer, x0_.get(), id, d.get(), &off));
    else
      check(miopenGetRNNLayerParamOffset(r_, layer, x0_.get(), id, d.get(), &off));
    size_t bytes = 0;
    check(miopenGetTensorNumBytes(d.get(), &bytes));
    return {off, bytes / elem_size_};
  }

  // Workspace and reserve bytes for these step batch sizes.
  std::pair<size_t, size_t> space(const std::vector<int>& batches) {
    Steps s = steps(batches);
    size_t ws = 0, rs = 0;
    check(miopenGetRNNWorkspaceSize(h_.get(), r_, s.t, s.x.data(), &ws));
    check(miopenGetRNNTrainingReserveSize(h_.get(), r_, s.t, s.x.data(), &rs));
    return {ws, rs};
  }

  void forward(bool training, const std::vector<int>& batches, const In& x,
               const std::optional<In>& hx, const std::optional<In>& cx, const In& w, Array& y,
               std::optional<Array> hy, std::optional<Array> cy, std::optional<Array> workspace,
               std::optional<Array> reserve) {
    const Steps s = steps(batches);
    check_arrays(batches, {{x, "x", X}, {y, "y", Y}, {w, "w", W}});
    check_states(batches, {{hx, "hx"}, {cx, "cx"}}, {{hy, "hy"}, {cy, "cy"}});
    const void* hxp = ptr(hx);
    const void* cxp = ptr(cx);
    void* hyp = ptr(hy);
    void* cyp = ptr(cy);
    auto [ws, wsn] = buffer(workspace, "workspace");
    auto [rs, rsn] = buffer(reserve, "reserve");
    nb::gil_scoped_release release;
    const auto hd = s.state->get(), wd = s.weights->get();
    if (training)
      check(miopenRNNForwardTraining(h_.get(), r_, s.t, s.x.data(), x.data(), hd, hxp, hd, cxp, wd,
                                     w.data(), s.y.data(), y.data(), hd, hyp, hd, cyp, ws, wsn, rs,
                                     rsn));
    else
      check(miopenRNNForwardInference(h_.get(), r_, s.t, s.x.data(), x.data(), hd, hxp, hd, cxp, wd,
                                      w.data(), s.y.data(), y.data(), hd, hyp, hd, cyp, ws, wsn));
  }

  void backward_data(const std::vector<int>& batches, const In& y, const In& dy,
                     const std::optional<In>& dhy, const std::optional<In>& dcy, const In& w,
                     const std::optional<In>& hx, const std::optional<In>& cx, Array& dx,
                     std::optional<Array> dhx, std::optional<Array> dcx,
                     std::optional<Array> workspace, std::optional<Array> reserve) {
    const Steps s = steps(batches);
    check_arrays(batches, {{y, "y", Y}, {dy, "dy", Y}, {w, "w", W}, {dx, "dx", X}});
    check_states(batches, {{dhy, "dhy"}, {dcy, "dcy"}, {hx, "hx"}, {cx, "cx"}},
                 {{dhx, "dhx"}, {dcx, "dcx"}});
    auto [ws, wsn] = buffer(workspace, "workspace");
    auto [rs, rsn] = buffer(reserve, "reserve");
    const auto hd = s.state->get();
    nb::gil_scoped_release release;
    check(miopenRNNBackwardData(h_.get(), r_, s.t, s.y.data(), y.data(), s.y.data(), dy.data(), hd,
                                ptr(dhy), hd, ptr(dcy), s.weights->get(), w.data(), hd, ptr(hx), hd,
                                ptr(cx), s.x.data(), dx.data(), hd, ptr(dhx), hd, ptr(dcx), ws, wsn,
                                rs, rsn));
  }

  void backward_weights(const std::vector<int>& batches, const In& x, const std::optional<In>& hx,
                        const In& y, Array& dw, std::optional<Array> workspace,
                        std::optional<Array> reserve) {
    const Steps s = steps(batches);
    check_arrays(batches, {{x, "x", X}, {y, "y", Y}, {dw, "dw", W}});
    check_states(batches, {{hx, "hx"}}, {});
    auto [ws, wsn] = buffer(workspace, "workspace");
    auto [rs, rsn] = buffer(reserve, "reserve");
    nb::gil_scoped_release release;
    check(miopenRNNBackwardWeights(h_.get(), r_, s.t, s.x.data(), x.data(), s.state->get(), ptr(hx),
                                   s.y.data(), y.data(), s.weights->get(), dw.data(), ws, wsn, rs,
                                   rsn));
  }

 private:
  enum Kind { X, Y, W };
  struct Named {
    ArrayView a;
    const char* name;
    Kind kind;
  };
  // Every array of a call: in the handle's memory, of the RNN's data type, and packed with the
  // lengths the step descriptors give it (else MIOpen would misread it, not reject it).
  void check_array(const ArrayView& a, const std::vector<size_t>& lens, const char* name) const {
    h_.check_device(a, name);
    if (data_type_of(a, name) != type_)
      value_error(std::string(name) + "'s data type is not the RNN's");
    expect_shape(a, lens, name);
  }
  void check_arrays(const std::vector<int>& batches, std::initializer_list<Named> arrays) const {
    size_t rows = 0;
    for (int b : batches)
      rows += static_cast<size_t>(b);
    for (const Named& n : arrays) {
      if (n.kind == W)
        check_array(n.a, {weight_bytes_ / elem_size_}, n.name);
      else
        check_array(n.a, {rows, static_cast<size_t>(n.kind == X ? input_ : dirs_ * hidden_)},
                    n.name);
    }
  }
  // The optional hidden / cell state arrays (layers x directions, first batch, hidden).
  using OptIn = std::pair<const std::optional<In>&, const char*>;
  using OptOut = std::pair<const std::optional<Array>&, const char*>;
  void check_states(const std::vector<int>& batches, std::initializer_list<OptIn> in,
                    std::initializer_list<OptOut> out) const {
    const std::vector<size_t> st = {static_cast<size_t>(layers_ * dirs_),
                                    static_cast<size_t>(batches.at(0)),
                                    static_cast<size_t>(hidden_)};
    for (const auto& [a, name] : in)
      if (a) check_array(*a, st, name);
    for (const auto& [a, name] : out)
      if (a) check_array(*a, st, name);
  }

  // A call's descriptors: one per step for x and y (raw handles into the owned TensorDescs),
  // the hidden-state and the weight descriptors.
  struct Steps {
    int t = 0;
    std::vector<std::unique_ptr<TensorDesc>> own;
    std::vector<miopenTensorDescriptor_t> x, y;
    std::unique_ptr<TensorDesc> state, weights;
  };
  Steps steps(const std::vector<int>& batches) const {
    if (batches.empty()) value_error("batch_sizes is empty: a sequence needs a step");
    Steps s;
    s.t = static_cast<int>(batches.size());
    for (int b : batches) {
      s.own.push_back(std::make_unique<TensorDesc>());
      describe_packed(*s.own.back(), {b, input_}, type_);
      s.x.push_back(s.own.back()->get());
      s.own.push_back(std::make_unique<TensorDesc>());
      describe_packed(*s.own.back(), {b, dirs_ * hidden_}, type_);
      s.y.push_back(s.own.back()->get());
    }
    s.state = std::make_unique<TensorDesc>();
    describe_packed(*s.state, {layers_ * dirs_, batches[0], hidden_}, type_);
    s.weights = std::make_unique<TensorDesc>();
    check(miopenGetRNNParamsDescriptor(h_.get(), r_, x0_.get(), s.weights->get(), type_));
    return s;
  }
  std::pair<void*, size_t> buffer(const std::optional<Array>& a, const char* name) const {
    if (!a) return {nullptr, 0};
    h_.check_device(*a, name);
    return {a->data(), a->nbytes()};
  }

  const Handle& h_;
  int input_, hidden_, layers_, dirs_;
  miopenDataType_t type_;
  std::optional<Array> states_;  // keeps the dropout states alive as long as the descriptor
  miopenRNNDescriptor_t r_ = nullptr;
  miopenDropoutDescriptor_t drop_ = nullptr;
  TensorDesc x0_;
  size_t elem_size_ = 0, weight_bytes_ = 0;  // fixed by the descriptor
};

size_t dropout_states_size(const Handle& h) {
  size_t n = 0;
  check(miopenDropoutGetStatesSize(h.get(), &n));
  return n;
}

}  // namespace

void register_rnn(nb::module_& m) {
  m.def("dropout_states_size", &dropout_states_size, nb::arg("handle"));
  nb::class_<Rnn>(m, "Rnn")
      .def(nb::init<const Handle&, int, int, int, int, bool, bool, const std::string&, float,
                    uint64_t, std::optional<Array>>(),
           nb::arg("handle"), nb::arg("mode"), nb::arg("input_size"), nb::arg("hidden_size"),
           nb::arg("num_layers"), nb::arg("bidirectional"), nb::arg("bias"), nb::arg("dtype"),
           nb::arg("dropout"), nb::arg("seed"), nb::arg("states").none(),
           nb::keep_alive<1, 2>())  // the descriptor uses the handle
      .def("weight_bytes", &Rnn::weight_bytes)
      .def("offset", &Rnn::offset, nb::arg("layer"), nb::arg("id"), nb::arg("bias"))
      .def("space", &Rnn::space, nb::arg("batch_sizes"))
      .def("forward", &Rnn::forward, nb::arg("training"), nb::arg("batch_sizes"), nb::arg("x"),
           nb::arg("hx").none(), nb::arg("cx").none(), nb::arg("w"), nb::arg("y"),
           nb::arg("hy").none(), nb::arg("cy").none(), nb::arg("workspace").none(),
           nb::arg("reserve").none())
      .def("backward_data", &Rnn::backward_data, nb::arg("batch_sizes"), nb::arg("y"),
           nb::arg("dy"), nb::arg("dhy").none(), nb::arg("dcy").none(), nb::arg("w"),
           nb::arg("hx").none(), nb::arg("cx").none(), nb::arg("dx"), nb::arg("dhx").none(),
           nb::arg("dcx").none(), nb::arg("workspace").none(), nb::arg("reserve").none())
      .def("backward_weights", &Rnn::backward_weights, nb::arg("batch_sizes"), nb::arg("x"),
           nb::arg("hx").none(), nb::arg("y"), nb::arg("dw"), nb::arg("workspace").none(),
           nb::arg("reserve").none());
}

}  // namespace anydnn::py
