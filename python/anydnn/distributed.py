"""Tuning across the ranks of a torch.distributed process group.

    problems = anydnn.torch.problems_of(model, example_batch)
    anydnn.tune(problems)            # every rank calls it; rank r runs Find on problems[r::world]

Each rank runs MIOpen's Find (all three directions) on its share of the problems, which puts the
results in its user find-db (docs/databases.md); then the ranks exchange the records of their user
find-dbs and each writes the others' into its own, so every rank starts tuned: immediate mode and
the default Find use the records from then on. Ranks that share the find-db directory (one
machine, or a shared file system) exchange nothing new; ranks on separate machines get the records
they did not measure. Records are per device kind (the file name and a column say which), so a
record is only ever used by the kind of device that measured it.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

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


def user_db_dir() -> Path:
    """Where the library keeps user find-dbs (docs/databases.md: MIOPEN_USER_DB_PATH, else
    $XDG_CONFIG_HOME/miopen, else ~/.config/miopen)."""
    if os.environ.get("MIOPEN_USER_DB_PATH"):
        return Path(os.environ["MIOPEN_USER_DB_PATH"])
    if os.environ.get("XDG_CONFIG_HOME"):
        return Path(os.environ["XDG_CONFIG_HOME"]) / "miopen"
    return Path.home() / ".config" / "miopen"


def read_records(directory: Optional[Path] = None) -> Dict[str, List[tuple]]:
    """Every user find-db record under `directory`, by file name."""
    out: Dict[str, List[tuple]] = {}
    for f in sorted((directory or user_db_dir()).glob("*.ufdb.sqlite")):
        con = sqlite3.connect(f"file:{f}?mode=ro", uri=True, timeout=60)
        try:
            out[f.name] = con.execute(
                "SELECT problem, device, solver, solver_id, algorithm, time_ms, workspace "
                "FROM find_records").fetchall()
        except sqlite3.DatabaseError:
            continue  # not a find-db the library wrote; the library ignores it too
        finally:
            con.close()
    return out


def write_records(records: Dict[str, List[tuple]], directory: Optional[Path] = None) -> int:
    """Adds records to the user find-dbs under `directory` (created as the library creates them),
    one transaction per problem as the library writes them; returns how many rows were new."""
    d = directory or user_db_dir()
    d.mkdir(parents=True, exist_ok=True)
    added = 0
    for name, rows in records.items():
        con = sqlite3.connect(str(d / name), timeout=60)
        try:
            con.execute("CREATE TABLE IF NOT EXISTS find_records (problem TEXT, device TEXT, "
                        "solver TEXT, solver_id INTEGER, algorithm INTEGER, time_ms REAL, "
                        "workspace INTEGER, PRIMARY KEY (problem, device, solver))")
            if con.execute("PRAGMA user_version").fetchone()[0] == 0:
                con.execute("PRAGMA user_version = 1")
            by_problem: Dict[Tuple[str, str], List[tuple]] = {}
            for r in rows:
                by_problem.setdefault((r[0], r[1]), []).append(r)
            for (problem, device), group in by_problem.items():
                with con:  # a record is all of a problem's rows: replaced whole, never mixed
                    have = con.execute("SELECT COUNT(*) FROM find_records WHERE problem = ? AND "
                                       "device = ?", (problem, device)).fetchone()[0]
                    if have:
                        continue  # this rank measured it (or got it already): keep its own
                    con.executemany("INSERT INTO find_records VALUES (?, ?, ?, ?, ?, ?, ?)",
                                    group)
                    added += len(group)
        finally:
            con.close()
    return added


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
        gathered: List[Optional[Dict[str, List[tuple]]]] = [None] * world
        dist.all_gather_object(gathered, read_records(), group=group)
        merged: Dict[str, List[tuple]] = {}
        for i, recs in enumerate(gathered):
            if i != rank and recs:
                for name, rows in recs.items():
                    merged.setdefault(name, []).extend(rows)
        received = write_records(merged)
        dist.barrier(group=group)
    ops.clear_caches()  # solutions ranked before tuning are stale
    return {"measured": len(mine), "received": received}


def _cuda_backend_available() -> bool:
    from . import backends

    return "cuda" in backends()
