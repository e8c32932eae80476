"""sinpe.fourier.integer_features against its definition."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sinpe.fourier import integer_features


@given(st.floats(min_value=-1e3, max_value=1e3, allow_nan=False), st.integers(1, 12))
def test_definition_and_period(x, k):
    features = integer_features(x, k)
    expected = [f(n * x) for n in range(1, k + 1) for f in (math.sin, math.cos)]
    np.testing.assert_allclose(features, expected, atol=1e-12)
    np.testing.assert_allclose(integer_features(x + 2 * math.pi, k), features, atol=1e-9)


@pytest.mark.parametrize(
    ("x", "k", "error"),
    [
        (1.0, 0, ValueError),
        (1.0, 2.0, TypeError),
        (np.nan, 2, ValueError),
        ("a", 2, TypeError),
    ],
)
def test_bad_input(x, k, error):
    with pytest.raises(error):
        integer_features(x, k)
