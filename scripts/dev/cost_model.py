"""Python mirror of src/backend/cuda/conv/cost_model.cpp and the CUDA solvers' estimated_ms, for
fitting the efficiency constants to solver_bench sweeps offline (no GPU needed). The C++ code is
the product; keep the two in step when a constant or a formula changes."""
import math
import re

H100 = dict(sms=132, fp32=66.9e12, t16=1070e12, tf32=535e12, bw=3352e9)
# The fitted values, as in cost_model.cpp / cost_model.hpp.
C = dict(mem_eff=0.80, fp32_eff=0.78, tensor_eff=0.21, launch=0.004, cutlass_eff=0.90,
         im2col=2.31, col2im=1.95, stage=1.36, direct_patch=119.0, direct_tap=51.0,
         tc_fwd=0.595, tc_bwd=0.72, tc_wrw=0.425, gemm_loop=0.0028, tile_pow_fp32=0.21,
         tile_pow_t16=1.65, direct_block=546.0, col_slope=0.003, col_knee=8.0,
         tc_bwd_s1=0.72 * 1.06, tc_bwd_narrow=0.35, tf32_eff=0.42, tile_pow_tf32=0.5,
         l2_bw=0.0)  # l2_bw: an L2 operand floor for CUTLASS, tried and off (0)
# calibrated_ms's table: (solver, math 0 fp32 / 1 tf32 / 2 fp16-bf16) -> (factor, fixed ms)
CAL = {("GemmBwd1x1_stride1", 2): (0.8, 0.0), ("GemmFwdRest", 2): (0.9, 0.0),
       ("GemmWrwUniversal", 2): (1.1, 0.0), ("ImplicitGemmTensorCoreBwd", 2): (0.8, 0.008),
       ("ImplicitGemmTensorCoreFwd", 2): (0.9, 0.012),
       ("ImplicitGemmTensorCoreBwdS1", 2): (0.8, 0.008),
       ("GemmFwdRest", 1): (1.45, 0.0), ("GemmBwdRest", 1): (1.1, 0.0),
       ("GemmFwdRest", 0): (2.0, 0.0), ("GemmBwdRest", 0): (1.8, 0.0),
       ("GemmWrwUniversal", 0): (1.6, 0.0), ("ConvDirectFwdCuda", 0): (1.25, 0.0),
       ("ImplicitGemmTensorCoreWrw", 2): (1.5, 0.0),
       ("ImplicitGemmTensorCoreWrwSerial", 2): (1.2, 0.0), ("GemmWrw1x1Nhwc", 2): (1.2, 0.0),
       ("ImplicitGemmWgmmaWrw128x64", 2): (0.9, 0.0), ("ImplicitGemmWgmmaWrw64x128", 2): (0.9, 0.0)}


def column_ms(c, col_bytes):
    """column_buffer_ms of cost_model.hpp: one image's column matrix past the knee (MB), where
    im2col's scattered writes and the GEMM's reads stop hitting L2 (ms per MB)."""
    return c["col_slope"] * max(0.0, col_bytes / 1e6 - c["col_knee"])


def calibrated(solver, p, ms, cal=None):
    cal = CAL if cal is None else cal
    m = 0 if p.dtype == "fp32" else 1 if p.dtype == "tf32" else 2
    f, a = cal.get((solver, m), (1.0, 0.0))
    return ms * f + a


def bytes_ms(r, b, c):
    return b / (r["bw"] * c["mem_eff"]) * 1e3


def memory_ms(r, b, c):
    return bytes_ms(r, b, c) + c["launch"]


def tile_for(d):
    return 128 if d >= 128 else 64 if d >= 64 else 32


