"""Unit and property tests of the core encoding against independent references."""

from __future__ import annotations

import math
import re

import golden
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sinpe

# Published digits of the worked vector (d = 8, pos = 1), as the explainer article prints them.
PUBLISHED_WORKED_VECTOR = [
    "0.841",
    "0.540",
    "0.0998",
    "0.995",
    "0.0100",
    "0.99995",
    "0.0010",
    "0.9999995",
]

even_widths = st.integers(min_value=1, max_value=64).map(lambda n: 2 * n)
positions = st.floats(min_value=-1e4, max_value=1e4, allow_nan=False)
bases = st.floats(min_value=1.5, max_value=1e6)


def test_worked_vector_matches_published_digits():
    table = sinpe.positional_encoding(1, 8)
    for value, printed in zip(table, PUBLISHED_WORKED_VECTOR, strict=True):
        decimals = len(printed.split(".")[1])
        assert f"{value:.{decimals}f}" == printed


@pytest.mark.parametrize(
    ("layout", "expected"),
    [("interleaved", golden.PAPER_INTERLEAVED), ("concat", golden.PAPER_CONCAT)],
)
def test_golden_values(layout, expected):
    np.testing.assert_allclose(
        sinpe.positional_encoding(1, 8, layout=layout), expected, atol=5e-11, rtol=0
    )


def test_frequencies_of_worked_vector_are_powers_of_ten():
    np.testing.assert_allclose(sinpe.frequencies(8), [1.0, 0.1, 0.01, 0.001], rtol=1e-15)
    np.testing.assert_allclose(
        sinpe.wavelengths(8), 2 * np.pi * np.array([1, 10, 100, 1000]), rtol=1e-15
    )


def test_longest_wavelength_is_short_of_two_pi_base():
    # Paper prose: "up to 2*pi*10000"; the formula gives 2*pi*10000**((d-2)/d).
    longest = sinpe.wavelengths(512)[-1]
    assert longest == pytest.approx(2 * math.pi * 10000 ** (510 / 512), rel=1e-14)
    assert longest < 2 * math.pi * 10000 * 0.97


def test_component_formula_matches_table_in_both_indexings():
    ps = np.array([-3.5, 0.0, 1.0, 17.25, 1e5])
    table = sinpe.positional_encoding(ps, 12, base=500.0)
    for j in range(12):
        zero = sinpe.component(ps, j, 12, base=500.0, first_index=0)
        one = sinpe.component(ps, j + 1, 12, base=500.0, first_index=1)
        np.testing.assert_allclose(zero, table[:, j], atol=1e-10)
        np.testing.assert_array_equal(zero, one)


def test_component_uses_the_scalar_formula():
    # [pe(pos)]_{2i-1} = sin(pos / C^(2(i-1)/d)), i = 3, d = 10, C = 7, pos = 2.5
    assert sinpe.component(2.5, 5, 10, base=7.0, first_index=1) == pytest.approx(
        math.sin(2.5 / 7.0 ** (4 / 10)), rel=1e-15
    )
    assert sinpe.component(2.5, 6, 10, base=7.0, first_index=1) == pytest.approx(
        math.cos(2.5 / 7.0 ** (4 / 10)), rel=1e-15
    )


@given(even_widths, positions, bases)
def test_values_bounded_and_norm_is_half_width(d, p, base):
    row = sinpe.positional_encoding(p, d, base=base)
    assert np.all(np.abs(row) <= 1.0)
    assert float(row @ row) == pytest.approx(d / 2, rel=1e-12)


