"""One rank of the 2-process DDP test (test_ddp.py): spawned, so it lives in a module of its own."""
import os


def make_models():
    import torch
    from torch import nn

    import anydnn.torch as at

    torch.manual_seed(1234)
    cnn = nn.Sequential(at.Conv2d(3, 8, 3, padding=1), nn.ReLU(), at.Conv2d(8, 4, 3, stride=2),
                        nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
    lstm = at.LSTM(5, 6, num_layers=2)
    return cnn, lstm


def data():
    import torch

    g = torch.Generator().manual_seed(99)
    return (torch.randn(8, 3, 10, 10, generator=g), torch.randn(8, 2, generator=g),
            torch.randn(7, 8, 5, generator=g), torch.randn(7, 8, 6, generator=g))


def loss_of(cnn, lstm, x, t, seq, target):
    import torch.nn.functional as F

    return F.mse_loss(cnn(x), t) + F.mse_loss(lstm(seq)[0], target)


def worker(rank, world, port, tmp, queue, device="cpu"):
    # Separate find-db directories: the ranks stand for machines that share nothing.
    os.environ["MIOPEN_USER_DB_PATH"] = os.path.join(tmp, f"db{rank}")
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    import anydnn
    import anydnn.torch as at
    from anydnn.distributed import export_records

    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        # On "cuda" both ranks share GPU 0 (gloo moves CUDA tensors too): the anydnn modules run
        # on the CUDA backend, and tune measures there.
        cnn, lstm = (m.to(device) for m in make_models())
        dcnn, dlstm = DDP(cnn), DDP(lstm)
        x, t, seq, target = (a.to(device) for a in data())
        half = x.shape[0] // world
        sl = slice(rank * half, (rank + 1) * half)
        loss_of(dcnn, dlstm, x[sl], t[sl], seq[:, sl], target[:, sl]).backward()
        grads = [p.grad.cpu().numpy().copy()
                 for p in list(cnn.parameters()) + list(lstm.parameters())]

        problems = at.problems_of(cnn, x[sl])
        stats = anydnn.tune(problems, device=torch.device(device))
        records = export_records(torch.device(device))
        keys = sorted({line.split("\t")[0] for line in records.splitlines()})
        # The library itself reads the merged records: a problem the other rank measured comes
        # back from immediate mode with a measured time.
        p = problems[(rank + 1) % len(problems)]
        args = p.conv_args()
        xs = torch.randn(p.x_shape, device=device)
        ys = anydnn.conv_output_shape(p.x_shape, p.w_shape, **args)
        first = anydnn.conv_solutions("forward", xs, torch.randn(p.w_shape, device=device), ys,
                                      **args)[0]
        queue.put((rank, grads, stats, keys, len(problems), first.time))
    finally:
        dist.destroy_process_group()
