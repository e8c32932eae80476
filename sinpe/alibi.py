"""ALiBi (Press et al. 2022): a linear distance penalty instead of a position encoding.

Each head ``h`` adds ``-m_h * (i - j)`` to the attention score of query ``i``
for key ``j``. NumPy only.

:class:`sinpe.lab.nn.TokenModel` with ``encoding="alibi"`` adds
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
    """The head slopes ``(n_heads,)`` exactly as ofirpress/attention_with_linear_biases has them.

    For ``n`` a power of two, ``m_h = 2^(-8 (h + 1) / n)``, ``h = 0 .. n-1``;
    otherwise the slopes for the largest power of two ``c < n``, followed by
    the first ``n - c`` of every other slope of ``2c`` heads, so the list is not
    monotone (issue #17 of that repository). All in ``(0, 1)``; ``n_heads`` is at
    most :data:`MAX_HEADS`. The off-by-one ``2^(-8 h / n)`` (first slope 1) is a
    known bug elsewhere.

    Examples
    --------
    >>> from sinpe.alibi import alibi_slopes
    >>> alibi_slopes(8).tolist()   # 2^-(h + 1)
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> alibi_slopes(3).tolist()   # two heads' 2^-4, 2^-8, then four heads' first
    [0.0625, 0.00390625, 0.25]
    """
    if math.log2(n_heads).is_integer():
        return np.array(_power_of_two_slopes(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    extra = alibi_slopes(2 * closest)[0::2][: n_heads - closest]
    return np.concatenate([_power_of_two_slopes(closest), extra])


@constrained(length=Integer(hint="such as 16 (the sequence length)"), n_heads=_HEADS)
def alibi_bias(n_heads: int, length: int) -> np.ndarray:
    """Bias ``-m_h |i - j|`` of shape ``(n_heads, length, length)`` for the attention scores.

    Entry ``[h, i, j]`` is added to the score of query ``i`` for key ``j``, with
    ``m_h`` from :func:`alibi_slopes`; the diagonal is ``-0.0``. A causal model
    uses only ``j <= i``, where this is the paper's ``-m_h (i - j)``; without a
    causal mask the bias is symmetric.

    Examples
    --------
    >>> from sinpe.alibi import alibi_bias
    >>> (alibi_bias(1, 3)[0] * 256).tolist()   # one head: slope 1/256
    [[-0.0, -1.0, -2.0], [-1.0, -0.0, -1.0], [-2.0, -1.0, -0.0]]
    """
    check_entries((n_heads, length, length), what="the bias")
    distance = np.abs(np.arange(length)[:, None] - np.arange(length)[None, :])
    return -alibi_slopes(n_heads)[:, None, None] * distance


#: What ``encoding="alibi"`` of :class:`sinpe.lab.nn.TokenModel` does in every attention
#: layer: :func:`alibi_bias` added to the scores (found by ``sinpe._schemes``).
ATTENTION = AttentionScheme("ALiBi", year=2022, bias=alibi_bias)
