"""anydnn.torch modules against PyTorch's: same constructor arguments and state_dict keys, same
outputs and gradients (inputs, weights, biases), running statistics, convert()."""
import copy

import numpy as np
import pytest
import torch
from torch import nn

import anydnn.torch as at

CONVS = [
    (nn.Conv1d, at.Conv1d, dict(in_channels=4, out_channels=6, kernel_size=3, stride=2,
                                padding=1), (2, 4, 11)),
    (nn.Conv2d, at.Conv2d, dict(in_channels=4, out_channels=8, kernel_size=3, padding=1,
                                groups=2, bias=False), (2, 4, 9, 7)),
    (nn.Conv2d, at.Conv2d, dict(in_channels=3, out_channels=5, kernel_size=(3, 2),
                                padding="same", dilation=2), (1, 3, 8, 8)),
    (nn.Conv2d, at.Conv2d, dict(in_channels=3, out_channels=4, kernel_size=3, padding=1,
                                padding_mode="reflect"), (2, 3, 6, 6)),
    (nn.Conv3d, at.Conv3d, dict(in_channels=2, out_channels=3, kernel_size=3, padding=1,
                                stride=(1, 2, 2)), (1, 2, 5, 6, 6)),
    (nn.ConvTranspose2d, at.ConvTranspose2d, dict(in_channels=6, out_channels=4, kernel_size=3,
                                                  stride=2, padding=1, output_padding=1,
                                                  groups=2), (2, 6, 5, 5)),
    (nn.ConvTranspose1d, at.ConvTranspose1d, dict(in_channels=3, out_channels=2, kernel_size=4,
                                                  stride=2), (2, 3, 7)),
]


def _compare(ref_mod, our_mod, x, rtol=1e-4, atol=1e-4):
    our_mod.load_state_dict(ref_mod.state_dict())
    assert list(our_mod.state_dict()) == list(ref_mod.state_dict())
    xr = x.clone().requires_grad_()
    xo = x.clone().requires_grad_()
    yr, yo = ref_mod(xr), our_mod(xo)
    torch.testing.assert_close(yo, yr, rtol=rtol, atol=atol)
    g = torch.randn_like(yr)
    yr.backward(g)
    yo.backward(g)
    torch.testing.assert_close(xo.grad, xr.grad, rtol=rtol, atol=atol)
    for (n, pr), (_, po) in zip(ref_mod.named_parameters(), our_mod.named_parameters()):
        torch.testing.assert_close(po.grad, pr.grad, rtol=rtol, atol=10 * atol, msg=n)


@pytest.mark.parametrize("ref_cls,our_cls,kw,shape", CONVS,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONVS)])
def test_conv_modules_match_torch(rng, ref_cls, our_cls, kw, shape):
    torch.manual_seed(int(rng.integers(2**31)))
    ref = ref_cls(**kw)
    ours = our_cls(**kw)
    assert isinstance(ours, ref_cls)
    _compare(ref, ours, torch.randn(shape))


@pytest.mark.parametrize("ref_cls,our_cls,shape,kw", [
    (nn.BatchNorm1d, at.BatchNorm1d, (8, 5), {}),
    (nn.BatchNorm1d, at.BatchNorm1d, (4, 5, 7), dict(affine=False)),
    (nn.BatchNorm2d, at.BatchNorm2d, (4, 3, 6, 6), dict(momentum=None)),
    (nn.BatchNorm3d, at.BatchNorm3d, (2, 3, 4, 4, 4), dict(eps=1e-3)),
    (nn.BatchNorm2d, at.BatchNorm2d, (4, 3, 5, 5), dict(track_running_stats=False)),
])
def test_batchnorm_modules_train_and_eval_match_torch(rng, ref_cls, our_cls, shape, kw):
    torch.manual_seed(int(rng.integers(2**31)))
    c = shape[1]
    ref, ours = ref_cls(c, **kw), our_cls(c, **kw)
    if ref.affine:
        with torch.no_grad():
            ref.weight.uniform_(0.5, 1.5)
            ref.bias.uniform_(-0.5, 0.5)
    for _ in range(3):  # running statistics over several steps (momentum None: cumulative)
        _compare(ref, ours, torch.randn(shape) * 3 + 1, atol=2e-4)
    for name, buf in ref.named_buffers():
        torch.testing.assert_close(dict(ours.named_buffers())[name], buf, rtol=1e-4, atol=1e-5,
                                   msg=name)
    ref.eval()
    ours.eval()
    _compare(ref, ours, torch.randn(shape))


def test_convert_swaps_in_place_and_trains_like_torch(rng):
    torch.manual_seed(int(rng.integers(2**31)))
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                          nn.Conv2d(8, 4, 3, stride=2), nn.Flatten(), nn.LazyLinear(2))
    x = torch.randn(4, 3, 10, 10)
    model(x)  # materialize the lazy layer
    ref = copy.deepcopy(model)
    conv0 = model[0]
    assert at.convert(model) is model and model[0] is conv0
    assert type(model[0]) is at.Conv2d and type(model[1]) is at.BatchNorm2d
    assert type(model[5]) is nn.Linear
    opt_r = torch.optim.SGD(ref.parameters(), lr=0.1)
    opt_o = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        for m, opt in ((ref, opt_r), (model, opt_o)):
            opt.zero_grad()
            m(x).square().mean().backward()
            opt.step()
    for (n, pr), (_, po) in zip(ref.state_dict().items(), model.state_dict().items()):
        torch.testing.assert_close(po, pr, rtol=1e-3, atol=1e-4, msg=n)


def test_wrong_dtype_and_shape_raise_clearly():
    conv = at.Conv2d(3, 4, 3)
    with pytest.raises(RuntimeError):
        conv(torch.randn(1, 5, 8, 8))  # channels do not match the weights
    with pytest.raises(Exception, match="data type"):
        conv(torch.randn(1, 3, 8, 8, dtype=torch.float64))
