"""The frequencies are correctly rounded, hence the same bits on every machine.

Oracle: mpmath at 200 bits, rounded to float64 exactly (through ``fractions``), with
the exponent taken as the exact rational ``2i / d``. A ``np.power`` implementation
fails here on CPUs whose SIMD ``pow`` is 1 ULP off (AVX-512: 4 of the 32 frequencies
at ``d_model = 64``), and the dispatch test below fails there too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sinpe
from sinpe import conventions

WIDTHS = [*range(2, 66, 2), 96, 100, 126, 128, 250, 256, 384, 500, 512, 768, 1000, 1024]
WIDE = [2048, 4096, 6002, 8192]
BASES = [100.0, 10000.0, 5e5, 0.5]


def nearest_double(base: float, numerator: int | float, denominator: int = 1) -> float:
    """The float64 nearest to ``base ** (numerator / denominator)``, via mpmath."""
    with mpmath.workprec(200):
        value = mpmath.power(mpmath.mpf(base), mpmath.mpf(numerator) / denominator)
        mantissa, exponent = value.man_exp
        exact = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    return float(exact)  # Fraction -> float rounds to nearest, ties to even


def expected_frequencies(d_model: int, base: float) -> np.ndarray:
    return np.array([nearest_double(base, -2 * i, d_model) for i in range(d_model // 2)])


@pytest.mark.parametrize("base", BASES)
def test_frequencies_are_correctly_rounded(base):
    for width in WIDTHS:
        got = sinpe.frequencies(width, base=base)
        np.testing.assert_array_equal(got, expected_frequencies(width, base), err_msg=f"{width}")


@pytest.mark.parametrize("width", WIDE)
def test_wide_frequencies_are_correctly_rounded(width):
    for base in (10000.0, 0.5):
        np.testing.assert_array_equal(
            sinpe.frequencies(width, base=base), expected_frequencies(width, base)
        )


@settings(max_examples=30, deadline=None)
@given(
    width=st.integers(1, 300).map(lambda half: 2 * half),
    base=st.floats(1.0001, 1e6) | st.floats(1e-3, 0.9999),
)
def test_any_width_and_base(width, base):
    np.testing.assert_array_equal(
        sinpe.frequencies(width, base=base), expected_frequencies(width, base)
    )


def test_the_old_power_formula_is_not_what_is_tested():
    # For widths that are not powers of two the float64 exponent -2i/d is itself
    # rounded; a correctly rounded pow of the rounded exponent can still be off.
    misses = 0
    for width in (100, 250, 500, 1000, 6002):
        exponents = -2.0 * np.arange(width // 2) / width
        rounded_exponent = np.array([nearest_double(10000.0, e) for e in exponents])
        misses += int(np.sum(rounded_exponent != expected_frequencies(width, 10000.0)))
    assert misses > 0  # so the rational exponent matters, and the tests above see it


def test_n_minus_one_spacing_is_correctly_rounded():
    # tensor2tensor's spacing: base ** (-k / (n - 1)), n = d / 2 frequencies.
    table = sinpe.encode(1.0, 200, "tensor2tensor")  # row at position 1: sin(w) first
    n = 100
    expected = np.array([nearest_double(10000.0, -k, n - 1) for k in range(n)])
    np.testing.assert_array_equal(np.arcsin(table[:n])[:10], np.arcsin(np.sin(expected))[:10])
    np.testing.assert_array_equal(conventions._spaced_frequencies(n, "n-1", 1e4, "x"), expected)


def test_component_divides_by_the_correctly_rounded_power():
    for index in range(8):
        pair = index // 2
        divisor = nearest_double(10000.0, 2 * pair, 8)
        trig = np.sin if index % 2 == 0 else np.cos
        assert sinpe.component(7.0, index, 8) == trig(7.0 / divisor)


def test_cached_frequencies_cannot_be_changed_by_a_caller():
    first = sinpe.frequencies(16)
    first[:] = 0.0
    assert sinpe.frequencies(16)[0] == 1.0


def test_extreme_bases_raise_instead_of_overflowing():
    with pytest.raises(ValueError, match="base"):
        sinpe.frequencies(1000, base=5e-324)  # 5e-324 ** (-998 / 1000) > 1.8e308


CHILD = """
import json, sys, numpy as np, sinpe
out = {}
for width in (64, 128, 512, 1000, 4096):
    for base in (100.0, 1e4, 5e5, 0.5):
        out[f"{width}/{base}"] = sinpe.frequencies(width, base=base).tobytes().hex()
out["wavelengths"] = sinpe.wavelengths(512).tobytes().hex()
out["t2t"] = sinpe.conventions._spaced_frequencies(256, "n-1", 1e4, "x").tobytes().hex()
json.dump(out, sys.stdout)
"""


def test_identical_at_numpy_baseline_dispatch(notebooks):
    groups = notebooks.dispatch_above_baseline()
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(groups)}
    runs = [
        subprocess.run([sys.executable, "-c", CHILD], env=environ, capture_output=True,
                       text=True, check=True).stdout
        for environ in (os.environ, env)
    ]  # fmt: skip
    native, baseline = (json.loads(run) for run in runs)
    assert native == baseline
    assert bytes.fromhex(native["64/10000.0"]) == sinpe.frequencies(64).tobytes()


def test_integer_and_large_rational_powers_are_correctly_rounded():
    from sinpe.core import _nearest_power

    # 94906267**2 = 9007199515875289 is odd and above 2**53: a tie, rounded to even
    assert _nearest_power(94906267.0, 2, 1) == 9007199515875288.0
    assert _nearest_power(2.0, 6, 1) == 64.0
    assert _nearest_power(2.0, 13, 4) == nearest_double(2.0, 13, 4)  # 2 ** 3.25
    assert _nearest_power(1e300, 2, 1) == float("inf")
