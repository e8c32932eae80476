"""Every backward pass of sinpe.lab.nn against central finite differences (float64),
and the options of its attention and of its learned table."""

from __future__ import annotations

import numpy as np
import pytest

from sinpe.lab import nn, training
from sinpe.rope import apply_rope, scaled_frequencies


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
    attention = nn.MultiHeadAttention(
        nn.ModelConfig(d_model=width, n_heads=heads, encoding="none"), rng
    )
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
    layer = nn.EncoderLayer.of(
        nn.ModelConfig(d_model=6, n_heads=2, d_ff=10, norm_first=norm_first, activation=activation),
        rng,
    )
    for module in layer._modules():
        if isinstance(module, nn.LayerNorm):
            module.params["weight"][:] = rng.normal(1.0, 0.3, size=6)
            module.params["bias"][:] = rng.normal(0.0, 0.3, size=6)
    x = rng.normal(size=(2, 3, 6))
    check_module(layer, x, lambda inputs: layer.forward(inputs, np.triu(np.ones((3, 3), bool), 1)))


@pytest.mark.parametrize("positions", nn.ADDED_ENCODINGS)
@pytest.mark.parametrize("norm_first", [False, True])
def test_model_with_cross_entropy(positions, norm_first):
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=7,
            d_model=8,
            n_heads=2,
            d_ff=12,
            n_layers=2,
            encoding=positions,
            max_len=5,
            norm_first=norm_first,
            seed=3,
        )
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
    optimizer = training.Adam(model, lr=0.1)
    model.grads["weight"][:] = [[0.5, -2.0]]
    optimizer.step()
    # First step: m_hat = g, v_hat = g^2, so the update is lr * g / (|g| + eps) = lr * sign(g).
    np.testing.assert_allclose(
        model.params["weight"], start - 0.1 * np.sign([[0.5, -2.0]]), rtol=1e-7
    )


def test_learned_table_refuses_longer_sequences():
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=5, d_model=8, n_heads=2, d_ff=8, n_layers=1, encoding="learned", max_len=4
        )
    )
    with pytest.raises(ValueError, match="cannot encode position 4"):
        model.forward(np.zeros((1, 6), int))
    sinusoidal = nn.TokenModel(
        nn.ModelConfig(
            vocab=5, d_model=8, n_heads=2, d_ff=8, n_layers=1, encoding="sinusoidal", max_len=4
        )
    )
    assert sinusoidal.forward(np.zeros((1, 6), int)).shape == (1, 6, 5)


def test_bad_configuration():
    with pytest.raises(ValueError, match="d_model must be divisible by n_heads"):
        nn.MultiHeadAttention(nn.ModelConfig(d_model=6, n_heads=4), np.random.default_rng(0))
    with pytest.raises(ValueError, match="activation"):
        nn.EncoderLayer(
            nn.ModelConfig(d_model=4, n_heads=2, d_ff=8, activation="tanh"),
            np.random.default_rng(0),
        )
    with pytest.raises(ValueError, match="mask must have shape"):
        nn.attention_bias(np.zeros((3, 3), bool), None, 1, 1, 4)
    with pytest.raises(KeyError, match="missing"):
        nn.Linear(2, 2, np.random.default_rng(0)).load_state_dict({"weight": np.zeros((2, 2))})


def test_check_gradients_helper_agrees_and_can_fail():
    rng = np.random.default_rng(0)
    layer = nn.EncoderLayer(nn.ModelConfig(d_model=4, n_heads=2, d_ff=6), rng)
    x = rng.normal(size=(1, 3, 4))
    errors = training.check_gradients(layer, x)
    assert set(errors) == {"input"} | {name for name, _, _ in layer.named_parameters()}
    assert max(errors.values()) < 1e-6

    class Broken(nn.Linear):
        def backward(self, dout):
            return 2 * super().backward(dout)

    broken = Broken(3, 2, rng)
    assert training.check_gradients(broken, rng.normal(size=(2, 3)))["input"] > 0.5


