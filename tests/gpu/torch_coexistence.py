#!/usr/bin/env python3
"""PyTorch and anydnn (libMIOpen) in ONE process: every primitive, checked against PyTorch.

Why: a bug report says that after `import torch; torch.zeros(1, device="cuda")`, loading the CUDA
build of libMIOpen with ctypes and calling miopenConvolutionForwardGetWorkSpaceSize on a plain
NCHW fp32 problem segfaults. This script reproduces that order exactly (PyTorch's CUDA context and
its CUDA runtime libraries load first, then libMIOpen, then that call comes first) and then runs
convolution (Find and immediate mode, fp32 NCHW and fp16 NHWC, bias), batch norm, dropout and an
LSTM on tensors that PyTorch owns, on PyTorch's current stream, each checked against PyTorch's own
op on the same inputs. faulthandler prints the Python stack if the library crashes.

ctypes: every function gets argtypes/restype matching include/miopen/*.h exactly (a call without
them truncates 64-bit pointers to int). size_t -> c_size_t, enums -> c_int, double -> c_double,
bool -> c_bool, handles / descriptors / buffers -> c_void_p.

  python3 tests/gpu/torch_coexistence.py --lib build/lib/libMIOpen.so --device cuda
  MIOPEN_BACKEND=cpu python3 tests/gpu/torch_coexistence.py --lib ... --device cpu  # no GPU

Prints `PASS name (err)` / `FAIL name (err)` per check and `N passed, N failed`; exits 0 only if
every check passed and nothing raised. Errors are relative L2 norms against the reference.
"""
import argparse
import ctypes
import faulthandler
import os
import sys
import traceback
from ctypes import (POINTER, Structure, byref, c_bool, c_char_p, c_double, c_float, c_int,
                    c_size_t, c_uint64, c_ulonglong, c_void_p)

faulthandler.enable()  # a segfault in the library prints where Python was

P, PI, PS, PP = c_void_p, POINTER(c_int), POINTER(c_size_t), POINTER(c_void_p)
# Enumerator values from include/miopen/miopen.h, miopen_rnn.h and anydnn.h.
HALF, FLOAT = 0, 1
NCHW, NHWC = 0, 1
BN_SPATIAL = 1
RNN_LINEAR, RNN_UNIDIR, RNN_LSTM, RNN_WITH_BIAS, RNN_ALGO_DEFAULT = 0, 0, 2, 1, 0
RNG_XORWOW = 0
BACKEND_CPU, BACKEND_CUDA = 0, 1


class ConvAlgoPerf(Structure):  # miopenConvAlgoPerf_t: a union of enums (int), float, size_t
    _fields_ = [("algo", c_int), ("time", c_float), ("memory", c_size_t)]


class ConvSolution(Structure):  # miopenConvSolution_t
    _fields_ = [("time", c_float), ("workspace_size", c_size_t), ("solution_id", c_uint64),
                ("algorithm", c_int)]


