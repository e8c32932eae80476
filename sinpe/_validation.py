"""Input checks shared by the public functions.

Every check raises a ``TypeError`` (wrong kind of thing) or a ``ValueError``
(right kind, wrong value) whose message names the offending value and says
what to pass instead. Nothing here returns NaN or silently switches convention.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np
import numpy.typing as npt

#: Layout names accepted by the functions that build or convert tables.
LAYOUTS = ("interleaved", "concat")

#: Output dtypes the tables can be cast to (they are always computed in float64).
SUPPORTED_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))

#: Largest integer position that float64 holds exactly (2**53).
MAX_EXACT_POSITION = 2**53

#: Widest encoding accepted: far beyond any model (the widest use about 2**14).
MAX_D_MODEL = 2**24

#: Most entries a function will allocate for one result (2**31 float64 = 16 GiB).
MAX_ENTRIES = 2**31


class PrecisionWarning(UserWarning):
    """The requested output dtype cannot faithfully hold what was asked for."""


def check_d_model(d_model: object, *, name: str = "d_model", even: bool = True) -> int:
    """Return ``d_model`` as an ``int`` after checking it is a positive (even) integer."""
    if isinstance(d_model, (bool, np.bool_)) or not isinstance(d_model, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer, got {d_model!r} of type {type(d_model).__name__}; "
            f"pass an int such as 512"
        )
    value = int(d_model)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}; pass an even width such as 512")
    if value > MAX_D_MODEL:
        raise ValueError(
            f"{name} must be at most 2**24 = {MAX_D_MODEL}, got {value}; "
            f"pass a model width such as 512"
        )
    if even and value % 2:
        raise ValueError(
            f"{name} must be even, got {value}: each frequency fills a (sin, cos) pair. "
            f"Use {f'{value - 1} or {value + 1}' if value > 1 else 2}, or a named convention "
            f"such as 'tensor2tensor' that pads odd widths with a zero column"
        )
    return value


def check_count(
    value: object, name: str, *, minimum: int = 1, maximum: int | None = None, hint: str = ""
) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer in ``[minimum, maximum]``.

    ``TypeError`` for a non-integer (booleans included), ``ValueError`` out of range;
    both name the argument and say what to pass (``hint``, e.g. "such as 8").
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer, got {value!r} of type {type(value).__name__}"
            f"{'; pass one ' + hint if hint else ''}"
        )
    count = int(value)
    if count < minimum or (maximum is not None and count > maximum):
        upper = f" and at most {maximum}" if maximum is not None else ""
        raise ValueError(
            f"{name} must be at least {minimum}{upper}, got {count}"
            f"{'; pass one ' + hint if hint else ''}"
        )
    return count


def check_entries(shape: tuple[int, ...], *, what: str) -> None:
    """Raise ``ValueError`` before allocating an array of ``shape`` beyond :data:`MAX_ENTRIES`."""
    entries = 1
    for size in shape:
        entries *= int(size)
    if entries > MAX_ENTRIES:
        raise ValueError(
            f"{what} would have shape {tuple(int(n) for n in shape)}: {entries:.3g} entries, "
            f"more than the {MAX_ENTRIES} (16 GiB of float64) allowed; pass smaller sizes"
        )


def check_finite_entries(array: np.ndarray, *, name: str) -> np.ndarray:
    """Return ``array`` unchanged (dtype kept) after checking its float entries are finite."""
    if array.dtype.kind in "fc" and not np.isfinite(array).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ValueError(
            f"{name} must be finite, got {array[where]!r} at index {where}; "
            f"remove or replace NaN and infinite entries"
        )
    return array


def check_base(base: object, *, name: str = "base") -> float:
    """Return ``base`` as a float after checking it is finite, positive and not 1."""
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {base!r} of type {type(base).__name__}; "
            f"pass a float such as 10000.0"
        )
    value = float(base)
    if not np.isfinite(value) or value <= 0:
        raise ValueError(
            f"{name} must be a finite number > 0, got {value!r}; the paper uses 10000.0"
        )
    if value == 1.0:
        raise ValueError(
            f"{name} must not be 1: every frequency would be 1 and all pairs identical; "
            f"pass a base > 1 such as 10000.0"
        )
    return value


def check_layout(layout: object, *, name: str = "layout") -> str:
    """Return ``layout`` after checking it is one of :data:`LAYOUTS`."""
    if not isinstance(layout, str) or layout not in LAYOUTS:
        raise ValueError(
            f"unknown {name} {layout!r}; use one of {', '.join(repr(x) for x in LAYOUTS)}"
        )
    return layout


def check_dtype(dtype: npt.DTypeLike) -> np.dtype:
    """Return ``np.dtype(dtype)`` after checking it is float16, float32 or float64."""
    try:
        resolved = np.dtype(dtype)
    except TypeError as error:
        raise TypeError(
            f"dtype {dtype!r} is not a NumPy dtype; pass np.float64, np.float32 or np.float16"
        ) from error
    if resolved not in SUPPORTED_DTYPES:
        raise TypeError(
            f"dtype must be float16, float32 or float64, got {resolved}; the encoding is "
            f"real-valued in [-1, 1], so integer, complex and extended types are not supported"
        )
    return resolved


def check_real_array(values: npt.ArrayLike, *, name: str = "positions") -> np.ndarray:
    """Return ``values`` as a float64 array after checking every entry is a finite real.

    Booleans, strings, objects and complex numbers raise ``TypeError``; NaN,
    infinities and integers beyond 2**53 (not exact in float64) raise ``ValueError``.
    """
    array = np.asarray(values)
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must be real numbers (int or float), got an array of dtype {array.dtype}; "
            f"pass e.g. np.arange(n)"
        )
    if array.dtype.kind in "iu":
        too_large = int(array.max()) > MAX_EXACT_POSITION if array.size else False
        if array.size and (too_large or int(array.min()) < -MAX_EXACT_POSITION):
            raise ValueError(
                f"{name} contains integers beyond 2**53 that float64 cannot hold exactly; "
                f"shift the positions (the encoding of p + k is a rotation of that of p)"
            )
        return array.astype(np.float64)
    result = array.astype(np.float64)
    finite = np.isfinite(result)
    if not finite.all():
        where = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise ValueError(
            f"{name} must be finite, got {result[where]!r} at index {where}; "
            f"remove or replace NaN and infinite entries"
        )
    return result


#: Accuracy a float64 table is documented to reach; beyond it a PrecisionWarning.
FLOAT64_ACCURACY = 1e-6


def check_pair(
    first: npt.ArrayLike,
    second: npt.ArrayLike,
    names: tuple[str, str],
    *,
    hint: str,
    allow_empty: bool = False,
    keep_dtype: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Two finite real arrays of one shape, compared entry for entry (no broadcasting).

    As float64 (:func:`check_real_array`), or with ``keep_dtype`` in their own float
    dtype (:func:`check_float_array`: a float32 layer's gradient stays float32).
    """
    if keep_dtype:
        one, two = check_float_array(first, names[0]), check_float_array(second, names[1])
    else:
        one = check_real_array(first, name=names[0])
        two = check_real_array(second, name=names[1])
    if one.shape != two.shape or (one.size == 0 and not allow_empty):
        raise ValueError(
            f"{names[0]} and {names[1]} must be {'' if allow_empty else 'non-empty and '}"
            f"of the same shape, got "
            f"{one.shape} and {two.shape}; {hint}"
        )
    return one, two


