// anydnn vs oneDNN on the memory-bound layer families (benchmark, not a test): the pieces every
// family's case file shares. A case owns its buffers and both libraries' objects (built when it
// runs, so only one case's tensors are alive at a time) and hands back the two calls to time.
#pragma once

#include <miopen/miopen.h>

#include <functional>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace anydnn::bench::layers {

struct Ctx {
  miopenHandle_t handle = nullptr;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream st{eng};
};

// The two calls of one case; `keep` owns whatever they use.
struct Timed {
  std::function<void()> ours, peer;
  std::shared_ptr<void> keep;
};

struct Case {
  std::string family, name;
  double bytes = 0;  // compulsory traffic (each input read once, each output written once)
  std::function<Timed(Ctx&)> setup;
};

// Host buffer of random floats in [lo, hi) (fresh per run: the seed comes from the clock).
std::vector<float> random_floats(size_t n, float lo, float hi);

// A packed fp32 miopen tensor descriptor of `lens` (NCHW order), destroyed with the owner.
struct MTensor {
  miopenTensorDescriptor_t d = nullptr;
  explicit MTensor(const std::vector<int>& lens);
  MTensor(const MTensor&) = delete;
  MTensor& operator=(const MTensor&) = delete;
  ~MTensor();
  operator miopenTensorDescriptor_t() const { return d; }
};

// oneDNN plain-layout fp32 memory descriptor of `lens` (nchw-style tags, any rank 1-5).
dnnl::memory::desc dnnl_desc(const std::vector<int>& lens);

// Runs a oneDNN primitive with `args` and waits: the peer's timed call.
inline std::function<void()> dnnl_call(Ctx& c, dnnl::primitive p,
                                       std::unordered_map<int, dnnl::memory> args) {
  return [&c, p, args] {
    p.execute(c.st, args);
    c.st.wait();
  };
}

inline size_t count_of(const std::vector<int>& lens) {
  size_t n = 1;
  for (int l : lens)
    n *= static_cast<size_t>(l);
  return n;
}

std::string lens_name(const std::vector<int>& lens);

// The families' case lists.
void add_eltwise_cases(std::vector<Case>& out);
void add_pooling_cases(std::vector<Case>& out);
void add_lrn_cases(std::vector<Case>& out);
void add_reduce_cases(std::vector<Case>& out);

}  // namespace anydnn::bench::layers