# Every function called, with its C parameter list; all return miopenStatus_t (c_int).
PROTOS = {
    "miopenGetVersion": [PS, PS, PS],
    "miopenCreateWithStream": [PP, P],
    "anydnnCreateWithBackend": [PP, c_int, P],
    "anydnnGetBackend": [P, PI],
    "anydnnGetConvSolverName": [P, c_uint64, POINTER(c_char_p)],
    "miopenGetStream": [P, PP],
    "miopenDestroy": [P],
    "miopenCreateTensorDescriptor": [PP],
    "miopenSet4dTensorDescriptor": [P, c_int, c_int, c_int, c_int, c_int],
    "miopenSetTensorDescriptor": [P, c_int, c_int, PI, PI],
    "miopenSetNdTensorDescriptorWithLayout": [P, c_int, c_int, PI, c_int],
    "miopenGetTensorDescriptorSize": [P, PI],
    "miopenGetTensorDescriptor": [P, PI, PI, PI],
    "miopenGetTensorNumBytes": [P, PS],
    "miopenDestroyTensorDescriptor": [P],
    "miopenCreateConvolutionDescriptor": [PP],
    "miopenInitConvolutionDescriptor": [P, c_int, c_int, c_int, c_int, c_int, c_int, c_int],
    "miopenGetConvolutionForwardOutputDim": [P, P, P, PI, PI, PI, PI],
    "miopenDestroyConvolutionDescriptor": [P],
    "miopenConvolutionForwardGetWorkSpaceSize": [P, P, P, P, P, PS],
    "miopenFindConvolutionForwardAlgorithm": [P, P, P, P, P, P, P, P, c_int, PI,
                                              POINTER(ConvAlgoPerf), P, c_size_t, c_bool],
    "miopenConvolutionForward": [P, P, P, P, P, P, P, c_int, P, P, P, P, c_size_t],
    "miopenConvolutionBackwardDataGetWorkSpaceSize": [P, P, P, P, P, PS],
    "miopenFindConvolutionBackwardDataAlgorithm": [P, P, P, P, P, P, P, P, c_int, PI,
                                                   POINTER(ConvAlgoPerf), P, c_size_t, c_bool],
    "miopenConvolutionBackwardData": [P, P, P, P, P, P, P, c_int, P, P, P, P, c_size_t],
    "miopenConvolutionBackwardWeightsGetWorkSpaceSize": [P, P, P, P, P, PS],
    "miopenFindConvolutionBackwardWeightsAlgorithm": [P, P, P, P, P, P, P, P, c_int, PI,
                                                      POINTER(ConvAlgoPerf), P, c_size_t, c_bool],
    "miopenConvolutionBackwardWeights": [P, P, P, P, P, P, P, c_int, P, P, P, P, c_size_t],
    "miopenConvolutionForwardGetSolutionCount": [P, P, P, P, P, PS],
    "miopenConvolutionForwardGetSolution": [P, P, P, P, P, c_size_t, PS, POINTER(ConvSolution)],
    "miopenConvolutionForwardGetSolutionWorkspaceSize": [P, P, P, P, P, c_uint64, PS],
    "miopenConvolutionForwardCompileSolution": [P, P, P, P, P, c_uint64],
    "miopenConvolutionForwardImmediate": [P, P, P, P, P, P, P, P, P, c_size_t, c_uint64],
    "miopenConvolutionForwardBias": [P, P, P, P, P, P, P],
    "miopenConvolutionBackwardBias": [P, P, P, P, P, P, P],
    "miopenDeriveBNTensorDescriptor": [P, P, c_int],
    "miopenBatchNormalizationForwardTraining": [P, c_int, P, P, P, P, P, P, P, P, P, c_double,
                                                P, P, c_double, P, P],
    "miopenBatchNormalizationForwardInference": [P, c_int, P, P, P, P, P, P, P, P, P, P, P,
                                                 c_double],
    "miopenBatchNormalizationBackward": [P, c_int, P, P, P, P, P, P, P, P, P, P, P, P, P, P,
                                         c_double, P, P],
    "miopenCreateDropoutDescriptor": [PP],
    "miopenDestroyDropoutDescriptor": [P],
    "miopenDropoutGetStatesSize": [P, PS],
    "miopenDropoutGetReserveSpaceSize": [P, PS],
    "miopenSetDropoutDescriptor": [P, P, c_float, P, c_size_t, c_ulonglong, c_bool, c_bool,
                                   c_int],
    "miopenGetDropoutDescriptor": [P, P, POINTER(c_float), PP, POINTER(c_ulonglong),
                                   POINTER(c_bool), POINTER(c_bool), PI],
    "miopenDropoutForward": [P, P, P, P, P, P, P, P, c_size_t],
    "miopenDropoutBackward": [P, P, P, P, P, P, P, P, c_size_t],
    "miopenCreateRNNDescriptor": [PP],
    "miopenDestroyRNNDescriptor": [P],
    "miopenSetRNNDescriptor": [P, c_int, c_int, c_int, c_int, c_int, c_int, c_int, c_int],
    "miopenGetRNNParamsSize": [P, P, P, PS, c_int],
    "miopenGetRNNParamsDescriptor": [P, P, P, P, c_int],
    "miopenGetRNNWorkspaceSize": [P, P, c_int, PP, PS],
    "miopenGetRNNTrainingReserveSize": [P, P, c_int, PP, PS],
    "miopenGetRNNLayerParamOffset": [P, c_int, P, c_int, P, PS],
    "miopenGetRNNLayerBiasOffset": [P, c_int, P, c_int, P, PS],
    "miopenSetRNNLayerParam": [P, P, c_int, P, P, P, c_int, P, P],
    "miopenSetRNNLayerBias": [P, P, c_int, P, P, P, c_int, P, P],
    "miopenRNNForwardTraining": [P, P, c_int, PP, P, P, P, P, P, P, P, PP, P, P, P, P, P, P,
                                 c_size_t, P, c_size_t],
    "miopenRNNBackwardData": [P, P, c_int, PP, P, PP, P, P, P, P, P, P, P, P, P, P, P, PP, P, P,
                              P, P, P, P, c_size_t, P, c_size_t],
    "miopenRNNBackwardWeights": [P, P, c_int, PP, P, P, P, PP, P, P, P, P, c_size_t, P,
                                 c_size_t],
}


