"""Convolution and batch normalization on any DLPack array (NumPy, PyTorch CPU / CUDA tensors).

Inputs pass to libMIOpen without copies; outputs are allocated with the input's own library
(torch.empty on the input's device, numpy.empty) unless `out=` is given. Each thread has its own
default handle per device (MIOpen's rule: a handle is used by one thread at a time); PyTorch CUDA
tensors run on PyTorch's current stream.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from . import _ext

FORWARD, BACKWARD_DATA, BACKWARD_WEIGHTS = 0, 1, 2
_DIRECTIONS = {"forward": FORWARD, "backward_data": BACKWARD_DATA,
               "backward_weights": BACKWARD_WEIGHTS}
# miopenConvFwdAlgorithm_t / miopenConvBwdDataAlgorithm_t / miopenConvBwdWeightsAlgorithm_t.
_ALGO_NAMES = (
    {0: "GEMM", 1: "Direct", 2: "FFT", 3: "Winograd", 5: "ImplicitGEMM"},
    {0: "GEMM", 1: "Direct", 2: "FFT", 3: "Winograd", 4: "TransposeGEMM", 5: "ImplicitGEMM"},
    {0: "GEMM", 1: "Direct", 3: "Winograd", 5: "ImplicitGEMM"},
)
_BN_MODES = {"per_activation": 0, "spatial": 1}


@dataclass(frozen=True)
class Solution:
    """An immediate-mode solution (miopenConvSolution_t), best first as the library ranks them."""

    solution_id: int
    algorithm: int
    time: float  # ms; negative when the ranking is a heuristic, not a measurement
    workspace: int  # bytes
    solver: str


@dataclass(frozen=True)
class Algorithm:
    """One result of Find (miopenConvAlgoPerf_t): run it with conv_*(..., algorithm=...)."""

    direction: int
    algorithm: int
    time: float  # ms, measured by Find
    workspace: int  # bytes

    @property
    def name(self) -> str:
        return _ALGO_NAMES[self.direction].get(self.algorithm, str(self.algorithm))


# --- arrays, devices, handles -------------------------------------------------------------------

def _is_torch(a: Any) -> bool:
    return type(a).__module__.split(".")[0] == "torch"


def _check(**arrays: Any) -> None:
    """TypeError for anything that is not an array (lists are not converted: no hidden copies)."""
    for name, a in arrays.items():
        if a is not None and not (isinstance(a, np.ndarray) or hasattr(a, "__dlpack__")):
            raise TypeError(f"{name} is a {type(a).__name__}, not an array (NumPy, PyTorch or "
                            f"any DLPack array)")


def _device(a: Any) -> Tuple[str, int]:
    if isinstance(a, np.ndarray):
        return ("cpu", 0)
    if _is_torch(a):
        return ("cuda", a.device.index or 0) if a.device.type == "cuda" else ("cpu", 0)
    if hasattr(a, "__dlpack_device__"):
        kind, index = a.__dlpack_device__()
        return ("cuda", int(index)) if int(kind) in (2, 13) else ("cpu", 0)
    raise TypeError(f"{type(a).__name__} is not an array anydnn can read (no DLPack)")


_local = threading.local()


def default_handle(device: Tuple[str, int] = ("cpu", 0)) -> _ext.Handle:
    """This thread's handle for a device ("cpu", 0) or ("cuda", index), created on first use."""
    handles = getattr(_local, "handles", None)
    if handles is None:
        handles = _local.handles = {}
    h = handles.get(device)
    if h is None:
        if device[0] == "cuda":
            import torch  # a CUDA handle is made on the tensor's device

            with torch.cuda.device(device[1]):
                h = _ext.Handle("cuda", torch.cuda.current_stream(device[1]).cuda_stream)
        else:
            h = _ext.Handle("cpu", 0)
        handles[device] = h
    return h


def clear_caches() -> None:
    """Forgets this thread's remembered immediate-mode choices (after new find-db records)."""
    getattr(_local, "solutions", {}).clear()


