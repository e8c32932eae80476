"""Every backward pass of sinpe.nn against central finite differences (float64)."""

from __future__ import annotations

import numpy as np
import pytest

from sinpe import nn


def numeric_gradient(function, array, delta=1e-6):
    """d function() / d array by central differences, perturbing ``array`` in place."""
    grad = np.zeros_like(array)
    flat, out = array.reshape(-1), grad.reshape(-1)
    for index in range(flat.size):
        saved = flat[index]
        flat[index] = saved + delta
        plus = function()
        flat[index] = saved - delta
        minus = function()
        flat[index] = saved
        out[index] = (plus - minus) / (2 * delta)
    return grad


def relative_error(analytic, numeric):
    """Largest deviation, relative to the largest gradient entry (floor 1e-2).

    Central differences with delta = 1e-6 are accurate to about 1e-9 here; a wrong
    backward pass is off by O(1) relative to the gradient's scale.
    """
    scale = max(float(np.max(np.abs(numeric))), 1e-2)
    return float(np.max(np.abs(analytic - numeric))) / scale


def check_module(module, x, forward, rtol=1e-6):
    """Check d(sum(out * weights))/dx and /dparams for a module."""
    rng = np.random.default_rng(1)
    out = forward(x)
    weights = rng.normal(size=out.shape)

    def loss():
        return float(np.sum(forward(x) * weights))

    module.zero_grad()
    forward(x)
    dx = module.backward(weights)
    if dx is not None:
        assert relative_error(dx, numeric_gradient(loss, x)) < rtol
    analytic = {name: grad.copy() for name, _, grad in module.named_parameters()}
    for name, value, _ in module.named_parameters():
        assert relative_error(analytic[name], numeric_gradient(loss, value)) < rtol, name


def test_linear():
    rng = np.random.default_rng(0)
    layer = nn.Linear(5, 3, rng)
    check_module(layer, rng.normal(size=(2, 4, 5)), layer.forward)


def test_layer_norm():
    rng = np.random.default_rng(0)
    norm = nn.LayerNorm(6)
    norm.params["weight"][:] = rng.normal(size=6)
    norm.params["bias"][:] = rng.normal(size=6)
    check_module(norm, rng.normal(size=(3, 6)), norm.forward)


@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_activations(activation):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 5)) + 0.05  # away from the kink of ReLU
    forward = nn.relu if activation == "relu" else nn.gelu
    backward = nn.relu_backward if activation == "relu" else nn.gelu_backward
    weights = rng.normal(size=x.shape)
    numeric = numeric_gradient(lambda: float(np.sum(forward(x) * weights)), x)
    assert relative_error(backward(weights, x), numeric) < 1e-6


@pytest.mark.parametrize("masks", ["none", "causal", "padding", "float", "per-head"])
def test_attention(masks):
    rng = np.random.default_rng(0)
    batch, length, width, heads = 2, 4, 6, 2
    attention = nn.MultiHeadAttention(width, heads, rng)
    attention.params["in_proj_bias"][:] = rng.normal(size=3 * width) * 0.1
    x = rng.normal(size=(batch, length, width))
    causal = np.triu(np.ones((length, length), bool), 1)
    padding = np.array([[False] * 4, [False, False, True, True]])
    options = {
        "none": {},
        "causal": {"mask": causal},
        "padding": {"key_padding_mask": padding},
        "float": {"mask": rng.normal(size=(length, length))},
        "per-head": {"mask": np.broadcast_to(causal, (batch * heads, length, length))},
    }[masks]
    check_module(attention, x, lambda inputs: attention.forward(inputs, **options))
    if masks == "causal":
        assert np.all(attention.attention_weights[..., causal] == 0)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer(norm_first, activation):
    rng = np.random.default_rng(0)
    layer = nn.EncoderLayer(6, 2, 10, rng, norm_first=norm_first, activation=activation)
    for module in layer._modules():
        if isinstance(module, nn.LayerNorm):
            module.params["weight"][:] = rng.normal(1.0, 0.3, size=6)
            module.params["bias"][:] = rng.normal(0.0, 0.3, size=6)
    x = rng.normal(size=(2, 3, 6))
    check_module(layer, x, lambda inputs: layer.forward(inputs, np.triu(np.ones((3, 3), bool), 1)))


