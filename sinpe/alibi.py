"""ALiBi (Press et al. 2022): a linear distance penalty instead of a position encoding.

Each head ``h`` adds ``-m_h * (i - j)`` to the attention score of query ``i``
for key ``j``. NumPy only.

Used in: chapter 6. :class:`sinpe.nn.TokenModel` with ``encoding="alibi"`` adds
:func:`alibi_bias` in every attention layer.
"""

from __future__ import annotations

import math

import numpy as np

from sinpe._schemes import AttentionScheme
from sinpe._validation import Integer, check_entries, constrained

__all__ = ["MAX_HEADS", "alibi_bias", "alibi_slopes"]

#: The most heads :func:`alibi_slopes` computes slopes for (models use 8 to 128).
MAX_HEADS = 65536

#: The rule of ``n_heads``.
_HEADS = Integer(1, MAX_HEADS, hint="such as 8 or 12")


def _power_of_two_slopes(n_heads: int) -> list[float]:
    start = 2 ** (-(2 ** -(math.log2(n_heads) - 3)))
    return [start * start**index for index in range(n_heads)]


@constrained(n_heads=_HEADS)
def alibi_slopes(n_heads: int) -> np.ndarray:
    """The head slopes exactly as ofirpress/attention_with_linear_biases computes them.

    For ``n`` a power of two, ``m_h = 2^(-8 (h + 1) / n)``, ``h = 0 .. n-1``;
    otherwise the slopes for the largest power of two ``c < n``, followed by
    the first ``n - c`` of every other slope of ``2c`` heads (those of
    ``h = 0, 2, 4, ...``), so the list is not monotone (issue #17 of that
    repository). The off-by-one ``2^(-8 h / n)`` (first slope 1) is a known
    bug elsewhere.

    Parameters
    ----------
    n_heads : int
        Number of attention heads, from 1 to :data:`MAX_HEADS`.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(n_heads,)``, the slope ``m_h`` of each head,
        all in ``(0, 1)``.

    Raises
    ------
    TypeError
        If ``n_heads`` is not an integer (booleans included).
    ValueError
        If ``n_heads`` is below 1 or above :data:`MAX_HEADS`.

    Examples
    --------
    Eight heads: ``2^(-8 (h + 1) / 8) = 2^-(h + 1)``, halving from 1/2:

    >>> from sinpe.alibi import alibi_slopes
    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]

    Three heads: those of two heads (``2^-4``, ``2^-8``), then the first slope of
    four heads (``2^-2``), so the list is not monotone:

    >>> alibi_slopes(3).tolist()
    [0.0625, 0.00390625, 0.25]

    Twelve heads end with the slopes ``2^-0.5, 2^-1.5, ...`` of sixteen heads:

    >>> alibi_slopes(12)[8:].round(10).tolist()
    [0.7071067812, 0.3535533906, 0.1767766953, 0.0883883476]
    """
    count = n_heads
    if math.log2(count).is_integer():
        return np.array(_power_of_two_slopes(count))
    closest = 2 ** math.floor(math.log2(count))
    extra = alibi_slopes(2 * closest)[0::2][: count - closest]
    return np.concatenate([_power_of_two_slopes(closest), extra])


@constrained(length=Integer(hint="such as 16 (the sequence length)"), n_heads=_HEADS)
def alibi_bias(n_heads: int, length: int) -> np.ndarray:
    """Bias ``-m_h |i - j|`` of shape ``(n_heads, length, length)`` for the attention scores.

    In a causal model only ``j <= i`` is used (the rest is masked), where this is
    ``-m_h (i - j)``, the form of the paper. Without a causal mask the bias is
    symmetric: a key ``|i - j|`` positions after the query is penalised as much
    as one before it.

    Parameters
    ----------
    n_heads : int
        Number of heads, from 1 to :data:`MAX_HEADS`; head ``h`` gets slope
        ``alibi_slopes(n_heads)[h]`` (:func:`alibi_slopes`).
    length : int
        Sequence length ``T`` (at least 1).

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(n_heads, length, length)``: entry ``[h, i, j]``
        is ``-m_h |i - j|``, to be added to the score of query ``i`` for key ``j``.
        The diagonal is ``-0.0``.

    Raises
    ------
    TypeError
        If ``n_heads`` is not an integer.
    ValueError
        If ``length`` is not a positive integer (a float such as ``3.0`` included),
        ``n_heads`` is out of range, or the result would exceed 2**31 entries.

    Examples
    --------
    >>> from sinpe.alibi import alibi_bias
    >>> (alibi_bias(1, 3)[0] * 256).tolist()   # one head: slope 1/256
    [[-0.0, -1.0, -2.0], [-1.0, -0.0, -1.0], [-2.0, -1.0, -0.0]]
    >>> alibi_bias(2, 2)[:, 1, 0].tolist()    # query 1, key 0: -2^-4 and -2^-8
    [-0.0625, -0.00390625]
    """
    heads = n_heads
    check_entries((heads, length, length), what="the bias")
    distance = np.abs(np.arange(length)[:, None] - np.arange(length)[None, :])
    return -alibi_slopes(n_heads)[:, None, None] * distance


#: What ``encoding="alibi"`` of :class:`sinpe.nn.TokenModel` does in every attention
#: layer: :func:`alibi_bias` added to the scores (found by ``sinpe._schemes``).
ATTENTION = AttentionScheme("ALiBi", year=2022, bias=alibi_bias)