def _handle_for(a: Any, handle: Optional[_ext.Handle]) -> _ext.Handle:
    if handle is not None:
        return handle
    dev = _device(a)
    h = default_handle(dev)
    if dev[0] == "cuda" and _is_torch(a):
        import torch

        stream = torch.cuda.current_stream(dev[1]).cuda_stream
        if h.stream != stream:
            h.stream = stream
    return h


def _empty(like: Any, shape: Sequence[int], dtype: Any = None) -> Any:
    if _is_torch(like):
        import torch

        t = torch.empty(tuple(shape), dtype=dtype or like.dtype, device=like.device)
        # Channels-last in, channels-last out (PyTorch's convention for conv outputs).
        if (like.dim() == 4 and len(shape) == 4 and not like.is_contiguous()
                and like.is_contiguous(memory_format=torch.channels_last)):
            t = t.contiguous(memory_format=torch.channels_last)
        return t
    return np.empty(tuple(shape), dtype=dtype or like.dtype)


def _workspace(like: Any, nbytes: int) -> Any:
    if nbytes == 0:
        return None
    if _is_torch(like):
        import torch

        return torch.empty(nbytes, dtype=torch.uint8, device=like.device)
    return np.empty(nbytes, dtype=np.uint8)


def _view(a: Any, shape: Sequence[int]) -> Any:
    """A view of `a` with unit dimensions added or removed (never a copy)."""
    if _is_torch(a):
        return a.view(tuple(shape)) if a.is_contiguous() else a.reshape(tuple(shape))
    return a.reshape(tuple(shape))


def _float_param_dtype(x: Any) -> Any:
    """MIOpen's batch-norm parameter type: float for half / bfloat16 data, else the data type."""
    if _is_torch(x):
        import torch

        return torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype
    return np.float32 if x.dtype == np.float16 else x.dtype


# --- convolution ----------------------------------------------------------------------------------

def _tuple(v: Any, n: int, what: str) -> List[int]:
    if isinstance(v, int):
        return [v] * n
    v = [int(i) for i in v]
    if len(v) != n:
        raise ValueError(f"{what} needs {n} values, got {len(v)}")
    return v


class _Conv:
    """The arguments of one convolution, 1-D problems lifted to 2-D (MIOpen has no 1-D conv)."""

    def __init__(self, spatial: int, stride, padding, dilation, groups, transposed,
                 output_padding):
        if spatial not in (1, 2, 3):
            raise ValueError(f"convolution over {spatial} spatial dimensions: 1, 2 or 3 allowed")
        self.lift = spatial == 1
        n = 2 if self.lift else spatial
        s, p, d = (_tuple(v, spatial, w) for v, w in
                   ((stride, "stride"), (padding, "padding"), (dilation, "dilation")))
        op = _tuple(output_padding, spatial, "output_padding") if transposed else []
        if self.lift:
            s, p, d = [1] + s, [0] + p, [1] + d
            op = [0] + op if op else []
        self.key = (tuple(s), tuple(p), tuple(d), int(groups), bool(transposed), tuple(op))
        self.params = _ext.ConvParams(p, s, d, int(groups), bool(transposed), op)
        self.n = n

    def up(self, a: Any) -> Any:
        return _view(a, tuple(a.shape[:2]) + (1,) + tuple(a.shape[2:])) if self.lift else a

    def up_shape(self, shape: Sequence[int]) -> List[int]:
        shape = list(shape)
        return shape[:2] + [1] + shape[2:] if self.lift else shape

    def down(self, a: Any) -> Any:
        return _view(a, tuple(a.shape[:2]) + tuple(a.shape[3:])) if self.lift else a


def _make_conv(x_ndim: int, stride, padding, dilation, groups, transposed, output_padding):
    if x_ndim < 3:
        raise ValueError(f"a convolution input has N, C and 1 to 3 spatial dimensions, got "
                         f"{x_ndim} dimensions")
    return _Conv(x_ndim - 2, stride, padding, dilation, groups, transposed, output_padding)


