"""The package on CUDA tensors (a CUDA build of the package on a GPU machine; elsewhere these
tests are skipped): zero-copy device arrays, PyTorch's current stream, the modules against
PyTorch's (cuDNN with TF32 off), and tensors in the wrong memory for a handle."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import anydnn
import anydnn.torch as at

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or "cuda" not in anydnn.backends(),
    reason="needs a GPU and a CUDA build of the package (docs/python.md)")


@pytest.fixture(autouse=True)
def no_tf32():
    old = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = old


def test_conv_three_directions_on_device_and_stream():
    torch.manual_seed(0)
    x = torch.randn(4, 8, 17, 15, device="cuda")
    w = torch.randn(16, 4, 3, 3, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        out = torch.empty(4, 16, 9, 8, device="cuda")
        y = anydnn.conv_forward(x, w, stride=2, padding=1, groups=2, out=out)
        assert y is out and anydnn.default_handle(("cuda", 0)).stream == stream.cuda_stream
    stream.synchronize()
    xr, wr = x.double().requires_grad_(), w.double().requires_grad_()
    ref = F.conv2d(xr, wr, stride=2, padding=1, groups=2)
    torch.testing.assert_close(y.double(), ref.detach(), rtol=1e-4, atol=1e-4)
    dy = torch.randn_like(y)
    ref.backward(dy.double())
    kw = dict(stride=2, padding=1, groups=2)
    torch.testing.assert_close(anydnn.conv_backward_data(dy, w, x.shape, **kw).double(), xr.grad,
                               rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(anydnn.conv_backward_weights(dy, x, w.shape, **kw).double(),
                               wr.grad, rtol=1e-4, atol=5e-4)


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
                           nn.ConvTranspose2d(16, 4, 2, stride=2)), (2, 8, 12, 12)),
    (lambda: nn.LSTM(6, 10, num_layers=2, bidirectional=True), (7, 3, 6)),
    (lambda: nn.GRU(6, 10), (5, 2, 6)),
])
def test_modules_on_cuda_match_torch(make, shape):
    torch.manual_seed(1)
    ref = make().cuda()
    ours = at.convert(make().cuda())
    ours.load_state_dict(ref.state_dict())
    x = torch.randn(shape, device="cuda")
    xr, xo = x.clone().requires_grad_(), x.clone().requires_grad_()
    yr, yo = ref(xr), ours(xo)
    yr, yo = (yr[0], yo[0]) if isinstance(yr, tuple) else (yr, yo)
    torch.testing.assert_close(yo, yr, rtol=1e-3, atol=1e-4)
    yr.square().sum().backward()
    yo.square().sum().backward()
    torch.testing.assert_close(xo.grad, xr.grad, rtol=1e-3, atol=1e-4)
    for (n, p), q in zip(ref.named_parameters(), ours.parameters()):
        torch.testing.assert_close(q.grad, p.grad, rtol=1e-3, atol=1e-3, msg=n)


def test_wrong_memory_for_the_handle_raises():
    x = torch.randn(1, 3, 8, 8, device="cuda")
    w = torch.randn(4, 3, 3, 3)
    with pytest.raises(ValueError, match="device memory but the handle's backend is cpu"):
        anydnn.conv_forward(x, w.cuda(), handle=anydnn.Handle("cpu"))
    with pytest.raises(ValueError, match="host memory but the handle's backend is cuda"):
        anydnn.conv_forward(x.cpu(), w, handle=anydnn.default_handle(("cuda", 0)))
