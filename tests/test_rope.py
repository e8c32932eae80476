"""sinpe.rope against golden values and its definitions: the rotation, its layouts, the
weight conversion, the symbolic proofs and the scaled frequencies."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
from sources import llama3_inv_freq

import sinpe
from sinpe import rope
from sinpe import symbolic as sym
from sinpe.rope import apply_rope, convert_qk_weight, rope_permutation

# RoFormer's rotation (Su et al. 2021, eq. 14) evaluated by hand, q = [1..8], p = 1.
GOLDEN_INTERLEAVED = [
    -1.1426396637,
    1.9220755965,
    2.5856788292,
    4.2795169111,
    4.9397510021,
    6.0496991692,
    6.9919965013,
    8.0069959988,
]


GOLDEN_CONCAT = [
    -3.6670526182,
    1.3910078307,
    2.9298511679,
    3.9919980013,
    3.5429825141,
    6.1696918250,
    7.0296495029,
    8.0039959993,
]


@pytest.mark.parametrize(
    ("layout", "golden"), [("interleaved", GOLDEN_INTERLEAVED), ("concat", GOLDEN_CONCAT)]
)
def test_rope_golden(layout, golden):
    np.testing.assert_allclose(
        apply_rope(np.arange(1.0, 9.0), 1, layout=layout), golden, atol=5e-10
    )


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_rope_relative_and_norm(layout):
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 16))
    for m, n in [(3, 1), (103, 101), (-7.5, -9.5)]:
        dot = apply_rope(q, m, layout=layout) @ apply_rope(k, n, layout=layout)
        assert dot == pytest.approx(apply_rope(q, 2, layout=layout) @ k, rel=1e-9)
    assert np.linalg.norm(apply_rope(q, 1234.5, layout=layout)) == pytest.approx(
        np.linalg.norm(q), rel=1e-12
    )


def test_rope_layouts_are_related_by_the_permutation():
    x = np.random.default_rng(1).normal(size=(5, 8))
    perm = rope_permutation(8)
    positions = np.arange(5)
    np.testing.assert_allclose(
        apply_rope(x[:, perm], positions, layout="concat"),
        apply_rope(x, positions)[:, perm],
        atol=1e-12,
    )


def test_converting_weights_keeps_attention_scores():
    rng = np.random.default_rng(2)
    heads, head_width, d_in, length = 2, 8, 12, 6
    wq, wk = rng.normal(size=(2, heads * head_width, d_in))
    tokens = rng.normal(size=(length, d_in))

    def scores(wq, wk, layout):
        q = (tokens @ wq.T).reshape(length, heads, head_width).transpose(1, 0, 2)
        k = (tokens @ wk.T).reshape(length, heads, head_width).transpose(1, 0, 2)
        positions = np.arange(length)
        return apply_rope(q, positions, layout=layout) @ apply_rope(
            k, positions, layout=layout
        ).transpose(0, 2, 1)

    meta = scores(wq, wk, "interleaved")
    hf = scores(
        convert_qk_weight(wq, heads, "interleaved", "concat"),
        convert_qk_weight(wk, heads, "interleaved", "concat"),
        "concat",
    )
    np.testing.assert_allclose(hf, meta, atol=1e-9)
    mixed = scores(wq, wk, "concat")  # the bug: layouts mixed up
    assert not np.allclose(mixed, meta, atol=1e-3)
    back = convert_qk_weight(
        convert_qk_weight(wq, heads, "interleaved", "concat"), heads, "concat", "interleaved"
    )
    np.testing.assert_array_equal(back, wq)


def test_hf_permute_formula():
    # convert_llama_weights_to_hf.py: w.view(h, d/h/2, 2, d_in).transpose(1, 2).reshape(d, d_in)
    w = np.arange(16.0 * 3).reshape(16, 3)
    heads = 2
    hf = w.reshape(heads, 16 // heads // 2, 2, 3).transpose(0, 2, 1, 3).reshape(16, 3)
    np.testing.assert_array_equal(convert_qk_weight(w, heads, "interleaved", "concat"), hf)


def test_symbolic_rope_proofs_and_failures():
    sym.verify_rope_relative()
    sym.verify_rope_norm()
    sym.verify_rope_layouts()

    def squared(vector, position, *, base=sym.base, layout="interleaved"):
        return sym.rope(vector, position**2, base=base, layout=layout)

    def doubled(vector, position, *, base=sym.base, layout="interleaved"):
        return 2 * sym.rope(vector, position, base=base, layout=layout)

    with pytest.raises(sym.IdentityError):
        sym.verify_rope_relative(squared)
    with pytest.raises(sym.IdentityError):
        sym.verify_rope_norm(doubled)
    q = sp.Matrix(sp.symbols("a b", real=True))
    numeric = sp.lambdify(sym.base, sym.rope(q, sp.Integer(1)).subs({q[0]: 1, q[1]: 2}))
    np.testing.assert_allclose(
        np.asarray(numeric(10000.0), float).ravel(), apply_rope([1.0, 2.0], 1), atol=1e-12
    )


def test_position_interpolation_divides_every_frequency():
    from sinpe.rope import scaled_frequencies

    # hand values: base 100, d = 4 gives theta = [1, 1/10]; divided by 2
    assert scaled_frequencies(4, 2.0, method="interpolation", base=100.0).tolist() == [0.5, 0.05]
    np.testing.assert_allclose(
        scaled_frequencies(64, 4.0, method="interpolation"),
        0.25 * 10000.0 ** (-np.arange(32) / 32),
        rtol=1e-15,
    )


def test_ntk_keeps_the_fastest_pair_and_divides_the_slowest_by_the_factor():
    from sinpe.rope import scaled_frequencies

    scaled = scaled_frequencies(128, 8.0, method="ntk")
    # hand-derived: (C s^(d/(d-2)))^(-2i/d) at i = d/2 - 1 is C^(-(d-2)/d) / s
    slowest = 10000.0 ** (-126 / 128) / 8.0
    assert scaled[0] == 1.0
    assert abs(scaled[-1] / slowest - 1) < 1e-13
    ratio = sinpe.frequencies(128) / scaled  # a geometric ramp from 1 to s
    np.testing.assert_allclose(ratio, 8.0 ** (np.arange(64) / 63), rtol=1e-12)


def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_ramps_between():
    from sinpe.rope import scaled_frequencies

    theta = sinpe.frequencies(128)
    yarn = scaled_frequencies(128, 16.0, method="yarn", original_length=4096, ramp="paper")
    ratio = 4096 * theta / (2 * np.pi)  # original length / wavelength
    fast, slow = ratio > 32, ratio < 1
    assert fast.any() and slow.any() and (~fast & ~slow).any()
    np.testing.assert_array_equal(yarn[fast], theta[fast])
    np.testing.assert_allclose(yarn[slow], theta[slow] / 16, rtol=1e-15)
    middle = ~fast & ~slow
    weight = (ratio[middle] - 1) / 31
    np.testing.assert_allclose(yarn[middle], theta[middle] * (weight + (1 - weight) / 16))
    assert np.all(np.diff(theta / yarn) >= 0)  # the stretch grows from fast to slow pairs


def test_yarn_released_ramp_keeps_fast_pairs_and_ramps_over_whole_pairs():
    from sinpe.rope import scaled_frequencies

    # d = 128, L = 4096: the pair index turning 32 times is 20.94 (floor 20), turning
    # once 45.03 (ceil 46); the released code ramps linearly in the index between them.
    theta = sinpe.frequencies(128)
    yarn = scaled_frequencies(128, 16.0, method="yarn", original_length=4096)
    index = np.arange(64)
    keep = 1 - np.clip((index - 20) / (46 - 20), 0, 1)
    np.testing.assert_allclose(yarn, (1 - keep) * theta / 16 + keep * theta, rtol=1e-15)
    np.testing.assert_array_equal(yarn[:21], theta[:21])
    np.testing.assert_allclose(yarn[46:], theta[46:] / 16, rtol=1e-15)


def test_yarn_temperature_matches_the_paper_formula():
    from sinpe.rope import yarn_temperature

    # sqrt(1/t) = 0.1 ln s + 1 (Peng et al. 2023): s = e^10 gives sqrt(1/t) = 2
    assert abs(yarn_temperature(math.exp(10.0)) - 0.25) < 1e-15
    assert yarn_temperature(1.0) == 1.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"factor": 0.5, "method": "ntk"}, ValueError),
        ({"factor": float("nan"), "method": "ntk"}, ValueError),
        ({"factor": "2", "method": "ntk"}, TypeError),
        ({"factor": 2.0, "method": "linear"}, ValueError),
        ({"factor": 2.0, "method": "yarn", "alpha": 32.0, "beta": 1.0}, ValueError),
        ({"factor": 2.0, "method": "yarn", "original_length": 0}, ValueError),
        ({"factor": 2.0, "method": "yarn", "original_length": 2.5}, TypeError),
        ({"factor": 2.0, "method": "yarn", "ramp": "bogus"}, ValueError),
        ({"factor": 2.0, "method": "ntk", "ramp": "paper"}, ValueError),
    ],
)
def test_scaled_frequencies_rejects_bad_input(kwargs, error):
    from sinpe.rope import scaled_frequencies

    with pytest.raises(error):
        scaled_frequencies(64, **kwargs)


def test_apply_rope_with_custom_frequencies_equals_scaled_positions():
    from sinpe.rope import apply_rope, scaled_frequencies

    x = np.random.default_rng(0).normal(size=(5, 16))
    positions = np.arange(5) * 3.0
    interpolated = apply_rope(
        x, positions, frequencies=scaled_frequencies(16, 3.0, method="interpolation")
    )
    np.testing.assert_allclose(interpolated, apply_rope(x, positions / 3.0), atol=1e-15)
    with pytest.raises(ValueError, match="frequencies must have shape"):
        apply_rope(x, positions, frequencies=np.ones(3))


def test_the_rope_docstring_words_the_offset_and_cites_the_symptom():
    # issue 40: the score depends on q and k too; cite threads that report gibberish
    doc = " ".join(rope.__doc__.split())
    assert "depends on ``m - n`` only" not in doc and "#25199" not in doc
    assert "positions only through ``m - n``" in doc
    for thread in ("karpathy/llama2.c/pull/286", "jzhang38/TinyLlama/issues/24"):
        assert f"https://github.com/{thread}" in doc


@pytest.mark.parametrize(
    ("dim", "base", "factor", "original"),
    [(128, 500000.0, 8.0, 8192), (64, 10000.0, 4.0, 2048), (16, 100.0, 32.0, 16), (2, 1e4, 2.0, 4)],
)
def test_llama3_frequencies_is_transformers_rule(dim, base, factor, original):
    from sinpe.rope import llama3_frequencies

    expected = llama3_inv_freq(dim, base, factor, original=original, dtype=np.float64)
    got = llama3_frequencies(dim, factor, base=base, original_length=original)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)


@pytest.mark.parametrize(
    ("dim", "factor", "original", "base"),
    [(8, 4.0, 16, None), (8, 2.0, 16, None), (64, 8.0, 2048, None), (128, 8.0, 8192, 500000.0)],
)
def test_scaled_frequencies_llama3_is_llama3_frequencies(dim, factor, original, base):
    """method="llama3" is Llama 3.1's rule (factors 1 and 4) from scaled_frequencies' base."""
    given = {} if base is None else {"base": base}
    got = rope.scaled_frequencies(dim, factor, method="llama3", original_length=original, **given)
    expected = rope.llama3_frequencies(dim, factor, base=base or 10000.0, original_length=original)
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match="YaRN"):
        rope.scaled_frequencies(dim, factor, method="llama3", ramp="paper")


@pytest.mark.parametrize("factor", [2.0, 4.0])
def test_scaled_frequencies_llama3_bands_in_closed_form(factor):
    """theta_i = 10 ** -i at d = 8; wavelengths 2 pi 10 ** i against L / 4 and L.

    L = 16: pair 0 (wavelength 2 pi, between 4 and 16) blends with weight
    b = (16 / (2 pi) - 1) / 3; pairs 1-3 (wavelengths above 16) are divided by s. At
    s = 4 pair 0 is 1/4 + 3b/4 = 2/pi. L = 1024: pairs 0 and 1 (below 256) are kept,
    pair 2 (200 pi, between 256 and 1024) blends, pair 3 (2000 pi) is divided by s.
    """
    s = factor
    toy = rope.scaled_frequencies(8, s, method="llama3", original_length=16)
    b = (8 / math.pi - 1) / 3
    golden = [1 / s + b * (1 - 1 / s), 0.1 / s, 0.01 / s, 0.001 / s]
    np.testing.assert_allclose(toy, golden, rtol=1e-13, atol=0)
    if s == 4.0:
        assert toy[0] == pytest.approx(2 / math.pi, rel=1e-13)
    wide = rope.scaled_frequencies(8, s, method="llama3", original_length=1024)
    b = (1024 / (200 * math.pi) - 1) / 3
    golden = [1.0, 0.1, 0.01 * (1 / s + b * (1 - 1 / s)), 0.001 / s]
    np.testing.assert_allclose(wide, golden, rtol=1e-13, atol=0)


@pytest.mark.parametrize("method", ["unknown", "YaRN", "ntk-aware", ""])
def test_an_unknown_scaling_method_is_refused_with_the_known_ones(method):
    """A misspelled or made-up method is an error naming the methods, never a fall-through."""
    with pytest.raises(ValueError, match="method") as error:
        rope.scaled_frequencies(64, 4.0, method=method)
    assert all(known in str(error.value) for known in rope.SCALING_METHODS)
