"""PyTorch modules backed by anydnn: Conv1d/2d/3d, ConvTranspose1d/2d/3d, BatchNorm1d/2d/3d,
RNN, LSTM, GRU.

Each is a subclass of PyTorch's own module with the same constructor, parameters and state_dict
keys; only the computation goes through libMIOpen (torch.autograd.Function), on the CPU backend
for CPU tensors and the CUDA backend for CUDA tensors. convert(model) switches a model's modules
to these in place, weights kept.
"""

from __future__ import annotations

import weakref
from typing import List, Optional

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import PackedSequence

from . import ops
from .rnn import RNN as _Rnn


def _detached(t: Optional[torch.Tensor]) -> Optional[torch.Tensor]:
    # DLPack refuses tensors that require grad; the autograd Function owns the graph.
    return None if t is None else t.detach()


class _ConvFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, b, args):
        x, w = _detached(x), _detached(w)
        y = ops.conv_forward(x, w, _detached(b), **args)
        ctx.save_for_backward(x, w)
        ctx.args = args
        ctx.has_bias = b is not None
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        # Autograd may hand an expanded or otherwise strided gradient.
        dy = dy.contiguous(memory_format=torch.channels_last) if (
            x.dim() == 4 and not x.is_contiguous() and
            x.is_contiguous(memory_format=torch.channels_last)) else dy.contiguous()
        dx = dw = db = None
        if ctx.needs_input_grad[0]:
            dx = ops.conv_backward_data(dy, w, x.shape, **ctx.args)
        if ctx.needs_input_grad[1]:
            dw = ops.conv_backward_weights(dy, x, w.shape, **ctx.args)
        if ctx.has_bias and ctx.needs_input_grad[2]:
            db = ops.conv_backward_bias(dy)
        return dx, dw, db, None


def conv(x, w, b=None, *, stride=1, padding=0, dilation=1, groups=1, transposed=False,
         output_padding=0):
    """Differentiable convolution through anydnn (F.conv*d / F.conv_transpose*d semantics)."""
    args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                transposed=transposed, output_padding=output_padding)
    return _ConvFunction.apply(x, w, b, args)


class _AnydnnConv:
    """What Conv1d/2d/3d share: padding modes and string paddings done with F.pad, as PyTorch."""

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros" or isinstance(self.padding, str):
            if self.padding_mode != "zeros":
                input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            else:
                input = F.pad(input, self._reversed_padding_repeated_twice)
            padding = 0
        else:
            padding = self.padding
        return conv(input, weight, bias, stride=self.stride, padding=padding,
                    dilation=self.dilation, groups=self.groups)


class Conv1d(_AnydnnConv, nn.Conv1d):
    pass


class Conv2d(_AnydnnConv, nn.Conv2d):
    pass


class Conv3d(_AnydnnConv, nn.Conv3d):
    pass


class _AnydnnConvTranspose:
    def forward(self, input, output_size: Optional[List[int]] = None):
        if self.padding_mode != "zeros":
            raise ValueError("only 'zeros' padding_mode is supported for ConvTranspose (as PyTorch)")
        n = len(self.kernel_size)
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, n, self.dilation)
        return conv(input, self.weight, self.bias, stride=self.stride, padding=self.padding,
                    dilation=self.dilation, groups=self.groups, transposed=True,
                    output_padding=output_padding)


class ConvTranspose1d(_AnydnnConvTranspose, nn.ConvTranspose1d):
    pass


class ConvTranspose2d(_AnydnnConvTranspose, nn.ConvTranspose2d):
    pass


class ConvTranspose3d(_AnydnnConvTranspose, nn.ConvTranspose3d):
    pass


