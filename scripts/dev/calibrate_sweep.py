"""Fits the per-solver calibration of src/backend/cuda/conv/cost_model.cpp (calibrated_ms: a
factor and a fixed cost per solver and math class) to solver_bench sweep outputs, starting from the
estimates the sweep printed. Run it on a sweep taken WITHOUT calibration (or divide it out first),
then copy the rows into kRows. Usage: calibrate_sweep.py FILE... (scripts/solver-sweep.sh's
sweep-*.txt; bench/results/ keeps one). Prints the misses (first choice > 1.2x the fastest)
before and after, and the misses that remain."""
import collections, math, re, sys, itertools
LINE = re.compile(r"^(.{34}) (\S+)\s+(\S+)\s+([\d.]+) ms \(min\s+([\d.]+)\)\s+[\d.]+ GFLOP/s\s+[\d.]+x est (\S+)")
def group_of(path):
    for g in ("bf16-nchw", "fp16-nchw", "fp32", "tf32"):
        if g in path: return g
probs = collections.OrderedDict()
for path in sys.argv[1:]:
    g = group_of(path); last=None; seen=collections.Counter(); block=None
    for line in open(path):
        m = LINE.match(line)
        if not m: continue
        layer, d, solver, ms, mn, est = m.groups()
        k0=(g, path, layer.strip(), d)
        if last != k0 or solver in block:
            seen[k0]+=1; block={}
        last=k0
        block[solver]=(float(ms), float(est))
        probs[k0+(seen[k0],)] = block
cls = lambda g: "t16" if g in ("fp16-nchw","bf16-nchw") else g
def evaluate(params, verbose=False):
    bad=0; loss=0.0; worst=[]
    for k, sols in probs.items():
        g=cls(k[0])
        best=min(v[0] for v in sols.values())
        def est(s):
            m,a = params.get((g,s),(1.0,0.0))
            return sols[s][1]*m + a
        pick=min(sols, key=est)
        r=sols[pick][0]/best
        loss+=math.log(r)
        if r>1.2:
            bad+=1; worst.append((r,k,pick))
    if verbose:
        for w in sorted(worst, reverse=True): print("%.2f"%w[0], w[1][0], w[1][2], w[1][3], w[2])
    return (bad, loss)
keys=sorted({(cls(k[0]), s) for k,sols in probs.items() for s in sols})
params={}
best=evaluate(params); print("start", best)
for rnd in range(4):
    for key in keys:
        for m in (0.8,0.9,1.0,1.1,1.2,1.3,1.45):
            for a in (0.0,0.002,0.004,0.006,0.008,0.012):
                t=dict(params); t[key]=(m,a)
                s=evaluate(t)
                if s<best: best,params=s,t
    print("round",rnd,best)
for k,v in sorted(params.items()):
    if v!=(1.0,0.0): print(k,v)
evaluate(params, True)