@given(even_widths, positions, positions)
def test_dot_product_depends_on_offset_only(d, p, q):
    dot = sinpe.positional_encoding(p, d) @ sinpe.positional_encoding(q, d)
    # Independent formula: sum_i cos((p - q) w_i) with w_i = 10000^(-2i/d) from math.
    expected = math.fsum(math.cos((p - q) * 10000.0 ** (-2 * i / d)) for i in range(d // 2))
    assert dot == pytest.approx(expected, abs=1e-9 * d)


def test_dot_product_golden():
    dot = sinpe.positional_encoding(1, 8) @ sinpe.positional_encoding(2, 8)
    assert dot == pytest.approx(3.5352559716, abs=1e-10)


@settings(max_examples=50)
@given(
    even_widths,
    st.sampled_from(sinpe.LAYOUTS),
    positions,
    st.floats(min_value=-500, max_value=500, allow_nan=False),
)
def test_shift_matrix_moves_positions(d, layout, p, k):
    shifted = sinpe.shift_matrix(k, d, layout=layout) @ sinpe.positional_encoding(
        p, d, layout=layout
    )
    np.testing.assert_allclose(
        shifted, sinpe.positional_encoding(p + k, d, layout=layout), atol=1e-9
    )


@settings(max_examples=50)
@given(
    even_widths,
    st.sampled_from(sinpe.LAYOUTS),
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False),
    st.floats(min_value=-1e3, max_value=1e3, allow_nan=False),
)
def test_shift_matrices_form_a_group_of_rotations(d, layout, j, k):
    mj = sinpe.shift_matrix(j, d, layout=layout)
    mk = sinpe.shift_matrix(k, d, layout=layout)
    np.testing.assert_allclose(mj @ mk, sinpe.shift_matrix(j + k, d, layout=layout), atol=1e-9)
    np.testing.assert_allclose(mk @ mk.T, np.eye(d), atol=1e-12)
    np.testing.assert_allclose(sinpe.shift_matrix(-k, d, layout=layout), mk.T, atol=0)
    assert np.linalg.det(mk) == pytest.approx(1.0, abs=1e-9)


def test_shift_matrix_block_is_the_published_rotation():
    # Seed 002: [[cos phi, sin phi], [-sin phi, cos phi]] with phi = k * freq_i.
    m = sinpe.shift_matrix(2.0, 8)
    phi = 2.0 * 0.1
    np.testing.assert_allclose(
        m[2:4, 2:4], [[math.cos(phi), math.sin(phi)], [-math.sin(phi), math.cos(phi)]], rtol=1e-14
    )
    assert np.count_nonzero(m) == 4 * 4
    np.testing.assert_array_equal(sinpe.shift_matrix(0, 8), np.eye(8))


@given(even_widths, st.sampled_from(sinpe.LAYOUTS), st.sampled_from(sinpe.LAYOUTS))
def test_layout_round_trips(d, source, target):
    table = sinpe.positional_encoding(np.arange(7.0), d, layout=source)
    there = sinpe.convert_layout(table, source, target)
    np.testing.assert_array_equal(
        there, sinpe.positional_encoding(np.arange(7.0), d, layout=target)
    )
    np.testing.assert_array_equal(sinpe.convert_layout(there, target, source), table)


def test_shapes_follow_positions():
    assert sinpe.positional_encoding(3, 4).shape == (4,)
    assert sinpe.positional_encoding(np.zeros((2, 5)), 6).shape == (2, 5, 6)
    assert sinpe.positional_encoding([], 6).shape == (0, 6)


def test_negative_and_fractional_positions():
    # sin is odd, cos even: PE(-p) flips the sines only.
    plus, minus = sinpe.positional_encoding([2.5, -2.5], 6)
    np.testing.assert_array_equal(minus[0::2], -plus[0::2])
    np.testing.assert_array_equal(minus[1::2], plus[1::2])


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_cast_only_at_the_end(dtype):
    ps = np.arange(0, 2000, 7)
    low = sinpe.positional_encoding(ps, 64, dtype=dtype)
    assert low.dtype == dtype
    np.testing.assert_array_equal(low, sinpe.positional_encoding(ps, 64).astype(dtype))


def test_float16_warns_when_phase_unresolvable():
    with pytest.warns(sinpe.PrecisionWarning, match="float16 cannot resolve the phase"):
        sinpe.positional_encoding([10, 5000], 8, dtype=np.float16)
    sinpe.positional_encoding(2048, 8, dtype=np.float16)  # no warning (filterwarnings=error)


def test_add_positional_encoding_scales_then_adds():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 8))
    out = sinpe.add_positional_encoding(x, start=3)
    np.testing.assert_allclose(
        out, x * math.sqrt(8) + sinpe.positional_encoding(np.arange(3, 8), 8), rtol=1e-15
    )
    np.testing.assert_allclose(
        sinpe.add_positional_encoding(x, scale=False),
        x + sinpe.positional_encoding(np.arange(5), 8),
        rtol=1e-15,
    )
    assert sinpe.add_positional_encoding(x.astype(np.float32)).dtype == np.float32


