"""The lower bound on RoPE's base for a context (Men et al., "Base of RoPE Bounds Context Length").

Men et al. (NeurIPS 2024, arXiv 2405.14591, section 4) ask that a query attend more,
in expectation, to a key similar to it (``k* = q + eps``) than to a random key, at every
offset ``m`` of the context. Their Theorem 1 (query and key entries independent and
identically distributed with standard deviation ``sigma``, ``eps`` of mean 0) turns the
expected gap into a sum over the head's pairs::

    (E[q^T R_m k*] - E[q^T R_m k]) / (2 sigma^2) = sum_i cos(m theta_i) = B_{m,theta}

(their Eq. 9; :func:`similarity_gap`). Their Eq. 10 is the context a ladder supports,
the largest ``L`` with ``B_{m,theta} >= 0`` for every ``m`` in ``0 .. L``
(:func:`context_bound`), and Eq. 11 the lower bound on the base for a context ``L``,
the infimum of the bases with that property (:func:`smallest_base`). There is no
closed form; the paper solves it numerically (its Table 2) and releases no code for it,
so these functions compute the definitions directly, in float64, at every integer
offset.

The set of good bases is not an interval: a base can pass while a larger one fails
(Su Jianlin's blog post of 2024-05-29, kexue.fm/archives/10122, which also reports tighter
values than the paper's), so :func:`smallest_base` answers at its grid's resolution.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sinpe._validation import (
    BASE,
    D_MODEL,
    POSITIONS,
    Integer,
    Real,
    check_float_array,
    constrained,
)
from sinpe.core import frequencies as _ladder

__all__ = ["MAX_CONTEXT", "MAX_SEARCHED_BASE", "context_bound", "similarity_gap", "smallest_base"]

#: Offsets evaluated at once (a block of ``_BLOCK x head_dim / 2`` cosines).
_BLOCK = 8192

#: Longest context :func:`smallest_base` and :func:`context_bound` scan: each base costs
#: up to ``context * head_dim / 2`` cosines (2**22 x 64 is about 3 s).
MAX_CONTEXT = 2**22

_CONTEXT = Integer(1, MAX_CONTEXT, hint="such as 8192 (the context, in tokens)")
#: Largest base :func:`smallest_base` tries (Table 2 of Men et al. ends at 5.1e8).
MAX_SEARCHED_BASE = 1e12

_RATIO = Real(1.0001, 2.0, hint="e.g. 1.01 (the grid's step between bases)")
_RTOL = Real(1e-12, 0.1, hint="e.g. 1e-4 (the bisection's relative tolerance)")
_LOW = Real(1.0, 1e11, closed="right", hint="e.g. 2.0 (the first base of the grid)")


def _gaps(offsets: npt.ArrayLike, theta: np.ndarray) -> np.ndarray:
    m = np.asarray(offsets, dtype=np.float64)  # checked by the caller's rule
    out = np.empty(m.shape)
    flat, into = m.ravel(), out.reshape(-1)
    for start in range(0, flat.size, _BLOCK):
        block = flat[start : start + _BLOCK]
        into[start : start + _BLOCK] = np.cos(np.multiply.outer(block, theta)).sum(axis=-1)
    return out


@constrained(offsets=POSITIONS, head_dim=D_MODEL, base=BASE)
def similarity_gap(
    offsets: npt.ArrayLike,
    head_dim: int,
    *,
    base: float = 10000.0,
    frequencies: npt.ArrayLike | None = None,
) -> np.ndarray:
    """``B_{m,theta} = sum_i cos(m theta_i)`` at each offset ``m`` (Men et al., Eq. 9).

    The expected attention a query gives a similar key minus that it gives a random
    key, over ``2 sigma^2``, under their Theorem 1's assumptions (module docstring).
    ``head_dim / 2`` at ``m = 0``; ``theta_i = base ** (-2 i / head_dim)``.

    Parameters
    ----------
    offsets : array_like of real
        Relative distances ``m`` (any shape).
    head_dim : int
        The rotated width of one head (even): ``head_dim / 2`` pairs.
    base : float, optional
    frequencies : array_like of real, shape (head_dim / 2,), optional
        Custom ``theta_i`` (a scaled ladder, a config's ``inv_freq``; a pair that
        does not turn has 0 and adds 1 at every offset); ``base`` is then unused.

    Returns
    -------
    numpy.ndarray
        float64, the shape of ``offsets``.

    Examples
    --------
    >>> from sinpe.base_bound import similarity_gap
    >>> similarity_gap([0, 1], 2).round(4).tolist()   # one pair: cos(m)
    [1.0, 0.5403]
    """
    if frequencies is None:
        return _gaps(offsets, _ladder(head_dim, base=base))
    theta = check_float_array(frequencies, "frequencies", ndim=1)
    if theta.shape != (head_dim // 2,):
        raise ValueError(
            f"frequencies must hold one theta per pair ({head_dim // 2} for head_dim="
            f"{head_dim}), got shape {theta.shape}"
        )
    return _gaps(offsets, theta.astype(np.float64))


def _first_negative(theta: np.ndarray, limit: int) -> int | None:
    """The first integer offset in ``0 .. limit`` with a negative gap, or ``None``."""
    start, size = 0, 64  # small blocks first: a poor base fails early
    while start <= limit:
        block = np.arange(start, min(start + size, limit + 1), dtype=np.float64)
        negative = np.flatnonzero(np.cos(np.multiply.outer(block, theta)).sum(axis=-1) < 0)
        if negative.size:
            return start + int(negative[0])
        start, size = start + size, min(2 * size, _BLOCK)
    return None


@constrained(head_dim=D_MODEL, base=BASE, limit=_CONTEXT)
def context_bound(head_dim: int, *, base: float = 10000.0, limit: int = 2**20) -> int | None:
    """The context a ladder supports, ``L_theta`` (Men et al., Eq. 10).

    The largest ``L`` with ``B_{m,theta} >= 0`` (:func:`similarity_gap`) at every integer
    offset ``m`` in ``0 .. L``, or ``None`` when no offset up to ``limit`` (at most
    :data:`MAX_CONTEXT`) has a negative gap.

    Examples
    --------
    >>> from sinpe.base_bound import context_bound
    >>> context_bound(2)    # cos(1) > 0 > cos(2)
    1
    >>> context_bound(128, base=10000.0)   # Llama 2's base and head: below 2048
    1706
    """
    first = _first_negative(_ladder(head_dim, base=base), limit)
    return None if first is None else first - 1


@constrained(context=_CONTEXT, head_dim=D_MODEL, ratio=_RATIO, rtol=_RTOL, low=_LOW)
def smallest_base(
    context: int, head_dim: int, *, ratio: float = 1.01, rtol: float = 1e-4, low: float = 2.0
) -> float:
    """The lower bound on the base for ``context`` tokens, ``base_L`` (Men et al., Eq. 11).

    The smallest base whose gap ``B_{m,theta}`` is ``>= 0`` at every integer offset ``m``
    in ``0 .. context``, searched on the geometric grid ``low, low * ratio, ...`` up to
    :data:`MAX_SEARCHED_BASE`: the first grid base that passes, refined by bisection
    against the grid base before it to a relative ``rtol``. The good bases are not an
    interval (module docstring): a good base between two grid points that both fail is
    missed, so the answer is the smallest at the grid's resolution. ``ValueError`` when
    no base of the grid passes (a head of one pair fails at ``m = 2`` whatever its base).

    Parameters
    ----------
    context : int
        The context ``L``, in tokens (at most :data:`MAX_CONTEXT`).
    head_dim : int
        The rotated width of one head (even).
    ratio : float, optional
        The step of the grid, in ``[1.0001, 2]``.
    rtol : float, optional
        The relative width of the final bracket, in ``[1e-12, 0.1]``.
    low : float, optional
        The first base of the grid, above 1 (at most 1e11).

    Returns
    -------
    float
        A base that passes, within ``rtol`` of a base that fails.

    Examples
    --------
    >>> from sinpe.base_bound import context_bound, smallest_base
    >>> found = smallest_base(1024, 128)
    >>> round(found, -2), context_bound(128, base=found, limit=1024)
    (4300.0, None)
    """
    # The ladder of base a * b is the ladder of a times that of b, entry by entry: the
    # grid's ladders are ladder(low) * ladder(ratio) ** k, a midpoint's the geometric
    # mean of two (no new power to round: equal to sinpe.frequencies within a few ulps).
    start, step = _ladder(head_dim, base=low), _ladder(head_dim, base=ratio)
    steps = math.ceil(math.log(MAX_SEARCHED_BASE / low) / math.log(ratio))
    failed = None
    for k in range(steps + 1):
        ladder = start * step**k
        if _first_negative(ladder, context) is None:
            good, good_ladder = low * ratio**k, ladder
            break
        failed, failed_ladder = low * ratio**k, ladder
    else:
        raise ValueError(
            f"no base from {low:g} to {MAX_SEARCHED_BASE:g} keeps B_m >= 0 up to "
            f"context={context} at head_dim={head_dim}: a head of one pair fails at m = 2 "
            f"whatever its base; pass a wider head or a shorter context"
        )
    if failed is None:
        return good
    while good / failed - 1 > rtol:
        middle, middle_ladder = math.sqrt(failed * good), np.sqrt(failed_ladder * good_ladder)
        if _first_negative(middle_ladder, context) is None:
            good, good_ladder = middle, middle_ladder
        else:
            failed, failed_ladder = middle, middle_ladder
    return good