@pytest.mark.parametrize("relative", [e for e in nn.ATTENTION_ENCODINGS if e != "none"])
def test_attention_with_relative_positions(relative):
    rng = np.random.default_rng(0)
    attention = nn.MultiHeadAttention(nn.ModelConfig(d_model=8, n_heads=2, encoding=relative), rng)
    x = rng.normal(size=(2, 5, 8))
    errors = training.check_gradients(attention, x)
    assert max(errors.values()) < 1e-6
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=6, d_model=8, n_heads=2, d_ff=8, n_layers=1, encoding=relative, max_len=4, seed=0
        )
    )
    assert "position.weight" not in dict((n, v) for n, v, _ in model.named_parameters())
    assert model.forward(np.zeros((1, 9), int)).shape == (1, 9, 6)  # any length


def test_rope_attention_scores_depend_on_the_offset_only():
    # The same token at every position: with RoPE the score of query i for key j is
    # a function of i - j (a Toeplitz matrix), and not constant.
    rng = np.random.default_rng(3)
    attention = nn.MultiHeadAttention(nn.ModelConfig(d_model=8, n_heads=2, encoding="rope"), rng)
    x = np.tile(rng.normal(size=8), (1, 6, 1))
    attention.forward(x)
    q, k = attention.cache.q, attention.cache.k
    scores = q @ k.transpose(0, 1, 3, 2)  # (1, H, T, T)
    np.testing.assert_allclose(scores[..., 1:, 1:], scores[..., :-1, :-1], atol=1e-12)
    assert np.ptp(scores) > 1e-3


def test_alibi_attention_adds_the_distance_penalty_to_the_scores():
    # Two heads: slopes 2^-4 and 2^-8 (the paper's 2^(-8 (h + 1) / n) for n = 2), so
    # the scores are those of the same weights without a scheme minus m_h |i - j|.
    x = np.random.default_rng(1).normal(size=(2, 4, 8))
    alibi = nn.MultiHeadAttention(
        nn.ModelConfig(d_model=8, n_heads=2, encoding="alibi"), np.random.default_rng(2)
    )
    plain = nn.MultiHeadAttention(nn.ModelConfig(d_model=8, n_heads=2), np.random.default_rng(2))
    alibi.forward(x)
    plain.forward(x)
    distance = np.abs(np.arange(4)[:, None] - np.arange(4)[None, :])
    penalty = np.array([2.0**-4, 2.0**-8])[:, None, None] * distance
    np.testing.assert_allclose(
        alibi.attention_scores, plain.attention_scores - penalty, rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_without_residuals(norm_first, activation):
    rng = np.random.default_rng(0)
    layer = nn.EncoderLayer.of(
        nn.ModelConfig(
            d_model=6,
            n_heads=2,
            d_ff=10,
            norm_first=norm_first,
            activation=activation,
            residual=False,
        ),
        rng,
    )
    for module in layer._modules():
        if isinstance(module, nn.LayerNorm):
            module.params["weight"][:] = rng.normal(1.0, 0.3, size=6)
            module.params["bias"][:] = rng.normal(0.0, 0.3, size=6)
    x = rng.normal(size=(2, 3, 6))
    causal = np.triu(np.ones((3, 3), bool), 1)
    check_module(layer, x, lambda inputs: layer.forward(inputs, causal))
    errors = training.check_gradients(layer, x)
    assert max(errors.values()) < 1e-6
    # the forward pass is the composition of the blocks, with nothing added back
    attn, norm1, norm2 = layer.self_attn, layer.norm1, layer.norm2
    if norm_first:
        expected = layer._feed_forward(norm2.forward(attn.forward(norm1.forward(x))))
    else:
        expected = norm2.forward(layer._feed_forward(norm1.forward(attn.forward(x))))
    np.testing.assert_array_equal(layer.forward(x), expected)


def test_residual_option_keeps_the_default_and_changes_only_the_forward_pass():
    tokens = np.random.default_rng(0).integers(0, 7, size=(2, 5))
    default = nn.TokenModel(
        nn.ModelConfig(vocab=7, d_model=8, n_heads=2, d_ff=12, n_layers=2, max_len=5, seed=3)
    )
    explicit = nn.TokenModel(
        nn.ModelConfig(
            vocab=7, d_model=8, n_heads=2, d_ff=12, n_layers=2, max_len=5, seed=3, residual=True
        )
    )
    ablated = nn.TokenModel(
        nn.ModelConfig(
            vocab=7, d_model=8, n_heads=2, d_ff=12, n_layers=2, max_len=5, seed=3, residual=False
        )
    )
    assert all(layer.residual for layer in default.layers)
    assert not any(layer.residual for layer in ablated.layers)
    np.testing.assert_array_equal(default.forward(tokens), explicit.forward(tokens))
    for (name, value, _), (_, same, _) in zip(
        default.named_parameters(), ablated.named_parameters(), strict=True
    ):
        np.testing.assert_array_equal(value, same, err_msg=name)  # same draws, same weights
    assert not np.allclose(default.forward(tokens), ablated.forward(tokens))


@pytest.mark.parametrize("norm_first", [False, True])
def test_model_without_residuals_with_cross_entropy(norm_first):
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=7,
            d_model=8,
            n_heads=2,
            d_ff=12,
            n_layers=2,
            max_len=5,
            norm_first=norm_first,
            seed=3,
            residual=False,
        )
    )
    rng = np.random.default_rng(0)
    tokens, targets = rng.integers(0, 7, size=(2, 5)), rng.integers(0, 7, size=(2, 5))

    def loss():
        return nn.softmax_cross_entropy(model.forward(tokens), targets)[0]

    model.zero_grad()
    model.backward(nn.softmax_cross_entropy(model.forward(tokens), targets)[1])
    analytic = {name: grad.copy() for name, _, grad in model.named_parameters()}
    for name, value, _ in model.named_parameters():
        assert relative_error(analytic[name], numeric_gradient(loss, value)) < 1e-5, name


