#!/usr/bin/env python3
"""Merges gpu_vs_cudnn's fusion CSVs with torch_fusion_peer.py's (standard library only).

usage: merge_fusion.py [--summary OUT.txt] IN.csv [IN.csv ...]
       merge_fusion.py --dry-run     (merges made-up inputs: a self-check)

Inputs are told apart by their rows: gpu_vs_cudnn fusion rows (kind fusion with fused_ms: anydnn
fused, anydnn unfused, cuDNN), torch_fusion_peer.py rows (kind fusion with ms: PyTorch) and
torch_conv_peer.py's peak rows (the GEMM limits). Rows join on (group, shape, dir).

Per row: fused, unfused, cuDNN and PyTorch ms; fused / unfused (the fusion's gain: the issue's
target is <= 0.7), fused / cuDNN, fused / PyTorch and fused / faster peer (target <= 1.0); and
the fraction of the hardware limit the fused path reaches: conv rows' FLOP rate over the group's
GEMM peak (fp32 without TF32, TF32, fp16; measured by torch_conv_peer.py --peaks-only in the same
run), BN rows' compulsory traffic rate over the device's copy rate (measured by gpu_vs_cudnn).
Per (group, dir): count-weighted sums over the rows where every time is known, geometric means
of the ratios, and whether each target holds (on the sums and on the geometric mean).
"""
import argparse
import csv
import math
import os
import sys
import tempfile

PEAK_OF = {"cbr-fp32": "fp32", "cbr-tf32": "tf32", "cbr-fp16-nhwc": "fp16"}
DIR_ORDER = {"fwd": 0, "train": 1, "bwd": 2, "infer": 3}
TARGET_UNFUSED, TARGET_PEER = 0.7, 1.0


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def ok(v):
    return isinstance(v, float) and math.isfinite(v) and v > 0


def load(paths):
    rows, peaks, env = {}, {}, []
    for p in paths:
        with open(p, newline="") as f:
            rd = csv.DictReader(f)
            fields = rd.fieldnames or []
            if "kind" not in fields:
                print(f"merge_fusion: {p}: not a fusion or peer CSV, skipped", file=sys.stderr)
                continue
            for r in rd:
                kind = r["kind"]
                if kind == "peak":
                    t = num(r.get("tflops"))
                    if ok(t):
                        peaks[r["group"]] = max(peaks.get(r["group"], 0.0), t)
                elif kind == "env":
                    env.append("PyTorch: " + r.get("note", "").replace(";", ","))
                elif kind == "fusion" and "fused_ms" in fields:
                    m = rows.setdefault((r["group"], r["shape"], r["dir"]), {})
                    m["count"] = int(num(r["count"])) if ok(num(r["count"])) else 1
                    m["work"], m["unit"] = num(r["work"]), r["unit"]
                    m["fused"], m["unfused"] = num(r["fused_ms"]), num(r["unfused_ms"])
                    m["cudnn"] = num(r["cudnn_ms"])
                    m["copy"] = num(r.get("copy_gbs"))
                    m["verify"] = r.get("verify", "-")
                    m["bits"] = r.get("bits_equal") == "1"
                    m["paths"] = f"{r.get('unfused_path', '-')} ; {r.get('cudnn_path', '-')}"
                    m["note"] = r.get("note", "")
                elif kind == "fusion":
                    m = rows.setdefault((r["group"], r["shape"], r["dir"]), {})
                    m.setdefault("count", int(num(r["count"])) if ok(num(r["count"])) else 1)
                    m["torch"] = num(r["ms"])
                    m["torch_form"] = r.get("variant", "-")
                    if r.get("note"):
                        m["torch_note"] = r["note"]
    return rows, peaks, env


def ratio(a, b):
    return a / b if ok(a) and ok(b) else math.nan


