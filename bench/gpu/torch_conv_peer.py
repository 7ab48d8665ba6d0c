#!/usr/bin/env python3
"""PyTorch peer of gpu_vs_cudnn's conv mode: cuDNN as PyTorch drives it.

usage: torch_conv_peer.py [--shapes FILE] [--batch N] [--groups LIST] [--filter TEXT]
                          [--warmup N] [--iters N] [--budget-ms MS] [--quick]
                          [--peaks | --peaks-only] [--csv OUT.csv] [--dry-run]

Reads the same MIOpenDriver-syntax shape file as gpu_vs_cudnn (default
bench/shapes/resnet50_v15.txt; "conv -n .. -c .. -H .. -W .. -k .. -y .. -x .. -p .. -q .. -u ..
-v .. -l .. -j .. -g .." lines, -n replaced by --batch, the "xN" multiplicity of the comment line
above a layer) and times, per precision group and layer:
  fwd   F.conv2d(x, w)
  bwdd  torch.ops.aten.convolution_backward(..., output_mask=[True, False, False])
  bwdw  torch.ops.aten.convolution_backward(..., output_mask=[False, True, False])
with torch.backends.cudnn.benchmark = True (cuDNN autotunes every shape on its first call).
Groups (--groups, default all four; fp32, tf32, fp16, bf16 name them too):
  conv-fp32       fp32, allow_tf32 False for cuDNN and matmul (strict fp32)
  conv-tf32       fp32, allow_tf32 True for both
  conv-fp16-nhwc  fp16, channels_last x, w and dy
  conv-bf16-nhwc  bf16, channels_last x, w and dy
Timing as the C++ side: a first call untimed (it autotunes), a second one timed alone sets how
many calls fit in --budget-ms: up to --warmup before and --iters timed, each between two CUDA
events with no host synchronization in between, median. Inputs uniform in [-1, 1).
--peaks times large GEMMs (fp32 without TF32, TF32, fp16, bf16; 8192^3) as the hardware limits
the merge reports fractions of; --peaks-only does only that.

CSV (--csv): kind,group,shape,count,dir,ms,gflop,tflops,note with kind conv (one row per
layer and direction; shape is gpu_vs_cudnn's layer name, the join key), peak (group fp32, tf32,
fp16, bf16: GEMM TFLOP/s) and env (torch and cuDNN versions, device).
--dry-run prints the parsed layers and the plan, and needs no torch.
"""
import argparse
import csv
import math
import os
import re
import sys

GROUPS = {
    "conv-fp32": ("float32", False, False),
    "conv-tf32": ("float32", True, False),
    "conv-fp16-nhwc": ("float16", True, True),
    "conv-bf16-nhwc": ("bfloat16", True, True),
}
ALIASES = {"fp32": "conv-fp32", "tf32": "conv-tf32", "fp16": "conv-fp16-nhwc",
           "bf16": "conv-bf16-nhwc"}
DIRS = ("fwd", "bwdd", "bwdw")
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SHAPES = os.path.join(HERE, "..", "shapes", "resnet50_v15.txt")

# MIOpenDriver's conv flags that matter here (driver/conv_spec.cpp): short and long names.
FLAGS = {
    "-n": "n", "--batchsize": "n", "-c": "c", "--in_channels": "c", "-H": "h", "--in_h": "h",
    "-W": "w", "--in_w": "w", "-k": "k", "--out_channels": "k", "-y": "r", "--fil_h": "r",
    "-x": "s", "--fil_w": "s", "-p": "pad_h", "--pad_h": "pad_h", "-q": "pad_w",
    "--pad_w": "pad_w", "-u": "stride_h", "--conv_stride_h": "stride_h", "-v": "stride_w",
    "--conv_stride_w": "stride_w", "-l": "dil_h", "--dilation_h": "dil_h", "-j": "dil_w",
    "--dilation_w": "dil_w", "-g": "groups", "--group_count": "groups",
    "-_": "spatial_dim", "--spatial_dim": "spatial_dim",
}
# MIOpenDriver's defaults for those flags.
DEFAULTS = {"n": 100, "c": 3, "h": 32, "w": 32, "k": 32, "r": 3, "s": 3, "pad_h": 0, "pad_w": 0,
            "stride_h": 1, "stride_w": 1, "dil_h": 1, "dil_w": 1, "groups": 1, "spatial_dim": 2}
