"""Accuracy of positional_encoding against mpmath at 50 digits.

The bound is the one stated in the docstring of ``sinpe.positional_encoding``:
``eps * (1 + (2 + |ln base|) * |p| * w_i)`` with ``eps = 2**-52``.
"""

from __future__ import annotations

import math
import re

import mpmath
import numpy as np
import pytest

import sinpe

EPS = 2.0**-52


@pytest.mark.parametrize(
    ("d_model", "base"), [(8, 10000.0), (64, 10000.0), (512, 10000.0), (32, 500.0), (16, 1e6)]
)
def test_error_bound_against_mpmath(d_model, base):
    rng = np.random.default_rng(d_model)
    ps = np.concatenate([rng.uniform(-1e6, 1e6, 12), rng.integers(0, 10**6, 12)])
    table = sinpe.positional_encoding(ps, d_model, base=base)
    with mpmath.workdps(50):
        for row, p in zip(table, ps, strict=True):
            for i in range(d_model // 2):
                w = mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / d_model)
                phase = mpmath.mpf(float(p)) * w
                bound = EPS * (1 + (2 + abs(math.log(base))) * abs(p) * float(w))
                assert abs(float(mpmath.sin(phase) - row[2 * i])) <= bound
                assert abs(float(mpmath.cos(phase) - row[2 * i + 1])) <= bound


def test_docstring_states_the_bound_that_is_tested():
    doc = " ".join(sinpe.positional_encoding.__doc__.split())
    assert "eps * (1 + (2 + |ln base|) * |p| * w_i)" in doc
    stated = float(re.search(r"the bound is below ``([0-9.e-]+)``", doc).group(1))
    assert EPS * (1 + (2 + math.log(10000.0)) * 1e6) <= stated


@pytest.mark.parametrize("start", [0.0, -1000.5, 123_456.0, 999_000.0])
def test_fast_table_error_bound_against_mpmath(start):
    d_model, block = 64, sinpe.TABLE_BLOCK
    fast = sinpe.table(3 * block + 5, d_model, start=start)
    rng = np.random.default_rng(int(abs(start)))
    with mpmath.workdps(50):
        for row in rng.integers(0, fast.shape[0], 12):
            p = start + int(row)
            for i in range(d_model // 2):
                w = mpmath.power(10000, mpmath.mpf(-2 * i) / d_model)
                phase = mpmath.mpf(p) * w
                bound = EPS * (8 + 2 * (2 + math.log(10000.0)) * (abs(p) + block) * float(w))
                assert abs(float(mpmath.sin(phase) - fast[row, 2 * i])) <= bound
                assert abs(float(mpmath.cos(phase) - fast[row, 2 * i + 1])) <= bound


@pytest.mark.parametrize(
    ("length", "layout", "dtype"),
    [
        (0, "interleaved", np.float64),
        (1, "concat", np.float64),
        (63, "interleaved", np.float32),
        (64, "concat", np.float32),
        (1000, "interleaved", np.float64),
    ],
)
def test_fast_table_matches_direct_evaluation(length, layout, dtype):
    fast = sinpe.table(length, 16, base=500.0, start=7.0, layout=layout, dtype=dtype)
    direct = sinpe.positional_encoding(7.0 + np.arange(length), 16, base=500.0, layout=layout)
    assert fast.shape == (length, 16) and fast.dtype == dtype
    np.testing.assert_allclose(fast, direct, atol=1e-12 if dtype == np.float64 else 1e-7)


def test_fast_table_bad_input():
    with pytest.raises(ValueError, match="length"):
        sinpe.table(-1, 8)
    with pytest.raises(ValueError, match="start must be a finite number"):
        sinpe.table(4, 8, start=np.inf)
    with pytest.raises(ValueError, match="must be even"):
        sinpe.table(4, 7)