def limit_pct(group, m, peaks):
    """The fused path's rate as a fraction of the group's hardware limit."""
    if not ok(m.get("fused")):
        return math.nan
    if m.get("unit") == "GB":
        return 100.0 * m["work"] / m["fused"] * 1e3 / m["copy"] if ok(m.get("copy")) else math.nan
    peak = peaks.get(PEAK_OF.get(group, ""), math.nan)
    return 100.0 * m["work"] / m["fused"] / peak if ok(peak) else math.nan


def fmt(v, spec):
    return format(v, spec) if isinstance(v, float) and math.isfinite(v) else "-"


def geomean(vals):
    vals = [v for v in vals if ok(v)]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else math.nan


def report(rows, peaks, env):
    out = ["# fusion: anydnn fused (fusion plan) vs anydnn unfused vs cuDNN (fused graph / fused or "
           "best call) vs PyTorch (eager, its faster form)"]
    out += [f"# {e}" for e in env]
    if peaks:
        out.append("# limits (GEMM 8192^3, TFLOP/s): " +
                   ", ".join(f"{k} {v:.1f}" for k, v in sorted(peaks.items())))
    out.append("# f/u = fused / unfused (target <= 0.7); f/peer = fused / faster of cuDNN and "
               "PyTorch (target <= 1.0); lim% = fused rate / hardware limit")
    groups = sorted({k[0] for k in rows})
    summary = []
    for g in groups:
        keys = sorted((k for k in rows if k[0] == g), key=lambda k: (DIR_ORDER.get(k[2], 9), k[1]))
        out.append(f"\n## {g}")
        out.append(f"{'shape':<30} {'dir':<5} {'fused':>8} {'unfused':>8} {'cuDNN':>8} "
                   f"{'PyTorch':>8} {'f/u':>5} {'f/cud':>5} {'f/pt':>5} {'f/peer':>6} "
                   f"{'lim%':>5} verify  paths")
        for k in keys:
            m = rows[k]
            peer = min((v for v in (m.get("cudnn"), m.get("torch")) if ok(v)), default=math.nan)
            m["peer"] = peer
            out.append(
                f"{k[1]:<30} {k[2]:<5} {fmt(m.get('fused'), '8.4f'):>8} "
                f"{fmt(m.get('unfused'), '8.4f'):>8} {fmt(m.get('cudnn'), '8.4f'):>8} "
                f"{fmt(m.get('torch'), '8.4f'):>8} "
                f"{fmt(ratio(m.get('fused'), m.get('unfused')), '5.2f'):>5} "
                f"{fmt(ratio(m.get('fused'), m.get('cudnn')), '5.2f'):>5} "
                f"{fmt(ratio(m.get('fused'), m.get('torch')), '5.2f'):>5} "
                f"{fmt(ratio(m.get('fused'), peer), '6.2f'):>6} "
                f"{fmt(limit_pct(g, m, peaks), '5.0f'):>5} {m.get('verify', '-'):<7} "
                f"{m.get('paths', '-')} ; torch {m.get('torch_form', '-')}"
                + (" ; fused bits = unfused" if m.get("bits") else "")
                + (f"  # {m['note']}" if m.get("note") else ""))
        for d in sorted({k[2] for k in keys}, key=lambda d: DIR_ORDER.get(d, 9)):
            ks = [k for k in keys if k[2] == d]
            full = [rows[k] for k in ks if all(ok(rows[k].get(x)) for x in ("fused", "unfused"))]
            peered = [rows[k] for k in ks if ok(rows[k].get("fused")) and ok(rows[k].get("peer"))]
            if not full:
                continue
            f = sum(m["count"] * m["fused"] for m in full)
            u = sum(m["count"] * m["unfused"] for m in full)
            fp = sum(m["count"] * m["fused"] for m in peered)
            pp = sum(m["count"] * m["peer"] for m in peered)
            gu = geomean([m["fused"] / m["unfused"] for m in full])
            gp = geomean([m["fused"] / m["peer"] for m in peered])
            gc = geomean([ratio(rows[k].get("fused"), rows[k].get("cudnn")) for k in ks])
            gt = geomean([ratio(rows[k].get("fused"), rows[k].get("torch")) for k in ks])
            line = (f"SUM {g:<17} {d:<5} rows {len(full):>2}: fused {f:8.3f} ms, unfused {u:8.3f} "
                    f"ms, f/u {f / u:5.3f} (geomean {gu:5.3f}, target <= {TARGET_UNFUSED}: "
                    f"{'met' if f / u <= TARGET_UNFUSED else 'NOT met'})")
            if peered:
                line += (f"; f/peer {fp / pp:5.3f} (geomean {fmt(gp, '5.3f')}, vs cuDNN "
                         f"{fmt(gc, '5.3f')}, vs PyTorch {fmt(gt, '5.3f')}; target <= "
                         f"{TARGET_PEER}: {'met' if fp / pp <= TARGET_PEER else 'NOT met'})")
            out.append(line)
            summary.append(line)
    out.append("\n# summary")
    out += summary
    return "\n".join(out) + "\n"


