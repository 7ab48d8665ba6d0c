"""Tuning across the ranks of a torch.distributed process group.

    problems = anydnn.torch.problems_of(model, example_batch)
    anydnn.tune(problems)            # every rank calls it; rank r runs Find on problems[r::world]

Each rank runs MIOpen's Find (all three directions) on its share of the problems, which puts the
results in its user find-db (docs/databases.md); then the ranks exchange the records of their user
find-dbs (as the library exports them: anydnnFindDbExport, an opaque text) and each imports the
others' into its own, so every rank starts tuned: immediate mode and the default Find use the
records from then on. Ranks that share the find-db directory (one machine, or a shared file
system) exchange nothing new; ranks on separate machines get the records they did not measure.
Records are per device kind, so a record is only ever used by the kind of device that measured
it; the package never reads or writes the database files itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, List, Optional, Sequence, Tuple

from . import ops

_DIRECTIONS = ("forward", "backward_data", "backward_weights")


@dataclass(frozen=True)
class ConvProblem:
    """One convolution to tune: shapes as PyTorch's (N, C, spatial...) input and weight."""

    x_shape: Tuple[int, ...]
    w_shape: Tuple[int, ...]
    stride: Tuple[int, ...] = (1,)
    padding: Tuple[int, ...] = (0,)
    dilation: Tuple[int, ...] = (1,)
    groups: int = 1
    transposed: bool = False
    output_padding: Tuple[int, ...] = (0,)
    dtype: str = "float32"
    directions: Tuple[str, ...] = field(default=_DIRECTIONS)

    def conv_args(self) -> dict:
        n = len(self.x_shape) - 2

        def full(v):
            return tuple(v) * n if len(v) == 1 else tuple(v)

        return dict(stride=full(self.stride), padding=full(self.padding),
                    dilation=full(self.dilation), groups=self.groups,
                    transposed=self.transposed, output_padding=full(self.output_padding))


def _handle_of(device) -> "ops._ext.Handle":
    """This thread's handle for `device` (None or "cpu": the CPU; a CUDA torch.device or
    "cuda[:i]": that GPU). Only a CUDA device needs PyTorch."""
    kind = getattr(device, "type", None) or (str(device).split(":")[0] if device else "cpu")
    if kind != "cuda":
        return ops.default_handle(("cpu", 0))
    import torch

    d = torch.device(device)
    return ops.default_handle(("cuda", d.index if d.index is not None
                               else torch.cuda.current_device()))


def export_records(device=None) -> str:
    """The user find-db's records for `device`'s kind (a torch.device, default the CPU), as the
    library's opaque text: one line per timed solver, the problem's key first."""
    return ops._ext.find_db_export(_handle_of(device))


def import_records(text: str, device=None) -> int:
    """Adds records exported elsewhere to the user find-db for `device`'s kind; a problem already
    recorded keeps its own. Returns how many records (problems) were added."""
    return ops._ext.find_db_import(_handle_of(device), text)


def _run_find(p: ConvProblem, device) -> None:
    import torch

    dtype = getattr(torch, p.dtype)
    args = p.conv_args()
    x = torch.randn(p.x_shape, device=device).to(dtype)
    w = torch.randn(p.w_shape, device=device).to(dtype)
    y_shape = ops.conv_output_shape(p.x_shape, p.w_shape, **args)
    dy = torch.randn(y_shape, device=device).to(dtype)
    for d in p.directions:
        if d == "forward":
            ops.find(d, x, w, y_shape, **args)
        elif d == "backward_data":
            ops.find(d, dy, w, p.x_shape, **args)
        elif d == "backward_weights":
            ops.find(d, dy, x, p.w_shape, **args)
        else:
            raise ValueError(f"unknown direction {d!r}")


def tune(problems: Iterable[ConvProblem], *, group=None, device=None,
         progress: bool = False) -> dict:
    """Find for `problems`, spread over the ranks of `group` (torch.distributed's default group;
    without an initialized process group this process does them all), then merged find-dbs.
    Every rank must call it with the same problems. Returns {"measured", "received"}."""
    import torch

    problems = list(dict.fromkeys(problems))  # the same order on every rank, duplicates once
    dist = torch.distributed
    ranked = dist.is_available() and dist.is_initialized()
    rank = dist.get_rank(group) if ranked else 0
    world = dist.get_world_size(group) if ranked else 1
    if device is None:
        device = (torch.device("cuda", torch.cuda.current_device())
                  if torch.cuda.is_available() and _cuda_backend_available()
                  else torch.device("cpu"))
    mine = problems[rank::world]
    it = mine
    if progress:
        from tqdm import tqdm

        it = tqdm(mine, desc=f"tune rank {rank}", position=rank)
    for p in it:
        _run_find(p, device)
    received = 0
    if ranked:
        gathered: List[Optional[str]] = [None] * world
        dist.all_gather_object(gathered, export_records(device), group=group)
        for i, text in enumerate(gathered):
            if i != rank and text:
                received += import_records(text, device)
        dist.barrier(group=group)
    ops.clear_caches()  # solutions ranked before tuning are stale
    return {"measured": len(mine), "received": received}


def _cuda_backend_available() -> bool:
    from . import backends

    return "cuda" in backends()