BASES = ("conv", "convfp16", "convbfp16")
MULTIPLICITY = re.compile(r"\) x([0-9]+),")


def parse_conv_line(line):
    """A driver line as a dict of the FLAGS fields, or raises ValueError."""
    words = line.split()
    if words and words[0] in ("MIOpenDriver", "./bin/MIOpenDriver"):
        words = words[1:]
    if not words or words[0] not in BASES:
        raise ValueError(f"unsupported base {words[0] if words else '(none)'}")
    spec = dict(DEFAULTS)
    i = 1
    while i < len(words):
        flag = words[i]
        if flag == "-m" or flag == "--mode":
            if i + 1 >= len(words) or words[i + 1] != "conv":
                raise ValueError("only -m conv (no transposed convolutions)")
            i += 2
            continue
        if flag not in FLAGS:
            i += 2  # a flag that does not change the problem here (-F, -t, -V, layouts, ...)
            continue
        if i + 1 >= len(words):
            raise ValueError(f"{flag} needs a value")
        spec[FLAGS[flag]] = int(words[i + 1])
        i += 2
    if spec["spatial_dim"] != 2:
        raise ValueError("only 2-D convolutions")
    spec["groups"] = max(1, spec["groups"])
    return spec


def out_size(inp, fil, pad, stride, dil):
    return (inp + 2 * pad - dil * (fil - 1) - 1) // stride + 1


def layer_name(s):
    """bench_common.cpp's layer_name: the key shared with gpu_vs_cudnn's rows."""
    name = (f"n{s['n']} c{s['c']} {s['h']}x{s['w']} k{s['k']} {s['r']}x{s['s']} "
            f"p{s['pad_h']} s{s['stride_h']}")
    return name + (f" g{s['groups']}" if s["groups"] > 1 else "")


def layer_flops(s):
    """bench_common.cpp's layer_flops: 2 N (C/G) K Ho Wo R S."""
    ho = max(1, out_size(s["h"], s["r"], s["pad_h"], s["stride_h"], s["dil_h"]))
    wo = max(1, out_size(s["w"], s["s"], s["pad_w"], s["stride_w"], s["dil_w"]))
    return 2.0 * s["n"] * (s["c"] / s["groups"]) * s["k"] * s["r"] * ho * s["s"] * wo


def load_layers(path, batch):
    """(spec, count) per problem line; count from the 'xN' of the comment line right above."""
    layers = []
    count = 1
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                m = MULTIPLICITY.search(line)
                count = int(m.group(1)) if m else 1
                continue
            try:
                spec = parse_conv_line(line)
            except ValueError as e:
                print(f"skipping '{line}': {e}", file=sys.stderr)
                continue
            if batch > 0:
                spec["n"] = batch
            layers.append((spec, count))
            count = 1
    return layers


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", "--conv-shapes", default=DEFAULT_SHAPES)
    ap.add_argument("--batch", type=int, default=32, help="N of every layer (0: the file's)")
    ap.add_argument("--groups", "--precision", default="fp32,tf32,fp16,bf16")
    ap.add_argument("--filter", default="", help="keep layers whose name contains this")
    ap.add_argument("--warmup", type=int)
    ap.add_argument("--iters", type=int)
    ap.add_argument("--budget-ms", type=float)
    ap.add_argument("--quick", action="store_true", help="2 warm-up / 5 timed / 100 ms")
    ap.add_argument("--peaks", action="store_true", help="also time the GEMM peaks")
    ap.add_argument("--peaks-only", action="store_true", help="only the GEMM peaks")
    ap.add_argument("--csv", default="", help="output CSV")
    ap.add_argument("--dry-run", action="store_true", help="print the plan, touch no GPU")
    a = ap.parse_args(argv)
    a.warmup = a.warmup if a.warmup is not None else (2 if a.quick else 5)
    a.iters = a.iters if a.iters is not None else (5 if a.quick else 20)
    a.budget_ms = a.budget_ms if a.budget_ms is not None else (100.0 if a.quick else 300.0)
    groups = []
    for g in (x for x in a.groups.split(",") if x):
        g = ALIASES.get(g, g)
        if g not in GROUPS:
            ap.error(f"unknown group {g} (one of {', '.join(GROUPS)} or {', '.join(ALIASES)})")
        groups.append(g)
    a.groups = groups
    return a


