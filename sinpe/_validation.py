"""Input checks shared by the public functions.

Every check raises a ``TypeError`` (wrong kind of thing) or a ``ValueError``
(right kind, wrong value) whose message names the offending value and says
what to pass instead. Nothing here returns NaN or silently switches convention.

The rules are data (:class:`Constraint` and its kinds), declared on a public
function with :func:`constrained`; ``tests/test_constraints.py`` derives its
boundary calls from them. Where a rule is a domain, it is the one that keeps the
formulas inside float64: a ``base`` of at least 2**-1022 (:data:`MIN_BASE`) keeps
every frequency ``base ** (-2i/d)`` finite and nonzero. Positions are data, not a
domain (float positions up to 1e308 are accepted, with a warning past 2**53), so
the phase ``p * w`` of a base below 1 can still overflow: that stays checked
where it is computed (:func:`check_phases`).
"""

from __future__ import annotations

import functools
import math
import numbers
import os
import sys
import types
import warnings
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

#: The package's folder: warnings point at the first frame outside it.
_PACKAGE = os.path.dirname(os.path.abspath(__file__))

#: Layout names accepted by the functions that build or convert tables.
LAYOUTS = ("interleaved", "concat")

#: Output dtypes the tables can be cast to (they are always computed in float64).
SUPPORTED_DTYPES = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))

#: Largest integer position that float64 holds exactly (2**53).
MAX_EXACT_POSITION = 2**53

#: Smallest base accepted: the smallest normal float64. From it up to the largest
#: float64, every frequency ``base ** (-k / n)`` with ``0 <= k / n <= 1`` is finite
#: and nonzero; below it (a subnormal base) those of a wide encoding overflow.
MIN_BASE = 2.0**-1022

#: Widest encoding accepted: far beyond any model (the widest use about 2**14).
MAX_D_MODEL = 2**24

#: Most entries a function will allocate for one result (2**31 float64 = 16 GiB).
MAX_ENTRIES = 2**31


class PrecisionWarning(UserWarning):
    """The requested output dtype cannot faithfully hold what was asked for."""


class Constraint:
    """A rule one argument must obey, declared as data.

    Calling it, ``rule(value, name)``, returns the value converted (an ``int``, a
    ``float``, ...) or raises ``TypeError`` (wrong kind) / ``ValueError`` (wrong
    value) with a message that names ``name``. :meth:`refused` and :meth:`accepted`
    list the values on either side of the rule's boundaries, from which
    ``tests/test_constraints.py`` derives the hostile calls of every function that
    declares the rule with :func:`constrained`.
    """

    def __call__(self, value: object, name: str) -> object:
        raise NotImplementedError

    def refused(self) -> list[tuple[str, object]]:
        """``(label, value)`` pairs the rule must refuse: just outside each bound, ..."""
        return [("bool", True), ("string", "1"), ("None", None)]

    def accepted(self) -> list[tuple[str, object]]:
        """``(label, value)`` pairs the rule must accept: its bounds when closed, ..."""
        return []

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in vars(self).items())
        return f"{type(self).__name__}({fields})"


def _is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


class Integer(Constraint):
    """An integer (booleans refused) in ``[low, high]`` (``high=None``: no upper bound)."""

    def __init__(self, low: int = 1, high: int | None = None, *, hint: str = "") -> None:
        self.low, self.high, self.hint = low, high, hint

    def __call__(self, value: object, name: str) -> int:
        minimum, maximum, hint = self.low, self.high, self.hint
        if not _is_integer(value):
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

    def refused(self) -> list[tuple[str, object]]:
        found = [*super().refused(), ("float", self.low + 0.5), ("below low", self.low - 1)]
        return found + ([("above high", self.high + 1)] if self.high is not None else [])

    def accepted(self) -> list[tuple[str, object]]:
        found = [("low", self.low), ("NumPy low", np.int64(self.low))]
        return found + ([("high", self.high)] if self.high is not None else [])


