"""sinpe.numerics: low precision, reference values and ULPs, against closed forms and
mpmath."""

from __future__ import annotations

import math

import numpy as np
import pytest

import sinpe
from sinpe import geometry, numerics


def test_to_bfloat16_rounds_to_eight_significant_bits():
    values = np.array([1.0, 1 + 2**-7, 1 + 2**-8, 1 + 3 * 2**-9, -2.5, 1e38], dtype=np.float32)
    rounded = numerics.to_bfloat16(values)
    np.testing.assert_array_equal(rounded[:5], [1.0, 1 + 2**-7, 1.0, 1 + 2**-7, -2.5])
    mantissa_bits = rounded.view(np.uint32) & 0xFFFF
    assert np.all(mantissa_bits == 0)


def test_reference_and_ulp_error():
    reference = numerics.reference_encoding([0.0, 1.0, 12345.0], 8)
    np.testing.assert_allclose(
        reference, sinpe.positional_encoding([0.0, 1.0, 12345.0], 8), atol=1e-12
    )
    assert numerics.ulp_error([2.0], [2.0]).tolist() == [0.0]
    assert numerics.ulp_error([0.5 + 2**-53], [0.5]).tolist() == [1.0]


def test_computed_in_low_precision_drifts_and_cast_does_not():
    positions = np.arange(9_990, 10_010)
    exact = sinpe.positional_encoding(positions, 64)
    drift = np.abs(numerics.computed_in(positions, 64, "float32") - exact).max()
    cast = np.abs(exact.astype(np.float32) - exact).max()
    assert drift > 1e-5 > 1e-7 > cast
    assert np.array_equal(numerics.computed_in(positions, 64, "float64"), exact)
    with pytest.raises(ValueError, match="cannot represent position 100000"):
        numerics.computed_in([100_000], 8, "float16")
    with pytest.raises(ValueError, match="precision"):
        numerics.computed_in([1], 8, "int8")


def test_linear_map_residual_exact_and_not():
    table = sinpe.positional_encoding(np.arange(100), 16)
    assert geometry.linear_map_residual(table[:-5], table[5:]) < 1e-12
    sines = table[:, 0::2]
    assert geometry.linear_map_residual(sines[:-5], sines[5:]) > 0.01


def test_low_precision_frequencies_follow_their_recipe():
    exact = sinpe.frequencies(512)
    rounded = numerics.low_precision_frequencies(512, "float32")
    np.testing.assert_array_equal(rounded, exact.astype(np.float32).astype(np.float64))
    spacing = np.spacing(exact.astype(np.float32)).astype(np.float64)
    for recipe in ("exp", "pow"):
        low = numerics.low_precision_frequencies(512, "float32", recipe=recipe)
        assert low.dtype == np.float64 and low[0] == 1.0
        # a handful of float32 roundings: within a few float32 ULPs, rarely exact
        assert np.all(np.abs(low - exact) <= 8 * spacing * (1 + np.arange(256) / 16))
    exp_recipe = numerics.low_precision_frequencies(512, "float32", recipe="exp")
    assert np.sum(exp_recipe != rounded) > 10  # the exponent's rounding shows
    bf16 = numerics.low_precision_frequencies(8, "bfloat16")
    np.testing.assert_array_equal(bf16, [1.0, 0.10009765625, 0.010009765625, 0.00099945068359375])
    with pytest.raises(ValueError, match="recipe"):
        numerics.low_precision_frequencies(8, "float32", recipe="log")
    with pytest.raises(ValueError, match="precision"):
        numerics.low_precision_frequencies(8, "float64")


def test_correct_digits():
    assert numerics.correct_digits([1.0], [1.0]) == math.inf
    assert numerics.correct_digits([0.0, 1.0], [0.001, 1.0]) == pytest.approx(3.0)


def test_the_recurrence_ladder_is_one_product_per_rung_and_leaves_the_allowance():
    # issue 40: chapter 7's allowance (2 + ln C) eps holds for a power computed
    # directly, not for w_(i+1) = w_i * w_1; re-typed as a plain loop of float products
    exact = sinpe.frequencies(4096)
    rungs = [1.0]
    for _ in range(2047):
        rungs.append(rungs[-1] * float(exact[1]))
    ladder = numerics.recurrence_frequencies(4096)
    np.testing.assert_array_equal(ladder, rungs)
    eps = np.finfo(np.float64).eps
    allowance = 2 + math.log(10000.0)
    relative = np.abs(ladder - exact) / exact / eps
    assert relative.max() > 10 * allowance  # 423 eps: far outside
    assert relative.max() <= 2047  # at most about one eps per rung
    direct = 10000.0 ** (-np.arange(0, 4096, 2) / 4096)  # a power computed directly
    assert np.max(np.abs(direct - exact) / exact) / eps <= allowance
    np.testing.assert_array_equal(numerics.recurrence_frequencies(2), [1.0])
    with pytest.raises(ValueError, match="even"):
        numerics.recurrence_frequencies(7)
    with pytest.raises(ValueError, match="base"):
        numerics.recurrence_frequencies(8, base=1.0)
