#!/usr/bin/env python3
"""Merges gpu_vs_cudnn's conv CSVs with torch_conv_peer.py's CSVs (standard library only).

usage: merge_conv.py [--summary OUT.txt] [--merged-csv OUT.csv] IN.csv [IN.csv ...]
       merge_conv.py --dry-run     (merges made-up inputs in both formats: a self-check)

Inputs are told apart by their header: gpu_vs_cudnn's (group,shape,...: anydnn's immediate,
default-Find and exhaustive-Find times, cuDNN's time) and torch_conv_peer.py's (kind,...: PyTorch
times, GEMM peaks). Rows join on (group, shape, dir); a later file's row replaces an earlier one.

Per row: anydnn imm / def / exh ms, cuDNN ms, PyTorch ms, the faster peer, exh / faster peer and
def / faster peer, and the fraction of the hardware limit that anydnn's exhaustive path (and the
faster peer) reach: layer FLOP / time / the GEMM peak of the group's type measured in the same
run (fp32 without TF32 for conv-fp32, TF32 for conv-tf32, fp16, bf16).
Per (group, dir): sums of times over the rows where every time is known (count-weighted when the
shape file gives multiplicities, else plain), and geometric means of every anydnn path over each
peer and over the faster peer (rows where both are known).
"""
import argparse
import csv
import math
import sys

PEAK_OF = {"conv-fp32": "fp32", "conv-tf32": "tf32", "conv-fp16-nhwc": "fp16",
           "conv-bf16-nhwc": "bf16"}
DIR_ORDER = {"fwd": 0, "bwdd": 1, "bwdw": 2}
PATHS = (("imm", "anydnn immediate"), ("def", "anydnn default Find"),
         ("exh", "anydnn exhaustive Find"))
PEERS = (("cudnn", "cuDNN"), ("torch", "PyTorch"), ("peer", "faster peer"))


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return math.nan
    return v


def ok(v):
    return isinstance(v, float) and math.isfinite(v) and v > 0


def load(paths):
    rows = {}  # (group, shape, dir) -> dict
    peaks = {}  # fp32 / tf32 / fp16 / bf16 -> TFLOP/s
    env = []
    sources = {"anydnn": [], "torch": []}
    for p in paths:
        with open(p, newline="") as f:
            rd = csv.DictReader(f)
            fields = rd.fieldnames or []
            if "kind" in fields:
                sources["torch"].append(p)
                for r in rd:
                    if r["kind"] == "peak":
                        t = num(r["tflops"])
                        if ok(t):
                            peaks[r["group"]] = max(peaks.get(r["group"], 0.0), t)
                    elif r["kind"] == "env":
                        env.append("PyTorch peer: " + r["note"].replace(";", ","))
                    elif r["kind"] == "conv":
                        m = rows.setdefault((r["group"], r["shape"], r["dir"]), {})
                        m.setdefault("count", int(num(r["count"])) if ok(num(r["count"])) else 1)
                        m.setdefault("gflop", num(r["gflop"]))
                        m["torch"] = num(r["ms"])
                        if r.get("note"):
                            m["torch_note"] = r["note"]
            elif "anydnn_ms" in fields:
                sources["anydnn"].append(p)
                for r in rd:
                    if not r["group"].startswith("conv"):
                        continue
                    m = rows.setdefault((r["group"], r["shape"], r["dir"]), {})
                    m["count"] = int(num(r["count"])) if ok(num(r["count"])) else 1
                    m["gflop"] = num(r["work"])
                    m["exh"] = num(r["anydnn_ms"])
                    m["def"] = num(r.get("anydnn_def_ms"))
                    m["imm"] = num(r.get("anydnn_imm_ms"))
                    m["cudnn"] = num(r["cudnn_ms"])
                    m["verify"] = r.get("verify", "-")
                    m["rel_err"] = num(r.get("rel_err"))
                    m["solvers"] = " | ".join(r.get(k, "-") or "-" for k in (
                        "anydnn_imm_solver", "anydnn_def_solver", "anydnn_solver"))
                    m["cudnn_algo"] = r.get("cudnn_algo", "-")
                    m["cudnn_api"] = r.get("cudnn_api", "-")
                    m["note"] = r.get("note", "")
            else:
                print(f"merge_conv: {p}: unknown CSV header, skipped", file=sys.stderr)
    # anydnn with its own solvers only (group "<group>-own", ANYDNN_CUDNN=0) meets the same
    # PyTorch rows as the run with cuDNN's engines among its candidates.
    for (g, shape, d), m in rows.items():
        if g.endswith("-own") and "torch" not in m:
            base = rows.get((g[:-len("-own")], shape, d), {})
            if "torch" in base:
                m["torch"] = base["torch"]
    for m in rows.values():
        for k in ("imm", "def", "exh", "cudnn", "torch"):
            m.setdefault(k, math.nan)
        peers = [(m[k], name) for k, name in (("cudnn", "cuDNN"), ("torch", "PyTorch")) if ok(m[k])]
        m["peer"], m["peer_name"] = min(peers) if peers else (math.nan, "-")
    return rows, peaks, env, sources


