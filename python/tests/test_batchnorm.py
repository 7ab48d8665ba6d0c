"""anydnn's batch norm against PyTorch's: training (running statistics updated in place),
inference and backward; spatial and per-activation; 2-D to 5-D inputs; bad parameters."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import anydnn


@pytest.mark.parametrize("shape", [(4, 3), (3, 5, 7), (2, 4, 5, 6), (1, 3, 4, 5, 6)])
def test_spatial_training_inference_backward_match_torch(rng, shape):
    c = shape[1]
    x = torch.from_numpy(rng.standard_normal(shape).astype(np.float32) * 2 + 0.5)
    w = torch.from_numpy(rng.standard_normal(c).astype(np.float32))
    b = torch.from_numpy(rng.standard_normal(c).astype(np.float32))
    rm, rv = torch.zeros(c), torch.ones(c)
    rm_ref, rv_ref = rm.double(), rv.double()
    xr, wr, br = (t.double().requires_grad_() for t in (x, w, b))
    ref = F.batch_norm(xr, rm_ref, rv_ref, wr, br, training=True, momentum=0.1, eps=1e-5)
    y, mean, inv = anydnn.batch_norm_training(x, w, b, momentum=0.1, eps=1e-5,
                                              running_mean=rm, running_var=rv)
    torch.testing.assert_close(y.double(), ref.detach(), rtol=1e-4, atol=1e-4)
    # PyTorch keeps the unbiased variance in the running statistics; so does MIOpen.
    torch.testing.assert_close(rm, rm_ref.float(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(rv, rv_ref.float(), rtol=1e-4, atol=1e-5)
    dims = [0] + list(range(2, len(shape)))
    torch.testing.assert_close(mean.double(), xr.detach().mean(dims), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(inv.double(), 1 / torch.sqrt(xr.detach().var(dims, unbiased=False)
                                                            + 1e-5), rtol=1e-4, atol=1e-4)

    dy = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
    ref.backward(dy.double())
    dx, dw, db = anydnn.batch_norm_backward(x, dy, w, mean, inv, eps=1e-5)
    torch.testing.assert_close(dx.double(), xr.grad, rtol=1e-3, atol=1e-4)
    torch.testing.assert_close(dw.double(), wr.grad, rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(db.double(), br.grad, rtol=1e-4, atol=1e-3)
    # Without the saved statistics MIOpen recomputes them: the same gradients.
    dx2, _, _ = anydnn.batch_norm_backward(x, dy, w, eps=1e-5)
    torch.testing.assert_close(dx2, dx, rtol=1e-4, atol=1e-5)

    yi = anydnn.batch_norm_inference(x, w, b, rm, rv, eps=1e-5)
    refi = F.batch_norm(x.double(), rm.double(), rv.double(), w.double(), b.double(),
                        training=False, eps=1e-5)
    torch.testing.assert_close(yi.double(), refi, rtol=1e-4, atol=1e-4)


def test_per_activation_on_numpy(rng):
    x = rng.standard_normal((6, 2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    y, mean, inv = anydnn.batch_norm_training(x, w, b, mode="per_activation", eps=1e-5)
    m = x.astype(np.float64).mean(0)
    v = x.astype(np.float64).var(0)
    np.testing.assert_allclose(y, (x - m) / np.sqrt(v + 1e-5) * w[0] + b[0], rtol=1e-4,
                               atol=1e-4)
    assert mean.shape == (2, 3, 4)
    np.testing.assert_allclose(mean, m, rtol=1e-5, atol=1e-5)


def test_half_data_with_float_parameters(rng):
    x = torch.from_numpy(rng.standard_normal((4, 3, 5, 5)).astype(np.float32)).half()
    w, b = torch.ones(3), torch.zeros(3)
    y, mean, inv = anydnn.batch_norm_training(x, w, b)
    assert y.dtype == torch.float16 and mean.dtype == torch.float32
    ref = F.batch_norm(x.float(), None, None, training=True)
    torch.testing.assert_close(y.float(), ref, rtol=2e-2, atol=2e-2)
    with pytest.raises(ValueError, match="parameter type"):
        anydnn.batch_norm_training(x, w.half(), b.half())


def test_bad_parameters_raise_and_change_nothing(rng):
    x = torch.from_numpy(rng.standard_normal((4, 3, 5, 5)).astype(np.float32))
    rm = torch.zeros(3)
    with pytest.raises(ValueError, match="needs 3"):
        anydnn.batch_norm_training(x, torch.ones(4), torch.zeros(3), running_mean=rm,
                                   running_var=torch.ones(3))
    assert (rm == 0).all()
    with pytest.raises(ValueError, match="mode"):
        anydnn.batch_norm_training(x, torch.ones(3), torch.zeros(3), mode="channel")
    with pytest.raises(ValueError, match="2 to 5"):
        anydnn.batch_norm_training(x[0, 0, 0], torch.ones(3), torch.zeros(3))
    with pytest.raises(ValueError, match="contiguous"):
        anydnn.batch_norm_training(x, torch.ones(6)[::2], torch.zeros(3))
