"""Independent oracles for the mutants of scripts/mutants.py (issue 16).

Every expected value here comes from outside ``sinpe``: hand computation, a closed
form evaluated with ``math`` or ``mpmath``, exact rationals (``fractions``), a brute
force over the definition, a transcription of the published source (the ALiBi
repository's ``get_slopes``, the PyTorch tutorial's float32 frequency recipe), or a
value the documentation promises. Each test names the mutants it kills; together
with the rest of the suite, every mutant of ``scripts/mutants.py`` dies.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import mpmath
import numpy as np
import pytest
import sympy as sp

import sinpe
from sinpe import alibi, binary, claims, conventions, fourier, geometry, numerics, plotting, rope
from sinpe import symbolic as sym

U32 = 2.0**-24  # unit roundoff of float32


def rope_by_hand(x, p, base, layout):
    """RoPE from its definition (Su et al. 2021, eq. 14), one pair at a time, with math."""
    d = len(x)
    out = list(map(float, x))
    for i in range(d // 2):
        angle = p * base ** (-2 * i / d)
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + d // 2)
        out[a] = x[a] * math.cos(angle) - x[b] * math.sin(angle)
        out[b] = x[a] * math.sin(angle) + x[b] * math.cos(angle)
    return out


# --- rope.py ---------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["interleaved", "concat", "half"])
def test_apply_rope_against_the_definition_with_a_base_and_a_batch(layout):
    # mutants "apply_rope: ... swapped / reflected / base ignored", "'half' read as
    # interleaved": base 100 at d = 4 gives theta = [1, 1/10]; rows of a batch use their
    # own positions; "half" (Hugging Face's rotate_half) is the concat layout.
    x = np.array([[1.0, 2.0, 3.0, 4.0], [-0.5, 0.25, 2.0, -1.0], [0.3, 0.1, -0.7, 0.9]])
    positions = [0.0, 2.0, -3.5]
    got = rope.apply_rope(x, positions, base=100.0, layout=layout)
    expected = [rope_by_hand(row, p, 100.0, layout) for row, p in zip(x, positions, strict=True)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-14)


def test_apply_rope_refuses_an_odd_width_even_with_custom_frequencies():
    # mutant "apply_rope: odd width accepted with custom frequencies": a width of 3 has
    # no pairing; frequencies of shape (3 // 2,) = (1,) must not make it pass.
    with pytest.raises(ValueError, match="even"):
        rope.apply_rope(np.ones(3), 1.0, frequencies=[1.0])


@pytest.mark.parametrize("layout", ["rotate_half", "Half", "neox"])
def test_unknown_rope_layouts_are_refused(layout):
    # mutant "_check_rope_layout: unknown layouts accepted": only the documented names;
    # the error names the bad value.
    with pytest.raises(ValueError, match=f"'{layout}'"):
        rope.apply_rope(np.ones(4), 1.0, layout=layout)
    with pytest.raises(ValueError, match=f"'{layout}'"):
        rope.convert_qk_weight(np.ones((4, 2)), 1, layout, "interleaved")
    with pytest.raises(ValueError, match=f"'{layout}'"):
        rope.convert_qk_weight(np.ones((4, 2)), 1, "interleaved", layout)


def test_ntk_scaling_at_width_two_keeps_the_single_frequency():
    # mutant "scaled_frequencies: NTK at d = 2 divides by d - 2 = 0": one pair, whose
    # frequency base**0 = 1 no base change can move.
    assert rope.scaled_frequencies(2, 4.0, method="ntk").tolist() == [1.0]


def test_ntk_and_interpolation_hand_values():
    # d = 4, C = 100, s = 4: interpolation [1/4, 1/40]; NTK base 100 * 4**2 = 1600,
    # frequencies [1, 1600**-0.5 = 1/40] (the slowest pair divided by s, the fastest kept).
    np.testing.assert_allclose(
        rope.scaled_frequencies(4, 4.0, method="interpolation", base=100.0), [0.25, 0.025]
    )
    np.testing.assert_allclose(
        rope.scaled_frequencies(4, 4.0, method="ntk", base=100.0), [1.0, 0.025], rtol=1e-15
    )


def test_yarn_needs_alpha_strictly_below_beta():
    # mutant "scaled_frequencies: YaRN alpha == beta accepted": the ramp divides by
    # beta - alpha.
    with pytest.raises(ValueError, match="alpha < beta"):
        rope.scaled_frequencies(64, 2.0, method="yarn", alpha=4.0, beta=4.0)


def test_yarn_hand_values():
    # The paper's ramp. d = 4, C = 100, L = 50, s = 2, alpha = 1, beta = 32: r = L w / (2 pi)
    # = [7.96, 0.796]. Pair 0 is on the ramp, gamma = (r - 1) / 31, w = (1 - gamma) / 2 +
    # gamma; pair 1 has r < 1 and is interpolated: 0.1 / 2.
    got = rope.scaled_frequencies(
        4, 2.0, method="yarn", base=100.0, original_length=50, alpha=1.0, beta=32.0, ramp="paper"
    )
    r0 = 50 / (2 * math.pi)
    gamma = (r0 - 1) / 31
    np.testing.assert_allclose(got, [(1 - gamma) / 2 + gamma, 0.05], rtol=1e-14)


@pytest.mark.parametrize("ramp", ["released", "paper"])
def test_yarn_refuses_a_trained_length_of_zero(ramp):
    # mutant "scaled_frequencies: YaRN original_length 0 accepted": with L = 0 no pair turns
    # at all; the error must name original_length, not come from a log of 0.
    with pytest.raises(ValueError, match="original_length"):
        rope.scaled_frequencies(64, 2.0, method="yarn", original_length=0, ramp=ramp)


def test_yarn_released_hand_values():
    # The released ramp at d = 4, C = 100, L = 50: the pair index turning 32 times is
    # 4 ln(50 / (64 pi)) / (2 ln 100) = -0.60, floor -1, clamped to low = 0; turning once,
    # 4 ln(50 / (2 pi)) / (2 ln 100) = 0.90, ceil high = 1. Index ramp (i - 0) / (1 - 0):
    # pair 0 keeps 1, pair 1 is interpolated: 0.1 / 2.
    got = rope.scaled_frequencies(4, 2.0, method="yarn", base=100.0, original_length=50)
    np.testing.assert_allclose(got, [1.0, 0.05], rtol=1e-15)


@pytest.mark.parametrize(("source", "target"), [("concat", "concat"), ("interleaved", "concat")])
def test_convert_qk_weight_needs_whole_heads(source, target):
    # mutant "convert_qk_weight: rows not a multiple of n_heads accepted": 10 rows do not
    # split into 4 heads, whatever the layouts.
    with pytest.raises(ValueError, match=r"n_heads \* head_width rows"):
        rope.convert_qk_weight(np.zeros((10, 3)), 4, source, target)


def test_convert_qk_weight_returns_a_new_array():
    # mutant "convert_qk_weight: same layout returns the caller's array": writing to the
    # result must not change the checkpoint it came from.
    weight = np.arange(8.0)
    out = rope.convert_qk_weight(weight, 2, "concat", "concat")
    out[0] = -1.0
    assert weight.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]


def test_convert_qk_weight_hand_permutation_both_ways():
    # head width 6: P = [0, 2, 4, 1, 3, 5]; its inverse is [0, 3, 1, 4, 2, 5].
    rows = np.arange(12.0)
    to_concat = rope.convert_qk_weight(rows, 2, "interleaved", "concat")
    assert to_concat.tolist() == [0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11]
    for source in ("concat", "half"):  # "half" is Hugging Face's name for concat
        back = rope.convert_qk_weight(rows, 2, source, "interleaved")
        assert back.tolist() == [0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]


def test_yarn_temperature_hand_value():
    # sqrt(1/t) = 0.1 ln s + 1: s = e gives t = 1 / 1.1**2.
    assert rope.yarn_temperature(math.e) == pytest.approx(1 / 1.21, rel=1e-15)


# --- alibi.py --------------------------------------------------------------------------


def alibi_repo_slopes(n):
    """ofirpress/attention_with_linear_biases, get_slopes, transcribed with mpmath."""

    def power_of_2(n):
        start = mpmath.mpf(2) ** (-(mpmath.mpf(2) ** -(mpmath.log(n, 2) - 3)))
        return [start * start**i for i in range(n)]

    if mpmath.log(n, 2) == int(mpmath.log(n, 2)):
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_repo_slopes(2 * closest)[0::2][: n - closest]


@pytest.mark.parametrize(
    ("n", "expected"),
    [
        (1, [2**-8]),
        (2, [2**-4, 2**-8]),
        (3, [2**-4, 2**-8, 2**-2]),
        (5, [2**-2, 2**-4, 2**-6, 2**-8, 2**-1]),
        (6, [2**-2, 2**-4, 2**-6, 2**-8, 2**-1, 2**-3]),
        (8, [2.0**-k for k in range(1, 9)]),
    ],
)
def test_alibi_slopes_hand_values(n, expected):
    # 2^(-8 (h+1) / c) for the c = largest power of two <= n, then every other slope of
    # 2c heads: all exact powers of two here.
    assert alibi.alibi_slopes(n).tolist() == expected


@pytest.mark.parametrize("n", [7, 12, 20, 24, 96])
def test_alibi_slopes_match_the_reference_repository(n):
    expected = [float(s) for s in alibi_repo_slopes(n)]
    np.testing.assert_allclose(alibi.alibi_slopes(n), expected, rtol=1e-14)
    assert len(alibi.alibi_slopes(n)) == n


def test_alibi_slopes_have_a_documented_limit():
    # mutant "alibi_slopes: no upper limit on n_heads"
    assert len(alibi.alibi_slopes(alibi.MAX_HEADS)) == alibi.MAX_HEADS
    with pytest.raises(ValueError, match="n_heads"):
        alibi.alibi_slopes(alibi.MAX_HEADS + 1)


def test_alibi_bias_hand_values_and_length_zero():
    # mutant "alibi_bias: length 0 accepted"; two heads: slopes 1/16, 1/256.
    bias = alibi.alibi_bias(2, 3)
    distance = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])
    np.testing.assert_array_equal(bias[0], -distance / 16)
    np.testing.assert_array_equal(bias[1], -distance / 256)
    with pytest.raises(ValueError, match="length"):
        alibi.alibi_bias(2, 0)


# --- geometry.py, numerics.py, binary.py ----------------------------------------


def distance_by_hand(k, d, base):
    """|PE(p + k) - PE(p)| = 2 sqrt(sum_i sin^2(k w_i / 2)), w_i = base^(-2i/d), with math."""
    return 2 * math.sqrt(sum(math.sin(k * base ** (-2 * i / d) / 2) ** 2 for i in range(d // 2)))


def test_dot_product_and_distance_hand_values_with_a_base():
    # C = 100, d = 4: w = [1, 1/10]. PE(p).PE(p+2) = cos 2 + cos 0.2, and the distance is
    # 2 sqrt(sin^2 1 + sin^2 0.1).
    np.testing.assert_allclose(
        geometry.dot_product_by_offset([2.0, -2.0, 0.0], 4, base=100.0),
        [math.cos(2) + math.cos(0.2), math.cos(2) + math.cos(0.2), 2.0],
        rtol=1e-15,
    )
    expected = 2 * math.sqrt(math.sin(1.0) ** 2 + math.sin(0.1) ** 2)
    assert geometry.distance_by_offset(2.0, 4, base=100.0) == pytest.approx(expected, rel=1e-15)


def test_nearest_distinct_position_brute_force():
    # mutants "nearest_distinct_position: offset = context included", "... base ignored":
    # offsets 1 .. context - 1 only; at d = 2 the distance is 2 |sin(k / 2)|, smallest at
    # k = 25 below 44 (44 = 7 * 2 pi + 0.02 is just outside the window).
    offset, distance = geometry.nearest_distinct_position(44, 2)
    assert offset == 25 == min(range(1, 44), key=lambda k: abs(math.sin(k / 2)))
    assert distance == pytest.approx(2 * abs(math.sin(12.5)), rel=1e-14)
    for context, d, base in [(300, 4, 30.0), (1000, 6, 50.0)]:
        best = min(range(1, context), key=lambda k: distance_by_hand(k, d, base))
        offset, distance = geometry.nearest_distinct_position(context, d, base=base)
        assert offset == best
        assert distance == pytest.approx(distance_by_hand(best, d, base), rel=1e-12)


def test_nearest_distinct_position_needs_two_positions():
    # mutant "nearest_distinct_position: context 1 accepted"
    with pytest.raises(ValueError, match="at least 2"):
        geometry.nearest_distinct_position(1, 2)


def test_aliasing_brute_force_at_the_boundaries():
    # mutants "aliasing: offset far itself not a candidate", "looks_like needs a strictly
    # larger distance", "aliasing: base ignored".
    # d = 2, window 50, far = 44: offset 44 (2 |sin 22| = 0.0177) is the closest far one.
    result = geometry.aliasing(50, 2, far=44)
    assert result.far_offset == 44
    assert result.distance == pytest.approx(2 * abs(math.sin(22.0)), rel=1e-13)
    assert result.looks_like == 1
    # far = 1: the closest offset overall is 1 itself (2 sin(1/2) < 2 sin(1)), and the
    # smallest offset at least that far apart is 1 as well.
    assert geometry.aliasing(3, 2, far=1) == (1, pytest.approx(2 * math.sin(0.5), rel=1e-15), 1)
    # with a base: brute force over the definition
    context, d, base, far = 600, 4, 20.0, 40
    far_offset = min(range(far, context), key=lambda k: distance_by_hand(k, d, base))
    distance = distance_by_hand(far_offset, d, base)
    looks_like = next(k for k in range(1, context) if distance_by_hand(k, d, base) >= distance)
    result = geometry.aliasing(context, d, base=base, far=far)
    assert (result.far_offset, result.looks_like) == (far_offset, looks_like)
    assert result.distance == pytest.approx(distance, rel=1e-12)


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        # C = 100, d = 4: w = [1, 1/10]; the phase swept is Theta = (context - 1) w.
        (1, [0.0, 0.0, 0.0, 0.0]),
        (2, [math.sin(1), 1 - math.cos(1), math.sin(0.1), 1 - math.cos(0.1)]),
        # Theta = 3: the sine passes its maximum 1 and stays >= 0; the cosine is before pi.
        (4, [1.0, 1 - math.cos(3), math.sin(0.3), 1 - math.cos(0.3)]),
        # Theta = 4: the sine goes down to sin 4 < 0; the cosine has passed pi: range 2.
        (5, [1 - math.sin(4), 2.0, math.sin(0.4), 1 - math.cos(0.4)]),
        # Theta = 5 (sine past 3 pi / 2: full range 2)
        (6, [2.0, 2.0, math.sin(0.5), 1 - math.cos(0.5)]),
    ],
)
def test_dimension_ranges_hand_values(context, expected):
    # mutants "dimension_ranges: sine and cosine ranges swapped", "sweep over context",
    # "cosine saturates at 2 pi".
    np.testing.assert_allclose(
        geometry.dimension_ranges(context, 4, base=100.0), expected, rtol=1e-14, atol=0
    )


def test_correct_digits_uses_the_largest_error():
    # mutant "correct_digits: mean instead of max error": max |error| = 1e-3 -> 3 digits.
    assert numerics.correct_digits([0.0, 0.0, 0.5], [1e-3, 1e-5, 0.5]) == pytest.approx(3.0)


def test_principal_plane_hand_values_with_fixed_signs():
    # mutants "principal_plane: direction signs not fixed", "centred over the wrong axis":
    # the main directions are the x axis (spread 6) and the y axis (spread 2), each with
    # its largest component made positive, so the coordinates are the centred x and y.
    axes = np.array([[3.0, 0, 0], [-3, 0, 0], [0, 1, 0], [0, -1, 0]])
    points = axes + np.array([1.0, 2.0, 3.0])
    expected = [[3.0, 0.0], [-3.0, 0.0], [0.0, 1.0], [0.0, -1.0]]
    np.testing.assert_allclose(geometry.principal_plane(points), expected, atol=1e-12)
    # on random data: the recovered directions have their largest component positive
    rng = np.random.default_rng(0)
    for _ in range(5):
        data = rng.normal(size=(8, 3)) * [3.0, 1.0, 0.2]
        plane = geometry.principal_plane(data)
        centred = data - data.mean(axis=0)
        directions = np.linalg.lstsq(centred, plane, rcond=None)[0].T
        largest = directions[np.arange(2), np.argmax(np.abs(directions), axis=1)]
        assert np.all(largest > 0)


def test_binary_encoding_limits_and_floor():
    # mutant "binary_encoding: 63 bits accepted": int64 has 63 value bits, and the
    # documented limit is 62.
    assert binary.binary_encoding([2.0**62 - 1024], 62)[0, -1] == 1.0
    with pytest.raises(ValueError, match="at most 62"):
        binary.binary_encoding([0.0], 63)
    with pytest.raises(ValueError, match="positions must lie"):
        binary.binary_encoding([-0.5], 3)  # floor -1 would read as all ones
    # 6.5 floors to 6 = 0b110 (rounding would give 7 or 6 by ties-to-even; 6.7 -> 7)
    assert binary.binary_encoding([6.7], 3).tolist() == [[0.0, 1.0, 1.0]]


def test_to_bfloat16_ties_go_to_even():
    # mutant "to_bfloat16: ties rounded down": 1 + 2^-7 + 2^-8 lies halfway between
    # 1 + 2^-7 (odd last bit) and 1 + 2^-6 (even): round to nearest even goes up.
    tie_up = 1 + 2**-7 + 2**-8
    assert numerics.to_bfloat16([tie_up, -tie_up]).tolist() == [1 + 2**-6, -(1 + 2**-6)]
    assert numerics.to_bfloat16([1 + 2**-8]).tolist() == [1.0]  # tie, already even


def test_low_precision_frequencies_pow_recipe_hand_values():
    # C = 100, d = 4: 100 ** (-2/4) = 1/10, in float32: 13421773 / 2**27.
    got = numerics.low_precision_frequencies(4, "float32", base=100.0, recipe="pow")
    assert got[0] == 1.0
    assert abs(got[1] - 0.1) <= 2 * 2**-27  # at most a float32 ULP or two from 1/10


def test_low_precision_bound_uses_the_base():
    # mutant "low_precision_bound: base ignored": at C = 100, d = 4, p = 1 the float32
    # frequencies are 1 (exact) and 13421773 / 2**27 (the float32 nearest 1/10), so the
    # bound is 3u for pair 0 and |w32 - 1/10| + u w32 + 2u for pair 1.
    w32 = Fraction(13421773, 2**27)
    pair1 = abs(w32 - Fraction(1, 10)) + Fraction(2**-24) * w32 + 2 * Fraction(2**-24)
    got = numerics.low_precision_bound([1.0], 4, base=100.0)
    np.testing.assert_allclose(got, [[3 * U32, float(pair1)]], rtol=1e-9)


def torch_tutorial_frequencies(d, base):
    """exp(arange(0, d, 2) * -(ln C / d)) in float32, as the PyTorch tutorial computes it."""
    factor = np.float32(-math.log(base) / d)
    return np.exp(np.arange(0, d, 2, dtype=np.float32) * factor)


def test_low_precision_bound_and_computed_in_follow_the_recipe():
    # mutants "low_precision_bound: recipe ignored", "computed_in: recipe ignored": with
    # the float32 exp recipe, w_1 = 0.099999994 instead of float32(0.1) = 0.1 + 1.5e-9.
    d, base, p = 8, 10000.0, 2.0**20
    w32 = torch_tutorial_frequencies(d, base).astype(np.float64)
    exact = np.array([10.0**-i for i in range(d // 2)])  # 10000 ** (-2i/8) = 10 ** -i
    rounded = exact.astype(np.float32).astype(np.float64)
    assert np.any(w32 != rounded)  # the recipes differ here
    expected = p * np.abs(w32 - exact) + U32 * p * w32 + 2 * U32
    np.testing.assert_allclose(
        numerics.low_precision_bound([p], d, base=base, recipe="exp")[0], expected, rtol=1e-6
    )
    positions = np.arange(2.0**22, 2.0**22 + 64)
    phases = positions.astype(np.float32)[:, None] * w32.astype(np.float32)
    table = np.empty((64, d))
    table[:, 0::2], table[:, 1::2] = np.sin(phases), np.cos(phases)
    phases_rounded = positions.astype(np.float32)[:, None] * rounded.astype(np.float32)
    assert np.abs(np.sin(phases_rounded) - np.sin(phases)).max() > 0.01  # distinguishable
    got = numerics.computed_in(positions, d, "float32", base=base, recipe="exp")
    np.testing.assert_allclose(got, table, rtol=0, atol=1e-6)


def test_computed_in_puts_sines_first_and_rounds_the_positions():
    # mutants "computed_in: cosines in the sine columns", "positions not rounded to the
    # precision", "positions not rounded to bfloat16", "base ignored in float64".
    np.testing.assert_allclose(
        numerics.computed_in([1.0], 2, "float32")[0], [math.sin(1), math.cos(1)], atol=1e-7
    )
    # float16 holds 2049 as 2048 (11 significant bits); bfloat16 holds 257 as 256 (8 bits).
    np.testing.assert_allclose(
        numerics.computed_in([2049.0], 2, "float16")[0],
        [math.sin(2048), math.cos(2048)],
        atol=2e-3,
    )
    # In bfloat16 (8 significant bits) 257 is a tie between 256 and 258 and goes to
    # the even 256; 1/10 becomes 0.10009765625; their product 25.625 is exact.
    np.testing.assert_allclose(
        numerics.computed_in([257.0], 4, "bfloat16", base=100.0)[0],
        [math.sin(256), math.cos(256), math.sin(25.625), math.cos(25.625)],
        atol=4e-3,
    )
    np.testing.assert_allclose(
        numerics.computed_in([1.0], 4, "float64", base=100.0)[0],
        [math.sin(1), math.cos(1), math.sin(0.1), math.cos(0.1)],
        rtol=1e-15,
    )


def test_reference_encoding_keeps_its_digits_for_huge_phases():
    # mutant "reference_encoding: digits ignored": at p ~ 1e15 and d = 6 the frequencies
    # 10000**(-1/3), 10000**(-2/3) are irrational; in double precision the phase p w is
    # off by up to half a spacing of doubles near 5e13 (0.004), at 40 digits by nothing.
    # Reference: the same definition in mpmath at 60 digits.
    positions = [1e15, 3e15 + 1, 7.77e14]
    with mpmath.workdps(60):
        expected = [
            [
                float(f(mpmath.mpf(p) * mpmath.power(10000, mpmath.mpf(-2 * i) / 6)))
                for i in range(3)
                for f in (mpmath.sin, mpmath.cos)
            ]
            for p in positions
        ]
    got = numerics.reference_encoding(positions, 6)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_ulp_error_counts_in_the_requested_dtype():
    # mutant "ulp_error: dtype ignored": float32's ULP at 1 is 2**-23.
    assert numerics.ulp_error([1 + 2**-23], [1.0], dtype=np.float32).tolist() == [1.0]
    assert numerics.ulp_error([1 + 2**-23], [1.0]).tolist() == [2.0**29]


def test_linear_map_residual_hand_value():
    # mutant "linear_map_residual: root of the sum": inputs [1], [1] -> targets [0], [4]:
    # the best map is 2, residuals -2 and 2, RMS 2 (root of the sum would be 2 sqrt 2).
    assert geometry.linear_map_residual([[1.0], [1.0]], [[0.0], [4.0]]) == pytest.approx(2.0)


# --- symbolic.py -----------------------------------------------------------------------


def _same(left, right):
    """Two SymPy matrices are equal entry by entry (after simplification)."""
    return sp.simplify(sp.Matrix(left) - sp.Matrix(right)) == sp.zeros(*sp.Matrix(left).shape)


def test_symbolic_encoding_and_shift_matrix_honour_the_constant():
    # mutants "sinusoidal_encoding: constant ignored", "(cos, sin) pairs", "shift_matrix:
    # constant ignored": at C = 100, d = 4 the frequencies are 1 and 100**(-1/2) = 1/10.
    p, k = sym.position, sym.shift
    expected = [sp.sin(p), sp.cos(p), sp.sin(p / 10), sp.cos(p / 10)]
    assert _same(sym.sinusoidal_encoding(p, 4, base=sp.Integer(100)), expected)
    assert _same(sym.one_indexed_encoding(p, 4, base=sp.Integer(100)), expected)

    def turn(phi):  # acting on (sin, cos): [sin(a + phi), cos(a + phi)] = R [sin a, cos a]
        return [[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]]

    assert _same(sym.rotation(k), turn(k))
    assert _same(sym.counterclockwise(k), turn(-k))
    assert _same(sym.shift_matrix(k, 4, base=sp.Integer(100)), sp.diag(turn(k), turn(k / 10)))


@pytest.mark.parametrize("layout", ["interleaved", "half"])
def test_symbolic_rope_hand_values_with_a_constant(layout):
    # mutants "rope (symbolic): constant ignored", "rope (symbolic): layouts swapped"
    vector = sp.Matrix([1, 2, 3, 4])
    got = sym.rope(vector, sp.Integer(2), base=sp.Integer(100), layout=layout)
    expected = rope_by_hand([1.0, 2.0, 3.0, 4.0], 2.0, 100.0, layout)
    np.testing.assert_allclose(np.array(got.evalf(20), dtype=float).ravel(), expected, atol=1e-14)


def test_symbolic_width_limit_is_inclusive():
    # mutant "_check_width: the largest width rejected (> vs >=)"
    assert sym.frequency(1, sym.MAX_SYMBOLIC_SIZE, base=sp.Integer(2)) == sp.Integer(
        2
    ) ** sp.Rational(-2, sym.MAX_SYMBOLIC_SIZE)
    with pytest.raises(ValueError, match="at most"):
        sym.frequency(1, sym.MAX_SYMBOLIC_SIZE + 2)


def test_derive_shift_map_refuses_entries_that_are_not_linear():
    # mutants "derive_shift_map: affine (constant-term) entries accepted", "quadratic
    # entries accepted": sin(p) and cos(p) + 1, or cos(p) + sin(p) cos(p), are not a
    # linear basis, so no matrix maps the block at p to the block at p + k.
    p = sym.position
    with pytest.raises(sym.IdentityError, match="not linear"):
        sym.derive_shift_map(lambda at: sp.Matrix([sp.sin(at), sp.cos(at) + 1]))
    with pytest.raises(sym.IdentityError, match="not linear"):
        sym.derive_shift_map(
            lambda at: sp.Matrix([sp.sin(at), sp.cos(at) + sp.sin(at) * sp.cos(at)])
        )
    # mutant "derive_shift_map: dependent entries not detected": as many entries as basis
    # functions, but the second is twice the first -- a singular 2 x 2 system.
    with pytest.raises(sym.IdentityError, match="not independent"):
        sym.derive_shift_map(
            lambda at: sp.Matrix([sp.sin(at) + sp.cos(at), 2 * sp.sin(at) + 2 * sp.cos(at)])
        )
    # and the (sin, cos) pair gives the clockwise turn by k, by hand
    k = sym.shift
    derived = sym.derive_shift_map(lambda at: sp.Matrix([sp.sin(at), sp.cos(at)]), p, k)
    assert _same(derived, [[sp.cos(k), sp.sin(k)], [-sp.sin(k), sp.cos(k)]])


def test_indexings_agree_checks_the_last_entry():
    # mutant "verify_indexings_agree: last entry not compared": an encoding that is the
    # paper's except for its last entry (a sine where the last cosine belongs).
    def last_entry_wrong(position, d_model, *, base=sym.base):
        column = sym.sinusoidal_encoding(position, d_model, base=base)
        column[d_model - 1] = sp.sin(position * sym.frequency(d_model // 2 - 1, d_model, base=base))
        return column

    with pytest.raises(sym.IdentityError, match="component 4"):
        sym.verify_indexings_agree(last_entry_wrong, widths=(4,))


def test_no_linear_shift_holds_when_some_entries_of_pe_k_vanish():
    # mutant "verify_no_linear_shift: one zero entry of PE(k) rejects the counterexample":
    # sines alone at k = pi: PE(pi) = [0, 0, sin(pi / sqrt C), ...] is not zero, so the
    # counterexample applies.
    result = sym.verify_no_linear_shift(sym.sine_only_encoding, 4, k=sp.pi)
    assert list(result.objects["PE(k)"])[:2] == [0, 0]


def test_symbolic_integer_features_hand_values():
    # mutant "integer_features (symbolic): multiples 0..k-1"
    x = sym.angle
    assert list(sym.integer_features(x, 2)) == [sp.sin(x), sp.cos(x), sp.sin(2 * x), sp.cos(2 * x)]


def test_verify_periodic_features_rejects_a_4pi_periodic_feature():
    # mutant "verify_periodic_features: period 4 pi checked": sin(x / 2) has period 4 pi.
    def half_angle(x, count):
        return sp.Matrix([sp.sin(x / 2), sp.cos(x)] * count)

    with pytest.raises(sym.IdentityError, match="2\\*pi-periodic"):
        sym.verify_periodic_features(half_angle, 1)


# --- claims.py -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "evidence", [claims.NUMERIC, claims.TOY, claims.RELEASED, claims.PUBLISHED]
)
def test_every_non_proof_needs_a_scope_that_is_not_blank(evidence):
    # mutants "Verdict: a blank scope passes for a non-proof", "only toy experiments need
    # a scope"
    for scope in ("", "   "):
        with pytest.raises(ValueError, match="needs its scope"):
            claims.judge("a-claim", holds=True, reason="r", evidence=evidence, scope=scope)


def test_scopes_and_reasons_are_one_line():
    # mutants "Verdict: multi-line scopes accepted", "multi-line reasons accepted"
    with pytest.raises(ValueError, match="scope must be a one-line"):
        claims.judge("a-claim", holds=True, reason="r", evidence=claims.NUMERIC, scope="a\nb")
    with pytest.raises(ValueError, match="one line"):
        claims.judge("a-claim", holds=True, reason="a\nb", evidence=claims.PROOF)


@pytest.mark.parametrize("claim", ["a--b", "-a", "a-", "A-b", "a b", "a_b", "é"])
def test_claim_ids_are_words_joined_by_single_hyphens(claim):
    # mutant "Verdict: claim ids with stray hyphens accepted"
    with pytest.raises(ValueError, match="lowercase words"):
        claims.judge(claim, holds=True, reason="r", evidence=claims.PROOF)


@pytest.mark.parametrize(
    ("holds", "as_stated", "expected"),
    [
        (True, True, "holds"),
        (True, False, "holds with a nuance"),
        (False, True, "does not hold"),
        (False, False, "does not hold"),
        (np.bool_(True), np.bool_(True), "holds"),
        (np.bool_(False), True, "does not hold"),
    ],
)
def test_judge_truth_table(holds, as_stated, expected):
    # mutants "judge: as_stated decides a failure", "a nuance reported as holds", "NumPy
    # booleans rejected": the table of the docstring.
    verdict = claims.judge(
        "a-claim", holds=holds, as_stated=as_stated, reason="r", evidence="symbolic proof"
    )
    assert verdict.verdict == expected
    assert verdict.key == "claim-a-claim"


@pytest.mark.parametrize("value", [1, 0, np.int64(1), 1.0])
def test_judge_refuses_numbers_for_test_results(value):
    # mutant "judge: integers pass for test results"
    with pytest.raises(TypeError, match="boolean test result"):
        claims.judge("a-claim", holds=value, reason="r", evidence=claims.PROOF)


def test_strength_and_text_of_a_verdict():
    # mutant "Verdict.strength: empty parentheses for a proof"
    proof = claims.judge("a-claim", holds=True, reason="r", evidence=claims.PROOF)
    assert str(proof) == "a-claim: holds — r [symbolic proof]"
    numeric = claims.judge(
        "a-claim", holds=False, reason="r", evidence=claims.NUMERIC, scope="d <= 64"
    )
    assert str(numeric) == "a-claim: does not hold — r [numeric check (d <= 64)]"


def _glued(name, data, prefix="application/papermill.record/"):
    """An output as myst_nb.glue writes it (data keys carry the mime prefix)."""
    return {
        "output_type": "display_data",
        "metadata": {"scrapbook": {"name": name, "mime_prefix": prefix}},
        "data": {prefix + key: value for key, value in data.items()},
    }


def test_read_verdicts_round_trip_of_a_scoped_verdict(tmp_path):
    # mutants "Verdict: scope not stored in the notebook", "read_verdicts: glue's mime
    # prefix ignored", "read_verdicts: every glued value read as a verdict"
    verdict = claims.judge(
        "scoped",
        holds=True,
        as_stated=False,
        reason="r",
        evidence=claims.TOY,
        scope="d = 8, 1 seed",
    )
    payload = {
        "claim": "scoped",
        "verdict": "holds with a nuance",
        "reason": "r",
        "evidence": "toy experiment",
        "scope": "d = 8, 1 seed",
    }
    assert verdict._repr_mimebundle_()[claims.MIME_TYPE] == payload
    outputs = [
        _glued("accuracy", {"text/plain": "0.5"}),
        _glued("claim-scoped", {claims.MIME_TYPE: payload, "text/plain": str(verdict)}),
    ]
    path = tmp_path / "ch01.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "outputs": outputs}]}))
    assert claims.read_verdicts([path]) == {"scoped": verdict}
    assert claims.read_verdicts([path])["scoped"].scope == "d = 8, 1 seed"


def test_read_verdicts_refuses_a_claim_recorded_twice(tmp_path):
    # mutant "read_verdicts: a claim recorded twice accepted"
    verdict = claims.judge("twice", holds=True, reason="r", evidence=claims.PROOF)
    output = _glued("claim-twice", verdict._repr_mimebundle_())
    paths = []
    for name in ("ch01.ipynb", "ch02.ipynb"):
        paths.append(tmp_path / name)
        paths[-1].write_text(json.dumps({"cells": [{"outputs": [output]}]}))
    with pytest.raises(ValueError, match="recorded in both"):
        claims.read_verdicts(paths)


@pytest.mark.parametrize(
    ("value", "spec", "slack"),
    [
        (0.4749999, ".2f", 1e-6),  # 0.4750009 prints 0.48: only the upper end moves
        (0.4750001, ".2f", 1e-6),  # 0.4749991 prints 0.47: only the lower end moves
        (2.5e-3, ".1e", 1e-4),  # 2.4e-3 .. 2.6e-3
    ],
)
def test_settled_checks_both_ends(value, spec, slack):
    # mutants "settled: value + slack not checked", "value - slack not checked"
    with pytest.raises(AssertionError, match="print fewer digits"):
        claims.settled(value, spec, slack=slack)


def test_settled_hand_values():
    # mutants "settled: slack 0 rejected", "step 0 accepted", "step multiple lost"
    assert claims.settled(0.5, ".1f", slack=0) == "0.5"
    assert claims.settled(43.1, ".0f", slack=0.5, step=5) == "45"
    assert claims.settled(0.93, ".2f", slack=0.001, step=0.05) == "0.95"
    with pytest.raises(ValueError, match="step"):
        claims.settled(1.0, ".0f", slack=0.1, step=0)


def test_tally_counts_every_verdict_and_only_verdicts():
    # mutants "tally: counts at most one of each kind", "tally: non-verdicts accepted"
    verdicts = [
        claims.judge(name, holds=holds, reason="r", evidence=claims.PROOF)
        for name, holds in [("a", True), ("b", True), ("c", True), ("d", False)]
    ]
    assert claims.tally(verdicts) == {"holds": 3, "holds with a nuance": 0, "does not hold": 1}
    with pytest.raises(TypeError, match="Verdict"):
        claims.tally(["holds"])


# --- plotting.py -----------------------------------------------------------------------

#: Okabe & Ito (2008), "Color Universal Design": the eight colours of the palette.
OKABE_ITO = {"#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"}


@pytest.fixture
def restore_rc():
    with matplotlib.rc_context():
        yield
    plt.close("all")


def test_style_sets_the_book_style(restore_rc):
    # mutants "style: ...": the settings every figure of the book shares. A figure is
    # 7 x 3.6 inches at 100 dpi, saved at 200 (sharp on 2x screens); no text below
    # 10 pt (issue 18: legible figure text); the grid is on, top and right spines off;
    # lines cycle through the eight Okabe-Ito colours; maps are cividis; SVG ids are
    # salted for reproducible files.
    matplotlib.rcdefaults()
    plotting.style()
    rc = matplotlib.rcParams
    assert rc["figure.dpi"] == 100 and rc["savefig.dpi"] == 200
    assert tuple(rc["figure.figsize"]) == (7.0, 3.6) and plotting.MAX_WIDTH == 7.0
    assert plotting.MIN_FONT_SIZE == 10.0 and rc["font.size"] == 11.0
    assert rc["axes.titlesize"] == 11.5 and rc["axes.labelsize"] == 11.0
    sizes = ("xtick.labelsize", "ytick.labelsize", "legend.fontsize", "legend.title_fontsize")
    assert [rc[key] for key in sizes] == [10.0] * 4
    assert rc["figure.titlesize"] == 12.0
    # every text size of the style, named or in points, is at least MIN_FONT_SIZE
    text_sizes = [key for key in rc if key.endswith(("labelsize", "titlesize", "fontsize"))]
    assert len(text_sizes) >= 6
    for key in text_sizes:
        points = matplotlib.font_manager.FontProperties(size=rc[key]).get_size_in_points()
        assert points >= plotting.MIN_FONT_SIZE, key
    assert rc["axes.grid"] is True and rc["grid.alpha"] == 0.3
    assert rc["axes.spines.top"] is False and rc["axes.spines.right"] is False
    assert rc["lines.linewidth"] == 1.8 and rc["legend.frameon"] is False
    assert rc["image.cmap"] == "cividis"
    assert rc["svg.hashsalt"] == "sinpe"
    cycle = [colour.upper() for colour in rc["axes.prop_cycle"].by_key()["color"]]
    assert len(cycle) == 8 and set(cycle) == OKABE_ITO
    assert cycle[:3] == ["#0072B2", "#E69F00", "#009E73"]


def test_figure_size_grid_and_layout(restore_rc):
    # mutants "figure: width and height ignored", "rows and columns swapped", "tight
    # instead of constrained layout"
    fig, axes = plotting.figure(ncols=3, nrows=2, width=5.0, height=2.0)
    assert tuple(fig.get_size_inches()) == (5.0, 2.0)
    assert axes.shape == (2, 3)
    assert type(fig.get_layout_engine()).__name__ == "ConstrainedLayoutEngine"
    fig, _ = plotting.figure()
    assert fig.canvas.get_width_height() == (700, 360)


def test_heatmap_draws_rows_bottom_to_top_with_its_own_map_and_limits(restore_rc):
    # mutants "heatmap: rows drawn top to bottom", "colour map left to the rcParams",
    # "vmin and vmax ignored", "grid drawn over the image"
    matplotlib.rcParams["image.cmap"] = "viridis"
    plotting.style()
    matplotlib.rcParams["image.cmap"] = "viridis"  # another style applied afterwards
    _, ax = plt.subplots()
    ax.grid(True)
    image = plotting.heatmap(
        ax,
        np.array([[0.0, 1.0], [2.0, 3.0]]),
        extent=(0, 2, 0, 2),
        colorbar_label="v",
        vmin=-1.0,
        vmax=5.0,
    )
    assert image.origin == "lower"
    assert image.get_cmap().name == "cividis"
    assert image.get_clim() == (-1.0, 5.0)
    assert not any(line.get_visible() for line in ax.get_xgridlines() + ax.get_ygridlines())


def test_unit_circle_is_a_whole_circle_with_equal_axes_and_labels(restore_rc):
    # mutants "unit_circle: half a circle", "aspect not equal", "axis labels swapped"
    _, ax = plotting.figure()
    plotting.unit_circle(ax, horizontal="sin", vertical="cos")
    x, y = ax.lines[0].get_data()
    np.testing.assert_allclose(np.hypot(x, y), 1.0, rtol=1e-12)
    assert x.min() == pytest.approx(-1.0) and y.min() == pytest.approx(-1.0)
    assert (x[0], y[0]) == pytest.approx((x[-1], y[-1]))  # closed
    assert ax.get_aspect() == 1.0
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("sin", "cos")


# --- conventions.py --------------------------------------------------------------------


@pytest.mark.parametrize("convention", ["tensor2tensor", "whisper", "fairseq", "hf-marian"])
def test_encode_warns_when_float16_cannot_hold_the_positions(convention):
    # mutant "encode: no precision warning for non-paper conventions": float16 spaces
    # 2048 .. 4096 two apart, so position 3001 is unresolvable, as for the paper.
    with pytest.warns(sinpe.PrecisionWarning):
        sinpe.encode([3000.0, 3001.0], 8, convention, dtype=np.float16)


@pytest.mark.parametrize("convention", ["tensor2tensor", "guided-diffusion", "hf-marian"])
def test_encode_validates_the_base_for_every_convention(convention):
    # mutant "encode: base not validated for non-paper conventions": base 1 makes every
    # frequency 1; a string is not a number.
    with pytest.raises(ValueError, match="base"):
        sinpe.encode(1, 8, convention, base=1.0)
    with pytest.raises(TypeError, match="base"):
        sinpe.encode(1, 8, convention, base="100")


def test_fairseq_embedding_hand_values_with_base_and_padding_idx():
    # mutants "fairseq_embedding: base ignored", "padding_idx not passed on": with
    # padding_idx = 0 the tokens [0, 5, 6] get rows [0, 1, 2]; row 0 is zero and row p is
    # [sin p, sin(p / C), cos p, cos(p / C)] (d = 4, n - 1 spacing: w = [1, 1 / C]).
    got = sinpe.fairseq_embedding([[0, 5, 6]], 4, padding_idx=0, base=100.0)
    expected = [[0.0] * 4] + [
        [math.sin(p), math.sin(p / 100), math.cos(p), math.cos(p / 100)] for p in (1.0, 2.0)
    ]
    np.testing.assert_allclose(got[0], expected, rtol=1e-15, atol=0)


def test_fairseq_positions_hand_values():
    # mutants "fairseq_positions: padding tokens numbered too", "padding_idx 0 rejected",
    # "float token ids accepted"
    tokens = [[0, 7, 0, 8, 9], [7, 7, 7, 0, 0]]
    assert conventions.fairseq_positions(tokens, padding_idx=0).tolist() == [
        [0, 1, 0, 2, 3],
        [1, 2, 3, 0, 0],
    ]
    with pytest.raises(TypeError, match="integer ids"):
        conventions.fairseq_positions([[5.0, 6.0]])


def test_fairseq_rows_below_padding_idx_are_ordinary_rows():
    # mutant "encode: fairseq zeroes every row up to padding_idx": only row padding_idx is
    # the zero row of fairseq's table; row 0 is sin 0 = 0, cos 0 = 1.
    np.testing.assert_array_equal(
        sinpe.encode([0, 1, 2], 4, "fairseq", padding_idx=1)[:2], [[0, 0, 1, 1], [0, 0, 0, 0]]
    )


def test_encode_hand_values_for_each_rule():
    # d = 4 at p = 1 and C = 100: the paper's spacing gives w = [1, 100**(-1/2) = 1/10],
    # the n - 1 spacing w = [1, 1/100]; hf-marian with d = 5 has sines at w = [1, 1/100**(2/5),
    # 1/100**(4/5)] and cosines at the first two.
    s, c = math.sin, math.cos
    cases = {
        "tensor2tensor": [s(1), s(0.01), c(1), c(0.01)],
        "whisper": [s(1), s(0.01), c(1), c(0.01)],
        "marian-nmt": [s(1), s(0.01), c(1), c(0.01)],
        "hf-marian": [s(1), s(0.1), c(1), c(0.1)],
        "guided-diffusion": [c(1), c(0.1), s(1), s(0.1)],
    }
    for name, expected in cases.items():
        np.testing.assert_allclose(sinpe.encode(1, 4, name, base=100.0), expected, rtol=1e-15)
    w = [1.0, 100**-0.4, 100**-0.8]
    np.testing.assert_allclose(
        sinpe.encode(1, 5, "hf-marian", base=100.0),
        [s(w[0]), s(w[1]), s(w[2]), c(w[0]), c(w[1])],
        rtol=1e-14,
    )
    # tensor2tensor at d = 2 keeps its max(n - 1, 1) guard: one frequency, 1
    np.testing.assert_allclose(sinpe.encode(2, 3, "tensor2tensor"), [s(2), c(2), 0.0])


# --- fourier.py ------------------------------------------------------------------------


def test_integer_features_hand_values_and_k_zero():
    # mutants "integer_features: cos in the sine slots", "k = 0 accepted", "multiples
    # 0..k-1": at x = pi / 6, [sin x, cos x, sin 2x, cos 2x] = [1/2, sqrt3/2, sqrt3/2, 1/2].
    r3 = math.sqrt(3) / 2
    np.testing.assert_allclose(
        fourier.integer_features(math.pi / 6, 2), [0.5, r3, r3, 0.5], rtol=1e-15
    )
    with pytest.raises(ValueError, match="n_frequencies must be at least 1"):
        fourier.integer_features(1.0, 0)


@pytest.mark.parametrize(
    "call",
    [
        lambda: fourier.nerf_encoding([0.5], 0),
        lambda: fourier.gaussian_matrix(0, 2, 1.0, np.random.default_rng(0)),
        lambda: fourier.gaussian_matrix(2, 0, 1.0, np.random.default_rng(0)),
        lambda: fourier.log_spaced_matrix(0, 2, 3.0),
        lambda: fourier.log_spaced_matrix(2, 0, 3.0),
    ],
)
def test_counts_must_be_at_least_one(call):
    # mutant "_positive_int: 0 accepted"
    with pytest.raises(ValueError, match="at least 1"):
        call()


def test_nerf_paper_and_official_hand_values():
    # mutants "nerf_encoding (paper): all sines before cosines", "frequencies 2^1 .. 2^L",
    # "(official): raw input not included / coordinate-major". At p = 1/6, L = 2:
    # sin(pi/6), cos(pi/6), sin(pi/3), cos(pi/3) per coordinate (paper); the official
    # code has no pi and puts all coordinates in each block.
    r3 = math.sqrt(3) / 2
    np.testing.assert_allclose(
        fourier.nerf_encoding([1 / 6, 0.0], 2),
        [0.5, r3, r3, 0.5, 0.0, 1.0, 0.0, 1.0],
        rtol=0,
        atol=1e-15,
    )
    x, y = 0.25, -1.0
    expected = [x, y, math.sin(x), math.sin(y), math.cos(x), math.cos(y)]
    expected += [math.sin(2 * x), math.sin(2 * y), math.cos(2 * x), math.cos(2 * y)]
    np.testing.assert_allclose(
        fourier.nerf_encoding([x, y], 2, convention="official"), expected, rtol=1e-15
    )


def test_nerf_frequency_limit():
    # mutant "nerf_encoding: frequency limit raised past float64": 2**1049 overflows.
    with pytest.raises(
        ValueError, match="n_frequencies must be at least 1 and at most 1000, got 1050"
    ):
        fourier.nerf_encoding([0.5], 1050)


def test_gaussian_matrix_sigma_is_a_standard_deviation_and_positive():
    # mutants "gaussian_matrix: sigma used as the variance", "sigma 0 accepted": with
    # sigma = 0.1, 40000 draws have a standard deviation within 2 % of 0.1 (not 0.01).
    draws = fourier.gaussian_matrix(200, 200, 0.1, np.random.default_rng(1))
    assert draws.shape == (200, 200)
    assert abs(draws.std() / 0.1 - 1) < 0.02 and abs(draws.mean()) < 0.002
    with pytest.raises(ValueError, match="sigma"):
        fourier.gaussian_matrix(2, 2, 0.0, np.random.default_rng(0))


def test_gaussian_features_and_log_spaced_matrix_hand_values():
    # mutants "gaussian_features: cosines first", "log_spaced_matrix: rows not axis-aligned":
    # B = [[1, 0], [0, 2]] at x = [1/8, 1/8]: phases 2 pi [1/8, 1/4] = [pi/4, pi/2].
    r2 = math.sqrt(2) / 2
    np.testing.assert_allclose(
        fourier.gaussian_features([0.125, 0.125], [[1.0, 0.0], [0.0, 2.0]]),
        [r2, 1.0, r2, 0.0],
        atol=1e-15,
    )
    # 2^linspace(0, 3, 2) - 1 = [0, 7] along each of 2 axes
    assert fourier.log_spaced_matrix(2, 2, 3.0).tolist() == [[0, 0], [7, 0], [0, 0], [0, 7]]


def test_psnr_hand_values():
    # mutant "psnr: mean absolute instead of mean squared error": errors 0.1 and 0.3 give
    # MSE 0.05, PSNR -10 log10(0.05) = 13.0103 dB.
    assert fourier.psnr([0.0, 0.0], [0.1, 0.3]) == pytest.approx(-10 * math.log10(0.05), rel=1e-14)
