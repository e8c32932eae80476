"""Periodic features: the sines and cosines of integer multiples of an input.

NumPy only. :func:`integer_features` is the map of the textbook remark that
whatever network follows it, the result is ``2 pi``-periodic.
"""

from __future__ import annotations

import numbers

import numpy as np
import numpy.typing as npt

from sinpe._validation import check_real_array

__all__ = ["integer_features"]


def integer_features(x: npt.ArrayLike, k: int) -> np.ndarray:
    """``[sin x, cos x, sin 2x, cos 2x, ..., sin kx, cos kx]`` on a new last axis.

    Every feature is ``2 pi``-periodic in ``x``, so any function of these
    features is too.

    Parameters
    ----------
    x : array_like of real
        Finite inputs (angles, in radians).
    k : int
        Highest multiple; the output has ``2 k`` features.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``np.shape(x) + (2 k,)``.

    Raises
    ------
    TypeError
        If ``x`` is not real or ``k`` not an integer.
    ValueError
        If ``x`` has NaN or infinite entries or ``k < 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.fourier import integer_features
    >>> integer_features(np.pi / 2, 2).round(12).tolist()
    [1.0, 0.0, 0.0, -1.0]
    >>> integer_features([0.0, 1.0, 2.0], 3).shape
    (3, 6)
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    angles = check_real_array(x, name="x")
    multiples = np.arange(1, int(k) + 1, dtype=np.float64)
    phases = angles[..., np.newaxis] * multiples  # (..., k)
    features = np.empty((*angles.shape, 2 * int(k)))
    features[..., 0::2] = np.sin(phases)
    features[..., 1::2] = np.cos(phases)
    return features