class Width(Integer):
    """A model width: an integer in ``[1, MAX_D_MODEL]``, even unless ``even=False``."""

    def __init__(self, *, even: bool = True) -> None:
        super().__init__(1, MAX_D_MODEL)
        self.even = even

    def __call__(self, d_model: object, name: str = "d_model") -> int:
        if not _is_integer(d_model):
            raise TypeError(
                f"{name} must be an integer, got {d_model!r} of type {type(d_model).__name__}; "
                f"pass an int such as 512"
            )
        value, even = int(d_model), self.even
        if value <= 0:
            raise ValueError(
                f"{name} must be positive, got {value}; pass an even width such as 512"
            )
        if value > MAX_D_MODEL:
            raise ValueError(
                f"{name} must be at most 2**24 = {MAX_D_MODEL}, got {value}; "
                f"pass a model width such as 512"
            )
        return self.paired(value, name) if even else value

    @staticmethod
    def paired(value: int, name: str = "d_model") -> int:
        """``value`` (a width already checked) after checking it is even: where the
        rule of an argument allows odd widths but a choice made elsewhere (a sinusoidal
        encoding) fills (sin, cos) pairs."""
        if value % 2:
            raise ValueError(
                f"{name} must be even, got {value}: each frequency fills a (sin, cos) pair. "
                f"Use {f'{value - 1} or {value + 1}' if value > 1 else 2}, or a named "
                f"convention such as 'tensor2tensor' that pads odd widths with a zero column"
            )
        return value

    def refused(self) -> list[tuple[str, object]]:
        found = [*Constraint.refused(self), ("float", 2.0), ("zero", 0), ("negative", -2)]
        return found + [("above high", MAX_D_MODEL + 2)] + [("odd", 3)] * self.even

    def accepted(self) -> list[tuple[str, object]]:
        if not self.even:
            return super().accepted()
        return [("smallest even", 2), ("NumPy even", np.int64(4)), ("high", MAX_D_MODEL)]


def _closed_bounds(closed: str) -> tuple[bool, bool]:
    if closed not in ("both", "left", "right", "neither"):
        raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
    return closed in ("both", "left"), closed in ("both", "right")


class Real(Constraint):
    """A finite real number (booleans refused) between ``low`` and ``high``.

    ``closed`` says which ends belong to the interval ("both", "left", "right" or
    "neither"), as in scikit-learn's ``Interval``; ``None`` is no bound.
    """

    def __init__(
        self,
        low: float | None = None,
        high: float | None = None,
        *,
        closed: str = "both",
        hint: str = "",
    ) -> None:
        _closed_bounds(closed)
        self.low, self.high, self.closed, self.hint = low, high, closed, hint

    def __call__(self, value: object, name: str) -> float:
        minimum, maximum = self.low, self.high
        left, right = _closed_bounds(self.closed)
        advice = f"; pass {self.hint}" if self.hint else ""
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(
                f"{name} must be a real number, got {value!r} of type "
                f"{type(value).__name__}{advice}"
            )
        number = float(value)
        below = minimum is not None and (number < minimum if left else number <= minimum)
        above = maximum is not None and (number > maximum if right else number >= maximum)
        if not math.isfinite(number) or below or above:
            low = "" if minimum is None else f"{'>=' if left else '>'} {minimum:g}"
            high = "" if maximum is None else f"{'<=' if right else '<'} {maximum:g}"
            bounds = " and ".join(part for part in (low, high) if part)
            raise ValueError(
                f"{name} must be a finite number{' ' + bounds if bounds else ''}, "
                f"got {number!r}{advice}"
            )
        return number

    def refused(self) -> list[tuple[str, object]]:
        left, right = _closed_bounds(self.closed)
        found = [*super().refused(), ("complex", 1j), ("nan", math.nan)]
        found += [("inf", math.inf), ("-inf", -math.inf)]
        if self.low is not None:
            found.append(("below low", np.nextafter(self.low, -math.inf) if left else self.low))
        if self.high is not None:
            found.append(("above high", np.nextafter(self.high, math.inf) if right else self.high))
        return found

    def accepted(self) -> list[tuple[str, object]]:
        left, right = _closed_bounds(self.closed)
        found = []
        if self.low is not None:
            found.append(("low", self.low if left else float(np.nextafter(self.low, math.inf))))
        if self.high is not None:
            found.append(
                ("high", self.high if right else float(np.nextafter(self.high, -math.inf)))
            )
        return [*found, ("NumPy float64", np.float64(found[0][1] if found else 0.0))]


class Base(Real):
    """The constant ``C`` of the encoding: a finite real >= :data:`MIN_BASE`, not 1."""

    def __init__(self) -> None:
        super().__init__(MIN_BASE, None, closed="left")

    def __call__(self, base: object, name: str = "base") -> float:
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
        if value < MIN_BASE:
            raise ValueError(
                f"{name} must be at least 2**-1022 (the smallest normal float64), got "
                f"{value!r}: below it the frequencies of a wide encoding are outside float64; "
                f"the paper uses 10000.0"
            )
        if value == 1.0:
            raise ValueError(
                f"{name} must not be 1: every frequency would be 1 and all pairs identical; "
                f"pass a base > 1 such as 10000.0"
            )
        return value

    def refused(self) -> list[tuple[str, object]]:
        return [*super().refused(), ("zero", 0.0), ("one", 1.0)]

    def accepted(self) -> list[tuple[str, object]]:
        near_one = [("just below 1", float(np.nextafter(1.0, 0.0)))]
        near_one.append(("just above 1", float(np.nextafter(1.0, 2.0))))
        return [*super().accepted()[:1], *near_one, ("paper", np.float32(1e4))]


