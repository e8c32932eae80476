"""sinpe.lab.context: a RoPE model stretched to a longer context, on a copy.

The oracles: ``apply_rope`` at divided positions for Position Interpolation, and
:func:`sinpe.rope.scaled_frequencies` and :func:`sinpe.rope.yarn_temperature` for the
frequencies and the temperature each method sets.
"""

from __future__ import annotations

import numpy as np
import pytest

from sinpe.lab import context, nn
from sinpe.rope import SCALING_METHODS, apply_rope, scaled_frequencies, yarn_temperature


def _rope_model():
    return nn.TokenModel(
        nn.ModelConfig(vocab=7, d_model=16, n_heads=2, d_ff=16, n_layers=2, encoding="rope", seed=2)
    )


@pytest.mark.parametrize("factor", [2.0, 3.5])
def test_interpolation_is_rope_at_divided_positions(factor):
    model = _rope_model()
    stretched = context.extend_context(model, "interpolation", factor, original_length=8)
    tokens = np.array([[1, 2, 3, 4, 5, 6]])
    stretched(tokens)
    for index in range(2):
        attention = stretched.layers[index].self_attn
        x = attention.cache.x  # (B, T, D)
        raw = x @ attention.params["in_proj_weight"][:16].T  # biases are zero
        raw = raw.reshape(1, 6, 2, 8).transpose(0, 2, 1, 3)  # (B, H, T, Dh)
        expected = apply_rope(raw, np.arange(6) / factor)
        np.testing.assert_allclose(attention.cache.q, expected, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("method", SCALING_METHODS)
def test_extend_context_sets_the_scaled_frequencies_on_a_copy(method):
    model = _rope_model()
    tokens = np.array([[1, 2, 3, 4]])
    before = model(tokens).copy()
    stretched = context.extend_context(model, method, 4.0, original_length=8)
    expected = scaled_frequencies(8, 4.0, method=method, original_length=8)
    for index in range(2):
        attention = stretched.layers[index].self_attn
        np.testing.assert_array_equal(attention.frequencies, expected)
        assert attention.temperature == (yarn_temperature(4.0) if method == "yarn" else 1.0)
        assert model.layers[index].self_attn.frequencies is None
    np.testing.assert_array_equal(model(tokens), before)  # the original is untouched
    assert not np.allclose(stretched(tokens), before)


def test_a_stretch_of_one_changes_nothing():
    model = _rope_model()
    tokens = np.array([[1, 2, 3, 4, 0]])
    for method in ("interpolation", "ntk"):
        same = context.extend_context(model, method, 1.0, original_length=8)
        np.testing.assert_allclose(same(tokens), model(tokens), rtol=1e-13, atol=1e-13)


def test_ntk_scaling_refuses_a_factor_whose_base_overflows():
    with pytest.raises(ValueError, match="factor"):
        scaled_frequencies(8, 1e300, method="ntk")
    with pytest.raises(ValueError, match="factor"):
        context.extend_context(_rope_model(), "ntk", 1e300, original_length=8)
    assert np.isfinite(scaled_frequencies(8, 1e6, method="ntk")).all()


def test_extend_context_refuses_models_without_rope_and_bad_options():
    with pytest.raises(ValueError, match="RoPE"):
        context.extend_context(
            nn.TokenModel(nn.ModelConfig(vocab=7, d_model=8, n_heads=2, d_ff=16, n_layers=1)),
            "ntk",
            2.0,
            original_length=8,
        )
    with pytest.raises(ValueError, match="RoPE"):
        context.extend_context(
            nn.TokenModel(
                nn.ModelConfig(vocab=7, d_model=8, n_heads=2, d_ff=16, n_layers=0, encoding="rope")
            ),
            "ntk",
            2.0,
            original_length=8,
        )
    with pytest.raises(TypeError, match="model"):
        context.extend_context("model", "ntk", 2.0, original_length=8)
    with pytest.raises(ValueError, match="method"):
        context.extend_context(_rope_model(), "linear", 2.0, original_length=8)
    with pytest.raises(ValueError, match="factor"):
        context.extend_context(_rope_model(), "ntk", 0.5, original_length=8)
    with pytest.raises(ValueError, match="original_length"):
        context.extend_context(_rope_model(), "yarn", 2.0, original_length=0)
