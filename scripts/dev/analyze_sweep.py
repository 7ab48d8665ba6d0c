"""Reads solver_bench text outputs (one file per precision group) and reports, per problem,
the fastest measured solver against the one the cost models rank first, plus per-solver
measured/estimated ratios. Usage: analyze_sweep.py FILE... (group name from the file name)."""
import collections, math, re, sys

LINE = re.compile(r"^(.{34}) (\S+)\s+(\S+)\s+([\d.]+) ms \(min\s+([\d.]+)\)\s+[\d.]+ GFLOP/s\s+[\d.]+x est (\S+)")

def group_of(path):
    for g in ("bf16-nchw", "fp16-nchw", "fp32", "tf32"):
        if g in path:
            return g
    return path

rows = collections.defaultdict(list)
for path in sys.argv[1:]:
    g = group_of(path)
    src = "rn50" if ("r-" in path or "resnet" in path) else "db"
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        layer, d, solver, ms, mn, est = m.groups()
        rows[(g, src, layer.strip(), d)].append((solver, float(ms), float(est)))

bad = 0
total = 0
worst = []
ratios = collections.defaultdict(list)
for key, sols in sorted(rows.items()):
    total += 1
    best = min(sols, key=lambda s: s[1])
    modelled = [s for s in sols if s[2] >= 0]
    pick = min(modelled, key=lambda s: s[2]) if modelled else sols[0]
    r = pick[1] / best[1]
    for s in sols:
        if s[2] > 0:
            ratios[(key[0], s[0])].append(s[1] / s[2])
    if r > 1.2:
        bad += 1
        worst.append((r, key, pick, best))
worst.sort(reverse=True)
print(f"{total} problems, {bad} where the model's first choice is > 1.2x the fastest")
for r, key, pick, best in worst[:60]:
    print(f"{r:5.2f}x {key[0]:9s} {key[1]:4s} {key[2]:34s} {key[3]:4s} pick {pick[0]} {pick[1]:.3f} (est {pick[2]:.3f})  best {best[0]} {best[1]:.3f} (est {best[2]:.3f})")
print("\nmeasured / estimated per (group, solver): geomean, min, max, n")
for k, v in sorted(ratios.items()):
    gm = math.exp(sum(math.log(x) for x in v) / len(v))
    print(f"{k[0]:9s} {k[1]:28s} {gm:6.2f} {min(v):6.2f} {max(v):6.2f} {len(v)}")
