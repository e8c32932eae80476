"""Numbers behind the figures: similarity, distances, aliasing, precision.

NumPy only. Each function is the closed form of a quantity the book plots, so
the figures and the tests share one implementation.
"""

from __future__ import annotations

import math
import numbers
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sinpe._validation import (
    check_base,
    check_count,
    check_d_model,
    check_entries,
    check_pair,
    check_phases,
    check_real_array,
)
from sinpe.core import frequencies, positional_encoding

__all__ = [
    "COMPUTE_DTYPES",
    "FREQUENCY_RECIPES",
    "Aliasing",
    "aliasing",
    "binary_encoding",
    "computed_in",
    "correct_digits",
    "dimension_ranges",
    "distance_by_offset",
    "dot_product_by_offset",
    "linear_map_residual",
    "low_precision_bound",
    "low_precision_frequencies",
    "nearest_distinct_position",
    "principal_plane",
    "reference_encoding",
    "to_bfloat16",
    "ulp_error",
]


def dot_product_by_offset(
    offsets: npt.ArrayLike, d_model: int, base: float = 10000.0
) -> np.ndarray:
    """``PE(p) . PE(p + delta) = sum_i cos(delta * w_i)``, a function of the offset alone.

    Parameters
    ----------
    offsets : array_like of real
        The offsets ``delta = q - p``.
    d_model : int
        Width; positive and even.
    base : float, optional
        The constant ``C``.

    Returns
    -------
    numpy.ndarray
        float64 array of the same shape as ``offsets``; equal to ``d_model / 2``
        at offset 0 and even in the offset.

    Raises
    ------
    TypeError, ValueError
        As :func:`sinpe.positional_encoding`.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.dot_product_by_offset([0, 1, -1], 8).round(10).tolist()
    [4.0, 3.5352559716, 3.5352559716]
    """
    delta = check_real_array(offsets, name="offsets")
    with np.errstate(over="ignore"):
        phases = delta[..., np.newaxis] * frequencies(d_model, base)
    check_phases(phases)
    return np.cos(phases).sum(axis=-1)


