#!/usr/bin/env python3
"""PyTorch peer of gpu_vs_cudnn's fusion mode: what a PyTorch user gets, at its fastest, in eager
mode for conv + bias + ReLU and BN + ReLU.

usage: torch_fusion_peer.py [--conv-shapes FILE] [--bn-shapes FILE] [--batch N] [--groups LIST]
                            [--filter TEXT] [--warmup N] [--iters N] [--budget-ms MS] [--quick]
                            [--csv OUT.csv] [--dry-run]

Groups (--groups; fp32, tf32, fp16, bn-fp32, bn-fp16 name them too), the same as gpu_vs_cudnn's:
  cbr-fp32          conv + bias + ReLU, fp32, allow_tf32 False (cuDNN and matmul)
  cbr-tf32          fp32 with allow_tf32 True
  cbr-fp16-nhwc     fp16, channels_last x and w
  bnrelu-fp32-nchw  BN (spatial, training and inference) + ReLU, fp32
  bnrelu-fp16-nhwc  fp16 channels_last x, fp32 weight, bias and running statistics
Per conv layer (bench/shapes/resnet50_v15.txt, -n replaced by --batch) both of PyTorch's eager
forms are timed and the faster one is the peer (its name in the CSV's variant column):
  eager      F.relu(F.conv2d(x, w, b), inplace=True)   (cuDNN's convolution, then PyTorch's adds)
  cudnn_relu torch.cudnn_convolution_relu(x, w, b, ...) (cuDNN's fused conv-bias-activation)
Per BN shape (bench/shapes/bnorm.txt, spatial lines, the file's N):
  train  y = F.batch_norm(x, rm, rv, g, b, training=True); y.relu_()
  bwd    torch.autograd.grad of relu(batch_norm(x)) for x, g, b (the graph built once)
  infer  F.batch_norm(x, rm, rv, g, b, training=False); relu_()
with torch.backends.cudnn.benchmark = True. Timing as torch_conv_peer.py (its Timer: a first
call untimed, events around each call, median). Inputs uniform in [-1, 1).

CSV (--csv): kind,group,shape,count,dir,ms,variant,note with kind fusion (shape: gpu_vs_cudnn's
row name, the join key) and env. --dry-run prints the plan and needs no torch.
"""
import argparse
import csv
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import torch_conv_peer as tcp  # noqa: E402 - the shape parser, names and timer are shared

GROUPS = {  # dtype, allow_tf32, channels_last, BN
    "cbr-fp32": ("float32", False, False, False),
    "cbr-tf32": ("float32", True, False, False),
    "cbr-fp16-nhwc": ("float16", True, True, False),
    "bnrelu-fp32-nchw": ("float32", False, False, True),
    "bnrelu-fp16-nhwc": ("float16", False, True, True),
}
ALIASES = {"fp32": "cbr-fp32", "tf32": "cbr-tf32", "fp16": "cbr-fp16-nhwc",
           "bn-fp32": "bnrelu-fp32-nchw", "bn-fp16": "bnrelu-fp16-nhwc"}
DEFAULT_BN = os.path.join(HERE, "..", "shapes", "bnorm.txt")
FIELDS = ["kind", "group", "shape", "count", "dir", "ms", "variant", "note"]
BN_FLAGS = {"-n": 0, "--batchsize": 0, "-c": 1, "--in_channels": 1, "-H": 2, "--in_h": 2,
            "-W": 3, "--in_w": 3}


