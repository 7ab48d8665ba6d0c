#include "api/api_log.hpp"

namespace anydnn::api {

namespace {

template <class T>
void log_range(std::ostream& os, const std::vector<T>& v) {
  os << "{";
  for (size_t i = 0; i < v.size(); ++i)
    os << (i ? ", " : "") << v[i];
  os << "}";
}

// Logging must never fail the call it describes: a pointer that is not a live object of the
// expected type is printed as a pointer.
template <class Object, ObjectTag Tag, class Public>
const Object* peek(Public p) {
  if (p == nullptr) return nullptr;
  const Object* o = static_cast<const Object*>(p);
  return o->tag == Tag ? o : nullptr;
}

}  // namespace

void log_value(std::ostream& os, miopenHandle_t h) {
  const auto* o = peek<HandleObject, ObjectTag::Handle>(h);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(h));
    return;
  }
  auto& handle = const_cast<Handle&>(o->handle);
  os << "stream: " << handle.backend().stream() << ", device_id: " << handle.backend().device_id();
}

void log_value(std::ostream& os, miopenTensorDescriptor_t t) {
  const auto* o = peek<TensorObject, ObjectTag::Tensor>(t);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(t));
    return;
  }
  log_range(os, o->desc.lens());
  os << ", ";
  log_range(os, o->desc.strides());
  os << ", ";
  if (!o->desc.is_set() || o->desc.is_packed()) os << "packed, ";
}

void log_value(std::ostream& os, miopenConvolutionDescriptor_t c) {
  const auto* o = peek<ConvolutionObject, ObjectTag::Convolution>(c);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(c));
    return;
  }
  const auto& d = o->desc;
  os << "conv" << d.spatial_dims() << "d, "
     << (d.mode() == miopenTranspose ? "miopenTranspose" : "miopenConvolution") << ", "
     << (d.padding_mode() == miopenPaddingSame    ? "miopenPaddingSame"
         : d.padding_mode() == miopenPaddingValid ? "miopenPaddingValid"
                                                  : "miopenPaddingDefault")
     << ", ";
  log_range(os, d.pads());
  os << ", ";
  log_range(os, d.strides());
  os << ", ";
  log_range(os, d.dilations());
  os << ", ";
  if (d.group_count() > 1) os << d.group_count() << ", ";
  if (d.mode() == miopenTranspose) {
    log_range(os, d.trans_output_pads());
    os << ", ";
  }
}

// MIOpen's operator<< for an activation descriptor: the mode's name, then alpha, beta, gamma.
void log_value(std::ostream& os, miopenActivationDescriptor_t a) {
  const auto* o = peek<ActivationObject, ObjectTag::Activation>(a);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(a));
    return;
  }
  static const char* const kNames[] = {"miopenActivationPASTHRU",   "miopenActivationLOGISTIC",
                                       "miopenActivationTANH",      "miopenActivationRELU",
                                       "miopenActivationSOFTRELU",  "miopenActivationABS",
                                       "miopenActivationPOWER",     "miopenActivationCLIPPEDRELU",
                                       "miopenActivationLEAKYRELU", "miopenActivationELU"};
  const int m = static_cast<int>(o->desc.mode);
  if (m >= 0 && m < 10)
    os << kNames[m];
  else
    os << "Unknown: " << m;
  os << ", " << o->desc.alpha << ", " << o->desc.beta << ", " << o->desc.gamma << ", ";
}

// MIOpen's operator<< for a reduce-tensor descriptor, over several lines as MIOpen's trace has
// it (the indices type is not printed):
//   reduceTensorDesc = ReduceTensor Descriptor :
//   Reduction Operation Type : 3
//   Reduction CompType : 1
//   NanPropagation Option : 0
//   Indices Option : 1
// followed by MIOpen's empty line. The log decoder joins the lines back to one value.
void log_value(std::ostream& os, miopenReduceTensorDescriptor_t r) {
  const auto* o = peek<ReduceTensorObject, ObjectTag::ReduceTensor>(r);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(r));
    return;
  }
  os << "ReduceTensor Descriptor : \nReduction Operation Type : " << static_cast<int>(o->desc.op)
     << "\nReduction CompType : " << static_cast<int>(o->desc.comp_type)
     << "\nNanPropagation Option : " << static_cast<int>(o->desc.nan_opt)
     << "\nIndices Option : " << static_cast<int>(o->desc.indices) << "\n";
}

// MIOpen's operator<< for a pooling descriptor: the mode (its MIOPEN_LOG_ENUM names only max
// and average), then lengths, pads and strides, each as LogRange prints them (no braces):
// "miopenPoolingMax, 3, 3, 1, 1, 2, 2, ".
void log_value(std::ostream& os, miopenPoolingDescriptor_t p) {
  const auto* o = peek<PoolingObject, ObjectTag::Pooling>(p);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(p));
    return;
  }
  const int m = static_cast<int>(o->desc.mode);
  if (m == miopenPoolingMax)
    os << "miopenPoolingMax";
  else if (m == miopenPoolingAverage)
    os << "miopenPoolingAverage";
  else
    os << "Unknown: " << m;
  os << ", ";
  for (const auto* v : {&o->desc.lens, &o->desc.pads, &o->desc.strides}) {
    for (size_t i = 0; i < v->size(); ++i)
      os << (i ? ", " : "") << (*v)[i];
    os << ", ";
  }
}