class Options(Constraint):
    """One of a few strings."""

    def __init__(self, *choices: str) -> None:
        self.choices = choices

    def __call__(self, value: object, name: str) -> str:
        choices = self.choices
        if not isinstance(value, str) or value not in choices:
            raise ValueError(
                f"{name} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}"
            )
        return value

    def refused(self) -> list[tuple[str, object]]:
        first = self.choices[0]
        return [
            ("None", None),
            ("number", 0),
            ("unknown", "unknown"),
            ("case", first.upper() if first.upper() not in self.choices else first.title()),
            ("padded", f" {first}"),
        ]

    def accepted(self) -> list[tuple[str, object]]:
        return [(choice, choice) for choice in self.choices]


class Layout(Options):
    """A table layout, one of :data:`LAYOUTS` (its message says "unknown layout")."""

    def __init__(self, *, what: str = "") -> None:
        super().__init__(*LAYOUTS)
        self.what = what

    def __call__(self, layout: object, name: str = "layout") -> str:
        name = self.what or name
        if not isinstance(layout, str) or layout not in LAYOUTS:
            raise ValueError(
                f"unknown {name} {layout!r}; use one of {', '.join(repr(x) for x in LAYOUTS)}"
            )
        return layout


class Flag(Constraint):
    """``True`` or ``False`` (``numpy.bool_`` too); a string or a number is refused."""

    def __call__(self, value: object, name: str) -> bool:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(
                f"{name} must be True or False, got {value!r} of type {type(value).__name__}"
            )
        return bool(value)

    def refused(self) -> list[tuple[str, object]]:
        return [("string", "False"), ("zero", 0), ("one", 1), ("None", None)]

    def accepted(self) -> list[tuple[str, object]]:
        return [("True", True), ("False", False), ("NumPy bool", np.bool_(True))]


class DType(Constraint):
    """An output dtype, one of :data:`SUPPORTED_DTYPES` (its messages say "dtype")."""

    def __call__(self, dtype: object, name: str = "dtype") -> np.dtype:
        try:
            resolved = np.dtype(dtype)
        except TypeError as error:
            raise TypeError(
                f"dtype {dtype!r} is not a NumPy dtype; pass np.float64, np.float32 or np.float16"
            ) from error
        if resolved not in SUPPORTED_DTYPES:
            raise TypeError(
                f"dtype must be float16, float32 or float64, got {resolved}; the encoding is "
                f"real-valued in [-1, 1], so integer, complex and extended types are not "
                f"supported"
            )
        return resolved

    def refused(self) -> list[tuple[str, object]]:
        return [
            ("int32", np.int32),
            ("complex", np.complex128),
            ("longdouble", np.longdouble),
            ("number", 3.5),
            ("bool", bool),
        ]

    def accepted(self) -> list[tuple[str, object]]:
        return [(str(dtype), dtype.type) for dtype in SUPPORTED_DTYPES] + [("name", "float32")]