def dry_run():
    d = tempfile.mkdtemp(prefix="merge-fusion-")
    ours = os.path.join(d, "fusion-fp16.csv")
    with open(ours, "w") as f:
        f.write("kind,group,shape,count,dir,work,unit,extra_gb,fused_ms,unfused_ms,cudnn_ms,"
                "unfused_path,cudnn_path,verify,err_unfused,err_cudnn,bits_equal,copy_gbs,note\n")
        f.write("fusion,cbr-fp16-nhwc,n32 c64 56x56 k64 3x3 p1 s1,3,fwd,14.8,GFLOP,0.05,0.20,"
                "0.25,0.06,ImplicitGemmTensorCoreFwd + bias + ReLU,eng0 (best of 9 fused plans),ok,"
                "1e-4,2e-3,0,nan,\n")
        f.write("fusion,bnrelu-fp16-nhwc,n32 c64 56x56,6,train,0.0257,GB,0.0257,0.03,0.05,0.02,"
                "BN forward training + activation,PERSISTENT BN_ACTIVATION (fused),ok,0,1e-3,0,"
                "2900,\n")
    peer = os.path.join(d, "torch-fusion.csv")
    with open(peer, "w") as f:
        f.write("kind,group,shape,count,dir,ms,variant,note\n")
        f.write("env,-,-,1,-,nan,-,torch 2.11; cuDNN 91900; H100\n")
        f.write("fusion,cbr-fp16-nhwc,n32 c64 56x56 k64 3x3 p1 s1,3,fwd,0.07,cudnn_relu,\n")
        f.write("fusion,bnrelu-fp16-nhwc,n32 c64 56x56,6,train,0.04,eager,\n")
    peaks = os.path.join(d, "torch-peaks.csv")
    with open(peaks, "w") as f:
        f.write("kind,group,shape,count,dir,ms,gflop,tflops,note\n")
        f.write("peak,fp16,gemm 8192^3,1,-,1.4,1099.5,785.0,torch.mm\n")
    text = report(*load([ours, peer, peaks]))
    print(text)
    for want in ("f/u 0.800", "NOT met", "n32 c64 56x56 k64 3x3 p1 s1", "bnrelu-fp16-nhwc"):
        if want not in text:
            print(f"merge_fusion --dry-run: '{want}' missing from the report", file=sys.stderr)
            return 1
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="*")
    ap.add_argument("--summary", default="", help="write the report here too")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if a.dry_run:
        return dry_run()
    if not a.inputs:
        ap.error("no input CSV")
    rows, peaks, env = load(a.inputs)
    if not rows:
        print("merge_fusion: no fusion rows in the inputs", file=sys.stderr)
        return 1
    text = report(rows, peaks, env)
    sys.stdout.write(text)
    if a.summary:
        with open(a.summary, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