def ms(v):
    return f"{v:.4f}" if ok(v) else "n/a"


def ratio(a, b):
    return a / b if ok(a) and ok(b) else math.nan


def rtext(v):
    return f"{v:.2f}" if ok(v) else "n/a"


def frac(gflop, t, peak):
    if not (ok(gflop) and ok(t) and peak):
        return math.nan
    return gflop / t / peak  # GFLOP / ms = TFLOP/s


def ptext(v):
    return f"{100 * v:.0f}%" if ok(v) else "-"


def geomean(vals):
    vals = [v for v in vals if ok(v)]
    return (math.exp(sum(math.log(v) for v in vals) / len(vals)), len(vals)) if vals else (None, 0)


def report(rows, peaks, env, sources, out):
    def p(line=""):
        print(line, file=out)

    p("# conv: anydnn (immediate / default Find / exhaustive Find) vs cuDNN and PyTorch")
    p(f"# anydnn + cuDNN: {', '.join(sources['anydnn']) or 'none'}")
    p(f"# PyTorch: {', '.join(sources['torch']) or 'none'}")
    for e in dict.fromkeys(env):
        p(f"# {e}")
    apis = sorted({m.get("cudnn_api", "-") for m in rows.values()} - {"-"})
    p(f"# cuDNN peer API: {', '.join(apis) or '-'}"
      + ("  ** LEGACY cuDNN API: not the peer at its best **" if "legacy" in apis else ""))
    p("# limits (GEMM 8192^3 measured by the PyTorch peer, TFLOP/s): "
      + (", ".join(f"{k} {v:.1f}" for k, v in sorted(peaks.items())) or "not measured"))
    p("# ratio = anydnn time / faster peer's time (below 1: anydnn faster); any%, peer% = "
      "achieved FLOP rate / the group's GEMM limit")
    groups = list(dict.fromkeys(g for g, _, _ in rows))
    merged = []
    summary = []
    for g in groups:
        keys = [k for k in rows if k[0] == g]
        shapes = list(dict.fromkeys(k[1] for k in rows if k[0] == g))
        keys.sort(key=lambda k: (shapes.index(k[1]), DIR_ORDER.get(k[2], 9)))
        peak = peaks.get(PEAK_OF.get(g.removesuffix("-own"), ""))
        p()
        p(f"# {g}" + (f" (limit {peak:.1f} TFLOP/s)" if peak else " (no limit measured)"))
        p(f"{'shape':<30} {'dir':<4} {'imm ms':>8} {'def ms':>8} {'exh ms':>8} {'cuDNN':>8} "
          f"{'torch':>8} {'exh/pr':>6} {'def/pr':>6} {'any%':>5} {'peer%':>5} {'verify':<9} "
          f"anydnn solver imm | def | exh ; cuDNN engine")
        for k in keys:
            m = rows[k]
            r_exh, r_def = ratio(m["exh"], m["peer"]), ratio(m["def"], m["peer"])
            f_any, f_peer = frac(m["gflop"], m["exh"], peak), frac(m["gflop"], m["peer"], peak)
            note = "  # " + m["note"] if m.get("note") else ""
            if m.get("torch_note"):
                note += "  # torch: " + m["torch_note"]
            p(f"{k[1]:<30} {k[2]:<4} {ms(m['imm']):>8} {ms(m['def']):>8} {ms(m['exh']):>8} "
              f"{ms(m['cudnn']):>8} {ms(m['torch']):>8} {rtext(r_exh):>6} {rtext(r_def):>6} "
              f"{ptext(f_any):>5} {ptext(f_peer):>5} {m.get('verify', '-'):<9} "
              f"{m.get('solvers', '-')} ; {m.get('cudnn_algo', '-')}{note}")
            merged.append({
                "group": g, "shape": k[1], "count": m["count"], "dir": k[2], "gflop": m["gflop"],
                "anydnn_imm_ms": m["imm"], "anydnn_def_ms": m["def"], "anydnn_exh_ms": m["exh"],
                "cudnn_ms": m["cudnn"], "torch_ms": m["torch"], "peer_ms": m["peer"],
                "peer": m["peer_name"], "ratio": r_exh, "ratio_def": r_def,
                "ratio_imm": ratio(m["imm"], m["peer"]), "anydnn_frac_limit": f_any,
                "peer_frac_limit": f_peer, "verify": m.get("verify", "-"),
                "anydnn_solvers": m.get("solvers", "-"), "cudnn_algo": m.get("cudnn_algo", "-"),
                "cudnn_api": m.get("cudnn_api", "-")})
        for d in dict.fromkeys(k[2] for k in keys):
            summary.append((g, d, [rows[k] for k in keys if k[2] == d], peak))

    p()
    p("# per group and direction: summed times (ms) over the rows where all five are known, "
      "weighted by the shape file's multiplicity where it has one; any% = anydnn exhaustive's "
      "FLOP rate over those rows / the limit")
    p(f"{'':<5} {'group':<15} {'dir':<4} {'rows':>4} {'weight':<6} {'imm':>8} {'def':>8} "
      f"{'exh':>8} {'cuDNN':>8} {'torch':>8} {'peer':>8} {'exh/pr':>6} {'any%':>5}")
    for g, d, ms_rows, peak in summary:
        weighted = any(m["count"] > 1 for m in ms_rows)
        full = [m for m in ms_rows if all(ok(m[k]) for k in ("imm", "def", "exh", "cudnn", "torch"))]
        w = [m["count"] if weighted else 1 for m in full]
        sums = {k: sum(wi * m[k] for wi, m in zip(w, full))
                for k in ("imm", "def", "exh", "cudnn", "torch", "peer")}
        flop = sum(wi * m["gflop"] for wi, m in zip(w, full))
        f_any = frac(flop, sums["exh"], peak) if full else math.nan
        p(f"{'SUM':<5} {g:<15} {d:<4} {len(full):>4} {'count' if weighted else 'plain':<6} "
          + " ".join(f"{sums[k]:8.3f}" for k in ("imm", "def", "exh", "cudnn", "torch", "peer"))
          + f" {rtext(ratio(sums['exh'], sums['peer'])):>6} {ptext(f_any):>5}")
    p()
    p("# provider of the exhaustive Find's choice: rows won by cuDNN's engines (CudnnConv*, "
      "a Find candidate) / rows; worst row's exh / peer")
    for g, d, ms_rows, _ in summary:
        exh = [m.get("solvers", "-").split(" | ")[-1] for m in ms_rows]
        by_cudnn = sum(1 for s in exh if s.startswith("Cudnn"))
        worst = max((ratio(m["exh"], m["peer"]) for m in ms_rows
                     if ok(ratio(m["exh"], m["peer"]))), default=math.nan)
        p(f"{'PROV':<5} {g:<15} {d:<4} cuDNN {by_cudnn:>2} / {len(ms_rows):<3} "
          f"own {len(ms_rows) - by_cudnn:>2}   worst {rtext(worst)}")
    p()
    p("# geometric means of anydnn time / peer time (rows where both are known: n)")
    head = " ".join(f"{a + '/' + b:>14}" for a, _ in PATHS for b, _ in PEERS)
    p(f"{'':<5} {'group':<15} {'dir':<4} {head}")
    for g, d, ms_rows, _ in summary:
        cells = []
        for a, _ in PATHS:
            for b, _ in PEERS:
                gm, n = geomean([ratio(m[a], m[b]) for m in ms_rows])
                cells.append(f"{gm:.3f} ({n})" if gm else "n/a")
        p(f"{'GEO':<5} {g:<15} {d:<4} " + " ".join(f"{c:>14}" for c in cells))
    return merged


