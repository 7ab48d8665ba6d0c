"""anydnn's RNN / LSTM / GRU against PyTorch's: MIOpen's packed weights from PyTorch's (gate
orders differ), forward, backward data and weights, initial states, packed sequences; the
anydnn.torch modules (batch_first, unbatched, PackedSequence, dropout, eval-mode gradients)."""
import copy

import numpy as np
import pytest
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

import anydnn
import anydnn.torch as at

MODES = [("LSTM", nn.LSTM), ("GRU", nn.GRU), ("RNN_TANH", nn.RNN), ("RNN_RELU", nn.RNN)]


def _ref(cls, mode, **kw):
    extra = {"nonlinearity": "relu"} if mode == "RNN_RELU" else {}
    return cls(**kw, **extra).double()


@pytest.mark.parametrize("mode,cls", MODES)
@pytest.mark.parametrize("layers,bidir,bias", [(1, False, True), (2, True, True),
                                               (2, False, False)])
def test_functional_rnn_matches_torch(rng, mode, cls, layers, bidir, bias):
    torch.manual_seed(int(rng.integers(2**31)))
    ref = _ref(cls, mode, input_size=5, hidden_size=6, num_layers=layers, bidirectional=bidir,
               bias=bias)
    r = anydnn.RNN(mode, 5, 6, layers, bidirectional=bidir, bias=bias, like=torch.empty(0))
    sd = {k: v.detach().float() for k, v in ref.state_dict().items()}
    w = r.pack(sd)
    assert w.numel() == r.weight_count
    assert all(torch.equal(v, sd[k]) for k, v in r.unpack(w).items())
    d = 2 if bidir else 1
    x = torch.randn(4, 3, 5)
    h0 = torch.randn(layers * d, 3, 6)
    c0 = torch.randn(layers * d, 3, 6)
    xr, h0r, c0r = (t.double().requires_grad_() for t in (x, h0, c0))
    lstm = mode == "LSTM"
    yr, hr = ref(xr, (h0r, c0r) if lstm else h0r)
    y, hy, cy, res = r.forward(x, w, h0, c0 if lstm else None)
    torch.testing.assert_close(y.double(), yr.detach(), rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(hy.double(), (hr[0] if lstm else hr).detach(), rtol=1e-4,
                               atol=1e-5)
    if lstm:
        torch.testing.assert_close(cy.double(), hr[1].detach(), rtol=1e-4, atol=1e-5)
    dy, dhy, dcy = torch.randn_like(y), torch.randn_like(hy), torch.randn_like(hy)
    loss = (yr * dy.double()).sum() + ((hr[0] if lstm else hr) * dhy.double()).sum()
    if lstm:
        loss = loss + (hr[1] * dcy.double()).sum()
    loss.backward()
    dx, dhx, dcx = r.backward_data(y, dy, w, res, h0, c0 if lstm else None, dhy,
                                   dcy if lstm else None)
    torch.testing.assert_close(dx.double(), xr.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(dhx.double(), h0r.grad, rtol=1e-4, atol=1e-5)
    if lstm:
        torch.testing.assert_close(dcx.double(), c0r.grad, rtol=1e-4, atol=1e-5)
    grads = r.unpack(r.backward_weights(x, y, res, h0))
    for name, p in ref.named_parameters():
        torch.testing.assert_close(grads[name].double(), p.grad, rtol=1e-4, atol=1e-4, msg=name)


def test_input_size_one_unpacks_to_matrices():
    ref = nn.LSTM(1, 3)
    r = anydnn.RNN("LSTM", 1, 3)
    sd = {k: v.detach().numpy() for k, v in ref.state_dict().items()}
    back = r.unpack(r.pack(sd))
    assert back["weight_ih_l0"].shape == (12, 1) and back["bias_ih_l0"].shape == (12,)
    assert all(np.array_equal(back[k], v) for k, v in sd.items())


def test_packed_sequences_on_numpy(rng):
    torch.manual_seed(int(rng.integers(2**31)))
    ref = nn.GRU(3, 4).double()
    r = anydnn.RNN("GRU", 3, 4)
    w = r.pack({k: v.detach().float().numpy() for k, v in ref.state_dict().items()})
    assert isinstance(w, np.ndarray)
    lengths = [5, 3, 2]
    padded = torch.randn(5, 3, 3)
    packed = pack_padded_sequence(padded.double(), lengths)
    y, hy, _, _ = r.forward(packed.data.float().numpy(), w,
                            batch_sizes=packed.batch_sizes.tolist())
    yr, hr = ref(packed)
    np.testing.assert_allclose(y, yr.data.detach().numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(hy, hr.detach().numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="not increase"):
        r.forward(packed.data.float().numpy(), w, batch_sizes=[2, 3, 1, 1, 1, 1, 1])


@pytest.mark.parametrize("cls,ours", [(nn.LSTM, at.LSTM), (nn.GRU, at.GRU), (nn.RNN, at.RNN)])
def test_modules_match_torch(rng, cls, ours):
    torch.manual_seed(int(rng.integers(2**31)))
    ref = cls(5, 7, num_layers=2, bidirectional=True, batch_first=True)
    m = ours(5, 7, num_layers=2, bidirectional=True, batch_first=True)
    m.load_state_dict(ref.state_dict())
    assert list(m.state_dict()) == list(ref.state_dict())
    lengths = torch.tensor([6, 4, 1])
    for inp in ("batched", "unbatched", "packed"):
        x = torch.randn(3, 6, 5) if inp != "unbatched" else torch.randn(6, 5)
        xr, xo = x.clone().requires_grad_(), x.clone().requires_grad_()
        if inp == "packed":
            xr_in = pack_padded_sequence(xr, lengths, batch_first=True, enforce_sorted=False)
            xo_in = pack_padded_sequence(xo, lengths, batch_first=True, enforce_sorted=False)
        else:
            xr_in, xo_in = xr, xo
        yr, hr = ref(xr_in)
        yo, ho = m(xo_in)
        if inp == "packed":
            yr, _ = pad_packed_sequence(yr, batch_first=True)
            yo, _ = pad_packed_sequence(yo, batch_first=True)
        hr0, ho0 = (hr[0], ho[0]) if cls is nn.LSTM else (hr, ho)
        torch.testing.assert_close(yo, yr, rtol=1e-4, atol=1e-5, msg=inp)
        torch.testing.assert_close(ho0, hr0, rtol=1e-4, atol=1e-5, msg=inp)
        (yr.square().sum() + hr0.sum()).backward()
        (yo.square().sum() + ho0.sum()).backward()
        torch.testing.assert_close(xo.grad, xr.grad, rtol=1e-4, atol=1e-5, msg=inp)
        for (n, p), q in zip(ref.named_parameters(), m.parameters()):
            torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-4, msg=f"{inp} {n}")
        ref.zero_grad()
        m.zero_grad()


def test_dropout_applies_in_training_only_and_eval_grads_work(rng):
    torch.manual_seed(int(rng.integers(2**31)))
    m = at.LSTM(4, 8, num_layers=3, dropout=0.5)
    ref = copy.deepcopy(m)
    ref.__class__ = nn.LSTM
    x = torch.randn(5, 2, 4)
    m.eval()
    ref.eval()
    x1 = x.clone().requires_grad_()
    y, _ = m(x1)
    torch.testing.assert_close(y, ref(x)[0], rtol=1e-4, atol=1e-5)  # eval: no dropout
    y.sum().backward()  # gradients in eval mode (training forward without dropout)
    assert x1.grad is not None and torch.isfinite(x1.grad).all()
    m.train()
    y_train, _ = m(x)
    assert not torch.allclose(y_train, y.detach(), atol=1e-3)  # dropout changed something
    with torch.no_grad():
        assert torch.isfinite(m(x)[0]).all()


def test_bad_rnn_arguments():
    with pytest.raises(ValueError, match="mode"):
        anydnn.RNN("LSTMX", 3, 4)
    r = anydnn.RNN("LSTM", 3, 4)
    w = np.zeros(r.weight_count, np.float32)
    with pytest.raises(ValueError, match="seq_len x batch"):
        r.forward(np.zeros((2, 3), np.float32), w)
    with pytest.raises(ValueError, match="data type"):
        r.forward(np.zeros((2, 1, 3), np.float64), w)
    with pytest.raises(ValueError, match="x must be a contiguous 2 x 3"):
        r.forward(np.zeros((2, 1, 5), np.float32), w)  # input size 5, the RNN takes 3
    with pytest.raises(ValueError, match="w must be"):
        r.forward(np.zeros((2, 1, 3), np.float32), w[:-1])
    with pytest.raises(ValueError, match="hx must be"):
        r.forward(np.zeros((2, 1, 3), np.float32), w, np.zeros((1, 2, 4), np.float32))
    with pytest.raises(ValueError, match="hx's data type"):  # would be misread, not rejected
        r.forward(np.zeros((2, 1, 3), np.float32), w, np.zeros((1, 1, 4), np.float64))
    with pytest.raises(ValueError, match="proj_size"):
        at.LSTM(3, 4, proj_size=2)(torch.zeros(2, 1, 3))
