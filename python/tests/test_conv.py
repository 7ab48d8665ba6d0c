"""anydnn's convolution against PyTorch's: forward, backward data, backward weights, bias, on
NumPy arrays and PyTorch tensors, 1-D to 3-D, stride, padding, dilation, groups, transposed;
Find and immediate mode; bad inputs raise and write nothing."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import anydnn

# (x shape, w shape, stride, padding, dilation, groups): odd sizes, 1x1, batch 1, groups.
CASES = [
    ((2, 3, 9, 7), (4, 3, 3, 3), 1, 1, 1, 1),
    ((1, 4, 11, 10), (6, 2, 3, 3), 2, 1, 1, 2),
    ((3, 5, 8, 8), (5, 5, 1, 1), 1, 0, 1, 1),
    ((2, 4, 13, 9), (4, 1, 3, 5), (2, 1), (1, 2), (2, 1), 4),
    ((2, 3, 12), (5, 3, 4), 2, 1, 1, 1),                     # 1-D
    ((1, 2, 5, 6, 7), (3, 2, 3, 3, 3), 1, (1, 0, 1), 1, 1),  # 3-D
]
TORCH_CONV = {3: F.conv1d, 4: F.conv2d, 5: F.conv3d}
TORCH_CONVT = {3: F.conv_transpose1d, 4: F.conv_transpose2d, 5: F.conv_transpose3d}


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a)).double()


@pytest.mark.parametrize("xs,ws,s,p,d,g", CASES)
def test_conv_all_directions_match_torch(rng, xs, ws, s, p, d, g):
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    xt, wt, bt = _t(x).requires_grad_(), _t(w).requires_grad_(), _t(b).requires_grad_()
    ref = TORCH_CONV[len(xs)](xt, wt, bt, stride=s, padding=p, dilation=d, groups=g)
    y = anydnn.conv_forward(x, w, b, stride=s, padding=p, dilation=d, groups=g)
    assert y.shape == tuple(ref.shape) and y.dtype == np.float32
    np.testing.assert_allclose(y, ref.detach().numpy(), rtol=1e-4, atol=1e-4)

    dy = rng.standard_normal(y.shape).astype(np.float32)
    ref.backward(_t(dy))
    kw = dict(stride=s, padding=p, dilation=d, groups=g)
    dx = anydnn.conv_backward_data(dy, w, x.shape, **kw)
    dw = anydnn.conv_backward_weights(dy, x, w.shape, **kw)
    db = anydnn.conv_backward_bias(dy)
    np.testing.assert_allclose(dx, xt.grad.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, wt.grad.numpy(), rtol=1e-4, atol=2e-4)
    np.testing.assert_allclose(db, bt.grad.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs,ws,s,p,op,g", [
    ((2, 6, 5, 7), (6, 2, 3, 3), 2, 1, 1, 3),
    ((1, 3, 4, 4), (3, 5, 2, 2), 2, 0, 0, 1),
    ((2, 4, 9), (4, 3, 3), 3, 1, 2, 1),
])
def test_transposed_conv_matches_torch(rng, xs, ws, s, p, op, g):
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    xt, wt = _t(x).requires_grad_(), _t(w).requires_grad_()
    ref = TORCH_CONVT[len(xs)](xt, wt, stride=s, padding=p, output_padding=op, groups=g)
    kw = dict(stride=s, padding=p, groups=g, transposed=True, output_padding=op)
    y = anydnn.conv_forward(x, w, **kw)
    np.testing.assert_allclose(y, ref.detach().numpy(), rtol=1e-4, atol=1e-4)
    dy = rng.standard_normal(y.shape).astype(np.float32)
    ref.backward(_t(dy))
    np.testing.assert_allclose(anydnn.conv_backward_data(dy, w, x.shape, **kw), xt.grad.numpy(),
                               rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(anydnn.conv_backward_weights(dy, x, w.shape, **kw),
                               wt.grad.numpy(), rtol=1e-4, atol=2e-4)


def test_torch_tensors_zero_copy_and_channels_last(rng):
    x = torch.from_numpy(rng.standard_normal((2, 8, 10, 10)).astype(np.float32))
    w = torch.from_numpy(rng.standard_normal((16, 8, 3, 3)).astype(np.float32))
    out = torch.full((2, 16, 10, 10), float("nan"))
    y = anydnn.conv_forward(x, w, padding=1, out=out)
    assert y is out  # written in place: no copy on the way out
    torch.testing.assert_close(y, F.conv2d(x, w, padding=1), rtol=1e-4, atol=1e-4)
    xc = x.contiguous(memory_format=torch.channels_last)
    yc = anydnn.conv_forward(xc, w, padding=1)
    assert yc.is_contiguous(memory_format=torch.channels_last)
    torch.testing.assert_close(yc, F.conv2d(x, w, padding=1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("dtype,tol", [(torch.float16, 2e-2), (torch.bfloat16, 1e-1)])
def test_half_types(rng, dtype, tol):
    x = torch.from_numpy(rng.standard_normal((2, 4, 7, 7)).astype(np.float32))
    w = torch.from_numpy(rng.standard_normal((6, 4, 3, 3)).astype(np.float32)) * 0.2
    y = anydnn.conv_forward(x.to(dtype), w.to(dtype), padding=1)
    assert y.dtype == dtype
    torch.testing.assert_close(y.float(), F.conv2d(x.to(dtype).float(), w.to(dtype).float(),
                                                   padding=1), rtol=tol, atol=tol)


def test_find_and_solutions_run_and_agree(rng):
    x = rng.standard_normal((2, 4, 12, 12)).astype(np.float32)
    w = rng.standard_normal((8, 4, 3, 3)).astype(np.float32)
    ref = F.conv2d(_t(x), _t(w), padding=1).numpy()
    found = anydnn.find("forward", x, w, ref.shape, padding=1)
    assert found and all(a.time >= 0 for a in found)
    assert [a.time for a in found] == sorted(a.time for a in found)
    assert all(a.name in ("GEMM", "Direct", "FFT", "Winograd", "ImplicitGEMM") for a in found)
    for a in found:
        np.testing.assert_allclose(anydnn.conv_forward(x, w, padding=1, algorithm=a), ref,
                                   rtol=1e-4, atol=1e-4, err_msg=a.name)
    sols = anydnn.conv_solutions("forward", x, w, ref.shape, padding=1)
    assert len(sols) >= 2 and all(s.solver for s in sols)
    for s in sols:
        np.testing.assert_allclose(anydnn.conv_forward(x, w, padding=1, solution=s.solution_id),
                                   ref, rtol=1e-4, atol=1e-4, err_msg=s.solver)
    dy = rng.standard_normal(ref.shape).astype(np.float32)
    for direction, a, b, shape in (("backward_data", dy, w, x.shape),
                                   ("backward_weights", dy, x, w.shape)):
        algos = anydnn.find(direction, a, b, shape, padding=1)
        assert algos, direction


def test_bad_inputs_raise_with_status_and_reason(rng):
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    with pytest.raises(anydnn.Error) as e:
        anydnn.conv_forward(x, rng.standard_normal((4, 2, 3, 3)).astype(np.float32))
    assert e.value.status == 3 and e.value.status_name == "miopenStatusBadParm"
    assert "channels" in e.value.reason
    # Mismatched types: the library refuses, and `out` stays as it was.
    out = np.full((1, 4, 6, 6), 7.0, np.float32)
    with pytest.raises(anydnn.Error, match="data type"):
        anydnn.conv_forward(x, rng.standard_normal((4, 3, 3, 3)), out=out)
    assert (out == 7.0).all()
    # Double data: MIOpen has no FP64 convolution; NotImplemented with the library's reason.
    with pytest.raises(anydnn.Error, match="FP64") as e:
        anydnn.conv_forward(x.astype(np.float64), rng.standard_normal((4, 3, 3, 3)))
    assert e.value.status_name == "miopenStatusNotImplemented"
    with pytest.raises(ValueError, match="out has shape"):
        anydnn.conv_forward(x, rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
                            out=np.empty((1, 4, 5, 5), np.float32))
    with pytest.raises(ValueError, match="data type MIOpen has no"):
        anydnn.conv_forward(x.astype(np.uint16), x.astype(np.uint16))
    with pytest.raises(ValueError, match="spatial"):
        anydnn.conv_forward(x[0, 0], x[0, 0])
    with pytest.raises(ValueError, match="stride needs 2"):
        anydnn.conv_forward(x, x, stride=(1, 1, 1))
    with pytest.raises(TypeError):
        anydnn.conv_forward([[1.0]], x)
    ro = x.copy()
    ro.flags.writeable = False
    with pytest.raises(TypeError):  # a read-only array cannot be an output
        anydnn.conv_forward(x, rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
                            out=np.broadcast_to(np.float32(0), (1, 4, 6, 6)))
    with pytest.raises(ValueError, match="direction"):
        anydnn.find("sideways", x, x, x.shape)


def test_handles_and_backends():
    h = anydnn.Handle("cpu")
    assert h.backend == "cpu" and anydnn.backend() == "cpu"
    assert anydnn.backend(torch.zeros(1)) == "cpu" and anydnn.backends()[0] == "cpu"
    with pytest.raises(ValueError, match="backend"):
        anydnn.Handle("tpu")
    x = np.ones((1, 1, 3, 3), np.float32)
    y = anydnn.conv_forward(x, x, handle=h)
    assert y.shape == (1, 1, 1, 1) and y[0, 0, 0, 0] == 9.0
    assert anydnn.__version__ == "0.1.0" and anydnn.miopen_version[0] == 3