def check_phases(phases: np.ndarray) -> None:
    """Raise instead of returning NaN when ``position * frequency`` overflows float64."""
    if not np.isfinite(phases).all():
        raise ValueError(
            "position * frequency overflows float64 (the phase would be infinite and "
            "sin/cos NaN); use smaller positions or a base >= 1"
        )


def warn_if_imprecise(positions: np.ndarray, base: float, *, stacklevel: int = 3) -> None:
    """Warn when float64 itself cannot give the documented accuracy at these positions.

    The error bound of :func:`sinpe.positional_encoding` for the fastest pair is
    ``eps * (1 + (2 + |ln base|) |p|)``: the phase ``p * w`` is rounded to float64
    before its sine is taken. Past :data:`FLOAT64_ACCURACY` (1e-6; about
    ``|p| > 4e8`` for base 10000) the table is still the best float64 can do, but
    its entries are off by more than that -- by 0.45 at ``p = 2**53``.
    """
    if positions.size == 0:
        return
    largest = float(np.max(np.abs(positions)))
    bound = float(np.finfo(np.float64).eps) * (1.0 + (2.0 + abs(np.log(base))) * largest)
    if bound > FLOAT64_ACCURACY:
        warnings.warn(
            f"float64 cannot resolve position {largest:g} to {FLOAT64_ACCURACY:g}: the phase "
            f"p * w is rounded to float64, so entries may be off by up to {bound:.2g}; "
            f"shift the positions nearer 0 (PE(p + k) is a rotation of PE(p))",
            PrecisionWarning,
            stacklevel=stacklevel,
        )


def warn_if_unresolvable(positions: np.ndarray, dtype: np.dtype, *, stacklevel: int = 3) -> None:
    """Warn when ``dtype`` cannot hold the phase of the fastest pair at these positions.

    The fastest pair turns by one radian per position. Beyond ``2 / eps(dtype)``
    (2048 for float16) the dtype has no numbers between consecutive integers, so
    positions -- and the phases ``p * w`` -- stop being representable in it. The
    table itself is still computed in float64 and rounded once, but anything that
    recomputes or compares phases in this dtype is wrong there.
    """
    if dtype == np.float64 or positions.size == 0:
        return
    limit = 2.0 / float(np.finfo(dtype).eps)
    largest = float(np.max(np.abs(positions)))
    if largest > limit:
        warnings.warn(
            f"{dtype} cannot resolve the phase at position {largest:g}: beyond {limit:g} it "
            f"has no values between consecutive positions. The table was computed in float64 "
            f"and rounded once (each entry within {float(np.finfo(dtype).eps):g} of the truth), "
            f"but phases or positions handled in {dtype} are wrong there; "
            f"use dtype=np.float32 or np.float64",
            PrecisionWarning,
            stacklevel=stacklevel,
        )


