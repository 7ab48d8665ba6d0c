"""Fits cost_model.py's constants to solver_bench text outputs and reports how often the model's
first choice is more than 1.2x slower than the fastest solver. Usage: fit_cost_model.py FILE..."""
import collections, math, re, sys
sys.path.insert(0, __file__.rsplit("/", 1)[0])
import cost_model as cm

FIT = "--fit" in sys.argv  # search the constants; otherwise evaluate cost_model.C as it is
sys.argv = [a for a in sys.argv if a != "--fit"]
LINE = re.compile(r"^(.{34}) (\S+)\s+(\S+)\s+([\d.]+) ms \(min\s+([\d.]+)\)")

def group_of(path):
    for g in ("bf16-nchw", "fp16-nchw", "fp32", "tf32"):
        if g in path:
            return g
    raise SystemExit(path)

problems = collections.OrderedDict()
for path in sys.argv[1:]:
    g = group_of(path)
    dtype = {"bf16-nchw": "bf16", "fp16-nchw": "fp16", "fp32": "fp32", "tf32": "tf32"}[g]
    seen = collections.Counter()
    last = None
    for line in open(path):
        m = LINE.match(line)
        if not m:
            continue
        layer, d, solver, ms, _ = m.groups()
        key0 = (path, layer.strip(), d)
        # duplicate layer names (DeepBench repeats lines): a new block starts when a solver repeats
        if last != key0:
            seen[key0] += 1
            block = {}
        if solver in block:
            seen[key0] += 1
            block = {}
        last = key0
        key = key0 + (seen[key0],)
        block[solver] = float(ms)
        problems[key] = (cm.P(layer.strip(), dtype), d, block)

def evaluate(c, verbose=False):
    bad, logerr, n, worst = 0, 0.0, 0, []
    for key, (p, d, sols) in problems.items():
        best = min(sols.values())
        est = {s: cm.estimate(s, d, p, c=c) for s in sols}
        pick = min(est, key=lambda s: est[s])
        ratio = sols[pick] / best
        if ratio > 1.2:
            bad += 1
            worst.append((ratio, key, pick, sols[pick], est[pick], min(sols, key=sols.get), best))
        for s, t in sols.items():
            logerr += abs(math.log(est[s] / t))
            n += 1
    if verbose:
        worst.sort(reverse=True)
        for w in worst[:40]:
            r, key, pick, pt, pe, bs, bt = w
            print(f"{r:5.2f}x {key[0][-30:]:30s} {key[1]:34s} {key[2]:4s} pick {pick} {pt:.3f} (est {pe:.3f}) best {bs} {bt:.3f} (est {cm.estimate(bs, problems[key][1], problems[key][0], c=c):.3f})")
    return bad, logerr / n

def candidates_keep_best(c, factor=4.0):
    """Find's default mode times the solvers predicted within `factor` of the best prediction:
    how often is the fastest solver left out?"""
    lost = 0
    for key, (p, d, sols) in problems.items():
        est = {s: cm.estimate(s, d, p, c=c) for s in sols}
        best = min(sols, key=sols.get)
        if est[best] > factor * min(est.values()):
            lost += 1
            print("left out:", key, best)
    print(f"Find default mode (x{factor}): the fastest solver is left out on {lost} of {len(problems)}")

def per_solver_error(c):
    acc = collections.defaultdict(list)
    for key, (p, d, sols) in problems.items():
        for s, t in sols.items():
            acc[(p.dtype, s)].append(t / cm.estimate(s, d, p, c=c))
    for k, v in sorted(acc.items()):
        gm = math.exp(sum(map(math.log, v)) / len(v))
        print(f"{k[0]:5s} {k[1]:28s} meas/est geomean {gm:5.2f} min {min(v):5.2f} max {max(v):5.2f} n {len(v)}")

c = dict(cm.C)
if FIT:
    keys = ["fp32_eff", "tensor_eff", "cutlass_eff", "im2col", "col2im", "stage", "direct_patch",
            "direct_tap", "tc_fwd", "tc_bwd", "tc_wrw", "launch", "gemm_loop", "tile_pow_fp32",
            "tile_pow_t16", "direct_block"]
    best = evaluate(c)
    for rnd in range(6):
        for k in keys:
            for f in (0.5, 0.7, 0.85, 1.18, 1.4, 2.0):
                t = dict(c)
                t[k] = c[k] * f
                s = evaluate(t)
                if (s[0], s[1]) < best:
                    best, c = s, t
        print("round", rnd, best, flush=True)
    print({k: round(v, 4) for k, v in c.items()})
print(evaluate(c, verbose=True))
candidates_keep_best(c)
per_solver_error(c)
