"""Data-parallel training through anydnn modules: 2 processes (gloo) under
DistributedDataParallel, on the CPU and (CUDA build, GPU) sharing one GPU; after one step each
rank's gradients equal one process's on the whole batch. Then anydnn.tune spreads Find over the
ranks, whose find-dbs (separate directories, as on two machines) end with the same records, used
by the library."""
import socket

import numpy as np
import pytest
import torch
import torch.multiprocessing as mp

import anydnn
import ddp_worker


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_two_rank_ddp_gradients_and_tuning(tmp_path, device):
    if device == "cuda" and (not torch.cuda.is_available() or "cuda" not in anydnn.backends()):
        pytest.skip("needs a GPU and a CUDA build of the package (docs/python.md)")
    world = 2
    ctx = mp.get_context("spawn")
    queue = ctx.SimpleQueue()
    mp.spawn(ddp_worker.worker, args=(world, _free_port(), str(tmp_path), queue, device),
             nprocs=world, join=True)
    results = sorted(queue.get() for _ in range(world))

    cnn, lstm = ddp_worker.make_models()
    x, t, seq, target = ddp_worker.data()
    ddp_worker.loss_of(cnn, lstm, x, t, seq, target).backward()
    single = [p.grad.numpy() for p in list(cnn.parameters()) + list(lstm.parameters())]
    # The reference is one CPU process; on the GPU the sums run in other orders.
    rtol, atol = (1e-4, 1e-5) if device == "cpu" else (1e-3, 1e-4)
    for rank, grads, stats, keys, n_problems, first_time in results:
        assert len(grads) == len(single)
        for g, s in zip(grads, single):
            np.testing.assert_allclose(g, s, rtol=rtol, atol=atol, err_msg=f"rank {rank}")
        assert stats["measured"] == len(range(rank, n_problems, world))
        assert stats["received"] > 0, f"rank {rank} received no records"
        assert first_time >= 0, "the library did not use the merged record"
    # Both find-dbs hold the same problems: every direction of every convolution.
    assert results[0][3] == results[1][3]
    assert len(results[0][3]) >= 3 * results[0][4]
