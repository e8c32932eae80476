"""Tests that kill the mutants of scripts/mutants.py the rest of the suite let survive.

Each test names the mutant it kills. The expected values come from independent
oracles -- mpmath at 40 digits, closed forms, hand-computed numbers -- never from
sinpe itself.
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

import sinpe
from sinpe.lab import nn

mpmath.mp.dps = 40


def exact_encoding(positions, d_model, base=10000, *, layout="interleaved"):
    """The paper's table from its definition, in mpmath, rounded to float64."""
    rows = []
    for p in positions:
        sines, cosines = [], []
        for i in range(d_model // 2):
            angle = mpmath.mpf(p) * mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / d_model)
            sines.append(float(mpmath.sin(angle)))
            cosines.append(float(mpmath.cos(angle)))
        if layout == "interleaved":
            rows.append([value for pair in zip(sines, cosines, strict=True) for value in pair])
        else:
            rows.append(sines + cosines)
    return np.array(rows)


# --- core.py -------------------------------------------------------------------------


@pytest.mark.parametrize(("index", "first_index"), [(8, 0), (9, 1), (-1, 0), (0, 1)])
def test_component_rejects_an_index_past_the_width(index, first_index):
    # mutant "component: index range check < vs <=": d_model = 8 has entries
    # 0..7 (or 1..8), so index 8 (or 9) does not exist.
    with pytest.raises(ValueError, match="out of range"):
        sinpe.component(1.0, index, 8, first_index=first_index)


@pytest.mark.parametrize("start", [0, 37])
def test_table_concat_layout_matches_the_definition(start):
    # mutant "table: cos in the sine columns (concat path)"
    length, width = 130, 8  # more than two blocks of TABLE_BLOCK rows
    expected = exact_encoding(range(start, start + length), width, layout="concat")
    fast = sinpe.table(length, width, start=start, layout="concat")
    np.testing.assert_allclose(fast, expected, rtol=0, atol=1e-12)


# --- _validation.py --------------------------------------------------------------------


def test_float16_warns_between_2048_and_4096():
    # mutant "warn_if_unresolvable: limit doubled": float16 has 10 fraction bits, so
    # between 2**11 and 2**12 consecutive values are 2 apart -- positions 2049..4095
    # are already unresolvable, not only those beyond 4096.
    with pytest.warns(sinpe.PrecisionWarning):
        sinpe.positional_encoding(3000, 8, dtype=np.float16)


def test_imprecise_warning_for_a_base_below_one():
    # mutant "warn_if_imprecise: |ln base| without abs": the bound is
    # eps (1 + (2 + |ln C|) |p|) = 2.2e-16 * (1 + 11.2 * 5e8) = 1.2e-6 > 1e-6 for
    # C = 1e-4 as for C = 1e4 (w_i = C**(-2i/d) only turns the ladder upside down).
    for base in (1e4, 1e-4):
        with pytest.warns(sinpe.PrecisionWarning):
            sinpe.positional_encoding(5e8, 4, base=base)


# --- conventions.py ----------------------------------------------------------------------


@pytest.mark.parametrize("convention", ["tensor2tensor", "fairseq", "hf-marian", "whisper"])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_encode_honours_dtype_for_every_convention(convention, dtype):
    # mutant "encode: dtype ignored for non-paper conventions"
    table = sinpe.encode(np.arange(2, 6), 8, convention, dtype=dtype)
    assert table.dtype == dtype


def test_encode_tensor2tensor_float32_values():
    # n = 2 pairs at d = 4, n - 1 spacing: w = [1, 1/10000]; sines then cosines.
    expected = np.array([np.sin(1.0), np.sin(1e-4), np.cos(1.0), np.cos(1e-4)], np.float32)
    table = sinpe.encode(1, 4, "tensor2tensor", dtype=np.float32)
    assert table.dtype == np.float32
    np.testing.assert_array_equal(table, expected)


def test_encode_paper_uses_the_base():
    # mutant "encode: base ignored for the paper convention": at C = 100, d = 4 the
    # frequencies are 1 and 100**(-2/4) = 0.1.
    expected = [np.sin(1.0), np.cos(1.0), np.sin(0.1), np.cos(0.1)]
    np.testing.assert_allclose(sinpe.encode(1, 4, "paper", base=100.0), expected, rtol=1e-15)


# --- nn.py -----------------------------------------------------------------------------


