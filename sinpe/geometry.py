"""The geometry of the encoding: similarity and distance by offset, aliasing, planes.

Each function is the closed form of a quantity the book plots, so the figures
and the tests share one implementation; :mod:`sinpe.checkpoint.tables` uses it too.
``d_model`` and ``base`` are those of :func:`sinpe.positional_encoding`
(``d_model`` positive and even, ``base`` the constant ``C``). NumPy only.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sinpe._validation import (
    BASE,
    D_MODEL,
    POSITIONS,
    Integer,
    check_entries,
    check_phases,
    check_real_array,
    constrained,
)
from sinpe.core import frequencies

__all__ = [
    "Aliasing",
    "aliasing",
    "dimension_ranges",
    "distance_by_offset",
    "dot_product_by_offset",
    "linear_map_residual",
    "nearest_distinct_position",
    "principal_plane",
]


@constrained(offsets=POSITIONS, d_model=D_MODEL, base=BASE)
def dot_product_by_offset(
    offsets: npt.ArrayLike, d_model: int, *, base: float = 10000.0
) -> np.ndarray:
    """``PE(p) . PE(p + delta) = sum_i cos(delta * w_i)``, a function of the offset alone.

    Even in ``delta = q - p``, and ``d_model / 2`` at offset 0; same shape as
    ``offsets``.

    Examples
    --------
    At offset 1 the sum is ``cos 1 + cos 0.1 + cos 0.01 + cos 0.001`` (``d_model = 8``):

    >>> import sinpe.geometry as geometry
    >>> geometry.dot_product_by_offset([0, 1, -1], 8).round(10).tolist()
    [4.0, 3.5352559716, 3.5352559716]
    """
    with np.errstate(over="ignore"):
        phases = np.asarray(offsets)[..., np.newaxis] * frequencies(d_model, base=base)
    check_phases(phases)
    return np.cos(phases).sum(axis=-1)


@constrained(offsets=POSITIONS, d_model=D_MODEL, base=BASE)
def distance_by_offset(
    offsets: npt.ArrayLike, d_model: int, *, base: float = 10000.0
) -> np.ndarray:
    """Euclidean distance ``|PE(p + delta) - PE(p)|`` (the same for every ``p``).

    As :func:`dot_product_by_offset`, through
    ``|PE(p + delta) - PE(p)|^2 = d - 2 sum_i cos(delta w_i) = 4 sum_i sin^2(delta w_i / 2)``;
    the second form is used, as it has no cancellation for small offsets.

    Examples
    --------
    >>> import sinpe.geometry as geometry
    >>> round(float(geometry.distance_by_offset(1, 2)), 10)   # 2 sin(1/2)
    0.9588510772
    """
    with np.errstate(over="ignore"):
        half_angles = np.asarray(offsets)[..., np.newaxis] * frequencies(d_model, base=base) / 2
    check_phases(half_angles)
    return 2.0 * np.sqrt(np.sum(np.sin(half_angles) ** 2, axis=-1))


#: A window of positions.
_CONTEXT = Integer(2, hint="such as 512")


@constrained(context=_CONTEXT, d_model=D_MODEL, base=BASE)
def nearest_distinct_position(
    context: int, d_model: int, *, base: float = 10000.0
) -> tuple[int, float]:
    """``(offset, distance)``: the offset in ``1 .. context - 1`` whose encoding is nearest 0's.

    Within a window of ``context >= 2`` positions, the distinct positions hardest
    to tell apart are ``offset`` apart. Neighbours are usually not the closest:
    a too-small base makes some far offset come back near zero (aliasing).

    Examples
    --------
    >>> import sinpe.geometry as geometry
    >>> geometry.nearest_distinct_position(100, 2)[0]   # 2 pi * 7 = 43.98...; 44 is closest
    44
    """
    check_entries((context,), what="the offsets 1 .. context - 1")
    offsets = np.arange(1, int(context))
    distances = distance_by_offset(offsets, d_model, base=base)
    best = int(np.argmin(distances))
    return int(offsets[best]), float(distances[best])


class Aliasing(NamedTuple):
    """The far offset that looks most like a near one (see :func:`aliasing`).

    A named tuple: ``far_offset`` (the far offset whose encodings are closest),
    ``distance`` (``|PE(p + far_offset) - PE(p)|``) and ``looks_like`` (the
    smallest offset whose encodings are at least ``distance`` apart).
    """

    far_offset: int
    distance: float
    looks_like: int


@constrained(context=_CONTEXT, far=Integer(hint="such as 64"), d_model=D_MODEL, base=BASE)
def aliasing(context: int, d_model: int, *, base: float = 10000.0, far: int = 64) -> Aliasing:
    """How close can two *far-apart* positions get, within a window of ``context``?

    Among offsets ``far .. context - 1``, find the one whose encodings are
    closest (``far_offset``, at ``distance``), and the smallest offset
    ``looks_like`` whose encodings are at least that far apart. When
    ``looks_like`` is small, positions thousands apart are as hard to tell
    apart as near neighbours: the encoding aliases. ``context`` must exceed
    ``far`` and be at most 2**31.

    Examples
    --------
    With one pair (``w_0 = 1``) the distance is ``2 |sin(delta / 2)|``, smallest
    where ``delta`` is nearest a multiple of ``2 pi``: ``44 - 14 pi = 0.0177``,
    closer than even offset 1:

    >>> import sinpe.geometry as geometry
    >>> found = geometry.aliasing(100, 2, far=10)
    >>> found.far_offset, round(found.distance, 4), found.looks_like
    (44, 0.0177, 1)

    With 64 pairs a small base aliases within 65536 positions, the paper's does not:

    >>> geometry.aliasing(65536, 128, base=100.0).looks_like < 16
    True
    >>> geometry.aliasing(65536, 128, base=10000.0).far_offset < 100   # no far look-alike
    True
    """
    if context <= far:
        raise ValueError(f"context must be greater than far = {far}, got {context}")
    check_entries((context,), what="the offsets 1 .. context - 1")
    offsets = np.arange(1, int(context))
    distances = distance_by_offset(offsets, d_model, base=base)
    candidates = offsets >= far
    best = int(np.argmin(distances[candidates]))
    distance = float(distances[candidates][best])
    looks_like = int(offsets[np.argmax(distances >= distance)])
    return Aliasing(int(offsets[candidates][best]), distance, looks_like)


@constrained(context=Integer(hint="such as 512"), d_model=D_MODEL, base=BASE)
def dimension_ranges(context: int, d_model: int, *, base: float = 10000.0) -> np.ndarray:
    """How much each dimension varies over positions ``0 .. context - 1``.

    The range (max - min) of each entry of ``PE(p)``, interleaved layout, for
    ``p`` in the real interval ``[0, context - 1]``, in closed form: a sine that
    sweeps the phase ``0 .. Theta`` ranges over ``sin(Theta)`` while
    ``Theta < pi/2``, a cosine over ``1 - cos(Theta)`` while ``Theta < pi``.
    Dimensions with a tiny range carry no information over the context.

    Examples
    --------
    >>> import sinpe.geometry as geometry
    >>> geometry.dimension_ranges(10, 2).tolist()         # 9 radians: full swings
    [2.0, 2.0]
    >>> geometry.dimension_ranges(2, 2).round(6).tolist()   # 1 radian: sin 1, 1 - cos 1
    [0.841471, 0.459698]
    """
    sweep = (int(context) - 1) * frequencies(d_model, base=base)  # phase swept by each pair
    sine = np.where(
        sweep >= 1.5 * np.pi,
        2.0,
        np.where(sweep >= 0.5 * np.pi, 1.0 - np.minimum(0.0, np.sin(sweep)), np.sin(sweep)),
    )
    cosine = np.where(sweep >= np.pi, 2.0, 1.0 - np.cos(sweep))
    ranges = np.empty(d_model)
    ranges[0::2] = sine
    ranges[1::2] = cosine
    return ranges


def principal_plane(vectors: npt.ArrayLike) -> np.ndarray:
    """Coordinates ``(n, 2)`` of ``vectors`` ``(n, d)`` in their two main directions (PCA).

    The rows (``n, d >= 2``) are centred first; each direction's sign is fixed so
    that its largest component is positive, which makes the result reproducible.

    Examples
    --------
    >>> import numpy as np, sinpe.geometry as geometry
    >>> points = np.array([[0.0, 0, 0], [2, 0, 0], [0, 1, 0], [2, 1, 0]])
    >>> geometry.principal_plane(points).round(6).tolist()
    [[-1.0, -0.5], [1.0, -0.5], [-1.0, 0.5], [1.0, 0.5]]
    """
    data = check_real_array(vectors, name="vectors")
    if data.ndim != 2 or data.shape[0] < 2 or data.shape[1] < 2:
        raise ValueError(
            f"vectors must have shape (n >= 2, d >= 2): a plane needs two dimensions, "
            f"got {data.shape}"
        )
    centred = data - data.mean(axis=0)
    directions = np.linalg.svd(centred, full_matrices=False)[2][:2]
    signs = np.sign(directions[np.arange(2), np.argmax(np.abs(directions), axis=1)])
    return centred @ (directions * signs[:, np.newaxis]).T


def linear_map_residual(inputs: npt.ArrayLike, targets: npt.ArrayLike) -> float:
    """RMS residual of the best (least-squares) fixed linear map ``inputs -> targets``.

    Rows are samples (``(N, F)`` and ``(N, G)``); no intercept. Zero (up to
    rounding) exactly when one matrix ``A`` sends every row of ``inputs`` to the
    matching row of ``targets``: ``PE(p)`` to ``PE(p + k)`` for the sinusoidal
    encoding, but not for sines alone.

    Examples
    --------
    >>> import numpy as np, sinpe, sinpe.geometry as geometry
    >>> table = sinpe.positional_encoding(np.arange(20), 8)
    >>> bool(geometry.linear_map_residual(table[:-1], table[1:]) < 1e-12)
    True
    """
    here = check_real_array(inputs, name="inputs")
    there = check_real_array(targets, name="targets")
    if here.ndim != 2 or there.ndim != 2 or here.shape[0] != there.shape[0] or not here.size:
        raise ValueError(
            f"inputs and targets must be non-empty 2-d arrays with one row per sample, got "
            f"shapes {here.shape} and {there.shape}"
        )
    solution = np.linalg.lstsq(here, there, rcond=None)[0]
    return float(np.sqrt(np.mean((here @ solution - there) ** 2)))