@pytest.mark.parametrize("norm_first", [False, True])
def test_hidden_states_are_what_the_head_reads(norm_first):
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=7,
            d_model=8,
            n_heads=2,
            d_ff=12,
            n_layers=3,
            max_len=5,
            norm_first=norm_first,
            seed=1,
        )
    )
    tokens = np.random.default_rng(0).integers(0, 7, size=(2, 5))
    states = model.hidden_states(tokens)
    assert len(states) == 4 and all(state.shape == (2, 5, 8) for state in states)
    embedded = model.embedding.forward(tokens)
    np.testing.assert_array_equal(states[0], model.position.forward(embedded))
    last = model.norm.forward(states[-1]) if norm_first else states[-1]
    np.testing.assert_array_equal(model.head.forward(last), model.forward(tokens))


# ---------------------------------------------------------------------------------
# the RoPE options of MultiHeadAttention


def test_the_temperature_divides_the_query_key_products():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 8))
    plain = nn.MultiHeadAttention(nn.ModelConfig(d_model=8, n_heads=2), np.random.default_rng(1))
    hot = nn.MultiHeadAttention(
        nn.ModelConfig(d_model=8, n_heads=2), np.random.default_rng(1), temperature=0.5
    )
    plain(x)
    hot(x)
    np.testing.assert_allclose(hot.attention_scores, 2 * plain.attention_scores, rtol=1e-14)


def test_custom_frequencies_rotate_as_apply_rope_does():
    rng = np.random.default_rng(0)
    theta = np.array([0.9, 0.2])
    attention = nn.MultiHeadAttention(
        nn.ModelConfig(d_model=8, n_heads=2, encoding="rope"),
        np.random.default_rng(1),
        frequencies=theta,
    )
    x = rng.normal(size=(1, 4, 8))
    attention(x)
    raw = (x @ attention.params["in_proj_weight"][8:16].T).reshape(1, 4, 2, 4)
    expected = apply_rope(raw.transpose(0, 2, 1, 3), np.arange(4), frequencies=theta)
    np.testing.assert_allclose(attention.cache.k, expected, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("temperature", [0.5, 2.0])
def test_gradients_with_custom_frequencies_and_a_temperature(temperature):
    theta = scaled_frequencies(4, 3.0, method="yarn", original_length=4)
    attention = nn.MultiHeadAttention(
        nn.ModelConfig(d_model=8, n_heads=2, encoding="rope"),
        np.random.default_rng(0),
        frequencies=theta,
        temperature=temperature,
    )
    x = np.random.default_rng(1).normal(size=(2, 5, 8))
    errors = training.check_gradients(attention, x)
    assert max(errors.values()) < 1e-6, errors


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(encoding="rope", frequencies=np.ones(3)), ValueError, "shape"),
        (dict(encoding="none", frequencies=np.ones(2)), ValueError, "encoding='rope'"),
        (dict(encoding="rope", frequencies=np.array([np.nan, 1.0])), ValueError, "finite"),
        (dict(encoding="rope", frequencies=np.ones((2, 1))), ValueError, "dimensions"),
        (dict(encoding="rope", frequencies=["a", "b"]), TypeError, "frequencies"),
        (dict(temperature=0.0), ValueError, "temperature"),
        (dict(temperature=1e-320), ValueError, "temperature"),
        (dict(temperature=-1.0), ValueError, "temperature"),
        (dict(temperature=np.inf), ValueError, "temperature"),
        (dict(temperature="1"), TypeError, "temperature"),
        (dict(temperature=True), TypeError, "temperature"),
    ],
)
def test_attention_refuses_bad_rope_options(kwargs, error, match):
    config = nn.ModelConfig(d_model=8, n_heads=2, encoding=kwargs.pop("encoding", "none"))
    with pytest.raises(error, match=match):
        nn.MultiHeadAttention(config, np.random.default_rng(0), **kwargs)


