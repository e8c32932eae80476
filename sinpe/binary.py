"""The binary encoding: positions written in bits, the discrete ancestor of the sinusoids.

Bit ``j`` flips every ``2**j`` positions, as pair ``i`` of the sinusoidal encoding
turns once every ``2 pi / omega_i`` positions, but in jumps. NumPy only.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sinpe._validation import POSITIONS, Integer, constrained

__all__ = [
    "binary_encoding",
]


@constrained(n_bits=Integer(1, 62, hint="such as 8"), positions=POSITIONS)
def binary_encoding(positions: npt.ArrayLike, n_bits: int) -> np.ndarray:
    """The binary counter as a position encoding: bit ``b`` of ``floor(p)``, as 0 or 1.

    The discrete ancestor of the sinusoidal encoding: low bits flip fast, high
    bits slowly, but every entry jumps, so the encoding is discontinuous in the
    position. Positions lie in ``[0, 2**n_bits)``, ``n_bits`` from 1 to 62; the
    result has shape ``np.shape(positions) + (n_bits,)``, bit 0 first.

    Examples
    --------
    5 is ``101`` in binary and 6 is ``110``:

    >>> import sinpe.binary as binary
    >>> binary.binary_encoding([5, 5.99, 6], 3).tolist()
    [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
    """
    where = np.asarray(positions)  # n_bits at most 62: the bits of an int64 without its sign bit
    if np.any(where < 0) or np.any(where >= 2.0**n_bits):
        raise ValueError(f"positions must lie in [0, 2**{n_bits}) for {n_bits} bits")
    whole = np.floor(where).astype(np.int64)
    return ((whole[..., np.newaxis] >> np.arange(int(n_bits))) & 1).astype(np.float64)
