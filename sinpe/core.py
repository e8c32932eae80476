"""The sinusoidal positional encoding of Vaswani et al. (2017), section 3.5.

For an even width ``d`` and a base ``C`` (10000 in the paper) the encoding of a
position ``p`` pairs a sine and a cosine at each of ``d / 2`` angular
frequencies ``w_i = C**(-2 i / d)``, ``i = 0, ..., d/2 - 1``::

    PE(p, 2i)     = sin(p * w_i)
    PE(p, 2i + 1) = cos(p * w_i)

Everything is computed in float64 and cast to the requested dtype only at the end.
**The tables are the same bits on every machine**: the frequencies are correctly
rounded (:func:`~sinpe.frequencies`), the sines and cosines come from
``sinpe._trig.sincos`` (fdlibm's algorithm in separate IEEE-754 operations, never an
FMA; within 0.771 ULP as measured by ``benchmarks/trig.py --accuracy``), and
:func:`~sinpe.table` adds angles with separate real products and sums. This assumes
IEEE-754 binary64, round-to-nearest and no flush-to-zero; it does not depend on the
libm, the SIMD level or the BLAS (``tests/test_identical_tables.py``). NumPy only.
The public functions are documented under their top-level names
(:func:`sinpe.positional_encoding`).
"""

from __future__ import annotations

import functools
import math
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sinpe._precision import warn_if_imprecise, warn_if_unresolvable
from sinpe._trig import sincos
from sinpe._validation import (
    BASE,
    D_MODEL,
    DTYPE,
    FLAG,
    LAYOUT,
    POSITIONS,
    SUPPORTED_DTYPES,
    Integer,
    Position,
    Real,
    check_entries,
    check_finite_entries,
    check_phases,
    constrained,
)

__all__ = [
    "TABLE_BLOCK",
    "add_positional_encoding",
    "component",
    "convert_layout",
    "frequencies",
    "layout_permutation",
    "positional_encoding",
    "shift_matrix",
    "table",
    "wavelengths",
]

#: Rows per block of :func:`table` (coarse step of the angle-addition scheme).
TABLE_BLOCK = 64