class RealArray(Constraint):
    """An array of finite reals, returned as float64; integers must lie within 2**53.

    Booleans, strings, objects and complex numbers raise ``TypeError``; NaN,
    infinities and integers beyond 2**53 (not exact in float64) ``ValueError``.
    """

    def __call__(self, values: object, name: str = "positions") -> np.ndarray:
        array = np.asarray(values)
        if array.dtype == np.bool_ or array.dtype.kind not in "iuf":
            raise TypeError(
                f"{name} must be real numbers (int or float), got an array of dtype "
                f"{array.dtype}; pass e.g. np.arange(n)"
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

    def refused(self) -> list[tuple[str, object]]:
        return [
            ("bool array", np.array([True, False])),
            ("string", "1"),
            ("None", None),
            ("complex", np.array([1j, 2.0])),
            ("nan", np.array([0.0, np.nan])),
            ("inf", np.array([-np.inf, 0.0])),
            ("beyond 2**53", np.array([0, 2**53 + 1])),
            ("below -2**53", np.array([-(2**53) - 1, 0])),
        ]

    def accepted(self) -> list[tuple[str, object]]:
        return [
            ("2**53", np.array([0, 2**53])),
            ("-2**53", np.array([-(2**53), 3])),
            ("float16", np.array([0.0, 1.5], dtype=np.float16)),
            ("list", [1, 2.5]),
        ]


class Optional(Constraint):
    """``None``, or a value that obeys ``rule``."""

    def __init__(self, rule: Constraint) -> None:
        self.rule = rule

    def __call__(self, value: object, name: str) -> object:
        return None if value is None else self.rule(value, name)

    def refused(self) -> list[tuple[str, object]]:
        return [(label, value) for label, value in self.rule.refused() if value is not None]

    def accepted(self) -> list[tuple[str, object]]:
        return [("None", None), *self.rule.accepted()]


def constrained(**rules: Constraint) -> Callable:
    """Declare the constraints of a function's arguments, as scikit-learn's
    ``validate_params`` does: each named argument is checked (and converted) by its
    rule before the call, in the order declared, and the rules are kept as
    ``function.constraints`` so that the tests derive their hostile calls from them.
    A default is checked once, here, and then passed as converted.
    """

    def decorate(function: Callable) -> Callable:
        code = function.__code__
        known = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        missing = set(rules) - set(known)
        if missing:
            raise TypeError(f"{function.__name__} has no arguments {sorted(missing)}")
        positional = code.co_argcount
        given = function.__defaults__ or ()
        defaults = dict(zip(known[positional - len(given) : positional], given, strict=True))
        defaults.update(function.__kwdefaults__ or {})
        order = [(name, rule, known.index(name)) for name, rule in rules.items()]
        ready = {name: rules[name](defaults[name], name) for name in rules if name in defaults}

        @functools.wraps(function)
        def checked(*args, **kwargs):
            args = list(args)
            for name, rule, index in order:
                if index < min(len(args), positional):
                    args[index] = rule(args[index], name)
                elif name in kwargs:
                    kwargs[name] = rule(kwargs[name], name)
                elif name in ready:
                    kwargs[name] = ready[name]
            return function(*args, **kwargs)

        checked.constraints = types.MappingProxyType(rules)
        return checked

    return decorate


#: The rules most functions share, declared once.
D_MODEL, BASE, LAYOUT, DTYPE, POSITIONS = Width(), Base(), Layout(), DType(), RealArray()
FLAG = Flag()


def check_d_model(d_model: object, *, name: str = "d_model", even: bool = True) -> int:
    """Return ``d_model`` as an ``int`` after checking it is a positive (even) integer."""
    return Width(even=even)(d_model, name)


def check_count(
    value: object, name: str, *, minimum: int = 1, maximum: int | None = None, hint: str = ""
) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer in ``[minimum, maximum]``.

    ``TypeError`` for a non-integer (booleans included), ``ValueError`` out of range;
    both name the argument and say what to pass (``hint``, e.g. "such as 8").
    """
    return Integer(minimum, maximum, hint=hint)(value, name)


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


def check_dtype(dtype: npt.DTypeLike) -> np.dtype:
    """Return ``np.dtype(dtype)`` after checking it is float16, float32 or float64."""
    return DType()(dtype)


def check_real_array(values: npt.ArrayLike, *, name: str = "positions") -> np.ndarray:
    """Return ``values`` as a float64 array after checking every entry is a finite real.

    Booleans, strings, objects and complex numbers raise ``TypeError``; NaN,
    infinities and integers beyond 2**53 (not exact in float64) raise ``ValueError``.
    """
    return RealArray()(values, name)


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


def _outside_the_package() -> int:
    """The ``stacklevel`` that points a warning raised by this function's caller at the
    first frame outside ``sinpe``: the user's line, however many of the package's own
    frames (a public function, :func:`constrained`'s wrapper) lie between."""
    frame, level = sys._getframe(1), 1  # the caller, whose warnings.warn is stacklevel 1
    while frame is not None and _in_package(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _in_package(filename: str) -> bool:
    return os.path.dirname(os.path.abspath(filename)) == _PACKAGE


def warn_if_imprecise(positions: np.ndarray, base: float) -> None:
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
            stacklevel=_outside_the_package(),
        )


def warn_if_unresolvable(positions: np.ndarray, dtype: np.dtype) -> None:
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
            stacklevel=_outside_the_package(),
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
    return Flag()(value, name)


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` after checking it is one of the strings in ``choices``."""
    return Options(*choices)(value, name)


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
    closed = ("neither", "right", "left", "both")[2 * (not strict_minimum) + (not strict_maximum)]
    return Real(minimum, maximum, closed=closed, hint=hint)(value, name)


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