def fmt(v):
    if isinstance(v, float):
        return "nan" if not math.isfinite(v) else f"{v:.6g}"
    return str(v).replace(",", ";")


# gpu_common.cpp's kCsvHeader.
ANYDNN_HEADER = ("group,shape,count,dir,work,unit,anydnn_ms,cudnn_ms,ratio,anydnn_solver,"
                 "cudnn_algo,verify,rel_err,anydnn_imm_ms,anydnn_def_ms,ratio_def,"
                 "anydnn_imm_solver,anydnn_def_solver,cudnn_api,note")


def dry_run_inputs(folder):
    """Two made-up CSVs in the formats of gpu_vs_cudnn and torch_conv_peer.py (n/a rows too)."""
    shapes = [("n32 c64 56x56 k64 3x3 p1 s1", 3, 7.4), ("n32 c256 14x14 k1024 1x1 p0 s1", 6, 3.29),
              ("n32 c3 224x224 k64 7x7 p3 s2", 1, 7.55)]
    any_csv, torch_csv = f"{folder}/conv-fp32.csv", f"{folder}/torch-fp32.csv"
    with open(any_csv, "w") as f:
        f.write(ANYDNN_HEADER + "\n")
        for i, (s, n, gf) in enumerate(shapes):
            for j, d in enumerate(DIR_ORDER):
                exh = 0.1 * (i + 1) + 0.01 * j
                cud = "nan" if (i, j) == (2, 1) else f"{0.08 * (i + 1):.4f}"
                f.write(f"conv-fp32,{s},{n},{d},{gf},GFLOP,{exh:.4f},{cud},0,GemmFwd,"
                        f"eng0_k2=1 (best of 9; ws 0 MiB),ok,1e-06,{exh * 1.5:.4f},{exh:.4f},0,"
                        f"DirectFwd,GemmFwd,frontend,\n")
    with open(torch_csv, "w") as f:
        f.write("kind,group,shape,count,dir,ms,gflop,tflops,note\n")
        f.write("env,-,-,1,-,nan,nan,nan,torch 2.11.0; cuDNN 91900; made-up GPU\n")
        f.write("peak,fp32,gemm 8192^3,1,-,21.3,1099.51,51.6,torch.mm\n")
        for i, (s, n, gf) in enumerate(shapes):
            for j, d in enumerate(DIR_ORDER):
                f.write(f"conv,conv-fp32,{s},{n},{d},{0.09 * (i + 1):.4f},{gf},1,\n")
    return [any_csv, torch_csv]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--summary", default="", help="also write the report here")
    ap.add_argument("--merged-csv", default="", help="one row per (group, shape, dir)")
    ap.add_argument("--dry-run", action="store_true", help="merge made-up inputs (self-check)")
    ap.add_argument("inputs", nargs="*")
    a = ap.parse_args(argv)
    if a.dry_run:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            inputs = dry_run_inputs(tmp)
            rows, peaks, env, sources = load(inputs)
            report(rows, peaks, env, sources, sys.stdout)
        return 0
    if not a.inputs:
        ap.error("no input CSV")
    rows, peaks, env, sources = load(a.inputs)
    if not rows:
        print("merge_conv: no conv rows in the inputs", file=sys.stderr)
        return 1
    merged = report(rows, peaks, env, sources, sys.stdout)
    if a.summary:
        with open(a.summary, "w") as f:
            report(rows, peaks, env, sources, f)
    if a.merged_csv and merged:
        with open(a.merged_csv, "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(list(merged[0]))
            for r in merged:
                wr.writerow([fmt(v) for v in r.values()])
    return 0


if __name__ == "__main__":
    sys.exit(main())