def load_bn_shapes(path, filt):
    """gpu_bn.cpp's load_bn_shapes: spatial 4-D bnorm lines, 'xN' of the comment line above."""
    shapes, count = [], 1
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                count = 1
                for w in line[1:].split():
                    if re.fullmatch(r"x[0-9]+", w):
                        count = int(w[1:])
                continue
            words = line.split()
            if words[0] not in ("bnorm", "bnormfp16", "bnormfp16fp32", "bnormbfp16"):
                continue
            lens, mode, spatial_d = [0, 0, 0, 0], 1, False
            for i in range(1, len(words) - 1, 1):
                if words[i] in BN_FLAGS:
                    lens[BN_FLAGS[words[i]]] = int(words[i + 1])
                elif words[i] in ("-m", "--mode"):
                    mode = int(words[i + 1])
                elif words[i] in ("-D", "--in_d"):
                    spatial_d = int(words[i + 1]) > 1
            if mode != 1 or spatial_d or 0 in lens:
                continue
            name = f"n{lens[0]} c{lens[1]} {lens[2]}x{lens[3]}"
            if filt in name:
                shapes.append((lens, count, name))
            count = 1
    return shapes


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--conv-shapes", "--shapes", default=tcp.DEFAULT_SHAPES)
    ap.add_argument("--bn-shapes", default=DEFAULT_BN)
    ap.add_argument("--batch", type=int, default=32, help="N of every conv layer")
    ap.add_argument("--groups", "--precision", default="fp32,tf32,fp16,bn-fp32,bn-fp16")
    ap.add_argument("--filter", default="")
    ap.add_argument("--warmup", type=int)
    ap.add_argument("--iters", type=int)
    ap.add_argument("--budget-ms", type=float)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", default="")
    ap.add_argument("--dry-run", action="store_true")
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


def note_of(e):
    return f"{type(e).__name__}: {e}".replace(",", ";").replace("\n", " ")[:300]