def _array_key(a: Any) -> tuple:
    strides = tuple(a.stride()) if _is_torch(a) else tuple(s // a.itemsize for s in a.strides)
    return (tuple(a.shape), strides, str(a.dtype))


def _run(direction: int, a, b, c, conv: _Conv, handle, algorithm: Optional[Algorithm],
         solution: Optional[int]) -> None:
    h = _handle_for(a, handle)
    if algorithm is not None:
        if algorithm.direction != direction:
            raise ValueError("that Algorithm was found for another direction")
        ws = _workspace(a, algorithm.workspace)
        _ext.conv_run_algorithm(h, direction, a, b, c, conv.params, algorithm.algorithm, ws)
        return
    if solution is None:
        # Immediate mode's first choice, remembered per problem (GetSolution ranks on each call).
        cache = getattr(_local, "solutions", None)
        if cache is None:
            cache = _local.solutions = {}
        key = (id(h), h.backend, direction, _array_key(a), _array_key(b), _array_key(c),
               conv.key)
        hit = cache.get(key)
        if hit is None:
            sols = _ext.conv_solutions(h, direction, a, b, c, conv.params)
            if not sols:
                raise RuntimeError("the library offers no solution for this convolution")
            hit = cache[key] = (sols[0][0], sols[0][3])
        solution, ws_size = hit
    else:
        ws_size = _ext.conv_solution_workspace(h, direction, a, b, c, conv.params, solution)
    _ext.conv_immediate(h, direction, a, b, c, conv.params, solution, _workspace(a, ws_size))


def conv_output_shape(x_shape: Sequence[int], w_shape: Sequence[int], *, stride=1, padding=0,
                      dilation=1, groups=1, transposed=False, output_padding=0) -> Tuple[int, ...]:
    """The output shape MIOpen computes for input x_shape and filter w_shape."""
    conv = _make_conv(len(x_shape), stride, padding, dilation, groups, transposed, output_padding)
    out = _ext.conv_output_shape(conv.up_shape(x_shape), conv.up_shape(w_shape), conv.params)
    return tuple(out[:2] + out[3:]) if conv.lift else tuple(out)


def conv_forward(x, w, bias=None, *, stride=1, padding=0, dilation=1, groups=1,
                 transposed=False, output_padding=0, out=None, algorithm: Optional[Algorithm] = None,
                 solution: Optional[int] = None, handle=None):
    """y = conv(x, w) (+ bias). w is K x C/groups x ... (C x K/groups x ... when transposed, as
    PyTorch's ConvTranspose weight). algorithm: a Find result; solution: an immediate-mode
    solution id; neither: immediate mode's first choice."""
    _check(x=x, w=w, bias=bias, out=out)
    conv = _make_conv(x.ndim, stride, padding, dilation, groups, transposed, output_padding)
    shape = conv_output_shape(x.shape, w.shape, stride=stride, padding=padding,
                              dilation=dilation, groups=groups, transposed=transposed,
                              output_padding=output_padding)
    y = out if out is not None else _empty(x, shape)
    if tuple(y.shape) != tuple(shape):
        raise ValueError(f"out has shape {tuple(y.shape)}, the convolution gives {shape}")
    _run(FORWARD, conv.up(x), conv.up(w), conv.up(y), conv, handle, algorithm, solution)
    if bias is not None:
        conv_bias_forward(y, bias, handle=handle)
    return y


def conv_backward_data(dy, w, x_shape: Sequence[int], *, stride=1, padding=0, dilation=1,
                       groups=1, transposed=False, output_padding=0, out=None,
                       algorithm: Optional[Algorithm] = None, solution: Optional[int] = None,
                       handle=None):
    """dx of a convolution, given dy, the filter and the input's shape."""
    _check(dy=dy, w=w, out=out)
    conv = _make_conv(len(x_shape), stride, padding, dilation, groups, transposed, output_padding)
    dx = out if out is not None else _empty(dy, x_shape)
    _run(BACKWARD_DATA, conv.up(dy), conv.up(w), conv.up(dx), conv, handle, algorithm, solution)
    return dx


def conv_backward_weights(dy, x, w_shape: Sequence[int], *, stride=1, padding=0, dilation=1,
                          groups=1, transposed=False, output_padding=0, out=None,
                          algorithm: Optional[Algorithm] = None, solution: Optional[int] = None,
                          handle=None):
    """dw of a convolution, given dy, the input and the filter's shape."""
    _check(dy=dy, x=x, out=out)
    conv = _make_conv(x.ndim, stride, padding, dilation, groups, transposed, output_padding)
    dw = out if out is not None else _empty(x, w_shape)
    _run(BACKWARD_WEIGHTS, conv.up(dy), conv.up(x), conv.up(dw), conv, handle, algorithm,
         solution)
    return dw


def _bias_view(b, ndim: int):
    return _view(b, (1, b.shape[0]) + (1,) * (ndim - 2))


def conv_bias_forward(y, bias, *, handle=None):
    """y += bias over the channel axis (miopenConvolutionForwardBias); returns y."""
    _check(y=y, bias=bias)
    if bias.ndim != 1 or bias.shape[0] != y.shape[1]:
        raise ValueError(f"bias must have shape ({y.shape[1]},), got {tuple(bias.shape)}")
    nd = max(y.ndim, 4)
    yv = _view(y, tuple(y.shape) + (1,) * (nd - y.ndim))
    _ext.conv_bias_forward(_handle_for(y, handle), _bias_view(bias, nd), yv)
    return y


def conv_backward_bias(dy, *, out=None, handle=None):
    """db = dy summed over all axes but the channel axis (miopenConvolutionBackwardBias)."""
    _check(dy=dy, out=out)
    db = out if out is not None else _empty(dy, (dy.shape[1],))
    nd = max(dy.ndim, 4)
    dyv = _view(dy, tuple(dy.shape) + (1,) * (nd - dy.ndim))
    _ext.conv_bias_backward(_handle_for(dy, handle), dyv, _bias_view(db, nd))
    return db


def _operands(direction: str, a, b, c_shape, handle, conv_args):
    """What find and conv_solutions share: the direction's number, the convolution, the handle
    and the three operands (c allocated, of c_shape), lifted to 2-D for a 1-D problem."""
    _check(a=a, b=b)
    d = _DIRECTIONS.get(direction)
    if d is None:
        raise ValueError(f"direction must be one of {sorted(_DIRECTIONS)}, got {direction!r}")
    conv = _make_conv(a.ndim, **conv_args)
    c = _empty(b if d == BACKWARD_WEIGHTS else a, c_shape)
    return d, conv, _handle_for(a, handle), conv.up(a), conv.up(b), conv.up(c)


def find(direction: str, a, b, c_shape: Sequence[int], *, stride=1, padding=0, dilation=1,
         groups=1, transposed=False, output_padding=0, exhaustive: bool = False,
         handle=None) -> List[Algorithm]:
    """MIOpen's Find for one direction: the algorithms it timed, fastest first.

    direction "forward": a = x, b = w, c_shape = y's shape; "backward_data": a = dy, b = w,
    c_shape = x's; "backward_weights": a = dy, b = x, c_shape = w's. Results go to the handle's
    find-db, as with the C API."""
    d, conv, h, a2, b2, c2 = _operands(
        direction, a, b, c_shape, handle,
        dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
             transposed=transposed, output_padding=output_padding))
    ws = _workspace(a, _ext.conv_find_workspace(h, d, a2, b2, c2, conv.params))
    found = _ext.conv_find(h, d, a2, b2, c2, conv.params, ws, exhaustive)
    return [Algorithm(d, algo, t, mem) for algo, t, mem in found]