# ---------------------------------------------------------------------------------
# position_std of a learned table


def test_position_std_scales_the_draws_of_the_learned_table():
    unit = nn.TokenModel(
        nn.ModelConfig(
            vocab=5, d_model=8, n_heads=2, d_ff=8, n_layers=1, encoding="learned", max_len=6, seed=4
        )
    )
    small = nn.TokenModel(
        nn.ModelConfig(
            vocab=5,
            d_model=8,
            n_heads=2,
            d_ff=8,
            n_layers=1,
            encoding="learned",
            max_len=6,
            seed=4,
            position_std=0.02,
        )
    )
    np.testing.assert_array_equal(
        small.position.params["weight"], 0.02 * unit.position.params["weight"]
    )
    # the other weights are drawn as before
    np.testing.assert_array_equal(small.head.params["weight"], unit.head.params["weight"])


@pytest.mark.parametrize(
    "std, error",
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (np.nan, ValueError),
        ("0.1", TypeError),
        (None, TypeError),
    ],
)
def test_position_std_must_be_a_positive_number(std, error):
    with pytest.raises(error, match="std"):
        nn.TokenModel(
            nn.ModelConfig(
                vocab=5,
                d_model=8,
                n_heads=2,
                d_ff=8,
                n_layers=1,
                encoding="learned",
                position_std=std,
            )
        )


def _displayed_code(root):
    """``(chapter, file, object)`` for every ``literalinclude`` with a ``:pyobject:``."""
    import re

    found = []
    for chapter in sorted((root / "book").glob("ch*.md")):
        for path, block in re.findall(
            r"```\{literalinclude\} (\S+)\n((?::[a-z]+:.*\n)*)", chapter.read_text()
        ):
            name = re.search(r":pyobject: (\S+)", block)
            if name:
                found.append((chapter.name, (chapter.parent / path).resolve(), name.group(1)))
    return found


def _lines(path, dotted):
    """Lines of a function (or method) and of its docstring, from the source."""
    import ast

    node = ast.parse(path.read_text())
    for part in dotted.split("."):
        node = next(
            child
            for child in ast.iter_child_nodes(node)
            if isinstance(child, (ast.FunctionDef, ast.ClassDef)) and child.name == part
        )
    first = node.body[0]
    docstring = first.end_lineno - first.lineno + 1 if ast.get_docstring(node) else 0
    return node.end_lineno - node.lineno + 1, docstring


def test_the_code_the_book_shows_is_mostly_code(root):
    """Issue 31: the methods chapter 4 displays carry a one-line summary (shapes in
    comments, parameters documented once on the class): docstrings under 25 % of the
    lines shown."""
    shown = _displayed_code(root)
    assert len(shown) >= 4, shown
    total = documentation = 0
    for chapter, path, name in shown:
        lines, docstring = _lines(path, name)
        assert docstring <= 1, f"{chapter} shows {name} with a {docstring}-line docstring"
        total, documentation = total + lines, documentation + docstring
    assert documentation / total < 0.25, (documentation, total)
