"""One test per one-line bug that an adversarial audit showed the suite let through.

Each compares with an independent oracle (mpmath, a closed form or a hand value),
never with sinpe itself.
"""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

import sinpe
from sinpe.rope import apply_rope


def rope_reference(x, position, base, layout):
    """RoFormer's rotation in mpmath: pair i turned by position * base ** (-2i/d)."""
    width = len(x)
    out = [mpmath.mpf(0)] * width
    with mpmath.workdps(40):
        for i in range(width // 2):
            angle = position * mpmath.power(base, mpmath.mpf(-2 * i) / width)
            a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + width // 2)
            c, s = mpmath.cos(angle), mpmath.sin(angle)
            out[a] = x[a] * c - x[b] * s
            out[b] = x[a] * s + x[b] * c
    return np.array([float(v) for v in out])


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("base", [100.0, 500000.0])
def test_apply_rope_uses_its_base(base, layout):
    x = np.arange(1.0, 9.0)
    got = apply_rope(x, 3, base, layout=layout)
    np.testing.assert_allclose(got, rope_reference(x, 3, base, layout), atol=1e-13)
    assert np.abs(got - apply_rope(x, 3, layout=layout)).max() > 1e-3


@pytest.mark.parametrize("convention", ["tensor2tensor", "whisper", "hf-marian", "fairseq"])
def test_encode_honours_dtype_for_every_convention(convention):
    wide = sinpe.encode(np.arange(2, 40), 16, convention)
    narrow = sinpe.encode(np.arange(2, 40), 16, convention, dtype=np.float32)
    assert narrow.dtype == np.float32
    np.testing.assert_array_equal(narrow, wide.astype(np.float32))


def test_table_float16_keeps_sines_before_cosines():
    table = sinpe.table(5, 4, dtype=np.float16)
    # hand values at position 1: sin 1, cos 1, sin 0.01, cos 0.01
    expected = np.array([0.8414709848, 0.5403023059, 0.0099998333, 0.99995], np.float16)
    np.testing.assert_array_equal(table[1], expected)


def test_table_warns_when_its_last_position_is_unresolvable():
    with pytest.warns(sinpe.PrecisionWarning):
        sinpe.table(20, 8, start=2040, dtype=np.float16)  # ends at 2059 > 2048
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sinpe.table(8, 8, start=2040, dtype=np.float16)  # ends at 2047


def test_odd_width_message_offers_real_widths():
    with pytest.raises(ValueError, match=r"Use 2, or a named convention"):
        sinpe.positional_encoding(1, 1)
    with pytest.raises(ValueError, match=r"Use 6 or 8"):
        sinpe.positional_encoding(1, 7)