def conv_solutions(direction: str, a, b, c_shape: Sequence[int], *, stride=1, padding=0,
                   dilation=1, groups=1, transposed=False, output_padding=0,
                   handle=None) -> List[Solution]:
    """Immediate mode's solutions for one direction (operands as in find), best first."""
    d, conv, h, a2, b2, c2 = _operands(
        direction, a, b, c_shape, handle,
        dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
             transposed=transposed, output_padding=output_padding))
    return [Solution(*s) for s in _ext.conv_solutions(h, d, a2, b2, c2, conv.params)]


# --- batch normalization --------------------------------------------------------------------------

def _bn_mode(mode: str) -> int:
    m = _BN_MODES.get(mode)
    if m is None:
        raise ValueError(f"mode must be 'spatial' or 'per_activation', got {mode!r}")
    return m


def _bn_lift(x):
    """MIOpen normalizes 4-D and 5-D tensors: N x C and N x C x L become N x C x (L) x 1."""
    if x.ndim < 2 or x.ndim > 5:
        raise ValueError(f"batch norm takes 2 to 5 dimensions, got {x.ndim}")
    return _view(x, tuple(x.shape) + (1,) * (4 - x.ndim)) if x.ndim < 4 else x


def _param_shape(x, mode: int) -> Tuple[int, ...]:
    return (x.shape[1],) if mode == 1 else tuple(x.shape[1:])


