#!/usr/bin/env python3
"""Plots the GPU benchmark's CSV files: anydnn / peer time ratio per shape, direction and group.

usage: plot-gpu-bench.py OUT.png IN.csv [IN.csv ...]
       plot-gpu-bench.py --no-plot IN.csv [IN.csv ...]   (the table only, no matplotlib)

Inputs: gpu_vs_cudnn's CSVs (bn.csv, rnn.csv: ratio = anydnn / cuDNN) and merge_conv.py's
conv-merged.csv (ratio = anydnn's exhaustive-Find time / the faster of cuDNN's frontend and
PyTorch; its "peer" column names which). A gpu_vs_cudnn conv CSV works too (ratio to cuDNN).
One panel per group (conv-fp32, conv-tf32, conv-fp16-nhwc, conv-bf16-nhwc, bn-fp32-nchw,
bn-fp16-nhwc, rnn-fp32, ...), log scale, bars below 1 mean anydnn is faster; dashed lines are
each direction's geometric mean. Rows where a side did not run are marked n/a at the bottom;
rows whose outputs differ (verify MISMATCH / NONFINITE) get a red x. A last panel shows the
geometric means of every group and direction. The same means are printed as a table.
"""
import csv
import math
import sys

COLORS = {"fwd": "#1f77b4", "bwdd": "#ff7f0e", "bwd": "#ff7f0e", "bwdw": "#2ca02c"}


def load(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            rows.extend(csv.DictReader(f))
    return rows


def ratio(r):
    try:
        v = float(r["ratio"])
    except (KeyError, ValueError):
        return None
    return v if math.isfinite(v) and v > 0 else None


def geomean(vals):
    vals = [v for v in vals if v]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def summary(rows):
    groups = list(dict.fromkeys(r["group"] for r in rows))
    table = []
    for g in groups:
        gr = [r for r in rows if r["group"] == g]
        for d in dict.fromkeys(r["dir"] for r in gr):
            dr = [r for r in gr if r["dir"] == d]
            vals = [ratio(r) for r in dr]
            bad = sum(r.get("verify") in ("MISMATCH", "NONFINITE") for r in dr)
            table.append((g, d, geomean(vals), sum(v is not None for v in vals),
                          sum(v is None for v in vals), bad))
    return table


def peer_of(rows, group):
    """What a group's ratio divides by: merge_conv.py's "peer" column, else cuDNN."""
    peers = {r.get("peer") for r in rows if r["group"] == group} - {None, "", "-"}
    if not peers:
        return "cuDNN"
    return "faster peer" if len(peers) > 1 else peers.pop()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    no_plot = sys.argv[1] == "--no-plot"
    out, inputs = (None, sys.argv[2:]) if no_plot else (sys.argv[1], sys.argv[2:])
    rows = load(inputs)
    table = summary(rows)
    print(f"{'group':<18} {'dir':<5} {'geomean':>8} {'rows':>5} {'n/a':>4} {'mismatch':>8}  "
          f"ratio")
    for g, d, gm, n, na, bad in table:
        gms = f"{gm:.3f}" if gm else "n/a"
        print(f"{g:<18} {d:<5} {gms:>8} {n:>5} {na:>4} {bad:>8}  anydnn / {peer_of(rows, g)}")
    if no_plot:
        return

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(dict.fromkeys(r["group"] for r in rows))
    n_shapes = {g: len(dict.fromkeys(r["shape"] for r in rows if r["group"] == g)) for g in groups}
    width_in = max(10.0, 0.22 * max(n_shapes.values(), default=10) * 2 + 3)
    heights = [4.2] * len(groups) + [3.2]
    fig, axes = plt.subplots(len(groups) + 1, 1, figsize=(width_in, sum(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    all_vals = [v for v in (ratio(r) for r in rows) if v]
    lo = min([0.5] + [v / 1.3 for v in all_vals])
    hi = max([2.0] + [v * 1.3 for v in all_vals])

    def style(ax, label):
        ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ticks = [t for t in (0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 50, 100) if lo <= t <= hi]
        ax.set_yticks(ticks)
        ax.set_yticklabels([f"{t:g}" for t in ticks])
        ax.minorticks_off()
        ax.set_ylabel(label)

    for ax, g in zip(axes[:-1, 0], groups):
        gr = [r for r in rows if r["group"] == g]
        shapes = list(dict.fromkeys(r["shape"] for r in gr))
        dirs = list(dict.fromkeys(r["dir"] for r in gr))
        w = 0.8 / max(1, len(dirs))
        for i, d in enumerate(dirs):
            by_shape = {r["shape"]: r for r in gr if r["dir"] == d}
            xs, ys = [], []
            for j, s in enumerate(shapes):
                r = by_shape.get(s)
                if r is None:
                    continue
                x = j + i * w
                v = ratio(r)
                if v is None:
                    ax.text(x, lo * 1.05, "n/a", rotation=90, fontsize=5, ha="center",
                            va="bottom", color="gray")
                    continue
                xs.append(x)
                ys.append(v)
                if r.get("verify") in ("MISMATCH", "NONFINITE"):
                    ax.plot([x], [v], marker="x", color="red", markersize=6)
            color = COLORS.get(d, None)
            ax.bar(xs, ys, w, label=d, color=color)
            gm = geomean(ys)
            if gm:
                ax.axhline(gm, color=color, linewidth=0.9, linestyle="--")
                ax.text(len(shapes) - 0.5, gm, f" {d} {gm:.2f}", color=color, fontsize=7,
                        va="center")
        peer = peer_of(rows, g)
        style(ax, f"anydnn / {peer}")
        ax.set_xticks([j + 0.4 - w / 2 for j in range(len(shapes))])
        ax.set_xticklabels(shapes, rotation=90, fontsize=6)
        ax.set_xlim(-0.5, len(shapes) + 1.5)
        what = "anydnn exhaustive Find" if g.startswith("conv") else "anydnn"
        ax.set_title(f"{g}: time ratio {what} / {peer} (below 1 = anydnn faster; dashed: "
                     "geomean)", fontsize=9)
        ax.legend(loc="upper left", fontsize=7)

    ax = axes[-1, 0]
    labels = [f"{g}\n{d}" for g, d, *_ in table]
    vals = [gm if gm else 0 for _, _, gm, *_ in table]
    ax.bar(range(len(vals)), [v if v else float("nan") for v in vals],
           color=[COLORS.get(d, "#888888") for _, d, *_ in table])
    for i, v in enumerate(vals):
        if v:
            ax.text(i, v, f"{v:.2f}", ha="center", va="bottom", fontsize=7)
    style(ax, "geomean ratio")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=6)
    ax.set_title("geometric mean per group and direction", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
