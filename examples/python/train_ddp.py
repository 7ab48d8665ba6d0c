"""Data-parallel training with anydnn's PyTorch modules.

    torchrun --nproc_per_node=2 examples/python/train_ddp.py [--steps 200] [--out DIR]

Two small models train on data this script generates: a CNN with batch norm that tells which
half of an image is brighter, and an LSTM that predicts the running mean of a sequence. Their
convolutions, batch norms and LSTM run in anydnn (libMIOpen: the CPU backend for CPU tensors,
the CUDA backend when each rank has a GPU); DistributedDataParallel averages the gradients over
the ranks (gloo on CPUs, NCCL on GPUs). Before training, anydnn.tune spreads Find for the
CNN's convolutions over the ranks and merges the find-dbs. Rank 0 shows a progress bar (tqdm)
and writes the loss curve (loss.csv, and loss.png when matplotlib is installed) to --out.
Under Slurm: srun --ntasks-per-node=1 torchrun --nnodes=$SLURM_NNODES --nproc_per_node=2
--rdzv_backend=c10d --rdzv_endpoint=$(scontrol show hostnames | head -1):29500 train_ddp.py
(docs/python.md).
"""

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from tqdm import tqdm

import anydnn
import anydnn.torch as at


def cnn_batch(n, g, device):
    x = torch.randn(n, 3, 16, 16, generator=g)
    left = x[:, :, :, :8].mean(dim=(1, 2, 3))
    right = x[:, :, :, 8:].mean(dim=(1, 2, 3))
    x[:, :, :, :8] += 0.3 * torch.sign(left - right)[:, None, None, None]
    return x.to(device), (left > right).long().to(device)


def seq_batch(n, g, device):
    seq = torch.randn(12, n, 4, generator=g)
    target = seq.mean(dim=2, keepdim=True).cumsum(0) / torch.arange(1, 13)[:, None, None]
    return seq.to(device), target.to(device)


class SeqModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = at.LSTM(4, 32, num_layers=2)
        self.head = nn.Linear(32, 1)

    def forward(self, seq):
        return self.head(self.lstm(seq)[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=32, help="per rank")
    ap.add_argument("--out", default=".")
    args = ap.parse_args()

    use_cuda = torch.cuda.is_available() and "LOCAL_RANK" in os.environ
    dist.init_process_group("nccl" if use_cuda else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"])) if use_cuda else "cpu"
    if use_cuda:
        torch.cuda.set_device(device)
    else:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))

    torch.manual_seed(0)  # the same initial weights on every rank (DDP also broadcasts them)
    cnn = nn.Sequential(at.Conv2d(3, 16, 3, padding=1), at.BatchNorm2d(16), nn.ReLU(),
                        at.Conv2d(16, 32, 3, stride=2, padding=1), at.BatchNorm2d(32), nn.ReLU(),
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 2)).to(device)
    seq_model = SeqModel().to(device)
    g = torch.Generator().manual_seed(1000 + rank)  # each rank its own data
    stats = anydnn.tune(at.problems_of(cnn, cnn_batch(args.batch, g, device)[0]),
                        device=torch.device(device))
    if rank == 0:
        print(f"anydnn {anydnn.__version__}, {world} ranks on {device}; tune: {stats}")

    cnn, seq_model = DDP(cnn), DDP(seq_model)
    opt = torch.optim.Adam(list(cnn.parameters()) + list(seq_model.parameters()), lr=3e-3)
    history = []
    bar = tqdm(range(args.steps), disable=rank != 0, desc="train")
    for step in bar:
        x, y = cnn_batch(args.batch, g, device)
        seq, target = seq_batch(args.batch, g, device)
        opt.zero_grad()
        loss_cnn = F.cross_entropy(cnn(x), y)
        loss_seq = F.mse_loss(seq_model(seq), target)
        (loss_cnn + loss_seq).backward()
        opt.step()
        losses = torch.stack([loss_cnn.detach(), loss_seq.detach()])
        dist.all_reduce(losses)
        losses /= world
        history.append((step, losses[0].item(), losses[1].item()))
        bar.set_postfix(cnn=f"{history[-1][1]:.3f}", lstm=f"{history[-1][2]:.4f}")

    if rank == 0:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "loss.csv"), "w") as f:
            f.write("step,cnn_cross_entropy,lstm_mse\n")
            f.writelines(f"{s},{a:.6f},{b:.6f}\n" for s, a, b in history)
        k = max(1, len(history) // 10)
        first = [sum(h[i] for h in history[:k]) / k for i in (1, 2)]
        last = [sum(h[i] for h in history[-k:]) / k for i in (1, 2)]
        print(f"loss (mean of the first / last {k} steps): cnn {first[0]:.4f} -> {last[0]:.4f}, "
              f"lstm {first[1]:.4f} -> {last[1]:.4f}")
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt

            fig, ax = plt.subplots(figsize=(6, 3.5))
            steps = [h[0] for h in history]
            ax.plot(steps, [h[1] for h in history], label="CNN + BN (cross entropy)")
            ax.plot(steps, [h[2] for h in history], label="LSTM (MSE)")
            ax.set_yscale("log")
            ax.set_xlabel("step")
            ax.set_title(f"anydnn modules under DDP, {world} ranks")
            ax.legend()
            fig.tight_layout()
            fig.savefig(os.path.join(args.out, "loss.png"), dpi=100)
        except ImportError:
            print("matplotlib not installed: loss.csv only")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
