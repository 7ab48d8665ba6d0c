#!/usr/bin/env python3
"""Plots conv_vs_onednn CSV files: anydnn / oneDNN time ratio per layer and direction.

usage: plot-bench.py OUT.png IN.csv [IN.csv ...]

One panel per CSV file; bars below 1 mean anydnn is faster. The 1.0 line is the issue's
target for totals, the 2.0 line the limit for any single layer.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"fwd": "#1f77b4", "bwdd": "#ff7f0e", "bwdw": "#2ca02c"}


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, inputs = sys.argv[1], sys.argv[2:]
    sets = [load(p) for p in inputs]
    heights = [max(3.0, 0.16 * len({r["layer"] for r in rows}) + 1.5) for rows in sets]
    fig, axes = plt.subplots(len(sets), 1, figsize=(14, sum(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, rows, path in zip(axes[:, 0], sets, inputs):
        layers = list(dict.fromkeys(r["layer"] for r in rows))
        dirs = [d for d in COLORS if any(r["dir"] == d for r in rows)]
        width = 0.8 / max(1, len(dirs))
        for i, d in enumerate(dirs):
            ratio = {r["layer"]: float(r["ratio"]) for r in rows if r["dir"] == d}
            xs = [j + i * width for j, layer in enumerate(layers) if layer in ratio]
            ys = [ratio[layer] for layer in layers if layer in ratio]
            ax.bar(xs, ys, width, label=d, color=COLORS[d])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.axhline(2.0, color="red", linewidth=0.8, linestyle="--")
        ax.set_yscale("log")
        ticks = [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0]
        ax.set_yticks(ticks)
        ax.set_yticklabels([f"{t:g}" for t in ticks])
        ax.minorticks_off()
        ax.set_ylabel("anydnn / oneDNN time")
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(layers))])
        ax.set_xticklabels(layers, rotation=90, fontsize=6)
        title = rows[0]["set"] if rows else path
        layout = rows[0].get("onednn_layout", "") if rows else ""
        ax.set_title(f"{title} (oneDNN {layout} layouts): below 1 = anydnn faster")
        ax.legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
