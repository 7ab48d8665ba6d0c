// What the library needs from a device backend. The handle owns one backend; everything
// device-specific (stream, timing, memory, and the primitives' solver registries and kernel
// contracts) goes through this interface, so common code never names a backend. backend/cpu and
// backend/cuda implement it with mirrored file names.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/tensor_descriptor.hpp"

namespace anydnn {

template <class Solver>
class SolverRegistry;
class ConvSolver;
class BnSolver;
class ActivationSolver;
class SoftmaxSolver;
class LrnSolver;
class CtcLossSolver;
class ConvKernels;
class RnnKernels;
class DropoutKernels;
class TensorOpSolver;
class ReduceSolver;
class PoolingSolver;
class MhaSolver;
class FusionSolver;
class MhaSolver;

// Memory owned by a backend (host memory on the CPU, device memory on CUDA).
using DeviceBuffer = std::unique_ptr<void, std::function<void(void*)>>;

// Direction of Backend::copy. "Device" is the backend's memory (host memory on the CPU). Any:
// either side may be host or device memory (CUDA's unified addressing tells), for buffers
// clients may place on either, such as the dropout states.
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice, Any };

// What the primitives reach kernels through: an ordered solver registry for each family that
// chooses among solvers, a kernel contract for each family with one implementation per backend.
// A new primitive family adds a member here (and its registry or contract), never a virtual
// method of Backend. The backend owns what the pointers point to.
struct Primitives {
  const SolverRegistry<ConvSolver>* conv = nullptr;  // backend/*/conv_registry.cpp
  const SolverRegistry<BnSolver>* bn = nullptr;      // bn/bn_registry.hpp
  const ConvKernels* conv_kernels = nullptr;         // conv/conv_kernels.hpp: bias, blend
  RnnKernels* rnn = nullptr;          // rnn/rnn_kernels.hpp: what rnn/rnn_passes.hpp drives
  DropoutKernels* dropout = nullptr;  // dropout/dropout_kernels.hpp: the API's and the RNN's
  // activation/activation_registry.hpp
  const SolverRegistry<ActivationSolver>* activation = nullptr;
  const SolverRegistry<SoftmaxSolver>* softmax = nullptr;   // softmax/softmax_registry.hpp
  const SolverRegistry<LrnSolver>* lrn = nullptr;           // lrn/lrn_registry.hpp
  const SolverRegistry<CtcLossSolver>* ctc_loss = nullptr;  // ctc/ctc_registry.hpp
  // tensor_ops/tensor_op_registry.hpp: OpTensor, SetTensor, ScaleTensor, TransformTensor
  const SolverRegistry<TensorOpSolver>* tensor_op = nullptr;
  // reduction/reduce_registry.hpp: miopenReduceTensor
  const SolverRegistry<ReduceSolver>* reduce = nullptr;
  // pooling/pooling_registry.hpp
  const SolverRegistry<PoolingSolver>* pooling = nullptr;
  // fusion/fusion_registry.hpp: fusion plans (fused solvers, then the sequence)
  const SolverRegistry<FusionSolver>* fusion = nullptr;
  // mha/mha_registry.hpp: multi-head attention (Find 2.0's MHA problems)
  const SolverRegistry<MhaSolver>* mha = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual BackendKind kind() const = 0;
  // Identifies the device in find-db keys and logs, e.g. "cpu-avx2-2t" or "cuda-sm90-132".
  virtual std::string device_id() const = 0;
  // The solver registries and kernel contracts of this backend (docs/adding-a-solver.md).
  virtual const Primitives& primitives() const = 0;
  const SolverRegistry<ConvSolver>& conv_solvers() const { return *primitives().conv; }
  const SolverRegistry<BnSolver>& bn_solvers() const { return *primitives().bn; }
  const SolverRegistry<ActivationSolver>& activation_solvers() const {
    return *primitives().activation;
  }
  const SolverRegistry<PoolingSolver>& pooling_solvers() const { return *primitives().pooling; }
  const SolverRegistry<SoftmaxSolver>& softmax_solvers() const { return *primitives().softmax; }
  const SolverRegistry<LrnSolver>& lrn_solvers() const { return *primitives().lrn; }
  const SolverRegistry<CtcLossSolver>& ctc_loss_solvers() const { return *primitives().ctc_loss; }
  const ConvKernels& conv_kernels() const { return *primitives().conv_kernels; }
  RnnKernels& rnn_kernels() const { return *primitives().rnn; }
  DropoutKernels& dropout_kernels() const { return *primitives().dropout; }
  const SolverRegistry<TensorOpSolver>& tensor_op_solvers() const {
    return *primitives().tensor_op;
  }
  const SolverRegistry<ReduceSolver>& reduce_solvers() const { return *primitives().reduce; }
  const SolverRegistry<FusionSolver>& fusion_solvers() const { return *primitives().fusion; }
  const SolverRegistry<MhaSolver>& mha_solvers() const { return *primitives().mha; }

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

// A convolution solver of the CPU / CUDA registry by its stable id, without a handle (Find 2.0
// reads a solution's algorithm from its id alone): each registry is built once per process on
// first use and never changed (solver objects are stateless). nullptr when that registry has no
// such id, or (CUDA) when the library was built without the CUDA backend. Defined beside each
// backend's registry, so that nothing above names a backend.
const ConvSolver* find_cpu_conv_solver(uint64_t id);
const ConvSolver* find_cuda_conv_solver(uint64_t id);

}  // namespace anydnn
