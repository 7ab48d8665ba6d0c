"""anydnn.torch modules against PyTorch's own on ResNet-style blocks and an LSTM: forward and
forward+backward time (median of --runs after warm-up, same process, same threads) and how far
each one's output and gradients are from a float64 copy of the model (max abs error over the
largest magnitude; gradients: the worst tensor). A ReLU after a sum makes the blocks' gradients
ill-conditioned (an output that lands on the other side of 0 flips a mask), so the gradient
errors grow with the forward error; compare the two libraries' columns, not the absolute values.

    PYTHONPATH=build/python python3 bench/python/modules_vs_torch.py [--threads N] [--runs 10]
        [--device cpu|cuda] [--tf32]

PyTorch runs at its best on the CPU: its convolutions go to oneDNN (mkldnn), channels-first as
here; torch.backends.mkldnn is left on. On CUDA (a CUDA build of the package): PyTorch with
cudnn.benchmark (autotuned algorithms) and anydnn after anydnn.tune on the same problems (its
Find, recorded in the find-db); both in strict fp32 unless --tf32, which allows TF32 on both
sides (PyTorch's cudnn.allow_tf32 and matmul, anydnn's ANYDNN_CONV_ALLOW_TF32). Times on CUDA
include a synchronisation at the end of each call. Ratios are anydnn / PyTorch (below 1: anydnn
faster).
"""

import argparse
import copy
import os
import statistics
import sys
import time

# anydnn reads its configuration when a handle is created: set before the first one.
if "--tf32" in sys.argv:
    os.environ["ANYDNN_CONV_ALLOW_TF32"] = "1"

import torch  # noqa: E402
from torch import nn  # noqa: E402

import anydnn  # noqa: E402
import anydnn.torch as at  # noqa: E402


def basic_block(c):
    return nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                         nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))


def bottleneck(c, mid):
    return nn.Sequential(nn.Conv2d(c, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(),
                         nn.Conv2d(mid, mid, 3, padding=1, bias=False), nn.BatchNorm2d(mid),
                         nn.ReLU(), nn.Conv2d(mid, c, 1, bias=False), nn.BatchNorm2d(c))


class Residual(nn.Module):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return torch.relu(self.body(x) + x)


class LstmModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(256, 256, num_layers=2)

    def forward(self, x):
        return self.lstm(x)[0]


CASES = [
    ("ResNet basic block c64 56x56 N8", lambda: Residual(basic_block(64)), (8, 64, 56, 56)),
    ("ResNet basic block c128 28x28 N8", lambda: Residual(basic_block(128)), (8, 128, 28, 28)),
    ("ResNet bottleneck c256/64 56x56 N4", lambda: Residual(bottleneck(256, 64)), (4, 256, 56, 56)),
    ("LSTM 2x256, T=50 N=32", LstmModel, (50, 32, 256)),
]


def timed(fn, runs, sync=lambda: None):
    for _ in range(2):
        fn()
    sync()
    t = []
    for _ in range(runs):
        s = time.perf_counter()
        fn()
        sync()
        t.append(time.perf_counter() - s)
    return statistics.median(t) * 1e3


def rel_err(a, b):
    return ((a - b).abs().max() / b.abs().max().clamp_min(1e-30)).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=torch.get_num_threads())
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--tf32", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    dev = torch.device(args.device)
    sync = (lambda: None) if args.device == "cpu" else torch.cuda.synchronize
    if args.device == "cuda":
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = args.tf32
        print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, cuDNN "
              f"{torch.backends.cudnn.version()}, cudnn.benchmark on, TF32 "
              f"{'on' if args.tf32 else 'off'} (both libraries)")
    else:
        print(f"torch {torch.__version__}, {args.threads} threads, mkldnn "
              f"{torch.backends.mkldnn.is_available()}")
    print(f"{'case':38s} {'fwd ms torch':>12s} {'anydnn':>8s} {'ratio':>6s} "
          f"{'f+b ms torch':>12s} {'anydnn':>8s} {'ratio':>6s}  out err torch / anydnn  "
          f"grad err torch / anydnn")
    torch.manual_seed(0)
    for name, make, shape in CASES:
        ref = make().to(dev)
        ours = at.convert(copy.deepcopy(ref))
        x = torch.randn(shape, device=dev)
        if args.device == "cuda":
            anydnn.tune(at.problems_of(ours, x), device=dev)
        # agreement with float64, train mode (batch statistics), one step
        dbl = copy.deepcopy(ref).double()
        xr, xo, xd = x.clone().requires_grad_(), x.clone().requires_grad_(), \
            x.double().requires_grad_()
        yr, yo, yd = ref(xr), ours(xo), dbl(xd)
        g = torch.randn_like(yr)
        yr.backward(g)
        yo.backward(g)
        yd.backward(g.double())
        out_err = [rel_err(y.detach().double(), yd.detach()) for y in (yr, yo)]
        grad_err = [max([rel_err(xx.grad.double(), xd.grad)] +
                        [rel_err(p.grad.double(), pd.grad)
                         for p, pd in zip(m.parameters(), dbl.parameters())])
                    for m, xx in ((ref, xr), (ours, xo))]

        def fwd(m):
            with torch.no_grad():
                m(x)

        def fwd_bwd(m):
            xx = x.clone().requires_grad_()
            m(xx).backward(g)

        tf_r, tf_o = timed(lambda: fwd(ref), args.runs, sync), timed(lambda: fwd(ours), args.runs,
                                                                      sync)
        tb_r = timed(lambda: fwd_bwd(ref), args.runs, sync)
        tb_o = timed(lambda: fwd_bwd(ours), args.runs, sync)
        print(f"{name:38s} {tf_r:12.2f} {tf_o:8.2f} {tf_o / tf_r:6.2f} {tb_r:12.2f} {tb_o:8.2f} "
              f"{tb_o / tb_r:6.2f}  {out_err[0]:9.1e} / {out_err[1]:7.1e}    "
              f"{grad_err[0]:9.1e} / {grad_err[1]:7.1e}", flush=True)


if __name__ == "__main__":
    main()
