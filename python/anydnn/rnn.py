"""RNN, LSTM and GRU through anydnn, with MIOpen's packed weights.

    r = anydnn.RNN("LSTM", input_size=8, hidden_size=16, num_layers=2)
    w = r.pack(torch_lstm_weights)            # or any buffer of r.weight_count elements
    y, hy, cy, reserve = r.forward(x, w)      # x: seq_len x batch x input (seq-major)
    dx, dhx, dcx = r.backward_data(y, dy, w, reserve)
    dw = r.backward_weights(x, y, reserve)

Packed sequences (PyTorch's PackedSequence data and batch_sizes) pass as a 2-D x with
`batch_sizes`. MIOpen's gate order differs from PyTorch's: LSTM matrices are input, forget,
output, new-memory (PyTorch i, f, g, o); GRU update, reset, new (PyTorch r, z, n). pack() and
unpack() convert.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _ext
from .ops import _check, _device, _empty, _handle_for, _is_torch, _view, _workspace

MODES = {"RNN_RELU": 0, "RNN_TANH": 1, "LSTM": 2, "GRU": 3}
_GATES = {0: 1, 1: 1, 2: 4, 3: 3}
# MIOpen's matrix id k (per GEMM) takes PyTorch's gate chunk _TORCH_CHUNK[mode][k].
_TORCH_CHUNK = {0: [0], 1: [0], 2: [0, 1, 3, 2], 3: [1, 0, 2]}


def _dtype_name(a: Any) -> str:
    return str(a.dtype).replace("torch.", "")


class RNN:
    """One RNN configuration on one handle (MIOpen's RNN descriptor, dropout descriptor and
    states). `like`: an array whose library and device the buffers anydnn allocates follow (a
    NumPy array by default)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, *,
                 bidirectional: bool = False, bias: bool = True, dtype: str = "float32",
                 dropout: float = 0.0, seed: int = 0, like: Any = None, handle=None):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {sorted(MODES)}, got {mode!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.mode, self.m = mode, MODES[mode]
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.dirs = 2 if bidirectional else 1
        self.bias = bias
        self.like = like if like is not None else np.empty(0, dtype=np.float32)
        self.handle = _handle_for(self.like, handle)
        states = None
        if dropout > 0:
            states = _workspace(self.like, _ext.dropout_states_size(self.handle))
        self._r = _ext.Rnn(self.handle, self.m, input_size, hidden_size, num_layers,
                           bidirectional, bias, dtype, float(dropout), int(seed), states)
        self.dtype = dtype
        self._elem = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8}[dtype]
        self.weight_count = self._r.weight_bytes() // self._elem
        self._layout: Optional[List[tuple]] = None

    # --- weights ------------------------------------------------------------------------------

    def param_offset(self, layer: int, direction: int, matrix_id: int) -> Tuple[int, int]:
        """(offset, count) in elements of MIOpen matrix `matrix_id` of (layer, direction)."""
        return self._r.offset(layer * self.dirs + direction, matrix_id, False)

    def bias_offset(self, layer: int, direction: int, bias_id: int) -> Tuple[int, int]:
        return self._r.offset(layer * self.dirs + direction, bias_id, True)

    def _torch_names(self, layer: int, direction: int) -> List[str]:
        sfx = f"l{layer}" + ("_reverse" if direction else "")
        names = [f"weight_ih_{sfx}", f"weight_hh_{sfx}"]
        return names + ([f"bias_ih_{sfx}", f"bias_hh_{sfx}"] if self.bias else [])

    def _pieces(self) -> List[tuple]:
        """(offset, count, torch name, gate chunk index, is_bias) of every piece of the buffer,
        by offset. The layout is fixed by the descriptor: asked of the library once, not on
        every pack (which the modules do on every forward)."""
        if self._layout is None:
            g = _GATES[self.m]
            pieces = []
            for layer in range(self.num_layers):
                for d in range(self.dirs):
                    names = self._torch_names(layer, d)
                    for k in range(2 * g):
                        gemm, gate = divmod(k, g)
                        chunk = _TORCH_CHUNK[self.m][gate]
                        off, n = self.param_offset(layer, d, k)
                        pieces.append((off, n, names[gemm], chunk, False))
                        if self.bias:
                            off, n = self.bias_offset(layer, d, k)
                            pieces.append((off, n, names[2 + gemm], chunk, True))
            self._layout = sorted(pieces)
        return self._layout

    def pack(self, params: Dict[str, Any]):
        """MIOpen's packed weight buffer from PyTorch-named tensors (weight_ih_l0, bias_hh_l1,
        ..., as nn.LSTM's state_dict). With torch tensors the result is differentiable: the
        gradient of the buffer flows back to each parameter."""
        pieces = self._pieces()
        h = self.hidden_size
        parts, pos = [], 0
        for off, n, name, chunk, _ in pieces:
            if off != pos:
                raise RuntimeError(f"MIOpen's weight layout has a gap at {pos} (next piece at "
                                   f"{off}); cannot pack")
            t = params[name][chunk * h:(chunk + 1) * h]
            parts.append(t.reshape(-1))
            pos += n
        if pos != self.weight_count:
            raise RuntimeError(f"packed {pos} elements, MIOpen's buffer has {self.weight_count}")
        first = parts[0]
        if _is_torch(first):
            import torch

            return torch.cat(parts)
        return np.concatenate(parts)

    def unpack(self, w) -> Dict[str, Any]:
        """PyTorch-named parameters (copies) from a packed buffer."""
        out: Dict[str, List[Any]] = {}
        g, h = _GATES[self.m], self.hidden_size
        for off, n, name, chunk, is_bias in self._pieces():
            piece = w[off:off + n] if is_bias else w[off:off + n].reshape(h, -1)
            out.setdefault(name, [None] * g)[_TORCH_CHUNK[self.m].index(chunk)] = (chunk, piece)
        result = {}
        for name, chunks in out.items():
            ordered = [t for _, t in sorted(chunks, key=lambda c: c[0])]
            if _is_torch(ordered[0]):
                import torch

                result[name] = torch.cat(ordered)
            else:
                result[name] = np.concatenate(ordered)
        return result

    # --- calls --------------------------------------------------------------------------------

    def _steps(self, x, batch_sizes: Optional[Sequence[int]]):
        if batch_sizes is None:
            if x.ndim != 3:
                raise ValueError(f"x must be seq_len x batch x {self.input_size} (or 2-D with "
                                 f"batch_sizes), got shape {tuple(x.shape)}")
            t, n = x.shape[0], x.shape[1]
            return [n] * t, _view(x, (t * n, x.shape[2]))
        bs = [int(b) for b in batch_sizes]
        if x.ndim != 2 or sum(bs) != x.shape[0]:
            raise ValueError("a packed x is 2-D with sum(batch_sizes) rows")
        if any(a < b for a, b in zip(bs, bs[1:])):
            raise ValueError("batch_sizes must not increase (sequences sorted longest first)")
        return bs, x

    def _state_shape(self, bs: List[int]):
        return (self.num_layers * self.dirs, bs[0], self.hidden_size)

    def forward(self, x, w, hx=None, cx=None, *, batch_sizes=None, training: bool = True):
        """Returns (y, hy, cy, reserve); cy is None but for LSTM; reserve (training only) is what
        the backward calls need."""
        _check(x=x, w=w, hx=hx, cx=cx)
        bs, x2 = self._steps(x, batch_sizes)
        y2 = _empty(x2, (x2.shape[0], self.dirs * self.hidden_size))
        hy = _empty(x2, self._state_shape(bs))
        cy = _empty(x2, self._state_shape(bs)) if self.m == 2 else None
        ws_size, rs_size = self._r.space(bs)
        ws = _workspace(x2, ws_size)
        rs = _workspace(x2, rs_size) if training else None
        self._r.forward(training, bs, x2, hx, cx if self.m == 2 else None, w, y2, hy, cy, ws, rs)
        y = y2 if batch_sizes is not None else _view(y2, (x.shape[0], x.shape[1], -1))
        # PyTorch's way: the one workspace goes on to backward data, which leaves there what
        # backward weights reads.
        return y, hy, cy, (bs, rs, ws)

    def backward_data(self, y, dy, w, reserve, hx=None, cx=None, dhy=None, dcy=None):
        """Returns (dx, dhx, dcx) of the forward that gave `reserve`."""
        _check(y=y, dy=dy, w=w, hx=hx, cx=cx, dhy=dhy, dcy=dcy)
        bs, rs, ws = reserve
        y2 = y if y.ndim == 2 else _view(y, (-1, y.shape[2]))
        dy2 = dy if dy.ndim == 2 else _view(dy, (-1, dy.shape[2]))
        dx2 = _empty(y2, (y2.shape[0], self.input_size))
        dhx = _empty(y2, self._state_shape(bs))
        dcx = _empty(y2, self._state_shape(bs)) if self.m == 2 else None
        lstm = self.m == 2
        self._r.backward_data(bs, y2, dy2, dhy, dcy if lstm else None, w, hx,
                              cx if lstm else None, dx2, dhx, dcx, ws, rs)
        dx = dx2 if y.ndim == 2 else _view(dx2, (y.shape[0], y.shape[1], -1))
        return dx, dhx, dcx

    def backward_weights(self, x, y, reserve, hx=None):
        """dw of the forward that gave `reserve` (call after backward_data, as MIOpen needs)."""
        _check(x=x, y=y, hx=hx)
        bs, rs, ws = reserve
        x2 = x if x.ndim == 2 else _view(x, (-1, x.shape[2]))
        y2 = y if y.ndim == 2 else _view(y, (-1, y.shape[2]))
        dw = _empty(x2, (self.weight_count,))
        dw[...] = 0  # MIOpen accumulates into dw
        self._r.backward_weights(bs, x2, hx, y2, dw, ws, rs)
        return dw