def batch_norm_training(x, scale, bias, *, mode: str = "spatial", momentum: float = 0.1,
                        eps: float = 1e-5, running_mean=None, running_var=None, out=None,
                        handle=None):
    """Training-mode batch norm: returns (y, save_mean, save_inv_var); running_mean /
    running_var (if given) are updated in place with factor `momentum` (MIOpen's expAvgFactor)."""
    _check(x=x, scale=scale, bias=bias, running_mean=running_mean, running_var=running_var,
           out=out)
    m = _bn_mode(mode)
    xl = _bn_lift(x)
    y = out if out is not None else _empty(x, x.shape)
    ptype = _float_param_dtype(x)
    save_mean = _empty(x, _param_shape(x, m), ptype)
    save_inv = _empty(x, _param_shape(x, m), ptype)
    _ext.bn_forward_training(_handle_for(x, handle), m, xl, _bn_lift(y), scale, bias,
                             float(momentum), running_mean, running_var, float(eps), save_mean,
                             save_inv)
    return y, save_mean, save_inv


def batch_norm_inference(x, scale, bias, mean, var, *, mode: str = "spatial", eps: float = 1e-5,
                         out=None, handle=None):
    """Inference-mode batch norm with the given (running) mean and variance."""
    _check(x=x, scale=scale, bias=bias, mean=mean, var=var, out=out)
    m = _bn_mode(mode)
    xl = _bn_lift(x)
    y = out if out is not None else _empty(x, x.shape)
    _ext.bn_forward_inference(_handle_for(x, handle), m, xl, _bn_lift(y), scale, bias,
                              mean, var, float(eps))
    return y


def batch_norm_backward(x, dy, scale, save_mean=None, save_inv_var=None, *,
                        mode: str = "spatial", eps: float = 1e-5, handle=None):
    """Backward of training-mode batch norm: returns (dx, dscale, dbias). save_mean /
    save_inv_var from batch_norm_training; without them MIOpen recomputes the statistics."""
    _check(x=x, dy=dy, scale=scale, save_mean=save_mean, save_inv_var=save_inv_var)
    m = _bn_mode(mode)
    xl = _bn_lift(x)
    dx = _empty(x, x.shape)
    ptype = _float_param_dtype(x)
    dscale = _empty(x, _param_shape(x, m), ptype)
    dbias = _empty(x, _param_shape(x, m), ptype)
    _ext.bn_backward(_handle_for(x, handle), m, xl, _bn_lift(dy), _bn_lift(dx), scale,
                     dscale, dbias, float(eps), save_mean, save_inv_var)
    return dx, dscale, dbias