def _nearest_power(base: float, numerator: int, denominator: int) -> float:
    """The float64 nearest to ``base ** (numerator / denominator)``, the exponent exact.

    Ziv's strategy with :mod:`decimal` (correctly rounded ``ln`` and ``exp``): evaluate
    ``exp(ln(base) * n / d)`` to ``digits`` digits, within a relative ``(2 |ln(base) n /
    d| + 4) * 10**(1 - digits)``; accept the rounded float when that interval lies
    strictly between the midpoints around it, else double ``digits`` (giving up past
    4000). Integer powers are exact with :class:`fractions.Fraction`.
    """
    if numerator % denominator == 0:  # an integer power: exact in rationals, then rounded
        try:
            return float(Fraction(base) ** (numerator // denominator))
        except OverflowError:
            return math.inf
    exact_base = Decimal(base)  # every float64 is a finite decimal fraction
    digits = 40
    while True:
        # a context of our own: the caller's rounding mode or traps must not leak in
        with localcontext(Context(prec=digits, rounding=ROUND_HALF_EVEN, traps=[])):
            exponent = exact_base.ln() * numerator / denominator
            value = exponent.exp()
        nearest = float(value)
        if nearest == 0.0 or math.isinf(nearest):
            return nearest  # underflow or overflow: outside the callers' domains
        approx = Fraction(value)
        slack = approx * (2 * abs(int(exponent)) + 4) / Fraction(10) ** (digits - 1)
        here = Fraction(nearest)
        below = (here + Fraction(math.nextafter(nearest, 0.0))) / 2
        above = (here + Fraction(math.nextafter(nearest, math.inf))) / 2
        if below < approx - slack and approx + slack < above:
            return nearest
        if digits > 4000:  # pragma: no cover - would need a power within 1e-4000 of a tie
            raise ArithmeticError(f"cannot round {base!r} ** ({numerator}/{denominator})")
        digits *= 2


@functools.lru_cache(maxsize=64)
def _powers(base: float, count: int, step: int, denominator: int) -> np.ndarray:
    """Read-only ``[base ** (step * k / denominator) for k < count]``, correctly rounded."""
    values = np.array(
        [_nearest_power(base, step * k, denominator) for k in range(count)], dtype=np.float64
    )
    values.flags.writeable = False
    return values


def _rational_powers(base: float, count: int, step: int, denominator: int) -> np.ndarray:
    """``base ** (step * k / denominator)`` for ``k < count``, correctly rounded: the kernel
    of every frequency ladder. Every caller stays where each entry is a finite nonzero
    float64: a ``base`` of at least 2**-1022 (``_validation.MIN_BASE``) with exponents
    in [-1, 1], or :func:`sinpe.fourier.log_spaced_matrix`'s powers of 2 from -1074
    to 1023.
    """
    return _powers(float(base), count, step, denominator).copy()


@constrained(d_model=D_MODEL, base=BASE)
def frequencies(d_model: int, *, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``w_i = base ** (-2 i / d_model)`` of the ``d_model / 2`` pairs.

    Parameters
    ----------
    d_model : int
        Width of the encoding; a positive even integer (at most ``2**24``).
    base : float, optional
        The constant ``C`` of the definition; finite, > 0 and not 1.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(d_model // 2,)``, in radians per position; ``w_0 = 1``.
        Each is the float64 nearest to the exact value, so the array is the same bit
        for bit on every machine.

    Notes
    -----
    ``np.power`` is not correctly rounded on every CPU (NumPy's AVX-512 loop is 1 ULP
    off for 4 of the 32 frequencies at ``d_model = 64``). Here each value comes from
    :mod:`decimal` with Ziv's rounding test: about 25 us per frequency on the first
    call, then from a cache.

    Examples
    --------
    >>> import sinpe
    >>> sinpe.frequencies(8)
    array([1.   , 0.1  , 0.01 , 0.001])
    """
    return _rational_powers(base, d_model // 2, -2, d_model)


@constrained(d_model=D_MODEL, base=BASE)
def wavelengths(d_model: int, *, base: float = 10000.0) -> np.ndarray:
    """Wavelengths ``2 * pi / frequencies(d_model, base=base)``, in positions.

    A geometric sequence from ``2 * pi`` up to just short of ``2 * pi * base``. Arguments
    and errors as :func:`frequencies`.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> np.round(sinpe.wavelengths(8) / (2 * np.pi), 6)
    array([   1.,   10.,  100., 1000.])
    """
    return 2.0 * np.pi / frequencies(d_model, base=base)


@constrained(layout=LAYOUT, dtype=DTYPE, d_model=D_MODEL, base=BASE, positions=POSITIONS)
def positional_encoding(
    positions: npt.ArrayLike,
    d_model: int,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    dtype: npt.DTypeLike = np.float64,
) -> np.ndarray:
    """Sinusoidal positional encoding of one or many positions.

    Parameters
    ----------
    positions : array_like of real
        Any finite reals (negative and fractional included); integers at most
        ``2**53`` in magnitude.
    d_model : int
        Width of the encoding; a positive even integer.
    base : float, optional
        The constant ``C``; finite, > 0 and not 1. Default 10000 (the paper).
    layout : {"interleaved", "concat"}, optional
        ``"interleaved"`` (the paper): ``[sin w_0 p, cos w_0 p, sin w_1 p, ...]``.
        ``"concat"``: all sines, then all cosines -- the table of Hugging Face's Marian
        port (tensor2tensor's column order too, but its ``n - 1`` spacing differs).
    dtype : {numpy.float64, numpy.float32, numpy.float16}, optional
        Output dtype; computed in float64 and rounded once.

    Returns
    -------
    numpy.ndarray
        Shape ``np.shape(positions) + (d_model,)``.

    Raises
    ------
    TypeError, ValueError
        For a bad argument, or a phase ``position * frequency`` beyond float64.

    Warns
    -----
    PrecisionWarning
        When ``dtype`` cannot tell consecutive positions apart at the largest one
        (beyond 2048 for float16), or float64 cannot give entries within 1e-6 (the bound
        of the Notes, beyond about ``|p| = 4e8`` for base 10000).

    Notes
    -----
    Accuracy (float64 output): every entry is within
    ``eps * (1 + (2 + |ln base|) * |p| * w_i)`` of the exact value for the exact
    frequencies, ``eps = 2**-52``. The ``|p| w_i`` term is the rounding of the phase,
    which no float64 evaluation of ``sin(p * w_i)`` avoids; for ``|p| <= 10**6`` and
    ``base = 10000`` the bound is below ``2.6e-9``. Tested against mpmath at 50 digits.

    Examples
    --------
    The worked vector of ``d_model = 8`` at position 1:

    >>> import numpy as np, sinpe
    >>> np.round(sinpe.positional_encoding(1, 8), 7)
    array([0.841471 , 0.5403023, 0.0998334, 0.9950042, 0.0099998, 0.99995  ,
           0.001    , 0.9999995])

    Shapes follow the positions; the concat layout groups sines then cosines:

    >>> sinpe.positional_encoding([[0.0, 1.5]], 6, layout="concat").shape
    (1, 2, 6)
    >>> sinpe.positional_encoding(0, 4, layout="concat")
    array([0., 0., 1., 1.])
    """
    positions, angular = np.asarray(positions), frequencies(d_model, base=base)
    with np.errstate(over="ignore"):
        phases = positions[..., np.newaxis] * angular  # (..., d/2)
    check_phases(phases)
    warn_if_imprecise(positions, base)
    table = np.empty((*positions.shape, angular.size * 2), dtype=np.float64)
    sines, cosines = sincos(phases)  # the same bits on every machine (sinpe._trig)
    if layout == "interleaved":
        table[..., 0::2] = sines
        table[..., 1::2] = cosines
    else:
        table[..., : angular.size] = sines
        table[..., angular.size :] = cosines
    warn_if_unresolvable(positions, np.dtype(dtype))
    return table.astype(dtype, copy=False)


@constrained(
    d_model=D_MODEL,
    base=BASE,
    first_index=Integer(0, 1, hint="0 or 1"),
    index=Integer(-(2**62), hint="such as 0"),
    positions=POSITIONS,
)
def component(
    positions: npt.ArrayLike,
    index: int,
    d_model: int,
    *,
    base: float = 10000.0,
    first_index: int = 0,
) -> np.ndarray:
    """One component of the encoding, evaluated from its own scalar formula.

    The textbook definition written component by component, to set against
    :func:`positional_encoding`. With ``first_index=1`` components are counted from 1::

        [pe(p)]_{2i-1} = sin(p / C**(2(i-1)/d)),  [pe(p)]_{2i} = cos(p / C**(2(i-1)/d))

    for ``i = 1, ..., d/2``; with ``first_index=0`` it is the paper's
    ``PE(p, 2i) = sin(p / C**(2i/d))``, ``PE(p, 2i+1) = cos(p / C**(2i/d))``.
    Returns float64 of the shape of ``positions``; other arguments as
    :func:`positional_encoding`.

    Examples
    --------
    >>> import sinpe
    >>> round(float(sinpe.component(1.0, 1, 8, first_index=1)), 12)  # sin(1)
    0.841470984808
    >>> round(float(sinpe.component(1.0, 0, 8, first_index=0)), 12)  # the same entry
    0.841470984808
    >>> float(sinpe.component(0.0, 8, 8, first_index=1))  # the last cosine: cos(0)
    1.0
    """
    if not first_index <= index < d_model + first_index:
        raise ValueError(
            f"index {index} is out of range for d_model={d_model} counted from {first_index}; "
            f"use {first_index} .. {d_model + first_index - 1}"
        )
    if first_index == 1:
        pair = (index + 1) // 2 - 1  # the one-indexed i = 1 .. d/2, as i - 1
        sine = index % 2 == 1
    else:
        pair = index // 2  # i = 0 .. d/2 - 1
        sine = index % 2 == 0
    # C ** (2 i / d), correctly rounded like the frequencies, then divided into p.
    divisor = _rational_powers(base, pair + 1, 2, d_model)[pair]
    with np.errstate(over="ignore"):
        phases = positions / divisor
    check_phases(phases)
    return sincos(phases)[0 if sine else 1]


#: The position of a table's first row.
_START = Position(hint="the position of the first row, such as 0")


@constrained(start=_START, scale=FLAG, base=BASE)
def add_positional_encoding(
    embeddings: npt.ArrayLike,
    *,
    base: float = 10000.0,
    scale: bool = True,
    start: float = 0,
) -> np.ndarray:
    """Add the encoding to token embeddings, as at the input of the Transformer.

    Computes ``embeddings * sqrt(d_model) + PE(start + t)`` for ``t = 0, ..., seq - 1``,
    the scaling of section 3.4 of the paper (``scale=False`` leaves it out).

    Parameters
    ----------
    embeddings : array_like of float, shape (..., seq, d_model)
        Token embeddings (float16, float32 or float64); leading axes are broadcast over.
    start : real, optional
        Position of the first token, e.g. the tokens already decoded.

    Returns
    -------
    numpy.ndarray
        Same shape and dtype as ``embeddings``; the sum is rounded once.

    Raises
    ------
    TypeError, ValueError
        For a bad argument, or a sum that overflows the dtype.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> x = np.zeros((2, 3, 4))            # (batch, seq, d_model)
    >>> y = sinpe.add_positional_encoding(x)
    >>> np.array_equal(y[1], sinpe.positional_encoding(np.arange(3), 4))
    True
    >>> ones = np.ones((1, 4))
    >>> sinpe.add_positional_encoding(ones, start=0)   # 1 * sqrt(4) + PE(0)
    array([[2., 3., 2., 3.]])
    """
    array = np.asarray(embeddings)
    if array.dtype not in SUPPORTED_DTYPES:
        raise TypeError(
            f"embeddings must be a floating array, got dtype {array.dtype}; "
            f"convert with .astype(np.float32) or np.float64 (float16 is kept too)"
        )
    out_dtype = array.dtype
    if array.ndim < 2:
        raise ValueError(
            f"embeddings must have shape (..., seq, d_model), got shape {array.shape}; "
            f"add a sequence axis with x[np.newaxis]"
        )
    if not np.isfinite(array).all():
        raise ValueError("embeddings contain NaN or infinite values")
    seq, width = array.shape[-2], array.shape[-1]
    D_MODEL(width, "the last axis of embeddings (d_model)")  # a shape check
    table = positional_encoding(start + np.arange(seq), width, base=base, dtype=np.float64)
    factor = np.sqrt(width) if scale else 1.0
    with np.errstate(over="ignore"):
        result = (array.astype(np.float64) * factor + table).astype(out_dtype)
    if not np.isfinite(result).all():
        raise ValueError(
            f"embeddings * sqrt(d_model) + PE overflows {out_dtype} (largest "
            f"{float(np.finfo(out_dtype).max):g}); pass float32 embeddings, or smaller ones"
        )
    return result


@constrained(d_model=D_MODEL, source=LAYOUT, target=LAYOUT)
def layout_permutation(d_model: int, source: str, target: str) -> np.ndarray:
    """Index array ``perm`` with ``table_in_target = table_in_source[..., perm]``.

    Examples
    --------
    >>> import sinpe
    >>> sinpe.layout_permutation(6, "interleaved", "concat")
    array([0, 2, 4, 1, 3, 5])
    >>> sinpe.layout_permutation(6, "concat", "interleaved")
    array([0, 3, 1, 4, 2, 5])
    """
    half = d_model // 2
    # to_interleaved[j] = column of the source that holds interleaved column j.
    pair, is_cos = np.divmod(np.arange(d_model), 2)
    concat_of_interleaved = pair + half * is_cos  # where interleaved column j sits in concat
    if source == target:
        return np.arange(d_model)
    if source == "concat":  # target interleaved
        return concat_of_interleaved
    return np.argsort(concat_of_interleaved)


@constrained(source=LAYOUT, target=LAYOUT)
def convert_layout(table: npt.ArrayLike, source: str, target: str) -> np.ndarray:
    """Reorder the last axis of a table from layout ``source`` to ``target`` (a new array).

    As :func:`layout_permutation`, applied; the entries must be finite.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> table = sinpe.positional_encoding(np.arange(5), 8)
    >>> as_concat = sinpe.convert_layout(table, "interleaved", "concat")
    >>> np.array_equal(as_concat, sinpe.positional_encoding(np.arange(5), 8, layout="concat"))
    True
    """
    array = check_finite_entries(np.asarray(table), name="table")
    if array.ndim == 0:
        raise ValueError("table must have at least one axis (the encoding width)")
    width = D_MODEL(array.shape[-1], "the last axis of table")  # a shape check
    return array[..., layout_permutation(width, source, target)]


@constrained(k=Real(hint="the shift, such as 3"), layout=LAYOUT, d_model=D_MODEL, base=BASE)
def shift_matrix(
    k: float, d_model: int, *, base: float = 10000.0, layout: str = "interleaved"
) -> np.ndarray:
    """The matrix ``M_k`` with ``PE(p + k) = M_k @ PE(p)`` for every position ``p``.

    In the interleaved layout ``M_k`` is block diagonal with one 2 x 2 block per
    frequency::

        [[ cos(k w_i), sin(k w_i)],
         [-sin(k w_i), cos(k w_i)]]

    a rotation by ``k w_i`` acting on ``(sin, cos)``. It depends on ``k`` alone, never
    on ``p``; ``M_j @ M_k = M_(j+k)`` and ``M_(-k) = M_k.T``. ``k`` is any finite real;
    the result is float64, ``(d_model, d_model)``, in ``layout``; other arguments as
    :func:`positional_encoding`.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> m = sinpe.shift_matrix(3, 8)
    >>> bool(np.allclose(m @ sinpe.positional_encoding(10.0, 8),
    ...                  sinpe.positional_encoding(13.0, 8)))
    True
    >>> bool(np.allclose(sinpe.shift_matrix(-3, 8), m.T))
    True
    """
    with np.errstate(over="ignore"):
        angles = float(k) * frequencies(d_model, base=base)
    check_phases(angles)
    width = 2 * angles.size
    sin, cos = sincos(angles)
    matrix = np.zeros((width, width))
    even = np.arange(0, width, 2)
    matrix[even, even] = cos
    matrix[even, even + 1] = sin
    matrix[even + 1, even] = -sin
    matrix[even + 1, even + 1] = cos
    if layout == "concat":
        perm = layout_permutation(width, "interleaved", "concat")
        matrix = matrix[np.ix_(perm, perm)]
    return matrix


@constrained(
    length=Integer(0, hint="such as 512"),
    layout=LAYOUT,
    dtype=DTYPE,
    d_model=D_MODEL,
    base=BASE,
    start=_START,
)
def table(
    length: int,
    d_model: int,
    *,
    base: float = 10000.0,
    start: float = 0.0,
    layout: str = "interleaved",
    dtype: npt.DTypeLike = np.float64,
) -> np.ndarray:
    """The encodings of ``length`` consecutive positions, fast, by the rotation property.

    As :func:`positional_encoding` of ``start + np.arange(length)``, shape ``(length,
    d_model)``. Positions ``start + j`` are split as ``j = B a + b`` with ``B =
    TABLE_BLOCK``; only the coarse phases ``(start + B a) w_i`` and the fine phases
    ``b w_i`` are evaluated, and every entry follows from the angle-addition formulas
    (two products and a sum per entry, block by block): the rotation ``PE(p + b) = M_b
    PE(p)`` of chapter 2, used as an algorithm. Raises and warns as
    :func:`positional_encoding`, and for an integer ``start`` with ``|start| + length``
    beyond ``2**53``.

    Notes
    -----
    Accuracy (float64): within ``eps * (8 + 2 (2 + |ln base|) (|p| + B) w_i)`` of the
    exact value, ``eps = 2**-52``; tested against mpmath.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> fast = sinpe.table(1000, 64)
    >>> bool(np.allclose(fast, sinpe.positional_encoding(np.arange(1000), 64), atol=1e-12))
    True
    >>> sinpe.table(2, 4, layout="concat").round(6).tolist()  # positions 0 and 1
    [[0.0, 0.0, 1.0, 1.0], [0.841471, 0.01, 0.540302, 0.99995]]
    """
    if isinstance(start, int) and abs(start) + length > 2**53:
        raise ValueError(
            f"start={start!r} with length={length} reaches integers beyond 2**53 that "
            f"float64 cannot hold exactly; shift the positions (PE(p + k) is a rotation "
            f"of PE(p))"
        )
    out_dtype = np.dtype(dtype)
    check_entries((length, d_model), what="the table")
    angular = frequencies(d_model, base=base)  # (d/2,)
    half, rows, block = angular.size, int(length), TABLE_BLOCK
    out = np.empty((rows, 2 * half), dtype=out_dtype)
    if rows == 0:
        return out
    # A pair (sin t, cos t) is the complex number i e^{-it} = sin t + i cos t, stored as
    # [real, imag]: exactly the interleaved layout. Then
    # (sin, cos)(x + y) = (i e^{-ix}) * e^{-iy}: one complex product per pair,
    # i.e. the rotation M_y of chapter 2, written straight into the output.
    fine = np.arange(block, dtype=np.float64)[:, np.newaxis] * angular  # (B, d/2)
    fine_sin, fine_cos = sincos(fine)  # the rotation by b w, b = 0 .. B - 1
    with np.errstate(over="ignore"):
        coarse = (float(start) + block * np.arange(-(-rows // block)))[:, np.newaxis] * angular
    check_phases(coarse)
    anchor_sin, anchor_cos = sincos(coarse)  # the anchors A = start + B n, (n/B, d/2)
    # sin(A + b) = sin A cos b + cos A sin b and cos(A + b) = cos A cos b + (-sin A) sin b.
    # Laid out like the output, a row is X * U_b + Y * V_b with X = (sin A, cos A),
    # Y = (cos A, -sin A), U_b = (cos b, cos b), V_b = (sin b, sin b) in the columns of
    # each pair: two products and a sum, each a separate ufunc call on contiguous rows
    # (never an FMA, unlike NumPy's complex multiply on AVX2), so the bits do not depend
    # on the machine. Negating is exact, so this is the formula's value, bit for bit.
    columns = layout_permutation(2 * half, "concat", layout)

    def place(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """The two halves of each pair in the columns of the output's layout."""
        return np.take(np.concatenate([first, second], axis=-1), columns, axis=-1)  # C order

    cos_twice, sin_twice = place(fine_cos, fine_cos), place(fine_sin, fine_sin)  # (B, d)
    here, turned = place(anchor_sin, anchor_cos), place(anchor_cos, -anchor_sin)  # (n/B, d)
    in_place = out_dtype == np.float64
    scratch = np.empty((block, 2 * half))
    other = np.empty((block, 2 * half))
    for index in range(here.shape[0]):
        top = index * block
        size = min(block, rows - top)
        target = out[top : top + size] if in_place else scratch[:size]
        np.multiply(cos_twice[:size], here[index], out=target)
        np.multiply(sin_twice[:size], turned[index], out=other[:size])
        np.add(target, other[:size], out=target)
        if not in_place:  # rounded once to the output dtype
            out[top : top + size] = target
    ends = np.array([float(start), float(start) + rows - 1])
    warn_if_imprecise(ends, float(base))
    warn_if_unresolvable(ends, out_dtype)
    return out