def cublas_ms(r, c, math_, m, n, k, batch, ib, ob):
    tm, tn = tile_for(m), tile_for(n)
    pw = c["tile_pow_fp32"] if math_ == "fp32" else \
        c.get("tile_pow_tf32", c["tile_pow_t16"]) if math_ == "tf32" else c["tile_pow_t16"]
    tile_eff = max((tm * tn / (128 * 128)) ** pw, 0.1)
    eff = (c["fp32_eff"] if math_ == "fp32" else
           c.get("tf32_eff", c["tensor_eff"]) if math_ == "tf32" else c["tensor_eff"]) * tile_eff
    blocks = math.ceil(m / tm) * math.ceil(n / tn) * batch
    split = 1
    if blocks < r["sms"] and k >= 512:
        split = max(1, min(r["sms"] // blocks, k // 256))
    blocks *= split
    peak = r["fp32"] if math_ == "fp32" else r["tf32"] if math_ == "tf32" else r["t16"]
    per_sm = peak * eff / r["sms"]
    waves = math.ceil(blocks / r["sms"])
    comp = waves * 2 * tm * tn * (k / split) / per_sm * 1e3
    b = batch * ((m * k + k * n) * ib + m * n * ob)
    if split > 1:
        b += 2 * split * batch * m * n * 4
    return max(comp, bytes_ms(r, b, c)) + c["launch"] * (2 if split > 1 else 1)


def cutlass_ms(r, c, math_, m, n, k, tm, tn, per_sm, slices, eff_mult, e=2):
    blocks = math.ceil(m / tm) * math.ceil(n / tn) * slices
    resident = r["sms"] * per_sm
    waves = math.ceil(blocks / resident)
    peak = r["tf32"] if math_ == "tf32" else r["t16"]
    per_block = peak * c["cutlass_eff"] * eff_mult / resident
    comp = waves * 2 * tm * tn * math.ceil(k / slices) / per_block * 1e3
    # every block streams its A (tm x k) and B (k x tn) tiles from L2
    loads = blocks * (tm + tn) * math.ceil(k / slices) * e
    floor = loads / c["l2_bw"] * 1e3 if c.get("l2_bw") else 0.0
    return max(comp, floor) + c["launch"]


class P:
    """A 2-D, groups-1, dilation-1 problem from a solver_bench layer name."""
    NAME = re.compile(r"n(\d+) c(\d+) (\d+)x(\d+) k(\d+) (\d+)x(\d+) p(\d+) s(\d+)")

    def __init__(self, name, dtype):
        n, ch, h, w, k, r, s, p, st = map(int, self.NAME.match(name).groups())
        self.n, self.c, self.h, self.w, self.k, self.r, self.s, self.p, self.st = n, ch, h, w, k, r, s, p, st
        self.oh = (h + 2 * p - r) // st + 1
        self.ow = (w + 2 * p - s) // st + 1
        self.dtype = dtype
        self.e = 4 if dtype in ("fp32", "tf32") else 2


def math_of(p):
    """The cuBLAS solvers' unit: TF32 tensor cores when TF32 is allowed (gemm_math)."""
    return p.dtype if p.dtype in ("fp32", "tf32") else "t16"


def estimate(solver, d, p, r=H100, c=C, cal=None):
    return calibrated(solver, p, structural(solver, d, p, r, c), cal)


def structural(solver, d, p, r=H100, c=C):
    e = p.e
    rows = p.c * p.r * p.s
    pixels = p.oh * p.ow
    x_img = p.c * p.h * p.w
    col = rows * pixels
    mth = math_of(p)
    if solver == "GemmFwdRest":
        return p.n * (c["im2col"] * memory_ms(r, x_img * e + col * e, c) + column_ms(c, col * e) +
                      cublas_ms(r, c, mth, p.k, pixels, rows, 1, e, e) + c["gemm_loop"])
    if solver == "GemmFwd1x1_0_1":
        return cublas_ms(r, c, mth, p.k, pixels, p.c, p.n, e, e)
    if solver == "GemmBwdRest":
        return p.n * (cublas_ms(r, c, mth, rows, pixels, p.k, 1, e, 4) +
                      c["col2im"] * memory_ms(r, col * 4 + x_img * e, c) + column_ms(c, col * 4) +
                      c["gemm_loop"])
    if solver == "GemmBwd1x1_stride1":
        return cublas_ms(r, c, mth, p.c, pixels, p.k, p.n, e, e)
    if solver == "GemmWrwUniversal":
        t = p.n * (c["im2col"] * memory_ms(r, x_img * e + col * e, c) + column_ms(c, col * e) +
                   cublas_ms(r, c, mth, p.k, rows, pixels, 1, e, 8) + c["gemm_loop"])
        return t + (0 if e == 4 else memory_ms(r, p.k * rows * (4 + e), c))
    if solver == "GemmWrw1x1_stride1":
        t = p.n * (cublas_ms(r, c, mth, p.k, p.c, pixels, 1, e, 8) + c["gemm_loop"])
        return t + (0 if e == 4 else memory_ms(r, p.k * p.c * (4 + e), c))
    if solver == "ConvDirectFwdCuda":
        th, tw, kc = 8, 64, 8
        ph = (th - 1) * p.st + p.r
        pw = (tw - 1) * p.st + p.s
        plane = ph * pw
        taps = p.r * p.s
        blocks = math.ceil(p.ow / tw) * math.ceil(p.oh / th) * math.ceil(p.k / kc) * p.n
        # per block and input channel: staging the patch (per thread), then taps x 16 FMAs
        per = c["direct_patch"] * plane / 256 * 1e-6 + c["direct_tap"] * taps * 1e-6
        return blocks * (p.c * per + c["direct_block"] * 1e-6) / r["sms"] + c["launch"]
    if solver.startswith("ImplicitGemmTensorCore"):
        a = 4 if e == 4 else 8
        cp = math.ceil(p.c / a) * a
        kp = math.ceil(p.k / a) * a
        tk = 32 if e == 4 else 64
        mth = "tf32" if e == 4 else "t16"
        ms = 0.0
        # staging: NCHW operands transposed (read + write), padded channels; NHWC ones only
        # when their channels need padding
        st = c["stage"]
        nhwc = getattr(p, "nhwc", False)
        aligned_w = cp == p.c and kp == p.k
        # the filter needs no copy when it is 1x1 with aligned channels (KC11 is already KRSC)
        w_stage = 0.0 if (aligned_w and (nhwc or p.r * p.s == 1)) else \
            st * memory_ms(r, e * (p.k * rows + kp * p.r * p.s * cp), c)
        x_stage = 0.0 if (nhwc and cp == p.c) else \
            st * memory_ms(r, e * (x_img * p.n + p.n * p.h * p.w * cp), c)
        y_stage = 0.0 if (nhwc and kp == p.k) else \
            st * memory_ms(r, e * (p.n * pixels * p.k + p.n * pixels * kp), c)
        if d == "fwd":
            ms += x_stage + w_stage + y_stage
            kk = p.r * p.s * math.ceil(cp / tk) * tk
            ms += cutlass_ms(r, c, mth, p.n * pixels, kp, kk, 128, 128, 2, 1, c["tc_fwd"], e)
        elif d == "bwdd":
            ms += x_stage + w_stage + y_stage
            eff = c["tc_bwd_s1"] if solver.endswith("S1") else \
                c["tc_bwd_narrow"] if solver.endswith("Narrow") else c["tc_bwd"]
            tn, per_sm = (32, 3) if solver.endswith("Narrow") else (128, 2)
            taps = math.ceil(p.r / p.st) * math.ceil(p.s / p.st)
            kk = taps * math.ceil(kp / tk) * tk
            ms += cutlass_ms(r, c, mth, p.n * p.h * p.w, cp, kk, 128, tn, per_sm, 1, eff, e)
            ms += (p.st * p.st - 1) * c["launch"]
        else:
            ms += x_stage + y_stage
            m, n, k = kp, p.r * p.s * cp, p.n * pixels
            ctas = math.ceil(m / 128) * math.ceil(n / 128)
            slices = max(1, min(math.ceil(2 * r["sms"] / ctas), 64, k // (2 * tk)))
            ms += cutlass_ms(r, c, mth, m, n, k, 128, 128, 2, slices, c["tc_wrw"], e)
            ms += memory_ms(r, m * n * (4 * slices + e), c)
            ms += w_stage
        return ms
    return -1.0