def test_layer_norm_default_eps_is_pytorchs():
    # mutant "LayerNorm: default eps 1e-6 instead of 1e-5" (torch.nn.LayerNorm's
    # default is 1e-5). x = [a, -a, a, -a] has mean 0 and variance a**2, so the
    # output is x / sqrt(a**2 + eps): at a = 1e-3, 1e-3 / sqrt(1.1e-5) = 0.30151...
    a = 1e-3
    out = nn.LayerNorm(4).forward(np.array([a, -a, a, -a]))
    expected = a / np.sqrt(a * a + 1e-5) * np.array([1.0, -1.0, 1.0, -1.0])
    np.testing.assert_allclose(out, expected, rtol=1e-12)
    assert abs(out[0] - 0.30151134457776363) < 1e-12


def test_token_model_input_is_scaled_embedding_plus_encoding():
    # mutants "TokenModel: embedding sqrt(D) scaling dropped", "PositionalEncoding:
    # positions start at 1": the first hidden state is E[token] * sqrt(D) + PE(t),
    # t = 0, 1, ..., with PE from its definition (mpmath).
    d_model, tokens = 16, np.array([[3, 1, 4, 1, 5]])
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=8, d_model=d_model, n_heads=2, d_ff=32, n_layers=1, encoding="sinusoidal"
        )
    )
    weight = model.state_dict()["embedding.weight"]
    expected = weight[tokens] * 4.0 + exact_encoding(range(5), d_model)  # sqrt(16) = 4
    np.testing.assert_allclose(model.hidden_states(tokens)[0], expected, rtol=0, atol=1e-12)


def test_positional_layer_uses_its_base():
    # mutant "PositionalEncoding: base ignored": at C = 100, d = 4 the frequencies
    # are 1 and 0.1, so position t gets [sin t, cos t, sin 0.1t, cos 0.1t].
    config = nn.ModelConfig(d_model=4, n_heads=2, max_len=8)
    layer = nn.PositionalEncoding(config, np.random.default_rng(0), base=100.0)
    t = np.arange(3.0)
    expected = np.stack([np.sin(t), np.cos(t), np.sin(0.1 * t), np.cos(0.1 * t)], axis=-1)
    np.testing.assert_allclose(layer.forward(np.zeros((1, 3, 4)))[0], expected, atol=1e-15)


def test_attention_in_projection_is_xavier_uniform_of_3d_by_d():
    # mutant "MultiHeadAttention: Xavier bound of a (D, D) instead of (3D, D) matrix":
    # torch.nn.MultiheadAttention draws in_proj_weight (3D, D) from U(-b, b) with
    # b = sqrt(6 / (fan_in + fan_out)) = sqrt(6 / (D + 3D)); at D = 32, b = 0.2165.
    d_model = 32
    bound = np.sqrt(6.0 / (4 * d_model))
    weight = nn.MultiHeadAttention(
        nn.ModelConfig(d_model=d_model, n_heads=4, encoding="none"), np.random.default_rng(0)
    ).params["in_proj_weight"]
    assert weight.shape == (3 * d_model, d_model)
    largest = np.abs(weight).max()
    assert 0.99 * bound < largest <= bound  # 3072 draws: the largest is within 1% of b


def test_softmax_is_stable_row_by_row():
    # mutant "softmax: global instead of row-wise max": each row is shifted by its
    # own maximum; by hand, softmax([0, 1000]) = [e**-1000, 1] = [0, 1] in float64
    # and softmax([-1000, -999]) = [1, e] / (1 + e).
    scores = np.array([[0.0, 1000.0], [-1000.0, -999.0]])
    e = np.e
    expected = np.array([[0.0, 1.0], [1 / (1 + e), e / (1 + e)]])
    np.testing.assert_allclose(nn.softmax(scores), expected, rtol=1e-14, atol=0)


# --- symbolic.py -------------------------------------------------------------------------


def test_verify_rope_layouts_rejects_a_wrong_rope(monkeypatch):
    # mutant "verify_rope_layouts: a no-op": a RoPE that ignores the layout argument
    # (always interleaved) breaks half(P x) = P interleaved(x), and the check must say so.
    from sinpe import symbolic

    correct = symbolic.rope

    def ignores_layout(vector, position, *, base=symbolic.base, layout="interleaved"):
        return correct(vector, position, base=base, layout="interleaved")

    symbolic.verify_rope_layouts(4)  # the real rope passes
    monkeypatch.setattr(symbolic, "rope", ignores_layout)
    with pytest.raises(symbolic.IdentityError):
        symbolic.verify_rope_layouts(4)


# --- experiments.py ------------------------------------------------------------------------


def test_causal_mask_lets_a_token_see_itself():
    # mutant "causal_mask: the diagonal masked too": True = not allowed, only j > i.
    expected = [[False, True, True], [False, False, True], [False, False, False]]
    assert nn.causal_mask(3).tolist() == expected