class MIOpenError(RuntimeError):
    pass


class Lib:
    """libMIOpen with prototypes; lib.fn(...) raises MIOpenError naming fn, status and text."""

    def __init__(self, path):
        self.dll = ctypes.CDLL(path)
        for name, args in PROTOS.items():
            f = getattr(self.dll, name)
            f.argtypes, f.restype = args, c_int
        self.dll.miopenGetErrorString.argtypes = [c_int]
        self.dll.miopenGetErrorString.restype = c_char_p
        self.destroy = []  # (destroy function, object), destroyed in reverse at the end

    def __getattr__(self, name):
        f = getattr(self.dll, name)
        if f.argtypes is None:  # never call an undeclared function (the classic ctypes bug)
            raise AttributeError(f"{name} has no prototype in PROTOS")

        def call(*args):
            st = f(*args)
            if st != 0:
                text = self.dll.miopenGetErrorString(st)
                raise MIOpenError(f"{name} returned status {st} "
                                  f"({text.decode() if text else '?'})")
        return call

    def create(self, kind):
        """A new descriptor of kind Tensor / Convolution / Dropout / RNN, destroyed at exit."""
        d = c_void_p()
        getattr(self, f"miopenCreate{kind}Descriptor")(byref(d))
        self.destroy.append((f"miopenDestroy{kind}Descriptor", d))
        return d


def ints(vals):
    return (c_int * len(vals))(*vals)


def ptr(t):
    return c_void_p(t.data_ptr())


ONE, ZERO = c_float(1.0), c_float(0.0)  # alpha / beta are host floats
A1, B0 = byref(ONE), byref(ZERO)