def conv_rows(torch, timer, spec, count, group):
    """The faster of PyTorch's two eager conv + bias + ReLU forms."""
    F = torch.nn.functional
    dtype_name, tf32, cl, _ = GROUPS[group]
    dtype = getattr(torch, dtype_name)
    tcp.set_tf32(torch, tf32)
    n, c, h, w, k, g = (spec[x] for x in ("n", "c", "h", "w", "k", "groups"))
    stride = [spec["stride_h"], spec["stride_w"]]
    pad = [spec["pad_h"], spec["pad_w"]]
    dil = [spec["dil_h"], spec["dil_w"]]
    x = torch.rand(n, c, h, w, device="cuda", dtype=dtype) * 2 - 1
    wt = torch.rand(k, c // g, spec["r"], spec["s"], device="cuda", dtype=dtype) * 2 - 1
    b = torch.rand(k, device="cuda", dtype=dtype) * 2 - 1
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
        wt = wt.contiguous(memory_format=torch.channels_last)
    forms = {"eager": lambda: F.relu(F.conv2d(x, wt, b, stride, pad, dil, g), inplace=True)}
    fused = getattr(torch, "cudnn_convolution_relu", None)
    if fused is not None:
        forms["cudnn_relu"] = lambda: fused(x, wt, b, stride, pad, dil, g)
    best, variant, notes = math.nan, "-", []
    with torch.no_grad():
        for name, fn in forms.items():
            try:
                ms = timer(fn)
                if not (ms >= best):
                    best, variant = ms, name
            except Exception as e:  # noqa: BLE001 - the other form may still run
                notes.append(f"{name}: {note_of(e)}")
                torch.cuda.synchronize()
    return [{"kind": "fusion", "group": group, "shape": tcp.layer_name(spec), "count": count,
             "dir": "fwd", "ms": best, "variant": variant, "note": "; ".join(notes)}]


def bn_rows(torch, timer, lens, count, name, group):
    F = torch.nn.functional
    dtype_name, _, cl, _ = GROUPS[group]
    dtype = getattr(torch, dtype_name)
    tcp.set_tf32(torch, False)
    n, c, h, w = lens
    x = torch.rand(n, c, h, w, device="cuda", dtype=dtype) * 2 - 1
    dy = torch.rand(n, c, h, w, device="cuda", dtype=dtype) * 2 - 1
    if cl:
        x = x.contiguous(memory_format=torch.channels_last)
        dy = dy.contiguous(memory_format=torch.channels_last)
    g = torch.rand(c, device="cuda") + 0.5
    b = torch.rand(c, device="cuda") - 0.5
    rm = torch.zeros(c, device="cuda")
    rv = torch.ones(c, device="cuda")
    em = (torch.rand(c, device="cuda") - 0.5) * 0.2
    ev = torch.rand(c, device="cuda") + 0.5

    def train():
        with torch.no_grad():
            return F.batch_norm(x, rm, rv, g, b, True, 0.1, 1e-5).relu_()

    def infer():
        with torch.no_grad():
            return F.batch_norm(x, em, ev, g, b, False, 0.1, 1e-5).relu_()

    xg = x.detach().clone().requires_grad_(True)
    gg = g.detach().clone().requires_grad_(True)
    bg = b.detach().clone().requires_grad_(True)
    y = F.relu(F.batch_norm(xg, rm.clone(), rv.clone(), gg, bg, True, 0.1, 1e-5))

    def bwd():
        return torch.autograd.grad(y, (xg, gg, bg), dy, retain_graph=True)

    rows = []
    for d, fn in (("train", train), ("bwd", bwd), ("infer", infer)):
        row = {"kind": "fusion", "group": group, "shape": name, "count": count, "dir": d,
               "ms": math.nan, "variant": "eager", "note": ""}
        try:
            row["ms"] = timer(fn)
        except Exception as e:  # noqa: BLE001 - one failing row must not stop the others
            row["note"] = note_of(e)
            torch.cuda.synchronize()
        rows.append(row)
    return rows


def fmt(v):
    if isinstance(v, float):
        return "nan" if not math.isfinite(v) else f"{v:.6g}"
    return str(v).replace(",", ";")


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    conv_groups = [g for g in a.groups if not GROUPS[g][3]]
    bn_groups = [g for g in a.groups if GROUPS[g][3]]
    layers = tcp.load_layers(a.conv_shapes, a.batch) if conv_groups else []
    layers = [(s, n) for s, n in layers if a.filter in tcp.layer_name(s)]
    shapes = load_bn_shapes(a.bn_shapes, a.filter) if bn_groups else []
    if a.dry_run:
        print(f"# conv {a.conv_shapes} ({len(layers)} layers at N={a.batch}), bn {a.bn_shapes} "
              f"({len(shapes)} shapes), groups {','.join(a.groups)}, warm-up {a.warmup}, timed "
              f"{a.iters}, budget {a.budget_ms:g} ms, csv {a.csv or '-'}")
        for g in conv_groups:
            for spec, count in layers:
                print(f"{g} {tcp.layer_name(spec):<30} x{count} fwd")
        for g in bn_groups:
            for lens, count, name in shapes:
                print(f"{g} {name:<30} x{count} train bwd infer")
        return 0

    import torch  # only for a real run

    if not torch.cuda.is_available():
        print("torch_fusion_peer: torch has no CUDA device", file=sys.stderr)
        return 2
    torch.backends.cudnn.benchmark = True
    timer = tcp.Timer(torch, a.warmup, a.iters, a.budget_ms)
    env = (f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
           f"{torch.cuda.get_device_name()}")
    print(f"# PyTorch fusion peer: {env}; cudnn.benchmark True; warm-up {a.warmup}, timed "
          f"{a.iters}, budget {a.budget_ms:g} ms (median); cudnn_convolution_relu "
          f"{'available' if hasattr(torch, 'cudnn_convolution_relu') else 'MISSING'}", flush=True)
    out = None
    if a.csv:
        out = open(a.csv, "w", newline="")
        wr = csv.writer(out)
        wr.writerow(FIELDS)
        wr.writerow(["env", "-", "-", 1, "-", "nan", "-", env.replace(",", ";")])
    status = 0

    def emit(rows):
        nonlocal status
        for r in rows:
            if not math.isfinite(r["ms"]):
                status = 1
            print(f"{r['group']} {r['shape']:<30} {r['dir']:<5} {r['ms']:9.4f} {r['variant']}"
                  + (f"  # {r['note']}" if r["note"] else ""), flush=True)
            if out:
                wr.writerow([fmt(r[f]) for f in FIELDS])
                out.flush()

    for g in conv_groups:
        print(f"\n# {g}: {'shape':<30} dir   {'ms':>9} form", flush=True)
        for spec, count in layers:
            emit(conv_rows(torch, timer, spec, count, g))
            torch.cuda.empty_cache()
    for g in bn_groups:
        print(f"\n# {g}: {'shape':<30} dir   {'ms':>9} form", flush=True)
        for lens, count, name in shapes:
            emit(bn_rows(torch, timer, lens, count, name, g))
            torch.cuda.empty_cache()
    if out:
        out.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