def check_instance(value: object, name: str, kind: type, *, shown: str = "", hint: str = ""):
    """Return ``value`` after checking it is a ``kind`` (a model, a module, a generator).

    ``shown`` is how the message names ``kind`` (by default ``module.Name``).
    """
    if not isinstance(value, kind):
        shown = shown or f"{kind.__module__}.{kind.__name__}"
        advice = f"; pass {hint}" if hint else ""
        raise TypeError(f"{name} must be a {shown}, got {type(value).__name__}{advice}")
    return value


def check_flag(value: object, name: str) -> bool:
    """Return ``value`` as a ``bool`` after checking it is ``True`` or ``False``.

    A string such as ``"False"`` or a number would otherwise be truthy or falsy
    by accident, so only ``bool`` and ``numpy.bool_`` are accepted.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(
            f"{name} must be True or False, got {value!r} of type {type(value).__name__}"
        )
    return bool(value)


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` after checking it is one of the strings in ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(
            f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}"
        )
    return value


def check_real(
    value: object,
    name: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    strict_minimum: bool = False,
    strict_maximum: bool = False,
    hint: str = "",
) -> float:
    """Return ``value`` as a finite ``float`` in the given range (ends inclusive unless strict).

    ``TypeError`` for anything but a real number (booleans included), ``ValueError``
    for NaN, infinities and values out of range; both name the argument.
    """
    advice = f"; pass {hint}" if hint else ""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {value!r} of type {type(value).__name__}{advice}"
        )
    number = float(value)
    below = minimum is not None and (number <= minimum if strict_minimum else number < minimum)
    above = maximum is not None and (number >= maximum if strict_maximum else number > maximum)
    if not math.isfinite(number) or below or above:
        low = "" if minimum is None else f"{'>' if strict_minimum else '>='} {minimum:g}"
        high = "" if maximum is None else f"{'<' if strict_maximum else '<='} {maximum:g}"
        bounds = " and ".join(part for part in (low, high) if part)
        raise ValueError(
            f"{name} must be a finite number{' ' + bounds if bounds else ''}, "
            f"got {number!r}{advice}"
        )
    return number


def check_float_array(
    values: npt.ArrayLike,
    name: str,
    *,
    ndim: int | tuple[int, ...] | None = None,
    allow_negative_infinity: bool = False,
) -> np.ndarray:
    """Return ``values`` as a floating-point array (float16/32/64 kept, integers to float64).

    Booleans, strings, objects and complex numbers raise ``TypeError``; NaN and
    infinities (``-inf`` allowed only with ``allow_negative_infinity``, as in
    additive attention scores) and a wrong number of dimensions ``ValueError``.
    """
    array = np.asarray(values)
    if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must hold real numbers (int or float), got an array of dtype "
            f"{array.dtype}; pass a float array"
        )
    if array.dtype.kind in "iu" or array.dtype.itemsize > 8:
        array = array.astype(np.float64)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if array.ndim not in allowed:
            wanted = " or ".join(str(n) for n in allowed)
            raise ValueError(f"{name} must have {wanted} dimensions, got shape {array.shape}")
    bad = np.isnan(array) | (array == np.inf)
    if not allow_negative_infinity:
        bad |= array == -np.inf
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(
            f"{name} must be finite, got {array[where]!r} at index {where}; "
            f"remove or replace NaN and infinite entries"
        )
    return array


def check_integer_array(
    values: npt.ArrayLike,
    name: str,
    *,
    ndim: int | None = None,
    minimum: int | None = None,
    below: int | None = None,
    hint: str = "",
) -> np.ndarray:
    """Return ``values`` as a non-empty integer array with entries in ``[minimum, below)``.

    Used for token ids and class labels: a negative id would silently index an
    embedding table from its end, and a float id would be truncated, so both are
    refused. ``hint`` says what to pass (e.g. "np.array([[1, 2, 3]])").
    """
    advice = f"; pass e.g. {hint}" if hint else ""
    array = np.asarray(values)
    if array.dtype == np.bool_ or array.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers, got an array of dtype {array.dtype}{advice}")
    if (ndim is not None and array.ndim != ndim) or array.size == 0:
        dims = f"of {ndim} dimensions " if ndim is not None else ""
        raise ValueError(f"{name} must be a non-empty array {dims}got shape {array.shape}{advice}")
    low, high = int(array.min()), int(array.max())
    if (minimum is not None and low < minimum) or (below is not None and high >= below):
        lower = f" >= {minimum}" if minimum is not None else ""
        upper = f" below {below}" if below is not None else ""
        joined = " and".join(part for part in (lower, upper) if part)
        raise ValueError(f"{name} must be{joined}, got values from {low} to {high}")
    return array