class Timer:
    """The C++ side's time_stages for one stage: events around each call, median."""

    def __init__(self, torch, warmup, iters, budget_ms, min_iters=3):
        self.torch, self.warmup, self.iters = torch, warmup, iters
        self.budget_ms, self.min_iters = budget_ms, min_iters

    def __call__(self, fn):
        cuda = self.torch.cuda
        fn()  # one-time costs: cuDNN's benchmark search, kernel loading
        cuda.synchronize()
        e0, e1 = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        once = max(1e-3, e0.elapsed_time(e1))
        fit = int(self.budget_ms / once)
        warm = min(max(fit // 4, 0), max(0, self.warmup - 2))
        if fit >= self.min_iters:
            iters = min(fit, self.iters)
        elif once * self.min_iters <= 3 * self.budget_ms:
            iters = min(self.min_iters, self.iters)
        else:
            iters = min(1, self.iters)
        for _ in range(warm):
            fn()
        events = [(cuda.Event(enable_timing=True), cuda.Event(enable_timing=True))
                  for _ in range(iters)]
        for a, b in events:
            a.record()
            fn()
            b.record()
        cuda.synchronize()
        times = sorted(a.elapsed_time(b) for a, b in events)
        return times[len(times) // 2]


def set_tf32(torch, allow):
    torch.backends.cudnn.allow_tf32 = allow
    torch.backends.cuda.matmul.allow_tf32 = allow


def time_peaks(torch, timer):
    """TFLOP/s of an 8192^3 GEMM per type: the hardware limit the merge divides by."""
    n = 8192
    rows = []
    for name, dtype, tf32 in (("fp32", torch.float32, False), ("tf32", torch.float32, True),
                              ("fp16", torch.float16, True), ("bf16", torch.bfloat16, True)):
        set_tf32(torch, tf32)
        a = torch.rand(n, n, device="cuda", dtype=dtype)
        b = torch.rand(n, n, device="cuda", dtype=dtype)
        ms = timer(lambda: torch.mm(a, b))
        flop = 2.0 * n ** 3
        rows.append({"kind": "peak", "group": name, "shape": f"gemm {n}^3", "count": 1,
                     "dir": "-", "ms": ms, "gflop": flop / 1e9, "tflops": flop / ms / 1e9,
                     "note": "torch.mm" + (" allow_tf32" if tf32 and name != "fp32" else "")})
        print(f"peak {name:<5} gemm {n}^3 {ms:9.4f} ms {flop / ms / 1e9:8.1f} TFLOP/s", flush=True)
        del a, b
    torch.cuda.empty_cache()
    return rows


def time_layer(torch, timer, spec, count, group):
    F = torch.nn.functional
    dtype_name, tf32, channels_last = GROUPS[group]
    dtype = getattr(torch, dtype_name)
    set_tf32(torch, tf32)
    n, c, h, w, k, g = (spec[x] for x in ("n", "c", "h", "w", "k", "groups"))
    stride = [spec["stride_h"], spec["stride_w"]]
    padding = [spec["pad_h"], spec["pad_w"]]
    dilation = [spec["dil_h"], spec["dil_w"]]
    x = torch.rand(n, c, h, w, device="cuda", dtype=dtype) * 2 - 1
    wt = torch.rand(k, c // g, spec["r"], spec["s"], device="cuda", dtype=dtype) * 2 - 1
    if channels_last:
        x = x.contiguous(memory_format=torch.channels_last)
        wt = wt.contiguous(memory_format=torch.channels_last)
    y = F.conv2d(x, wt, None, stride, padding, dilation, g)
    dy = torch.rand_like(y) * 2 - 1  # keeps y's memory format
    if channels_last:
        dy = dy.contiguous(memory_format=torch.channels_last)
    bwd = torch.ops.aten.convolution_backward
    calls = {
        "fwd": lambda: F.conv2d(x, wt, None, stride, padding, dilation, g),
        "bwdd": lambda: bwd(dy, x, wt, None, stride, padding, dilation, False, [0, 0], g,
                            [True, False, False]),
        "bwdw": lambda: bwd(dy, x, wt, None, stride, padding, dilation, False, [0, 0], g,
                            [False, True, False]),
    }
    rows = []
    gflop = layer_flops(spec) / 1e9
    for d in DIRS:
        row = {"kind": "conv", "group": group, "shape": layer_name(spec), "count": count, "dir": d,
               "ms": math.nan, "gflop": gflop, "tflops": math.nan, "note": ""}
        try:
            row["ms"] = timer(calls[d])
            row["tflops"] = gflop / row["ms"]
        except Exception as e:  # noqa: BLE001 - one failing row must not stop the others
            row["note"] = f"{type(e).__name__}: {e}".replace(",", ";").replace("\n", " ")[:300]
            torch.cuda.synchronize()
        rows.append(row)
    del x, wt, y, dy
    return rows


FIELDS = ["kind", "group", "shape", "count", "dir", "ms", "gflop", "tflops", "note"]


def fmt(v):
    if isinstance(v, float):
        return "nan" if not math.isfinite(v) else f"{v:.6g}"
    return str(v).replace(",", ";")


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    layers = [] if a.peaks_only else load_layers(a.shapes, a.batch)
    layers = [(s, n) for s, n in layers if a.filter in layer_name(s)]
    if a.dry_run:
        print(f"# shapes {a.shapes}, batch {a.batch}, {len(layers)} layers, groups "
              f"{','.join(a.groups) if not a.peaks_only else '-'}, warm-up {a.warmup}, timed "
              f"{a.iters}, budget {a.budget_ms:g} ms, peaks {a.peaks or a.peaks_only}, "
              f"csv {a.csv or '-'}")
        for g in ([] if a.peaks_only else a.groups):
            dtype_name, tf32, cl = GROUPS[g]
            print(f"# {g}: {dtype_name}, allow_tf32 {tf32}, channels_last {cl}")
            for spec, count in layers:
                print(f"{g} {layer_name(spec):<30} x{count} {layer_flops(spec) / 1e9:8.2f} GFLOP "
                      f"dil {spec['dil_h']}x{spec['dil_w']} stride {spec['stride_h']}x"
                      f"{spec['stride_w']} pad {spec['pad_h']}x{spec['pad_w']}")
        return 0

    import torch  # only for a real run

    if not torch.cuda.is_available():
        print("torch_conv_peer: torch has no CUDA device", file=sys.stderr)
        return 2
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = False
    timer = Timer(torch, a.warmup, a.iters, a.budget_ms)
    env = (f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
           f"{torch.cuda.get_device_name()}")
    print(f"# PyTorch peer: {env}; cudnn.benchmark True; warm-up {a.warmup}, timed {a.iters}, "
          f"budget {a.budget_ms:g} ms (median)", flush=True)
    out = None
    if a.csv:
        out = open(a.csv, "w", newline="")
        wr = csv.writer(out)
        wr.writerow(FIELDS)
        wr.writerow(["env", "-", "-", 1, "-", "nan", "nan", "nan", env.replace(",", ";")])

    def emit(rows):
        if out:
            for r in rows:
                wr.writerow([fmt(r[f]) for f in FIELDS])
            out.flush()

    if a.peaks or a.peaks_only:
        emit(time_peaks(torch, timer))
    status = 0
    for g in ([] if a.peaks_only else a.groups):
        print(f"\n# {g}: {'shape':<30} {'dir':<4} {'ms':>9} {'TFLOP/s':>8}", flush=True)
        for spec, count in layers:
            rows = time_layer(torch, timer, spec, count, g)
            for r in rows:
                if not math.isfinite(r["ms"]):
                    status = 1
                print(f"{g} {r['shape']:<30} {r['dir']:<4} {r['ms']:9.4f} {r['tflops']:8.1f}"
                      + (f"  # {r['note']}" if r["note"] else ""), flush=True)
            emit(rows)
            torch.cuda.empty_cache()
    if out:
        out.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