// MIOpen's operator<< for a softmax descriptor: "softmax,alpha1,beta0,algorithm1,mode1,".
void log_value(std::ostream& os, miopenSoftmaxDescriptor_t s) {
  const auto* o = peek<SoftmaxObject, ObjectTag::Softmax>(s);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(s));
    return;
  }
  os << "softmax,alpha" << o->desc.alpha << ",beta" << o->desc.beta << ",algorithm"
     << static_cast<int>(o->desc.algorithm) << ",mode" << static_cast<int>(o->desc.mode) << ",";
}

// MIOpen's operator<< for an LRN descriptor: "miopenLRNCrossChannel, 5, 0.001, 0.75, 1, " (the
// mode's name, lrnN, then alpha, beta, K: none for a descriptor never set, as MIOpen's empty
// parameter vector).
void log_value(std::ostream& os, miopenLRNDescriptor_t d) {
  const auto* o = peek<LrnObject, ObjectTag::Lrn>(d);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(d));
    return;
  }
  const LrnParams& p = o->desc.params;
  if (p.mode == miopenLRNWithinChannel)
    os << "miopenLRNWithinChannel";
  else if (p.mode == miopenLRNCrossChannel)
    os << "miopenLRNCrossChannel";
  else
    os << "Unknown: " << static_cast<int>(p.mode);
  os << ", " << p.n << ", ";
  if (o->desc.set) os << p.alpha << ", " << p.beta << ", " << p.k;
  os << ", ";
}

// MIOpen's operator<< for a CTC loss descriptor prints only the data type: "1, ".
void log_value(std::ostream& os, miopenCTCLossDescriptor_t c) {
  const auto* o = peek<CtcLossObject, ObjectTag::CtcLoss>(c);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(c));
    return;
  }
  os << static_cast<int>(o->desc.data_type) << ", ";
}

// Find 2.0 objects. MIOpen prints a problem as its address; here it prints its operator,
// direction and tensors (find2::Problem::describe), so the trace says what was found.
void log_value(std::ostream& os, miopenProblem_t p) {
  const auto* o = peek<ProblemObject, ObjectTag::Problem>(p);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(p));
    return;
  }
  os << o->problem.describe();
}

void log_value(std::ostream& os, miopenFindOptions_t p) {
  const auto* o = peek<FindOptionsObject, ObjectTag::FindOptions>(p);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(p));
    return;
  }
  const auto& f = o->options;
  os << "tuning " << (f.tuning ? 1 : 0) << ", order " << static_cast<int>(f.results_order)
     << ", workspace limit " << f.workspace_limit;
  if (f.has_workspace) os << ", workspace " << f.workspace << " (" << f.workspace_size << ")";
  for (const auto& [id, ptr] : f.tensors)
    os << ", " << find2::tensor_argument_name(id) << " -> " << ptr;
  os << ", attach binaries " << f.attach_binaries;
}

void log_value(std::ostream& os, miopenSolution_t p) {
  const auto* o = peek<SolutionObject, ObjectTag::Solution>(p);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(p));
    return;
  }
  const auto& s = o->solution;
  os << s.solver_id() << "/" << s.solver_name() << ", " << s.time_ms() << " ms, workspace "
     << s.workspace_size() << ", " << find2::backend_kind_name(s.backend()) << " " << s.device_id();
}

void log_value(std::ostream& os, miopenMhaDescriptor_t d) {
  const auto* o = peek<MhaObject, ObjectTag::Mha>(d);
  if (o == nullptr) {
    log_value(os, static_cast<const void*>(d));
    return;
  }
  os << "scale " << o->desc.scale;
}

void log_value(std::ostream& os, const TensorArgumentList& list) {
  if (list.data == nullptr) {
    os << "nullptr";
    return;
  }
  os << "{";
  for (size_t i = 0; i < list.count && i < 64; ++i) {
    const miopenTensorArgument_t& a = list.data[i];
    os << ' ' << find2::tensor_argument_name(a.id) << ": ";
    if (a.descriptor == nullptr)
      os << "NULL";
    else
      log_value(os, *a.descriptor);
    os << " -> ";
    log_value(os, static_cast<const void*>(a.buffer));
    os << ",";
  }
  if (list.count > 64) os << " ...";
  os << " }";
}

void log_value(std::ostream& os, const void* p) {
  if (p == nullptr) {
    os << "nullptr";
  } else {
    os << p;
  }
}

void log_value(std::ostream& os, const char* s) {
  os << (s == nullptr ? "nullptr" : s);
}

std::vector<std::string> split_argument_names(std::string_view names) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char ch : names) {
    if (ch == '(') ++depth;
    if (ch == ')') --depth;
    if (ch == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    if (!(cur.empty() && ch == ' ')) cur += ch;
  }
  if (!cur.empty()) out.push_back(cur);
  // log_array(dimsA, nbDims) is logged under the array's name.
  for (auto& n : out) {
    const auto open = n.find('(');
    if (open != std::string::npos) {
      const auto comma = n.find(',', open);
      n = n.substr(open + 1, (comma == std::string::npos ? n.size() - 1 : comma) - open - 1);
    }
    while (!n.empty() && n.back() == ' ')
      n.pop_back();
  }
  return out;
}

}  // namespace anydnn::api
