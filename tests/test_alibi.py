"""sinpe.alibi against golden values and the reference rule of Press et al. (2022)."""

from __future__ import annotations

import numpy as np
import pytest

from sinpe.alibi import alibi_bias, alibi_slopes


def test_alibi_golden_and_reference_rule():
    np.testing.assert_allclose(alibi_slopes(8), [2.0**-k for k in range(1, 9)])
    np.testing.assert_allclose(alibi_slopes(12)[:8], alibi_slopes(8))
    np.testing.assert_allclose(
        alibi_slopes(12)[8:], [0.7071067812, 0.3535533906, 0.1767766953, 0.0883883476], atol=1e-10
    )
    for n in (1, 2, 4, 16, 32):
        np.testing.assert_allclose(alibi_slopes(n), [2 ** (-8 * (h + 1) / n) for h in range(n)])
    assert alibi_slopes(12)[0] != 1.0  # not the off-by-one 2^(-8h/n)
    bias = alibi_bias(4, 5)
    assert bias.shape == (4, 5, 5)
    assert bias[1, 4, 1] == pytest.approx(-alibi_slopes(4)[1] * 3)
    with pytest.raises(ValueError):
        alibi_slopes(0)