class Report:
    def __init__(self):
        self.passed = self.failed = 0

    def result(self, name, ok, detail):
        print(f"{'PASS' if ok else 'FAIL'} {name} ({detail})", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def close(self, name, got, ref, tol):
        """Relative L2 error of got against ref (float64 on the host); NaN fails."""
        g, r = got.detach().double().cpu().reshape(-1), ref.detach().double().cpu().reshape(-1)
        if g.shape != r.shape:
            return self.result(name, False, f"shape {tuple(g.shape)} vs {tuple(r.shape)}")
        den = r.norm().item()
        err = (g - r).norm().item() / (den if den > 0 else 1.0)
        self.result(name, err == err and err < tol, f"{err:.3g}")

    def true(self, name, ok, detail=""):
        self.result(name, bool(ok), detail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="path to libMIOpen.so")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    a = ap.parse_args()

    # 1. PyTorch first, with its CUDA context, as in the report; then libMIOpen.
    import torch
    import torch.nn.functional as F
    dev = a.device
    if dev == "cuda":
        if not torch.cuda.is_available():
            raise RuntimeError("--device cuda but torch.cuda.is_available() is False")
        torch.zeros(1, device="cuda")
        name = torch.cuda.get_device_name()
    else:
        name = "CPU"
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, device {name}", flush=True)
    # Strict fp32 references: no TF32 in PyTorch's convolutions or GEMMs (cuDNN LSTM included).
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(1234)
    lib = Lib(a.lib)
    v = [c_size_t() for _ in range(3)]
    lib.miopenGetVersion(*[byref(x) for x in v])
    print(f"libMIOpen {a.lib}: version {'.'.join(str(x.value) for x in v)}", flush=True)
    rep = Report()

    # 2. The handle: on PyTorch's current stream (CUDA), or an explicit CPU one. The CPU handle
    # `hc` is also made in CUDA mode: the RNN runs on it with host buffers as a second oracle.
    # PyTorch's current stream is made a side stream first: the default one is NULL, and NULL
    # coming back from miopenGetStream would not prove that the 64-bit pointer survives.
    h, hc = c_void_p(), c_void_p()
    stream = None
    if dev == "cuda":
        side = torch.cuda.Stream()  # kept referenced for the whole run
        torch.cuda.set_stream(side)
        stream = torch.cuda.current_stream().cuda_stream
        assert stream == side.cuda_stream and stream != 0
        lib.miopenCreateWithStream(byref(h), c_void_p(stream))
    else:
        lib.anydnnCreateWithBackend(byref(h), BACKEND_CPU, None)
    lib.destroy.insert(0, ("miopenDestroy", h))
    lib.anydnnCreateWithBackend(byref(hc), BACKEND_CPU, None)
    lib.destroy.insert(0, ("miopenDestroy", hc))
    got, kind = c_void_p(), c_int(-1)
    lib.miopenGetStream(h, byref(got))
    rep.true("handle.stream", (got.value or 0) == (stream or 0),
             f"{hex(got.value or 0)} vs {hex(stream or 0)}")
    lib.anydnnGetBackend(h, byref(kind))
    want = BACKEND_CUDA if dev == "cuda" else BACKEND_CPU
    rep.true("handle.backend", kind.value == want, f"{kind.value} vs {want}")

    def tdesc(dtype, dims, layout=None):
        """A tensor descriptor: 4-D with a layout (lens in NCHW order), else packed N-D."""
        d = lib.create("Tensor")
        if layout is not None:
            lib.miopenSetNdTensorDescriptorWithLayout(d, dtype, layout, ints(dims), len(dims))
        else:
            lib.miopenSetTensorDescriptor(d, dtype, len(dims), ints(dims), None)
        return d

    def strides_of(d):
        n = c_int()
        lib.miopenGetTensorDescriptorSize(d, byref(n))
        dt, dims, st = c_int(), (c_int * n.value)(), (c_int * n.value)()
        lib.miopenGetTensorDescriptor(d, byref(dt), dims, st)
        return list(dims), list(st)

    def buf(nbytes):  # workspace / reserve / states in the handle's memory
        return torch.empty(max(int(nbytes), 1), dtype=torch.uint8, device=dev)

    def guarded(name, fn, *args):
        """Run one group of checks; an exception is a FAIL naming it, and the others go on."""
        try:
            fn(*args)
        except Exception as e:  # noqa: BLE001 - reported, counted, exit status non-zero
            traceback.print_exc()
            rep.result(name, False, f"{type(e).__name__}: {e}")

    # 3a. Convolution: Find + the three directions, immediate mode (every solution), bias.
    def conv_case(tag, dtype, layout, N, C, H, W, K, R, pad, stride):
        th = torch.float16 if dtype == HALF else torch.float32
        tol = 1e-2 if dtype == HALF else 1e-4
        mf = torch.channels_last if layout == NHWC else torch.contiguous_format
        Ho, Wo = (H + 2 * pad - R) // stride + 1, (W + 2 * pad - R) // stride + 1
        x = torch.randn(N, C, H, W, device=dev).to(th).contiguous(memory_format=mf)
        w = (torch.randn(K, C, R, R, device=dev) / (C * R * R) ** 0.5).to(th)
        w = w.contiguous(memory_format=mf)
        y = torch.empty(N, K, Ho, Wo, dtype=th, device=dev).contiguous(memory_format=mf)
        dy = torch.randn(N, K, Ho, Wo, device=dev).to(th).contiguous(memory_format=mf)
        xd, wd, yd = (tdesc(dtype, list(t.shape), layout) for t in (x, w, y))
        cd = lib.create("Convolution")
        lib.miopenInitConvolutionDescriptor(cd, 0, pad, pad, stride, stride, 1, 1)
        # THE call from the bug report, before any other call on the problem.
        ws_f = c_size_t()
        lib.miopenConvolutionForwardGetWorkSpaceSize(h, wd, xd, cd, yd, byref(ws_f))
        rep.true(f"conv.{tag}.fwd_workspace_size", True, f"{ws_f.value} bytes")
        o = [c_int() for _ in range(4)]
        lib.miopenGetConvolutionForwardOutputDim(cd, xd, wd, *[byref(i) for i in o])
        rep.true(f"conv.{tag}.output_dim", [i.value for i in o] == list(y.shape),
                 f"{[i.value for i in o]}")
        rep.true(f"conv.{tag}.descriptor_strides",
                 all(strides_of(d) == (list(t.shape), list(t.stride()))
                     for d, t in ((xd, x), (wd, w), (yd, y))), "x, w, y as torch lays them out")
        # References in fp32 from the same (for fp16: half-rounded) inputs: the exact target.
        xf, wf, dyf = x.float(), w.float(), dy.float()
        yref = F.conv2d(xf, wf, stride=stride, padding=pad)
        dxref, dwref, _ = torch.ops.aten.convolution_backward(
            dyf, xf, wf, None, [stride] * 2, [pad] * 2, [1, 1], False, [0, 0], 1,
            [True, True, False])

        def find_and_run(dirn, find, run, size_fn, size_args, find_args, out, run_args, ref):
            ws = c_size_t()
            getattr(lib, size_fn)(h, *size_args, byref(ws))
            wsb = buf(ws.value)
            perf, cnt = (ConvAlgoPerf * 4)(), c_int()
            out.fill_(float("nan"))
            getattr(lib, find)(h, *find_args, 4, byref(cnt), perf, ptr(wsb), ws.value, False)
            rep.true(f"conv.{tag}.{dirn}.find", cnt.value >= 1 and perf[0].memory <= ws.value,
                     f"{cnt.value} algos, first {perf[0].algo} needs {perf[0].memory} B")
            out.fill_(float("nan"))
            getattr(lib, run)(h, A1, *run_args[:5], perf[0].algo, B0, *run_args[5:], ptr(wsb),
                              ws.value)
            rep.close(f"conv.{tag}.{dirn} algo {perf[0].algo}", out, ref, tol)

        dx, dw = torch.empty_like(x), torch.empty_like(w)
        find_and_run("fwd", "miopenFindConvolutionForwardAlgorithm", "miopenConvolutionForward",
                     "miopenConvolutionForwardGetWorkSpaceSize", (wd, xd, cd, yd),
                     (xd, ptr(x), wd, ptr(w), cd, yd, ptr(y)), y,
                     (xd, ptr(x), wd, ptr(w), cd, yd, ptr(y)), yref)
        find_and_run("bwd_data", "miopenFindConvolutionBackwardDataAlgorithm",
                     "miopenConvolutionBackwardData",
                     "miopenConvolutionBackwardDataGetWorkSpaceSize", (yd, wd, cd, xd),
                     (yd, ptr(dy), wd, ptr(w), cd, xd, ptr(dx)), dx,
                     (yd, ptr(dy), wd, ptr(w), cd, xd, ptr(dx)), dxref)
        find_and_run("bwd_weights", "miopenFindConvolutionBackwardWeightsAlgorithm",
                     "miopenConvolutionBackwardWeights",
                     "miopenConvolutionBackwardWeightsGetWorkSpaceSize", (yd, xd, cd, wd),
                     (yd, ptr(dy), xd, ptr(x), cd, wd, ptr(dw)), dw,
                     (yd, ptr(dy), xd, ptr(x), cd, wd, ptr(dw)), dwref)

        # Immediate mode: every applicable forward solution, compiled and run.
        n = c_size_t()
        lib.miopenConvolutionForwardGetSolutionCount(h, wd, xd, cd, yd, byref(n))
        sols = (ConvSolution * max(n.value, 1))()
        lib.miopenConvolutionForwardGetSolution(h, wd, xd, cd, yd, n.value, byref(n), sols)
        rep.true(f"conv.{tag}.fwd.solutions", n.value >= 1, f"{n.value} solutions")
        for s in sols[:n.value]:
            sname, ws = c_char_p(), c_size_t()
            lib.anydnnGetConvSolverName(h, s.solution_id, byref(sname))
            lib.miopenConvolutionForwardGetSolutionWorkspaceSize(h, wd, xd, cd, yd, s.solution_id,
                                                                 byref(ws))
            lib.miopenConvolutionForwardCompileSolution(h, wd, xd, cd, yd, s.solution_id)
            wsb = buf(ws.value)
            y.fill_(float("nan"))
            lib.miopenConvolutionForwardImmediate(h, wd, ptr(w), xd, ptr(x), cd, yd, ptr(y),
                                                  ptr(wsb), ws.value, s.solution_id)
            rep.close(f"conv.{tag}.fwd.immediate {s.solution_id}/{sname.value.decode()}", y,
                      yref, tol)

        # Bias: y = alpha * (y + b) + beta * y in place; db = sum of dy over N, H, W.
        b = torch.randn(K, device=dev).to(th)
        bd = tdesc(dtype, [1, K, 1, 1])
        yb = y.clone()
        lib.miopenConvolutionForwardBias(h, A1, bd, ptr(b), B0, yd, ptr(yb))
        rep.close(f"conv.{tag}.fwd_bias", yb, y.float() + b.float().view(1, K, 1, 1), tol)
        db = torch.full((K,), float("nan"), dtype=th, device=dev)
        lib.miopenConvolutionBackwardBias(h, A1, yd, ptr(dy), B0, bd, ptr(db))
        rep.close(f"conv.{tag}.bwd_bias", db, dyf.sum((0, 2, 3)), tol)

    # 3b. Batch norm, spatial: training forward (running and saved statistics), backward,
    # inference.
    def batch_norm():
        N, C, H, W, eps, f = 4, 6, 7, 7, 1e-5, 0.1
        x = torch.randn(N, C, H, W, device=dev) * 2 + 0.5
        dy = torch.randn_like(x)
        xd = tdesc(FLOAT, [N, C, H, W])
        bnd = lib.create("Tensor")
        lib.miopenDeriveBNTensorDescriptor(bnd, xd, BN_SPATIAL)
        rep.true("bn.derived_descriptor", strides_of(bnd)[0] == [1, C, 1, 1],
                 f"{strides_of(bnd)[0]}")
        scale, bias = torch.rand(C, device=dev) + 0.5, torch.randn(C, device=dev)
        rm, rv = torch.randn(C, device=dev), torch.rand(C, device=dev) + 0.5
        rm_t, rv_t = rm.clone(), rv.clone()
        nan = float("nan")
        y, sm, siv = torch.full_like(x, nan), torch.full_like(rm, nan), torch.full_like(rm, nan)
        lib.miopenBatchNormalizationForwardTraining(
            h, BN_SPATIAL, A1, B0, xd, ptr(x), xd, ptr(y), bnd, ptr(scale), ptr(bias), f, ptr(rm),
            ptr(rv), eps, ptr(sm), ptr(siv))
        yref = F.batch_norm(x, rm_t, rv_t, scale, bias, training=True, momentum=f, eps=eps)
        rep.close("bn.fwd_training.y", y, yref, 1e-4)
        rep.close("bn.fwd_training.running_mean", rm, rm_t, 1e-4)
        rep.close("bn.fwd_training.running_var", rv, rv_t, 1e-4)
        rep.close("bn.fwd_training.saved_mean", sm, x.mean((0, 2, 3)), 1e-4)
        rep.close("bn.fwd_training.saved_invvar", siv,
                  (x.var((0, 2, 3), unbiased=False) + eps).rsqrt(), 1e-4)
        dx, ds, dbias = torch.full_like(x, nan), torch.full_like(rm, nan), torch.full_like(rm, nan)
        lib.miopenBatchNormalizationBackward(
            h, BN_SPATIAL, A1, B0, A1, B0, xd, ptr(x), xd, ptr(dy), xd, ptr(dx), bnd, ptr(scale),
            ptr(ds), ptr(dbias), eps, ptr(sm), ptr(siv))
        xr, sr, br = (t.clone().requires_grad_() for t in (x, scale, bias))
        F.batch_norm(xr, None, None, sr, br, training=True, eps=eps).backward(dy)
        rep.close("bn.bwd.dx", dx, xr.grad, 1e-4)
        rep.close("bn.bwd.dscale", ds, sr.grad, 1e-4)
        rep.close("bn.bwd.dbias", dbias, br.grad, 1e-4)
        y.fill_(nan)
        lib.miopenBatchNormalizationForwardInference(
            h, BN_SPATIAL, A1, B0, xd, ptr(x), xd, ptr(y), bnd, ptr(scale), ptr(bias), ptr(rm),
            ptr(rv), eps)
        rep.close("bn.fwd_inference.y",
                  y, F.batch_norm(x, rm, rv, scale, bias, training=False, eps=eps), 1e-4)

    # 3c. Dropout: no PyTorch equivalent draws the same mask, so check its definition.
    def dropout():
        p, shape = 0.3, (4, 8, 32, 32)
        x = torch.rand(shape, device=dev) + 0.5  # never 0: y == 0 means dropped
        xd = tdesc(FLOAT, list(shape))
        dd = lib.create("Dropout")
        n = c_size_t()
        lib.miopenDropoutGetStatesSize(h, byref(n))
        states = buf(n.value)
        lib.miopenSetDropoutDescriptor(dd, h, p, ptr(states), n.value, 1234, False, False,
                                       RNG_XORWOW)
        gp, gs, gseed, um, evo, rng = c_float(), c_void_p(), c_ulonglong(), c_bool(True), \
            c_bool(True), c_int(-1)
        lib.miopenGetDropoutDescriptor(dd, h, byref(gp), byref(gs), byref(gseed), byref(um),
                                       byref(evo), byref(rng))
        rep.true("dropout.descriptor_round_trip",
                 abs(gp.value - p) < 1e-7 and gs.value == states.data_ptr() and
                 gseed.value == 1234 and not um.value and not evo.value and rng.value == 0,
                 f"p {gp.value:.3g} seed {gseed.value}")
        lib.miopenDropoutGetReserveSpaceSize(xd, byref(n))
        rep.true("dropout.reserve_size", n.value >= x.numel(), f"{n.value} bytes")
        reserve = buf(n.value)
        y = torch.full_like(x, float("nan"))
        lib.miopenDropoutForward(h, dd, xd, xd, ptr(x), xd, ptr(y), ptr(reserve), n.value)
        kept = y != 0
        rep.close("dropout.fwd.kept_scaled", y[kept], x[kept] / (1 - p), 1e-6)
        rep.true("dropout.fwd.dropped_zero", (y[~kept] == 0).all().item() and
                 not y.isnan().any().item(), f"{(~kept).sum().item()} zeros")
        frac = kept.float().mean().item()
        rep.true("dropout.fwd.kept_fraction", abs(frac - (1 - p)) < 0.02, f"{frac:.4f}")
        mask = reserve[:x.numel()].view(shape) != 0
        rep.true("dropout.reserve_is_mask", torch.equal(mask, kept), "reserve != 0 where kept")
        dy = torch.randn_like(x)
        dx = torch.full_like(x, float("nan"))
        lib.miopenDropoutBackward(h, dd, xd, xd, ptr(dy), xd, ptr(dx), ptr(reserve), n.value)
        rep.close("dropout.bwd.same_mask", dx, torch.where(kept, dy / (1 - p), 0.0), 1e-6)
        rep.true("dropout.bwd.dropped_zero", (dx[~kept] == 0).all().item(), "")

    # 3d. LSTM (2 layers, unidirectional, input 5, hidden 6, seq 4, batch 3): against
    # torch.nn.LSTM (weights moved into MIOpen's packed layout through the API), and the
    # handle's backend against the CPU backend on host buffers.
    def rnn():
        T, B, I, Hs, L = 4, 3, 5, 6, 2
        r = lib.create("RNN")
        lib.miopenSetRNNDescriptor(r, Hs, L, RNN_LINEAR, RNN_UNIDIR, RNN_LSTM, RNN_WITH_BIAS,
                                   RNN_ALGO_DEFAULT, FLOAT)
        xds = [tdesc(FLOAT, [B, I]) for _ in range(T)]
        yds = [tdesc(FLOAT, [B, Hs]) for _ in range(T)]
        xarr = (c_void_p * T)(*[d.value for d in xds])
        yarr = (c_void_p * T)(*[d.value for d in yds])
        hd = tdesc(FLOAT, [L, B, Hs])
        wd = lib.create("Tensor")
        lib.miopenGetRNNParamsDescriptor(hc, r, xds[0], wd, FLOAT)
        nbytes, dbytes = c_size_t(), c_size_t()
        lib.miopenGetRNNParamsSize(hc, r, xds[0], byref(nbytes), FLOAT)
        lib.miopenGetTensorNumBytes(wd, byref(dbytes))
        lstm = torch.nn.LSTM(I, Hs, L)  # on the host first: the same values for every run
        tparams = dict(lstm.named_parameters())
        nw = sum(t.numel() for t in tparams.values())
        rep.true("rnn.params_size", nbytes.value == dbytes.value == 4 * nw,
                 f"{nbytes.value} bytes, torch has {nw} floats")
        # MIOpen: per layer, matrices 0..3 input side, 4..7 hidden side, biases likewise, gates
        # i, f, o, g; PyTorch stacks gates i, f, g, o. Set each through the API on the CPU
        # handle (host buffers) and remember its offset for mapping gradients back.
        slots, w_host = [], torch.full((nbytes.value // 4,), float("nan"))
        for l in range(L):
            for pid in range(8):
                side, tg = ("ih", "hh")[pid // 4], (0, 1, 3, 2)[pid % 4]
                for what in ("weight", "bias"):
                    t = tparams[f"{what}_{side}_l{l}"].detach()[tg * Hs:(tg + 1) * Hs]
                    t = t.contiguous()
                    pd, off = lib.create("Tensor"), c_size_t()
                    kind = "Param" if what == "weight" else "Bias"
                    getattr(lib, f"miopenGetRNNLayer{kind}Offset")(r, l, xds[0], pid, pd,
                                                                   byref(off))
                    getattr(lib, f"miopenSetRNNLayer{kind}")(hc, r, l, xds[0], wd, ptr(w_host),
                                                             pid, pd, ptr(t))
                    slots.append((f"{what}_{side}_l{l}", tg, off.value, t.numel()))
        w_off = torch.full_like(w_host, float("nan"))
        for pname, tg, off, n in slots:
            w_off[off:off + n] = tparams[pname].detach()[tg * Hs:(tg + 1) * Hs].reshape(-1)
        rep.true("rnn.set_layer_params_fill_layout",
                 not w_host.isnan().any().item() and torch.equal(w_host, w_off),
                 "SetRNNLayerParam/Bias == GetRNNLayer*Offset slots, every weight set")
        x, hx, cx = torch.randn(T, B, I), torch.randn(L, B, Hs), torch.randn(L, B, Hs)
        dy, dhy, dcy = torch.randn(T, B, Hs), torch.randn(L, B, Hs), torch.randn(L, B, Hs)

        def run(handle, where):
            """Forward training, backward data, backward weights on `where`'s memory."""
            w, xx, hxx, cxx, dyy, dhyy, dcyy = (t.to(where) for t in
                                                (w_host, x, hx, cx, dy, dhy, dcy))
            ws, rs = c_size_t(), c_size_t()
            lib.miopenGetRNNWorkspaceSize(handle, r, T, xarr, byref(ws))
            lib.miopenGetRNNTrainingReserveSize(handle, r, T, xarr, byref(rs))
            wsb = torch.empty(max(ws.value, 1), dtype=torch.uint8, device=where)
            rsb = torch.empty(max(rs.value, 1), dtype=torch.uint8, device=where)
            nan = float("nan")
            y = torch.full((T, B, Hs), nan, device=where)
            hy, cy = torch.full_like(hxx, nan), torch.full_like(hxx, nan)
            lib.miopenRNNForwardTraining(handle, r, T, xarr, ptr(xx), hd, ptr(hxx), hd, ptr(cxx),
                                         wd, ptr(w), yarr, ptr(y), hd, ptr(hy), hd, ptr(cy),
                                         ptr(wsb), ws.value, ptr(rsb), rs.value)
            dx = torch.full_like(xx, nan)
            dhx, dcx = torch.full_like(hxx, nan), torch.full_like(hxx, nan)
            lib.miopenRNNBackwardData(handle, r, T, yarr, ptr(y), yarr, ptr(dyy), hd, ptr(dhyy),
                                      hd, ptr(dcyy), wd, ptr(w), hd, ptr(hxx), hd, ptr(cxx), xarr,
                                      ptr(dx), hd, ptr(dhx), hd, ptr(dcx), ptr(wsb), ws.value,
                                      ptr(rsb), rs.value)
            dw = torch.full_like(w, nan)  # overwritten, as MIOpen's code does
            lib.miopenRNNBackwardWeights(handle, r, T, xarr, ptr(xx), hd, ptr(hxx), yarr, ptr(y),
                                         wd, ptr(dw), ptr(wsb), ws.value, ptr(rsb), rs.value)
            out = dict(y=y, hy=hy, cy=cy, dx=dx, dhx=dhx, dcx=dcx, dw=dw)
            return {k: t.cpu() for k, t in out.items()}

        got = run(h, dev)
        # PyTorch's LSTM (cuDNN on CUDA) with autograd on the same values.
        lstm = lstm.to(dev)
        xr, hr, cr = (t.to(dev).clone().requires_grad_() for t in (x, hx, cx))
        yr, (hyr, cyr) = lstm(xr, (hr, cr))
        ((yr * dy.to(dev)).sum() + (hyr * dhy.to(dev)).sum() +
         (cyr * dcy.to(dev)).sum()).backward()
        dw_ref = torch.full_like(w_host, float("nan"))
        for pname, tg, off, n in slots:
            g = dict(lstm.named_parameters())[pname].grad
            dw_ref[off:off + n] = g[tg * Hs:(tg + 1) * Hs].reshape(-1).cpu()
        ref = dict(y=yr, hy=hyr, cy=cyr, dx=xr.grad, dhx=hr.grad, dcx=cr.grad, dw=dw_ref)
        for k in ref:
            rep.close(f"rnn.lstm.{k} vs torch.nn.LSTM", got[k], ref[k], 1e-4)
        cpu = run(hc, "cpu")  # the CPU backend on host copies: anydnn against itself
        for k in cpu:
            rep.close(f"rnn.lstm.{k} {dev} vs anydnn cpu", got[k], cpu[k], 1e-5)

    guarded("conv.nchw_fp32_3x3s2", conv_case, "nchw_fp32_3x3s2", FLOAT, NCHW, 2, 8, 9, 9, 16, 3,
            1, 2)
    guarded("conv.nchw_fp32_1x1", conv_case, "nchw_fp32_1x1", FLOAT, NCHW, 2, 8, 9, 9, 16, 1, 0,
            1)
    guarded("conv.nhwc_fp16_3x3", conv_case, "nhwc_fp16_3x3", HALF, NHWC, 2, 8, 9, 9, 16, 3, 1,
            1)
    guarded("bn", batch_norm)
    guarded("dropout", dropout)
    guarded("rnn", rnn)
    if dev == "cuda":
        torch.cuda.synchronize()  # no work of the library may still be in flight at teardown

    # Teardown: every descriptor, then the handles; each status checked.
    def teardown():
        for fn, obj in reversed(lib.destroy):
            getattr(lib, fn)(obj)
        lib.destroy.clear()
    guarded("teardown", teardown)
    print(f"{rep.passed} passed, {rep.failed} failed", flush=True)
    return 0 if rep.failed == 0 else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 - any exception is a failure of the test
        traceback.print_exc()
        print("FAIL exception (see traceback above)", flush=True)
        sys.exit(1)