def distance_by_offset(offsets: npt.ArrayLike, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Euclidean distance ``|PE(p + delta) - PE(p)|`` (the same for every ``p``).

    ``|PE(p + delta) - PE(p)|^2 = d - 2 sum_i cos(delta w_i)
    = 4 sum_i sin^2(delta w_i / 2)``; the second form is used, as it has no
    cancellation for small offsets.

    Parameters
    ----------
    offsets : array_like of real
        The offsets ``delta``.
    d_model : int
        Width; positive and even.
    base : float, optional
        The constant ``C``.

    Returns
    -------
    numpy.ndarray
        float64 array of the same shape as ``offsets``; 0 at offset 0.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> float(analysis.distance_by_offset(0, 8))
    0.0
    >>> round(float(analysis.distance_by_offset(1, 2)), 10)   # 2 sin(1/2)
    0.9588510772
    """
    delta = check_real_array(offsets, name="offsets")
    with np.errstate(over="ignore"):
        half_angles = delta[..., np.newaxis] * frequencies(d_model, base) / 2.0
    check_phases(half_angles)
    return 2.0 * np.sqrt(np.sum(np.sin(half_angles) ** 2, axis=-1))


def nearest_distinct_position(
    context: int, d_model: int, base: float = 10000.0
) -> tuple[int, float]:
    """The offset in ``1 .. context - 1`` whose encoding is closest to offset 0.

    Within a window of ``context`` positions, the pair of distinct positions
    whose encodings are hardest to tell apart are ``offset`` apart, at
    ``distance``. Neighbours (offset 1) are usually not the closest: a too-small
    base makes some far offset come back near zero (aliasing).

    Parameters
    ----------
    context : int
        Number of positions in the window (at least 2).
    d_model : int
        Width; positive and even.
    base : float, optional
        The constant ``C``.

    Returns
    -------
    (int, float)
        The offset and the distance.

    Raises
    ------
    TypeError, ValueError
        For a non-integer or too small ``context``, and as :func:`distance_by_offset`.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.nearest_distinct_position(100, 2)[0]   # 2 pi * 7 = 43.98...; 44 is closest
    44
    """
    if isinstance(context, bool) or not isinstance(context, numbers.Integral):
        raise TypeError(f"context must be an integer, got {context!r}")
    if context < 2:
        raise ValueError(f"context must be at least 2, got {context}")
    check_entries((context,), what="the offsets 1 .. context - 1")
    offsets = np.arange(1, int(context))
    distances = distance_by_offset(offsets, d_model, base)
    best = int(np.argmin(distances))
    return int(offsets[best]), float(distances[best])


class Aliasing(NamedTuple):
    """The far offset that looks most like a near one (see :func:`aliasing`)."""

    far_offset: int
    distance: float
    looks_like: int


def aliasing(context: int, d_model: int, base: float = 10000.0, *, far: int = 64) -> Aliasing:
    """How close can two *far-apart* positions get, within a window of ``context``?

    Among offsets ``far .. context - 1``, find the one whose encodings are
    closest (``far_offset``, at ``distance``), and the smallest offset
    ``looks_like`` whose encodings are at least that far apart. When
    ``looks_like`` is small, positions thousands apart are as hard to tell
    apart as near neighbours: the encoding aliases.

    Parameters
    ----------
    context : int
        Window length; must exceed ``far``.
    d_model : int
        Width; positive and even.
    base : float, optional
        The constant ``C``.
    far : int, optional
        Smallest offset that counts as far.

    Returns
    -------
    Aliasing
        ``(far_offset, distance, looks_like)``.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.aliasing(65536, 128, base=100.0).looks_like < 16
    True
    >>> analysis.aliasing(65536, 128, base=10000.0).far_offset < 100   # no far look-alike
    True
    """
    if isinstance(far, bool) or not isinstance(far, numbers.Integral) or far < 1:
        raise ValueError(f"far must be a positive integer, got {far!r}")
    if isinstance(context, bool) or not isinstance(context, numbers.Integral) or context <= far:
        raise ValueError(f"context must be an integer > far = {far}, got {context!r}")
    check_entries((context,), what="the offsets 1 .. context - 1")
    offsets = np.arange(1, int(context))
    distances = distance_by_offset(offsets, d_model, base)
    candidates = offsets >= far
    best = int(np.argmin(distances[candidates]))
    distance = float(distances[candidates][best])
    looks_like = int(offsets[np.argmax(distances >= distance)])
    return Aliasing(int(offsets[candidates][best]), distance, looks_like)


def dimension_ranges(context: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """How much each dimension varies over positions ``0 .. context - 1``.

    The range (max - min) of each entry of ``PE(p)`` for ``p`` in the real
    interval ``[0, context - 1]``, in closed form: a sine that sweeps the phase
    ``0 .. Theta`` ranges over ``sin(Theta)`` while ``Theta < pi/2``, a cosine
    over ``1 - cos(Theta)`` while ``Theta < pi``. Dimensions with a tiny range
    are nearly constant over the context: they carry no information there.

    Parameters
    ----------
    context : int
        Number of positions (at least 1).
    d_model : int
        Width; positive and even.
    base : float, optional
        The constant ``C``.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(d_model,)`` in the interleaved layout, each in
        ``[0, 2]``.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.dimension_ranges(1, 4).tolist()          # one position: nothing varies
    [0.0, 0.0, 0.0, 0.0]
    >>> analysis.dimension_ranges(10, 2).tolist()         # 9 radians: full swings
    [2.0, 2.0]
    """
    if isinstance(context, bool) or not isinstance(context, numbers.Integral) or context < 1:
        raise ValueError(f"context must be a positive integer, got {context!r}")
    width = check_d_model(d_model)
    sweep = (int(context) - 1) * frequencies(width, base)  # phase swept by each pair
    sine = np.where(
        sweep >= 1.5 * np.pi,
        2.0,
        np.where(sweep >= 0.5 * np.pi, 1.0 - np.minimum(0.0, np.sin(sweep)), np.sin(sweep)),
    )
    cosine = np.where(sweep >= np.pi, 2.0, 1.0 - np.cos(sweep))
    ranges = np.empty(width)
    ranges[0::2] = sine
    ranges[1::2] = cosine
    return ranges


def correct_digits(approximate: npt.ArrayLike, exact: npt.ArrayLike) -> float:
    """Number of correct decimal digits: ``-log10(max |approximate - exact|)``.

    Values are in ``[-1, 1]`` here, so absolute error is the right measure.
    Returns ``inf`` when they agree exactly.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.correct_digits([0.5, 0.25], [0.5, 0.2501])
    4.0
    """
    guess, truth = check_pair(
        approximate, exact, ("approximate", "exact"), hint="compare entry for entry"
    )
    with np.errstate(over="ignore"):
        error = float(np.max(np.abs(guess - truth)))
    if not np.isfinite(error):
        raise ValueError("approximate - exact overflows float64; compare values in [-1, 1]")
    return float("inf") if error == 0 else round(float(-np.log10(error)), 12)


def principal_plane(vectors: npt.ArrayLike) -> np.ndarray:
    """Coordinates of ``vectors`` in their two main directions of variation (PCA).

    Parameters
    ----------
    vectors : array_like, shape (n, d)
        Rows to project; centred before the decomposition.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, 2)``. Each direction's sign is fixed so that its largest
        component is positive, which makes the result reproducible.

    Examples
    --------
    >>> import numpy as np, sinpe.analysis as analysis
    >>> points = np.array([[0.0, 0, 0], [2, 0, 0], [0, 1, 0], [2, 1, 0]])
    >>> analysis.principal_plane(points).round(6).tolist()
    [[-1.0, -0.5], [1.0, -0.5], [-1.0, 0.5], [1.0, 0.5]]
    """
    data = check_real_array(vectors, name="vectors")
    if data.ndim != 2 or data.shape[0] < 2:
        raise ValueError(f"vectors must have shape (n >= 2, d), got {data.shape}")
    centred = data - data.mean(axis=0)
    directions = np.linalg.svd(centred, full_matrices=False)[2][:2]
    signs = np.sign(directions[np.arange(2), np.argmax(np.abs(directions), axis=1)])
    return centred @ (directions * signs[:, np.newaxis]).T


def binary_encoding(positions: npt.ArrayLike, n_bits: int) -> np.ndarray:
    """The binary counter as a position encoding: bit ``b`` of ``floor(p)``, as 0 or 1.

    The discrete ancestor of the sinusoidal encoding: low bits flip fast, high
    bits slowly, but every entry jumps between 0 and 1, so the encoding is
    discontinuous in the position. Bit 0 (least significant) comes first.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.binary_encoding([5, 5.99, 6], 3).tolist()
    [[1.0, 0.0, 1.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
    """
    if isinstance(n_bits, bool) or not isinstance(n_bits, numbers.Integral) or n_bits < 1:
        raise ValueError(f"n_bits must be a positive integer, got {n_bits!r}")
    if n_bits > 62:
        raise ValueError(f"n_bits must be at most 62 (the bits of an int64), got {n_bits}")
    where = check_real_array(positions, name="positions")
    if np.any(where < 0) or np.any(where >= 2.0**n_bits):
        raise ValueError(f"positions must lie in [0, 2**{n_bits}) for {n_bits} bits")
    whole = np.floor(where).astype(np.int64)
    return ((whole[..., np.newaxis] >> np.arange(int(n_bits))) & 1).astype(np.float64)


#: Precisions :func:`computed_in` can emulate.
COMPUTE_DTYPES = ("float64", "float32", "float16", "bfloat16")


def to_bfloat16(values: npt.ArrayLike) -> np.ndarray:
    """Round to bfloat16 (8 exponent bits, 8 significand bits), returned as float32.

    Round to nearest, ties to even, on the float32 bit pattern -- what hardware
    does when it converts float32 to bfloat16.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.to_bfloat16([257.0, 1.0 + 2**-8, 3.14159]).tolist()
    [256.0, 1.0, 3.140625]
    """
    wide = check_real_array(values, name="values")
    largest = float(np.finfo(np.float32).max)
    if wide.size and float(np.max(np.abs(wide))) > largest:
        raise ValueError(
            f"values must lie within float32's range (+-{largest:g}), got "
            f"{float(np.max(np.abs(wide))):g}; bfloat16 has the same range"
        )
    single = np.ascontiguousarray(wide, dtype=np.float32)
    bits = single.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32).reshape(single.shape)


#: How :func:`computed_in` forms the frequencies in low precision.
FREQUENCY_RECIPES = ("rounded", "exp", "pow")


def low_precision_frequencies(
    d_model: int, precision: str, base: float = 10000.0, *, recipe: str = "rounded"
) -> np.ndarray:
    """The frequencies as a low-precision implementation holds them, as float64.

    Parameters
    ----------
    d_model : int
        Width; positive and even.
    precision : {"float32", "float16", "bfloat16"}
        The precision they are computed or stored in (bfloat16 is emulated by
        rounding float32 results).
    base : float, optional
        The constant ``C``.
    recipe : {"rounded", "exp", "pow"}, optional
        ``"rounded"``: the correctly rounded float64 frequencies rounded once to
        ``precision``. ``"exp"``: the PyTorch tutorial's and the Annotated
        Transformer's ``exp(arange(0, d, 2) * -(ln(C) / d))``: the factor
        ``-(ln(C) / d)`` is a float64 rounded once to ``precision``, every later
        step is in ``precision``. ``"pow"``: ``C ** (-arange(0, d, 2) / d)`` in ``precision``.
        The last two depend on the platform's low-precision ``exp`` and ``pow``.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(d_model // 2,)``.

    Raises
    ------
    ValueError
        For an unknown ``precision`` or ``recipe``, and as :func:`sinpe.frequencies`.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> analysis.low_precision_frequencies(4, "float32", 100.0).tolist()
    [1.0, 0.10000000149011612]
    """
    if precision not in COMPUTE_DTYPES[1:]:
        raise ValueError(f"precision must be one of {COMPUTE_DTYPES[1:]}, got {precision!r}")
    if recipe not in FREQUENCY_RECIPES:
        raise ValueError(f"recipe must be one of {FREQUENCY_RECIPES}, got {recipe!r}")
    exact = frequencies(d_model, base)  # validates d_model and base
    compute = np.float32 if precision == "bfloat16" else np.dtype(precision).type
    store = to_bfloat16 if precision == "bfloat16" else (lambda x: np.asarray(x, compute))
    steps = np.arange(0, d_model, 2, dtype=compute)
    with np.errstate(over="ignore", under="ignore"):
        if recipe == "rounded":
            low = store(exact)
        elif recipe == "exp":  # -(ln C / d) in float64, rounded once, as torch promotes it
            factor = store(-math.log(float(base)) / d_model)
            low = store(np.exp(store(steps * factor)))
        else:
            low = store(np.power(compute(base), store(-steps / compute(d_model))))
    result = np.asarray(low, dtype=np.float64)
    if not np.isfinite(result).all():
        raise ValueError(
            f"base={base!r} gives frequencies that overflow {precision}; choose a base nearer 1e4"
        )
    return result


def low_precision_bound(
    positions: npt.ArrayLike, d_model: int, base: float = 10000.0, *, recipe: str = "rounded"
) -> np.ndarray:
    """The error bound of a table computed entirely in float32 (chapter 7, eq. low-precision-bound).

    With ``u = 2**-24``, each entry of :func:`computed_in` ``(positions, d_model,
    "float32", recipe=recipe)`` is within ``|p| |w32_i - w_i| + u |p| w32_i + 2 u`` of
    the exact value: the frequency error, the rounding of the product, and about
    one unit for the float32 sine or cosine.

    Parameters
    ----------
    positions : array_like of real
        Finite positions.
    d_model : int
        Width; positive and even.
    base : float, optional
        The constant ``C``.
    recipe : {"rounded", "exp", "pow"}, optional
        How the float32 frequencies ``w32`` are formed (:func:`low_precision_frequencies`).

    Returns
    -------
    numpy.ndarray
        Shape ``np.shape(positions) + (d_model // 2,)``: the bound for each pair.

    Raises
    ------
    TypeError, ValueError
        As :func:`low_precision_frequencies` and :func:`sinpe.positional_encoding`.

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> bound = analysis.low_precision_bound([2.0**20], 8)   # w_0 = 1 is exact in float32
    >>> float(bound[0, 0]) == 2.0**-24 * 2.0**20 + 2 * 2.0**-24
    True
    """
    where = np.abs(check_real_array(positions, name="positions"))[..., np.newaxis]
    low = low_precision_frequencies(d_model, "float32", base, recipe=recipe)
    unit = 2.0**-24
    return where * np.abs(low - frequencies(d_model, base)) + unit * where * low + 2 * unit


def computed_in(
    positions: npt.ArrayLike,
    d_model: int,
    precision: str,
    base: float = 10000.0,
    *,
    recipe: str = "rounded",
) -> np.ndarray:
    """The encoding computed *entirely* in a low precision, as some implementations do.

    The frequencies (formed by ``recipe``, see :func:`low_precision_frequencies`),
    the phases ``p * w_i`` and the sines and cosines are each rounded to
    ``precision`` ("float32", "float16", or "bfloat16", emulated by rounding
    float32 results), unlike :func:`sinpe.positional_encoding`, which computes in
    float64 and rounds once. Returned as float64 for comparison.

    Examples
    --------
    >>> import numpy as np, sinpe, sinpe.analysis as analysis
    >>> exact = sinpe.positional_encoding(2049, 8)
    >>> bool(np.abs(analysis.computed_in(2049, 8, "float16") - exact).max() > 0.1)
    True
    """
    if precision not in COMPUTE_DTYPES:
        raise ValueError(f"precision must be one of {COMPUTE_DTYPES}, got {precision!r}")
    where = check_real_array(positions, name="positions")
    if precision == "float64":
        return positional_encoding(where, d_model, base)
    angular = low_precision_frequencies(d_model, precision, base, recipe=recipe)
    if precision == "bfloat16" and where.size and float(np.max(np.abs(where))) > 3.3895e38:
        raise ValueError(
            f"bfloat16 cannot represent position {float(np.max(np.abs(where))):g} (largest "
            f"3.39e38): computing in bfloat16 would give inf and NaN"
        )
    if precision == "bfloat16":
        low_w = to_bfloat16(angular)
        phases = to_bfloat16(to_bfloat16(where)[..., np.newaxis] * low_w)
        sines, cosines = to_bfloat16(np.sin(phases)), to_bfloat16(np.cos(phases))
    else:
        dtype = np.dtype(precision)
        largest = float(np.finfo(dtype).max)
        if where.size and float(np.max(np.abs(where))) > largest:
            raise ValueError(
                f"{precision} cannot represent position {float(np.max(np.abs(where))):g} "
                f"(largest {largest:g}): computing in {precision} would give inf and NaN"
            )
        phases = where.astype(dtype)[..., np.newaxis] * angular.astype(dtype)
        sines, cosines = np.sin(phases), np.cos(phases)
    out = np.empty((*where.shape, 2 * angular.size))
    out[..., 0::2], out[..., 1::2] = sines, cosines
    return out


def reference_encoding(
    positions: npt.ArrayLike, d_model: int, base: float = 10000.0, *, digits: int = 40
) -> np.ndarray:
    """The encoding evaluated with mpmath at ``digits`` significant digits (needs mpmath).

    The frequencies are the exact ``base ** (-2 i / d)`` -- not their float64
    roundings -- so this is the reference that every float64 table is compared
    with. Returned as float64 (correctly rounded from the high-precision values).

    Examples
    --------
    >>> import sinpe.analysis as analysis
    >>> float(analysis.reference_encoding([1.0], 2)[0, 0])   # sin(1)
    0.8414709848078965
    """
    try:
        import mpmath
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "sinpe.analysis.reference_encoding needs mpmath: pip install 'sinpe[reference]'"
        ) from None

    where = check_real_array(positions, name="positions")
    width = check_d_model(d_model)
    base = check_base(base)
    digits = check_count(digits, "digits", maximum=10_000, hint="such as 40")
    out = np.empty((*where.shape, width))
    flat, result = where.reshape(-1), out.reshape(-1, width)
    with mpmath.workdps(digits):
        exact = [
            mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / width) for i in range(width // 2)
        ]
        for row, position in enumerate(flat):
            p = mpmath.mpf(float(position))
            for i, w in enumerate(exact):
                result[row, 2 * i] = float(mpmath.sin(p * w))
                result[row, 2 * i + 1] = float(mpmath.cos(p * w))
    return out


def ulp_error(approximate: npt.ArrayLike, exact: npt.ArrayLike, dtype=np.float64) -> np.ndarray:
    """``|approximate - exact|`` in units of the last place of ``exact`` in ``dtype``.

    Examples
    --------
    >>> import numpy as np, sinpe.analysis as analysis
    >>> analysis.ulp_error([1.0 + 2**-52], [1.0]).tolist()
    [1.0]
    """
    guess, reference = check_pair(
        approximate,
        exact,
        ("approximate", "exact"),
        hint="compare entry for entry",
        allow_empty=True,
    )
    spacing = np.spacing(np.abs(reference).astype(dtype)).astype(np.float64)
    with np.errstate(over="ignore"):
        ulps = np.abs(guess - reference) / spacing
    if not np.isfinite(ulps).all():
        raise ValueError(
            "the error is more ULPs than float64 can count (exact is 0 or tiny, or the "
            "difference overflows); measure the absolute error instead"
        )
    return ulps


def linear_map_residual(inputs: npt.ArrayLike, targets: npt.ArrayLike) -> float:
    """RMS residual of the best (least-squares) fixed linear map ``inputs -> targets``.

    Rows are samples. Zero (up to rounding) exactly when one matrix ``A`` sends
    every row of ``inputs`` to the matching row of ``targets`` -- e.g. ``PE(p)``
    to ``PE(p + k)`` for the sinusoidal encoding, but not for sines alone.

    Examples
    --------
    >>> import numpy as np, sinpe, sinpe.analysis as analysis
    >>> table = sinpe.positional_encoding(np.arange(20), 8)
    >>> bool(analysis.linear_map_residual(table[:-1], table[1:]) < 1e-12)
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