def test_precomputed_table_rows_equal_direct_evaluation():
    table = sinpe.positional_encoding(np.arange(512), 64)
    np.testing.assert_array_equal(table[300], sinpe.positional_encoding(300, 64))


# Survivors of the mutmut breadth run over sinpe/core.py (tests/mutmut_triage.md). The
# public functions are decorated, and mutmut 3.3.1 does not mutate decorated functions, so
# its mutants are those of the undecorated `_nearest_power` and `_rational_powers`; these
# pin the kernel `_nearest_power` directly.
# Golden values are exact integer arithmetic: an odd integer of 54 bits lies halfway
# between two float64s, and int -> float conversion rounds that tie to even.


@pytest.mark.parametrize(("root", "power"), [(208069, 3), (94906297, 2)])
def test_integer_power_ties_round_to_even_exactly(root, power):
    from sinpe.core import _nearest_power

    exact = root**power
    assert exact % 2 == 1 and 2**53 < exact < 2**54  # a tie between two float64s
    assert float(root) ** float(power) != float(exact)  # the libm power misrounds it
    assert _nearest_power(float(root), power, 1) == float(exact)


@pytest.mark.parametrize(
    ("base", "printed"),
    [(208065.0**2, "43291044225.0"), (208065.0**2 / 2**36, "0.6299676057096804")],
    ids=["above-1", "below-1"],
)
def test_an_exact_tie_of_a_fractional_power_gives_up(base, printed):
    # base ** (3/2) = 208065**3 (times 2**-54 in the second case: a value below 1, so
    # the slack's 2 |int(exponent)| term is 0): an odd integer of 54 bits, an exact tie.
    # No precision places it strictly inside one rounding interval, so the doubling must
    # stop (past 4000 digits) and raise.
    from sinpe.core import _nearest_power

    assert 2**53 < 208065**3 < 2**54 and 208065**3 % 2 == 1
    with pytest.raises(ArithmeticError, match=re.escape(f"cannot round {printed} ** (3/2)")):
        _nearest_power(base, 3, 2)


def test_fractional_powers_overflow_to_inf_and_underflow_to_zero():
    from sinpe.core import _nearest_power

    assert _nearest_power(1e300, 3, 2) == math.inf  # 1e450
    assert _nearest_power(1e-300, 3, 2) == 0.0  # 1e-450


def test_powers_ignore_the_callers_and_the_default_decimal_context(monkeypatch):
    import decimal

    from sinpe.core import _nearest_power

    # new contexts (threads, Context() fields left None) copy decimal.DefaultContext
    monkeypatch.setattr(decimal.DefaultContext, "prec", 3)
    monkeypatch.setitem(decimal.DefaultContext.traps, decimal.Inexact, True)
    with decimal.localcontext(prec=3, rounding=decimal.ROUND_FLOOR) as context:
        context.traps[decimal.Inexact] = True
        assert _nearest_power(2.0, 1, 2) == math.sqrt(2.0)  # IEEE sqrt is correctly rounded
        assert _nearest_power(10000.0, -1, 4) == 0.1
