"""sinpe.binary: positions written in bits, against counting."""

from __future__ import annotations

import numpy as np
import pytest

from sinpe import binary


def test_binary_encoding_counts_and_jumps():
    bits = binary.binary_encoding(np.arange(8), 3)
    np.testing.assert_array_equal(bits @ [1, 2, 4], np.arange(8))
    before, after = binary.binary_encoding([3.999999, 4.0], 3)
    assert np.abs(after - before).sum() == 3  # 011 -> 100: every bit flips
    with pytest.raises(ValueError, match="positions must lie"):
        binary.binary_encoding([8], 3)