class _BatchNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, running_mean, running_var, training, momentum, eps):
        x = _detached(x)
        c = x.shape[1]
        ptype = ops._float_param_dtype(x)
        w = weight.detach() if weight is not None else torch.ones(c, dtype=ptype, device=x.device)
        b = bias.detach() if bias is not None else torch.zeros(c, dtype=ptype, device=x.device)
        ctx.eps = eps
        ctx.training = training
        ctx.has_affine = weight is not None
        if training:
            y, mean, inv = ops.batch_norm_training(
                x, w, b, momentum=momentum, eps=eps, running_mean=_detached(running_mean),
                running_var=_detached(running_var))
            ctx.save_for_backward(x, w, mean, inv)
        else:
            y = ops.batch_norm_inference(x, w, b, running_mean.detach(), running_var.detach(),
                                         eps=eps)
            ctx.save_for_backward(x, w, running_mean.detach(), running_var.detach())
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w, a, v = ctx.saved_tensors
        dy = dy.contiguous()
        if ctx.training:
            dx, dw, db = ops.batch_norm_backward(x, dy, w, a, v, eps=ctx.eps)
        else:
            # Inference statistics are constants: y = (x - mean) * w / sqrt(var + eps) + b, which
            # MIOpen's backward (batch statistics) does not compute; three tensor ops do.
            shape = (1, -1) + (1,) * (x.dim() - 2)
            inv = torch.rsqrt(v.float() + ctx.eps)
            dims = [0] + list(range(2, x.dim()))
            dx = (dy.float() * (w.float() * inv).view(shape)).to(x.dtype)
            xhat = (x.float() - a.float().view(shape)) * inv.view(shape)
            dw = (dy.float() * xhat).sum(dims).to(w.dtype)
            db = dy.float().sum(dims).to(w.dtype)
        if not ctx.has_affine:
            dw = db = None
        return dx, dw, db, None, None, None, None, None


class _AnydnnBatchNorm:
    def forward(self, input):
        self._check_input_dim(input)
        # PyTorch's own bookkeeping of the running statistics (torch/nn/modules/batchnorm.py).
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = (1.0 / float(self.num_batches_tracked) if self.momentum is None
                      else self.momentum)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        rm = self.running_mean if track else None
        rv = self.running_var if track else None
        return _BatchNormFunction.apply(input, self.weight, self.bias, rm, rv, use_batch, factor,
                                        self.eps)


class BatchNorm1d(_AnydnnBatchNorm, nn.BatchNorm1d):
    pass


class BatchNorm2d(_AnydnnBatchNorm, nn.BatchNorm2d):
    pass


class BatchNorm3d(_AnydnnBatchNorm, nn.BatchNorm3d):
    pass


class _RnnFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, hx, cx, w, rnn, training, batch_sizes):
        x, w = x.detach().contiguous(), w.detach().contiguous()
        hx = None if hx is None else hx.detach().contiguous()
        cx = None if cx is None else cx.detach().contiguous()
        y, hy, cy, reserve = rnn.forward(x, w, hx, cx, batch_sizes=batch_sizes, training=training)
        ctx.rnn, ctx.reserve = rnn, reserve
        ctx.save_for_backward(x, hx, cx, w, y)
        if cy is None:  # autograd.Function outputs are tensors; not an LSTM: an empty one
            cy = hy.new_zeros(0)
            ctx.mark_non_differentiable(cy)
        return y, hy, cy

    @staticmethod
    def backward(ctx, dy, dhy, dcy):
        if ctx.reserve[1] is None:
            raise RuntimeError("backward through an anydnn RNN run in inference mode")
        x, hx, cx, w, y = ctx.saved_tensors
        lstm = ctx.rnn.m == 2
        dx, dhx, dcx = ctx.rnn.backward_data(y, dy.contiguous(), w, ctx.reserve, hx, cx,
                                             dhy.contiguous(), dcy.contiguous() if lstm else None)
        dw = ctx.rnn.backward_weights(x, y, ctx.reserve, hx) if ctx.needs_input_grad[3] else None
        return (dx, dhx if hx is not None else None, dcx if cx is not None else None, dw, None,
                None, None)


# Per module: its anydnn RNN descriptors, one per (handle, dtype) (a handle belongs to a thread;
# the module itself stays deep-copyable and picklable).
_RNN_CACHE: "weakref.WeakKeyDictionary[nn.Module, dict]" = weakref.WeakKeyDictionary()