@pytest.mark.parametrize("positions", ["sinusoidal", "learned", "none"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_model_with_cross_entropy(positions, norm_first):
    model = nn.TokenModel(
        7, 8, 2, 12, 2, positions=positions, max_len=5, norm_first=norm_first, seed=3
    )
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 7, size=(2, 5))
    targets = rng.integers(0, 7, size=(2, 5))

    def loss():
        return nn.softmax_cross_entropy(model.forward(tokens), targets)[0]

    model.zero_grad()
    _, dlogits = nn.softmax_cross_entropy(model.forward(tokens), targets)
    model.backward(dlogits)
    analytic = {name: grad.copy() for name, _, grad in model.named_parameters()}
    assert ("position.weight" in analytic) == (positions == "learned")
    for name, value, _ in model.named_parameters():
        assert relative_error(analytic[name], numeric_gradient(loss, value)) < 1e-5, name


def test_cross_entropy_gradient():
    rng = np.random.default_rng(0)
    logits, targets = rng.normal(size=(3, 4, 5)), rng.integers(0, 5, size=(3, 4))
    grad = nn.softmax_cross_entropy(logits, targets)[1]
    numeric = numeric_gradient(lambda: nn.softmax_cross_entropy(logits, targets)[0], logits)
    assert relative_error(grad, numeric) < 1e-7


def test_adam_matches_the_published_update():
    model = nn.Linear(2, 1, np.random.default_rng(0))
    start = model.params["weight"].copy()
    optimizer = nn.Adam(model, lr=0.1)
    model.grads["weight"][:] = [[0.5, -2.0]]
    optimizer.step()
    # First step: m_hat = g, v_hat = g^2, so the update is lr * g / (|g| + eps) = lr * sign(g).
    np.testing.assert_allclose(
        model.params["weight"], start - 0.1 * np.sign([[0.5, -2.0]]), rtol=1e-7
    )


def test_learned_table_refuses_longer_sequences():
    model = nn.TokenModel(5, 8, 2, 8, 1, positions="learned", max_len=4)
    with pytest.raises(ValueError, match="cannot encode position 4"):
        model.forward(np.zeros((1, 6), int))
    sinusoidal = nn.TokenModel(5, 8, 2, 8, 1, positions="sinusoidal", max_len=4)
    assert sinusoidal.forward(np.zeros((1, 6), int)).shape == (1, 6, 5)


def test_bad_configuration():
    with pytest.raises(ValueError, match="not divisible"):
        nn.MultiHeadAttention(6, 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="activation"):
        nn.EncoderLayer(4, 2, 8, np.random.default_rng(0), activation="tanh")
    with pytest.raises(ValueError, match="mask must have shape"):
        nn.attention_bias(np.zeros((3, 3), bool), None, 1, 1, 4)
    with pytest.raises(KeyError, match="missing"):
        nn.Linear(2, 2, np.random.default_rng(0)).load_state_dict({"weight": np.zeros((2, 2))})


def test_check_gradients_helper_agrees_and_can_fail():
    rng = np.random.default_rng(0)
    layer = nn.EncoderLayer(4, 2, 6, rng)
    x = rng.normal(size=(1, 3, 4))
    errors = nn.check_gradients(layer, x)
    assert set(errors) == {"input"} | {name for name, _, _ in layer.named_parameters()}
    assert max(errors.values()) < 1e-6

    class Broken(nn.Linear):
        def backward(self, dout):
            return 2 * super().backward(dout)

    broken = Broken(3, 2, rng)
    assert nn.check_gradients(broken, rng.normal(size=(2, 3)))["input"] > 0.5


@pytest.mark.parametrize("relative", ["rope", "alibi"])
def test_attention_with_relative_positions(relative):
    rng = np.random.default_rng(0)
    attention = nn.MultiHeadAttention(8, 2, rng, relative=relative)
    x = rng.normal(size=(2, 5, 8))
    errors = nn.check_gradients(attention, x)
    assert max(errors.values()) < 1e-6
    model = nn.TokenModel(6, 8, 2, 8, 1, positions=relative, max_len=4, seed=0)
    assert "position.weight" not in dict((n, v) for n, v, _ in model.named_parameters())
    assert model.forward(np.zeros((1, 9), int)).shape == (1, 9, 6)  # any length


def test_rope_attention_scores_depend_on_the_offset_only():
    # The same token at every position: with RoPE the score of query i for key j is
    # a function of i - j (a Toeplitz matrix), and not constant.
    rng = np.random.default_rng(3)
    attention = nn.MultiHeadAttention(8, 2, rng, relative="rope")
    x = np.tile(rng.normal(size=8), (1, 6, 1))
    attention.forward(x)
    _, q, k, _, _, _ = attention._cache
    scores = q @ k.transpose(0, 1, 3, 2)  # (1, H, T, T)
    np.testing.assert_allclose(scores[..., 1:, 1:], scores[..., :-1, :-1], atol=1e-12)
    assert np.ptp(scores) > 1e-3
