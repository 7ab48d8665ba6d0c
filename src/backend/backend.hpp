// What the library needs from a device backend. The handle owns one backend; everything
// device-specific (stream, timing, memory, and the primitives' solver registries and kernel
// contracts) goes through this interface, so common code never names a backend. backend/cpu and
// backend/cuda implement it with mirrored file names.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {

template <class Solver>
class SolverRegistry;

// Memory owned by a backend (host memory on the CPU, device memory on CUDA).
using DeviceBuffer = std::unique_ptr<void, std::function<void(void*)>>;

// Direction of Backend::copy. "Device" is the backend's memory (host memory on the CPU). Any:
// either side may be host or device memory (CUDA's unified addressing tells), for buffers
// clients may place on either, such as the dropout states.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice, Any };

// What the primitives reach kernels through, by type: each family's ordered solver registry
// (SolverRegistry<LrnSolver>, ...) and each kernel contract with one implementation per backend
// (ConvKernels, RnnKernels, DropoutKernels). A family asks for `solvers<LrnSolver>()` or
// `kernels<RnnKernels>()`; this interface names no family, so adding one edits nothing here
// (the backends register it: backend/common/primitive_registries.hpp). The backend owns what
// the entries point to.
class Primitives {
 public:
  // T named explicitly (the contract, not the backend's derived class: a lookup by the
  // contract's type must find it).
  template <class T>
  void add(std::type_identity_t<T>* object) {
    entries_.push_back({std::type_index(typeid(std::remove_const_t<T>)),
                        const_cast<std::remove_const_t<T>*>(object)});
  }
  // The entry of type T (const or not); throws NotImplemented when the backend has none.
  template <class T>
  T& get() const {
    const std::type_index want(typeid(std::remove_const_t<T>));
    for (const Entry& e : entries_)
      if (e.type == want) return *static_cast<std::remove_const_t<T>*>(e.object);
    missing(want.name());
  }

 private:
  struct Entry {
    std::type_index type;
    void* object;
  };
  [[noreturn]] static void missing(const char* type);
  std::vector<Entry> entries_;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual BackendKind kind() const = 0;
  // Identifies the device in find-db keys and logs, e.g. "cpu-avx2-2t" or "cuda-sm90-132".
  virtual std::string device_id() const = 0;
  // The solver registries and kernel contracts of this backend (docs/adding-a-solver.md).
  virtual const Primitives& primitives() const = 0;
  // A family's solver registry, e.g. solvers<LrnSolver>() (lrn/lrn_registry.hpp).
  template <class Solver>
  const SolverRegistry<Solver>& solvers() const {
    return primitives().get<const SolverRegistry<Solver>>();
  }
  // A family's kernel contract, e.g. kernels<RnnKernels>() (rnn/rnn_kernels.hpp); const T for
  // the contracts the backend keeps const (ConvKernels).
  template <class T>
  T& kernels() const {
    return primitives().get<T>();
  }

  virtual void* stream() const = 0;
  virtual void set_stream(void* stream) = 0;
  // Makes the backend's device current on the calling thread. Every C API call does this first
  // (api/api_objects.hpp, deref of the handle), as MIOpen's handle sets its device on every
  // call: a handle created on one thread may be used, in turn, from others whose current device
  // differs (docs/reliability.md, "Threads"). Nothing to do for the CPU.
  virtual void make_current() {}
  // Runs `work` (which may enqueue asynchronous device work), waits for it and returns the
  // elapsed device time in milliseconds.
  virtual float run_timed(const std::function<void()>& work) = 0;
  virtual void synchronize() = 0;

  // Scratch memory for the library's own use (e.g. a convolution result before blending). On
  // CUDA it is stream-ordered on the current stream: release it before that stream is destroyed
  // (library calls release theirs before returning).
  virtual DeviceBuffer allocate(size_t bytes) = 0;
  // Memory moves for front-end code that must not touch device memory itself (RNN parameter
  // get/set, the dropout states, sequence packing). Ordered on the handle's stream; copies
  // from or to the host return once the host side may be reused. (The RNN's row moves, fills
  // and fp16 conversions are RnnKernels'.)
  virtual void copy(void* dst, const void* src, size_t bytes, CopyKind kind) = 0;
  virtual void fill_zero(void* dst, size_t bytes) = 0;
};

// True when this library has the CUDA backend and the CUDA runtime sees at least one device
// (asked once per process). Decides the default backend (handle/handle.cpp).
bool cuda_device_present();

// CPU backend: host pointers, OpenMP threads, wall-clock timing.
std::unique_ptr<Backend> make_cpu_backend(const Config& config);

// CUDA backend; throws NotImplemented when the library was built without it, and
// NotInitialized when no usable GPU is present.
std::unique_ptr<Backend> make_cuda_backend(const Config& config, void* stream);

// What a solver may look at besides its problem: the handle's configuration and backend.
struct ExecutionContext {
  const Config& config;
  Backend& backend;
};

}  // namespace anydnn