class _AnydnnRNN:
    def _anydnn_rnn(self, x: torch.Tensor, dropout: float) -> _Rnn:
        handle = ops._handle_for(x, None)
        key = (id(handle), x.dtype, dropout)
        cache = _RNN_CACHE.setdefault(self, {})
        r = cache.get(key)
        if r is None:
            if getattr(self, "proj_size", 0):
                raise ValueError("LSTM projections (proj_size) are not in MIOpen's RNN")
            r = cache[key] = _Rnn(self.mode, self.input_size, self.hidden_size,
                                  self.num_layers, bidirectional=self.bidirectional,
                                  bias=self.bias, dtype=str(x.dtype).replace("torch.", ""),
                                  dropout=dropout, like=x, handle=handle)
        return r

    def forward(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        if packed:
            x, batch_sizes, sorted_idx, unsorted_idx = input
            bs = batch_sizes.tolist()
            batch = bs[0]
        else:
            batched = input.dim() == 3
            x = input if batched else input.unsqueeze(1)
            if self.batch_first and batched:
                x = x.transpose(0, 1)
            bs, batch = None, x.shape[1]
            sorted_idx = unsorted_idx = None
        lstm = self.mode == "LSTM"
        dirs = 2 if self.bidirectional else 1
        if hx is None:
            zeros = torch.zeros(self.num_layers * dirs, batch, self.hidden_size, dtype=x.dtype,
                                device=x.device)
            h0, c0 = zeros, (zeros if lstm else None)
        else:
            h0, c0 = hx if lstm else (hx, None)
            if not packed and input.dim() == 2:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            if sorted_idx is not None:
                h0 = h0.index_select(1, sorted_idx)
                c0 = c0.index_select(1, sorted_idx) if c0 is not None else None
        # Dropout between layers in training mode only; MIOpen's training forward (which keeps
        # what backward needs) whenever autograd will ask for a backward.
        r = self._anydnn_rnn(x, float(self.dropout) if self.training else 0.0)
        w = r.pack({n: p.to(x.dtype) for n, p in self.named_parameters()})
        needs_grad = torch.is_grad_enabled() and (
            w.requires_grad or x.requires_grad or (h0 is not None and h0.requires_grad) or
            (c0 is not None and c0.requires_grad))
        y, hy, cy = _RnnFunction.apply(x, h0, c0, w, r, needs_grad or self.training, bs)
        if packed:
            out = PackedSequence(y, batch_sizes, sorted_idx, unsorted_idx)
            if unsorted_idx is not None:
                hy = hy.index_select(1, unsorted_idx)
                cy = cy.index_select(1, unsorted_idx) if lstm else cy
        else:
            out = y.transpose(0, 1) if self.batch_first and input.dim() == 3 else y
            if input.dim() == 2:
                out, hy = out.squeeze(1), hy.squeeze(1)
                cy = cy.squeeze(1) if lstm else cy
        return out, ((hy, cy) if lstm else hy)


class RNN(_AnydnnRNN, nn.RNN):
    pass


class LSTM(_AnydnnRNN, nn.LSTM):
    pass


class GRU(_AnydnnRNN, nn.GRU):
    pass


_SWAPS = {
    nn.Conv1d: Conv1d, nn.Conv2d: Conv2d, nn.Conv3d: Conv3d,
    nn.ConvTranspose1d: ConvTranspose1d, nn.ConvTranspose2d: ConvTranspose2d,
    nn.ConvTranspose3d: ConvTranspose3d,
    nn.BatchNorm1d: BatchNorm1d, nn.BatchNorm2d: BatchNorm2d, nn.BatchNorm3d: BatchNorm3d,
    nn.RNN: RNN, nn.LSTM: LSTM, nn.GRU: GRU,
}


def problems_of(model: nn.Module, *inputs, **kwargs) -> list:
    """The convolution problems one forward of `model` on `inputs` runs (anydnn's or PyTorch's
    Conv / ConvTranspose modules), for anydnn.tune. The forward runs under torch.no_grad."""
    from .distributed import ConvProblem

    found = []

    def hook(m, args, _out):
        x = args[0]
        if isinstance(m, nn.modules.conv._ConvNd) and not isinstance(m.padding, str) and \
                m.padding_mode == "zeros":
            found.append(ConvProblem(
                tuple(x.shape), tuple(m.weight.shape), tuple(m.stride), tuple(m.padding),
                tuple(m.dilation), m.groups, m.transposed, tuple(m.output_padding),
                str(x.dtype).replace("torch.", "")))

    handles = [m.register_forward_hook(hook) for m in model.modules()
               if isinstance(m, nn.modules.conv._ConvNd)]
    try:
        with torch.no_grad():
            model(*inputs, **kwargs)
    finally:
        for h in handles:
            h.remove()
    return list(dict.fromkeys(found))


def convert(model: nn.Module) -> nn.Module:
    """Switches every PyTorch Conv*/ConvTranspose*/BatchNorm*/RNN/LSTM/GRU module of `model` (exactly those
    classes, not subclasses) to anydnn's, in place: same object, parameters and buffers."""
    for m in model.modules():
        new = _SWAPS.get(type(m))
        if new is not None:
            m.__class__ = new
    return model
