"""Floating-point numerics of the encoding: low precision, reference values, ULPs.

The reference values come from mpmath (the ``reference`` extra); NumPy only otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sinpe import _trig
from sinpe._validation import (
    BASE,
    D_MODEL,
    DTYPE,
    POSITIONS,
    Integer,
    Options,
    RealArray,
    check_pair,
    check_real_array,
    constrained,
)
from sinpe.core import frequencies, positional_encoding

__all__ = [
    "COMPUTE_DTYPES",
    "FREQUENCY_RECIPES",
    "computed_in",
    "correct_digits",
    "low_precision_bound",
    "low_precision_frequencies",
    "recurrence_frequencies",
    "reference_encoding",
    "sincos",
    "to_bfloat16",
    "ulp_error",
]


def correct_digits(approximate: npt.ArrayLike, exact: npt.ArrayLike) -> float:
    """Number of correct decimal digits: ``-log10(max |approximate - exact|)``.

    Values are in ``[-1, 1]`` here, so absolute error is the right measure. The
    arrays have the same shape (no broadcasting); the result is unrounded,
    ``inf`` when they agree exactly and negative when an entry is off by more
    than 1.

    Examples
    --------
    >>> import sinpe.numerics as numerics
    >>> round(numerics.correct_digits([0.5, 0.25], [0.5, 0.2501]), 6)  # error 1e-4
    4.0
    """
    guess, truth = check_pair(
        approximate, exact, ("approximate", "exact"), hint="compare entry for entry"
    )
    with np.errstate(over="ignore"):
        error = float(np.max(np.abs(guess - truth)))
    if not np.isfinite(error):
        raise ValueError("approximate - exact overflows float64; compare values in [-1, 1]")
    return float("inf") if error == 0 else float(-np.log10(error))


#: Precisions :func:`computed_in` can emulate.
COMPUTE_DTYPES = ("float64", "float32", "float16", "bfloat16")


def to_bfloat16(values: npt.ArrayLike) -> np.ndarray:
    """Round to bfloat16 (8 exponent bits, 8 significand bits), returned as float32.

    Round to nearest, ties to even, on the float32 bit pattern, as hardware
    converts float32 to bfloat16 (values are rounded to float32 first, and must
    lie within its range).

    Examples
    --------
    Between 256 and 512 bfloat16 numbers are 2 apart, so 257 is a tie that goes
    to the even 256; ``1 + 2**-8`` is half a step above 1, also a tie:

    >>> import sinpe.numerics as numerics
    >>> numerics.to_bfloat16([257.0, 1.0 + 2**-8, 3.14159]).tolist()
    [256.0, 1.0, 3.140625]
    """
    wide = check_real_array(values, name="values")
    largest = float(np.finfo(np.float32).max)
    if wide.size and float(np.max(np.abs(wide))) > largest:
        raise ValueError(
            f"values must lie within float32's range (+-{largest:g}), got "
            f"{float(np.max(np.abs(wide))):g}; bfloat16's largest is about 3.3895e38"
        )
    single = np.ascontiguousarray(wide, dtype=np.float32)
    bits = single.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    result = rounded.astype(np.uint32).view(np.float32).reshape(single.shape)
    if not np.isfinite(result).all():
        raise ValueError(
            "values beyond bfloat16's largest finite number, about 3.3895e38, round to "
            "infinity; pass smaller values"
        )
    return result


#: How :func:`computed_in` forms the frequencies in low precision.
FREQUENCY_RECIPES = ("rounded", "exp", "pow")
_RECIPE = Options(*FREQUENCY_RECIPES)


@constrained(d_model=D_MODEL, base=BASE, recipe=_RECIPE, precision=Options(*COMPUTE_DTYPES[1:]))
def low_precision_frequencies(
    d_model: int, precision: str, *, base: float = 10000.0, recipe: str = "rounded"
) -> np.ndarray:
    """The frequencies as a low-precision implementation holds them, as float64.

    Parameters
    ----------
    d_model : int
    precision : {"float32", "float16", "bfloat16"}
        The precision they are computed or stored in (bfloat16 is emulated by
        rounding float32 results).
    base : float, optional
    recipe : {"rounded", "exp", "pow"}, optional
        ``"rounded"``: the correctly rounded float64 frequencies rounded once to
        ``precision``. ``"exp"``: the PyTorch tutorial's and the Annotated
        Transformer's ``exp(arange(0, d, 2) * -(ln(C) / d))``, the factor a float64
        rounded once, every later step in ``precision``. ``"pow"``:
        ``C ** (-arange(0, d, 2) / d)`` in ``precision``. The last two depend on
        the platform's low-precision ``exp`` and ``pow``.

    Examples
    --------
    For ``base = 100``, ``d_model = 4`` the frequencies are 1 and 0.1: float32
    holds 0.1 as ``13421773 / 2**27``, bfloat16 as ``205 / 2**11``:

    >>> import sinpe.numerics as numerics
    >>> numerics.low_precision_frequencies(4, "float32", base=100.0).tolist()
    [1.0, 0.10000000149011612]
    >>> numerics.low_precision_frequencies(4, "bfloat16", base=100.0).tolist()
    [1.0, 0.10009765625]
    """
    exact = frequencies(d_model, base=base)  # validates d_model and base
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


@constrained(positions=POSITIONS, d_model=D_MODEL, base=BASE, recipe=_RECIPE)
def low_precision_bound(
    positions: npt.ArrayLike, d_model: int, *, base: float = 10000.0, recipe: str = "rounded"
) -> np.ndarray:
    """The error bound of a table computed entirely in float32 (chapter 7, eq. low-precision-bound).

    With ``u = 2**-24``, each entry of :func:`computed_in` ``(positions, d_model,
    "float32", recipe=recipe)`` is within ``|p| |w32_i - w_i| + u |p| w32_i + 2 u``
    of the exact value: the frequency error, the rounding of the product, and
    about one unit for the float32 sine or cosine. One bound per pair: shape
    ``np.shape(positions) + (d_model // 2,)``.

    Examples
    --------
    >>> import sinpe.numerics as numerics
    >>> bound = numerics.low_precision_bound([2.0**20], 8)   # w_0 = 1 is exact in float32
    >>> float(bound[0, 0]) == 2.0**-24 * 2.0**20 + 2 * 2.0**-24
    True
    """
    where = np.abs(positions)[..., np.newaxis]
    low = low_precision_frequencies(d_model, "float32", base=base, recipe=recipe)
    unit = 2.0**-24
    return where * np.abs(low - frequencies(d_model, base=base)) + unit * where * low + 2 * unit


@constrained(d_model=D_MODEL, base=BASE)
def recurrence_frequencies(d_model: int, *, base: float = 10000.0) -> np.ndarray:
    """The frequencies built in float64 by the recurrence ``w_(i+1) = w_i * w_1``.

    ``w_1`` is the correctly rounded ``base ** (-2 / d_model)`` of
    :func:`sinpe.frequencies`; each later rung is one more float64 product, so the
    roundings add up and the relative error of ``w_i`` grows with ``i`` (at most about
    ``i`` units of ``2**-52``). The allowance ``(2 + |ln base|) * 2**-52`` of the float64
    bound (chapter 7) covers a power computed directly, each ``w_i`` from its own
    exponent; it does not cover this ladder at large widths.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(d_model // 2,)``; ``w_0 = 1`` and ``w_1`` exact as in
        :func:`sinpe.frequencies`.

    Examples
    --------
    >>> import numpy as np, sinpe, sinpe.numerics as numerics
    >>> bool(numerics.recurrence_frequencies(8)[1] == sinpe.frequencies(8)[1])
    True
    >>> ladder, exact = numerics.recurrence_frequencies(4096), sinpe.frequencies(4096)
    >>> bool(np.max(np.abs(ladder - exact) / exact) > 100 * 2.0**-52)
    True
    """
    exact = frequencies(d_model, base=base)  # validates d_model and base
    steps = np.full(exact.size, exact[1] if exact.size > 1 else 1.0)
    steps[0] = 1.0
    return np.multiply.accumulate(steps)  # one product per rung, in order


@constrained(
    positions=POSITIONS,
    recipe=_RECIPE,
    d_model=D_MODEL,
    base=BASE,
    precision=Options(*COMPUTE_DTYPES),
)
def computed_in(
    positions: npt.ArrayLike,
    d_model: int,
    precision: str,
    *,
    base: float = 10000.0,
    recipe: str = "rounded",
) -> np.ndarray:
    """The encoding computed *entirely* in a low precision, as some implementations do.

    The frequencies (formed by ``recipe``, see :func:`low_precision_frequencies`),
    the phases ``p * w_i`` and the sines and cosines are each rounded to
    ``precision`` (one of :data:`COMPUTE_DTYPES`), unlike
    :func:`sinpe.positional_encoding`, which computes in float64 and rounds once
    (``"float64"`` returns it). Returned as float64, interleaved layout; a
    position beyond the largest number of ``precision`` raises ValueError.

    Examples
    --------
    float16 has no number between 2048 and 2050, so position 2049 is computed as
    2048, far from the true values:

    >>> import numpy as np, sinpe, sinpe.numerics as numerics
    >>> half = numerics.computed_in(2049, 8, "float16")
    >>> bool(np.array_equal(half, numerics.computed_in(2048, 8, "float16")))
    True
    >>> bool(np.abs(half - sinpe.positional_encoding(2049, 8)).max() > 0.1)
    True
    """
    where = np.asarray(positions)  # and recipe, checked even where unused
    if precision == "float64":
        return positional_encoding(where, d_model, base=base)
    angular = low_precision_frequencies(d_model, precision, base=base, recipe=recipe)
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


@constrained(
    positions=POSITIONS,
    d_model=D_MODEL,
    base=BASE,
    digits=Integer(1, 10_000, hint="such as 40"),
)
def reference_encoding(
    positions: npt.ArrayLike, d_model: int, *, base: float = 10000.0, digits: int = 40
) -> np.ndarray:
    """The encoding evaluated with mpmath at ``digits`` significant digits (needs mpmath).

    The frequencies are the exact ``base ** (-2 i / d)``, not their float64
    roundings, so this is the reference every float64 table is compared with;
    each entry is correctly rounded to float64 (interleaved layout). Each entry is
    computed in Python, some 10 to 30 us at 40 digits: keep the tables small.
    ``digits`` is from 1 to 10000; without mpmath, ModuleNotFoundError says what
    to install.

    Examples
    --------
    >>> import sinpe.numerics as numerics
    >>> float(numerics.reference_encoding([1.0], 2)[0, 0])   # sin(1)
    0.8414709848078965
    """
    try:
        import mpmath
    except ModuleNotFoundError:
        raise ModuleNotFoundError(
            "sinpe.numerics.reference_encoding needs mpmath: pip install 'sinpe[reference]'"
        ) from None

    where = np.asarray(positions)
    out = np.empty((*where.shape, d_model))
    flat, result = where.reshape(-1), out.reshape(-1, d_model)
    with mpmath.workdps(digits):
        exact = [
            mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * i) / d_model)
            for i in range(d_model // 2)
        ]
        for row, position in enumerate(flat):
            p = mpmath.mpf(float(position))
            for i, w in enumerate(exact):
                result[row, 2 * i] = float(mpmath.sin(p * w))
                result[row, 2 * i + 1] = float(mpmath.cos(p * w))
    return out


@constrained(dtype=DTYPE)
def ulp_error(
    approximate: npt.ArrayLike, exact: npt.ArrayLike, dtype: npt.DTypeLike = np.float64
) -> np.ndarray:
    """``|approximate - exact|`` in units of the last place of ``exact`` in ``dtype``.

    The unit is ``numpy.spacing(|exact|)`` in ``dtype`` (float64, float32 or
    float16). Arrays of the same shape (no broadcasting; empty allowed); an error
    too many ULPs to count in float64 (``exact`` 0 or tiny) raises ValueError.

    Examples
    --------
    >>> import numpy as np, sinpe.numerics as numerics
    >>> numerics.ulp_error([1.0 + 2**-52], [1.0]).tolist()
    [1.0]
    >>> numerics.ulp_error([1.5], [1.0], dtype=np.float32).tolist()   # 0.5 / 2**-23
    [4194304.0]
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


@constrained(phases=RealArray())
def sincos(phases: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic ``(sin(phases), cos(phases))`` in float64, the same bits on every machine.

    The sines and cosines every table of sinpe is built from: fdlibm's algorithm in
    IEEE-754 additions, subtractions and multiplications only, never the platform's
    libm or a fused multiply-add (``sinpe/_trig.py`` states the algorithm and its
    assumptions); within 1 ulp of the exact value.

    Parameters
    ----------
    phases : array_like of real
        Finite phases in radians, any shape.

    Returns
    -------
    sine, cosine : numpy.ndarray
        float64 arrays of the shape of ``phases``.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.numerics import sincos
    >>> sine, cosine = sincos([0.0, np.pi / 2, 1e22])
    >>> sine.tolist()
    [0.0, 1.0, -0.8522008497671888]
    """
    return _trig.sincos(phases)
