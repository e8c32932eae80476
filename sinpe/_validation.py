"""Input checks shared by the public functions: one system of rules, declared as data.

A function declares each argument's rule with :func:`constrained`; the rule checks and
converts it before the body runs, and the tests derive their calls from the same rule
objects. A rule is data (bounds, a ``hint``, :class:`Condition` s such as "be even"); its
base class words every message: ``TypeError`` for the wrong kind, ``ValueError`` for a
wrong value, naming the argument. A domain keeps the formulas in float64 (a ``base`` of
at least 2**-1022, :data:`MIN_BASE`); the phase ``p * w`` of a base below 1 can still
overflow, checked where it is computed (:func:`check_phases`). A range that depends on
another argument (a pair index below ``d_model / 2``) is narrowed in the body.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, ParamSpec, TypeVar

import numpy as np
import numpy.typing as npt

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")

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


def _shown(bound: float) -> str:
    """A bound as messages print it: a power of two beyond 2**16 as ``2**k``."""
    mantissa, exponent = math.frexp(abs(bound))
    if mantissa == 0.5 and abs(exponent - 1) > 16:
        return f"{'-' if bound < 0 else ''}2**{exponent - 1}"
    return f"{bound:g}" if isinstance(bound, float) else str(bound)


@dataclass(frozen=True)
class Condition:
    """A condition a value obeys beyond its rule's bounds, as data.

    A value that fails ``holds`` is refused with "{name} must {words}, got {value}:
    {why}" (``why`` may be a function of the value); ``refused`` and ``accepted`` are
    values on either side, for the tests.
    """

    words: str
    holds: Callable[[Any], bool] = field(repr=False)
    why: str | Callable[[Any], str] = field(repr=False)
    refused: tuple[object, ...] = ()
    accepted: tuple[object, ...] = ()

    def check(self, value: object, name: str) -> None:
        if not self.holds(value):
            why = self.why(value) if callable(self.why) else self.why
            raise ValueError(f"{name} must {self.words}, got {value!r}: {why}")


class Constraint(Generic[T]):
    """A rule one argument must obey, declared as data.

    ``rule(value, name)`` returns the value converted or raises ``TypeError`` (not
    :attr:`kind`) / ``ValueError`` (outside :meth:`bounds`, or failing a :class:`Condition`)
    naming ``name`` (by default :attr:`name`) and ending with the ``hint``: a kind of rule
    says what it accepts, the messages are worded here, once. :meth:`refused` and
    :meth:`accepted` (the typical value first) are values on either side, for the tests.
    """

    #: The argument's usual name, when the caller gives none.
    name: ClassVar[str] = "value"
    #: What a value must be, for the TypeError: "an integer".
    kind: ClassVar[str] = "a value"
    #: How the hint is appended to a message.
    advice: ClassVar[str] = "; pass {hint}"
    #: The error for a value of the right kind outside the rule.
    outside: ClassVar[type[Exception]] = ValueError
    #: Why the bounds are where they are, when a message should say.
    beyond: ClassVar[str] = ""

    hint: str = ""
    conditions: tuple[Condition, ...] = ()

    def __call__(self, value: object, name: str = "") -> T:
        name = name or self.name
        if not self.is_kind(value):
            raise TypeError(
                f"{name} must be {self.kind}, got {value!r} of type {type(value).__name__}"
                f"{self._advice()}"
            )
        converted = self.convert(value)
        if not self.inside(converted):
            raise self.outside(
                f"{name} must be {self.bounds()}, got {converted!r}{self.explain(converted)}"
                f"{self._advice()}"
            )
        for condition in self.conditions:
            condition.check(converted, name)
        return converted

    def _advice(self) -> str:
        return self.advice.format(hint=self.hint) if self.hint else ""

    def is_kind(self, value: object) -> bool:
        return True

    def convert(self, value: Any) -> T:
        raise NotImplementedError

    def inside(self, value: T) -> bool:
        return True

    def bounds(self) -> str:
        return self.kind

    def explain(self, value: T) -> str:
        """Why a value is outside, when the rule knows more than its bounds."""
        return f": {self.beyond}" if self.beyond else ""

    def refused(self) -> list[tuple[str, object]]:
        """``(label, value)`` pairs the rule must refuse: just outside each bound, ..."""
        found: list[tuple[str, object]] = [("bool", True), ("string", "1"), ("None", None)]
        return found + self._failing()

    def accepted(self) -> list[tuple[str, object]]:
        """``(label, value)`` pairs the rule must accept, the typical one first."""
        return []

    def _failing(self) -> list[tuple[str, object]]:
        return [(f"not {c.words}", value) for c in self.conditions for value in c.refused]

    def _passes(self, value: Any) -> bool:
        return self.inside(value) and all(c.holds(value) for c in self.conditions)

    def _first(self, label: str, candidates: list[Any]) -> list[tuple[str, object]]:
        """``[(label, the first candidate the rule accepts)]``, or ``[]``."""
        return next(([(label, c)] for c in candidates if self._passes(c)), [])

    def __repr__(self) -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in vars(self).items())
        return f"{type(self).__name__}({fields})"


def _is_integer(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


class Integer(Constraint[int]):
    """An integer (booleans refused) in ``[low, high]`` (``high=None``: no upper bound)."""

    kind = "an integer"
    advice = "; pass one {hint}"

    def __init__(
        self,
        low: int = 1,
        high: int | None = None,
        *,
        hint: str = "",
        conditions: tuple[Condition, ...] = (),
    ) -> None:
        self.low, self.high, self.hint, self.conditions = low, high, hint, conditions

    def is_kind(self, value: object) -> bool:
        return _is_integer(value)

    def convert(self, value: Any) -> int:
        return int(value)

    def inside(self, value: int) -> bool:
        return value >= self.low and (self.high is None or value <= self.high)

    def bounds(self) -> str:
        upper = f" and at most {_shown(self.high)}" if self.high is not None else ""
        return f"at least {_shown(self.low)}{upper}"

    def refused(self) -> list[tuple[str, object]]:
        found = [*super().refused(), ("float", self.low + 0.5), ("below low", self.low - 1)]
        return found + ([("above high", self.high + 1)] if self.high is not None else [])

    def accepted(self) -> list[tuple[str, object]]:
        low, high = self.low, self.high if self.high is not None else self.low + 3
        found = self._first("typical", [4, *range(low, low + 3)])
        lowest = [v for v in range(low, min(low + 3, high + 1)) if self._passes(v)][:1]
        found += [("low", lowest[0]), ("NumPy", np.int64(lowest[0]))] if lowest else []
        found += (
            self._first("high", list(range(high, high - 3, -1))) if self.high is not None else []
        )
        return found + [("condition", v) for c in self.conditions for v in c.accepted]


def _even_width(value: int) -> str:
    below = f"{value - 1} or {value + 1}" if value > 1 else "2"
    return (
        f"each frequency fills a (sin, cos) pair. Use {below}, or a named convention such "
        f"as 'tensor2tensor' that pads odd widths with a zero column"
    )


#: The condition of a sinusoidal width: pairs.
_PAIRS = Condition("be even", lambda v: v % 2 == 0, _even_width, refused=(3,), accepted=(2,))


class Width(Integer):
    """A model width: an integer in ``[1, high]``, even unless ``even=False``."""

    name = "d_model"

    def __init__(self, *, even: bool = True, high: int = MAX_D_MODEL, hint: str = "") -> None:
        pairs = (_PAIRS,) if even else ()
        super().__init__(1, high, hint=hint or "such as 512", conditions=pairs)
        self.even = even

    @staticmethod
    def paired(value: int, name: str = "d_model") -> int:
        """``value`` (a checked width) after checking it is even, where another argument
        (a sinusoidal encoding) needs (sin, cos) pairs."""
        _PAIRS.check(value, name)
        return value


def _closed_bounds(closed: str) -> tuple[bool, bool]:
    if closed not in ("both", "left", "right", "neither"):
        raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
    return closed in ("both", "left"), closed in ("both", "right")


class Real(Constraint[float]):
    """A finite real number (booleans refused) between ``low`` and ``high``.

    ``closed`` says which ends belong to the interval ("both", "left", "right" or
    "neither"), as in scikit-learn's ``Interval``; ``None`` is no bound.
    """

    kind = "a real number"

    def __init__(
        self,
        low: float | None = None,
        high: float | None = None,
        *,
        closed: str = "both",
        hint: str = "",
        conditions: tuple[Condition, ...] = (),
    ) -> None:
        _closed_bounds(closed)
        self.low, self.high, self.closed, self.hint = low, high, closed, hint
        self.conditions = conditions

    def is_kind(self, value: object) -> bool:
        return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))

    def convert(self, value: Any) -> float:
        try:
            return float(value)
        except OverflowError:  # an int beyond float64
            return math.inf if value > 0 else -math.inf

    def inside(self, value: float) -> bool:
        left, right = _closed_bounds(self.closed)
        low, high = self.low, self.high
        below = low is not None and (value < low if left else value <= low)
        above = high is not None and (value > high if right else value >= high)
        return (isinstance(value, int) or math.isfinite(value)) and not below and not above

    def bounds(self) -> str:
        left, right = _closed_bounds(self.closed)
        low = "" if self.low is None else f" {'>=' if left else '>'} {_shown(self.low)}"
        high = "" if self.high is None else f" {'<=' if right else '<'} {_shown(self.high)}"
        return f"a finite number{low}{' and' if low and high else ''}{high}"

    def refused(self) -> list[tuple[str, object]]:
        left, right = _closed_bounds(self.closed)
        found = [*super().refused(), ("complex", 1j), ("nan", math.nan)]
        found += [("inf", math.inf), ("-inf", -math.inf), ("huge int", 10**400)]
        if self.low is not None:
            found.append(("below low", np.nextafter(self.low, -math.inf) if left else self.low))
        if self.high is not None:
            found.append(("above high", np.nextafter(self.high, math.inf) if right else self.high))
        return found + ([("zero", 0.0)] if not self.inside(0.0) else [])

    def accepted(self) -> list[tuple[str, object]]:
        low, high = self.low, self.high
        ends = [low, np.nextafter(low, math.inf)] if low is not None else []
        usual = [v for v in [1.0, 2.0, 10.0, 0.5, *ends] if self._passes(v)][:1]
        found = [("typical", usual[0]), ("NumPy float64", np.float64(usual[0]))] if usual else []
        found += self._first("low", [float(v) for v in ends])
        if high is not None:
            found += self._first("high", [high, float(np.nextafter(high, -math.inf))])
        return found + [("condition", v) for c in self.conditions for v in c.accepted]


#: The condition of a base: not 1.
_NOT_ONE = Condition(
    "not be 1",
    lambda v: v != 1.0,
    "every frequency would be 1 and all pairs identical; pass a base > 1 such as 10000.0",
    refused=(1.0,),
    accepted=(float(np.nextafter(1.0, 0.0)), float(np.nextafter(1.0, 2.0))),
)


class Base(Real):
    """The constant ``C`` of the encoding: a finite real >= :data:`MIN_BASE`, not 1."""

    name = "base"
    beyond = "below 2**-1022 the frequencies of a wide encoding are outside float64"

    def __init__(self) -> None:
        super().__init__(
            MIN_BASE, None, closed="left", hint="a float such as 10000.0", conditions=(_NOT_ONE,)
        )


#: The condition of a scalar position: an integer is exact in float64.
_EXACT = Condition(
    f"not be an integer beyond 2**53 = {MAX_EXACT_POSITION}",
    lambda v: not isinstance(v, int) or abs(v) <= MAX_EXACT_POSITION,
    "float64 cannot hold it exactly; shift the positions (PE(p + k) is a rotation of PE(p))",
    refused=(MAX_EXACT_POSITION + 1, -MAX_EXACT_POSITION - 1),
    accepted=(MAX_EXACT_POSITION, 2.0**60),
)


class Position(Real):
    """One position: a finite real; an integer stays an ``int``, within 2**53."""

    def __init__(self, *, hint: str = "") -> None:
        super().__init__(hint=hint, conditions=(_EXACT,))

    def convert(self, value: Any) -> float:
        return int(value) if _is_integer(value) else super().convert(value)


class Options(Constraint[str]):
    """One of a few strings; ``aliases`` maps other spellings to a choice, ``mistaken``
    explains a word that is not one (``{"marian": "it is ambiguous: ..."}``)."""

    kind = "a string"

    def __init__(
        self,
        *choices: str,
        aliases: Mapping[str, str] | None = None,
        mistaken: Mapping[str, str] | None = None,
    ) -> None:
        self.choices, self.aliases, self.mistaken = choices, aliases or {}, mistaken or {}

    def is_kind(self, value: object) -> bool:
        return isinstance(value, str)

    def convert(self, value: Any) -> str:
        return str(self.aliases.get(value, value))  # an alias as its choice

    def inside(self, value: str) -> bool:
        return value in self.choices

    def bounds(self) -> str:
        return "one of " + ", ".join(repr(c) for c in (*self.choices, *self.aliases))

    def explain(self, value: str) -> str:
        return f": {self.mistaken[value]}" if value in self.mistaken else ""

    def refused(self) -> list[tuple[str, object]]:
        first, taken = self.choices[0], (*self.choices, *self.aliases)
        case = first.upper() if first.upper() not in taken else first.title()
        found = [*super().refused(), ("number", 0), ("unknown", "unknown"), ("case", case)]
        return [*found, ("padded", f" {first}"), *((w, w) for w in self.mistaken)]

    def accepted(self) -> list[tuple[str, object]]:
        return [(choice, choice) for choice in (*self.choices, *self.aliases)]


class Layout(Options):
    """A table layout, one of :data:`LAYOUTS`."""

    name = "layout"

    def __init__(self) -> None:
        super().__init__(*LAYOUTS)


class Flag(Constraint[bool]):
    """``True`` or ``False`` (``numpy.bool_`` too); a string or a number is refused."""

    kind = "True or False"

    def __init__(self, *, hint: str = "") -> None:
        self.hint = hint

    def is_kind(self, value: object) -> bool:
        return isinstance(value, (bool, np.bool_))

    def convert(self, value: Any) -> bool:
        return bool(value)

    def refused(self) -> list[tuple[str, object]]:
        return [("string", "False"), ("zero", 0), ("one", 1), ("None", None)]

    def accepted(self) -> list[tuple[str, object]]:
        return [("True", True), ("False", False), ("NumPy bool", np.bool_(True))]


class DType(Constraint[np.dtype[Any]]):
    """An output dtype, one of :data:`SUPPORTED_DTYPES`."""

    name = "dtype"
    kind = "a NumPy dtype"
    outside = TypeError
    hint = "np.float64, np.float32 or np.float16 (the encoding is real-valued in [-1, 1])"

    def is_kind(self, value: Any) -> bool:
        try:
            np.dtype(value)
        except TypeError:
            return False
        return True

    def convert(self, value: Any) -> np.dtype[Any]:
        return np.dtype(value)

    def inside(self, value: np.dtype[Any]) -> bool:
        return value in SUPPORTED_DTYPES

    def bounds(self) -> str:
        return "float16, float32 or float64"

    def refused(self) -> list[tuple[str, object]]:
        found = [("int32", np.int32), ("complex", np.complex128), ("bool", bool)]
        return [*found, ("longdouble", np.longdouble), ("number", 3.5)]

    def accepted(self) -> list[tuple[str, object]]:
        found = [(str(dtype), dtype.type) for dtype in SUPPORTED_DTYPES[::-1]]
        return [*found, ("name", "float32")]


class Instance(Constraint[T]):
    """An instance of ``cls`` (a model, a layer, a generator), returned unchanged.

    ``shown`` is how a message names ``cls`` (by default ``module.Name``); a message
    names the value's type, not the value (a model's repr would fill a screen).
    """

    def __init__(self, cls: type[T], *, shown: str = "", hint: str = "") -> None:
        self.cls, self.shown, self.hint = cls, shown or f"{cls.__module__}.{cls.__name__}", hint

    def __call__(self, value: object, name: str = "") -> T:
        if isinstance(value, self.cls):
            return value
        kind = type(value).__name__
        raise TypeError(f"{name or self.name} must be a {self.shown}, got {kind}{self._advice()}")


class Pair(Constraint[tuple[T, T]]):
    """Two values (a tuple or a list of two), each obeying ``rule`` as ``name[0]``, ``name[1]``."""

    def __init__(self, rule: Constraint[T], *, hint: str = "") -> None:
        self.rule, self.hint = rule, hint

    def __call__(self, value: object, name: str = "") -> tuple[T, T]:
        name = name or self.name
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            raise TypeError(f"{name} must be a pair, got {value!r}{self._advice()}")
        return self.rule(value[0], f"{name}[0]"), self.rule(value[1], f"{name}[1]")

    def refused(self) -> list[tuple[str, object]]:
        good = self.rule.accepted()[0][1]
        found: list[tuple[str, object]] = [("one", good), ("three", [good] * 3), ("None", None)]
        found += [(f"first {label}", (bad, good)) for label, bad in self.rule.refused()]
        return found + [(f"second {label}", [good, bad]) for label, bad in self.rule.refused()]

    def accepted(self) -> list[tuple[str, object]]:
        return [(label, (good, good)) for label, good in self.rule.accepted()]


class RealArray(Constraint[np.ndarray]):
    """An array of finite reals, returned as float64; integers must lie within 2**53.

    Booleans, strings, objects and complex numbers raise ``TypeError``; NaN,
    infinities and integers beyond 2**53 (not exact in float64) ``ValueError``. An
    array rule: its messages speak of dtypes and indices, so it words its own.
    """

    name = "positions"

    def __call__(self, value: object, name: str = "") -> np.ndarray:
        name = name or self.name
        array = np.asarray(value)
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
        return check_finite_entries(array.astype(np.float64), name=name)

    def refused(self) -> list[tuple[str, object]]:
        wrong = [("bool array", np.array([True, False])), ("string", "1"), ("None", None)]
        wrong += [("complex", np.array([1j, 2.0])), ("nan", np.array([0.0, np.nan]))]
        wrong += [("inf", np.array([-np.inf, 0.0])), ("beyond 2**53", np.array([0, 2**53 + 1]))]
        return [*wrong, ("below -2**53", np.array([-(2**53) - 1, 0]))]

    def accepted(self) -> list[tuple[str, object]]:
        right: list[tuple[str, object]] = [
            ("typical", np.arange(4)),
            ("2**53", np.array([0, 2**53])),
        ]
        right += [("-2**53", np.array([-(2**53), 3])), ("list", [1, 2.5])]
        return [*right, ("float16", np.array([0.0, 1.5], dtype=np.float16))]


class Optional(Constraint[T | None]):
    """``None``, or a value that obeys ``rule``."""

    def __init__(self, rule: Constraint[T]) -> None:
        self.rule = rule

    def __call__(self, value: object, name: str = "") -> T | None:
        return None if value is None else self.rule(value, name or self.rule.name)

    def refused(self) -> list[tuple[str, object]]:
        return [(label, value) for label, value in self.rule.refused() if value is not None]

    def accepted(self) -> list[tuple[str, object]]:
        return [("None", None), *self.rule.accepted()]


def constrained(**rules: Constraint[Any]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Declare the rules of a function's arguments, as scikit-learn's
    ``validate_params`` does: the call is bound to the signature
    (:meth:`inspect.Signature.bind`: positional, keyword, defaults), each named argument
    is checked (and converted) by its rule in the order declared, and the rules are
    kept as ``function.constraints`` for the tests. The decorated function keeps its
    signature, for :func:`inspect.signature` and type checkers alike. A default is
    checked once, here, and then passed as converted.
    """

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        signature = inspect.signature(function)
        plain = {
            name
            for name, parameter in signature.parameters.items()
            if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
        }
        if missing := sorted(set(rules) - plain):
            raise TypeError(f"{function.__qualname__} has no arguments {missing}")
        # Every argument can be passed by name: no positional-only or variadic parameter.
        by_name = all(
            p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            for p in signature.parameters.values()
        )
        given = {name: signature.parameters[name].default for name in rules}
        ready = {
            name: rules[name](value, name)
            for name, value in given.items()
            if value is not inspect.Parameter.empty
        }

        @functools.wraps(function)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as error:
                raise TypeError(f"{function.__name__}() {error}") from None
            arguments = bound.arguments
            for name, rule in rules.items():
                arguments[name] = rule(arguments[name], name) if name in arguments else ready[name]
            if by_name:  # as bound.args and bound.kwargs would pass them, but faster
                return function(**arguments)  # type: ignore[call-arg]  # the bound ones
            return function(*bound.args, **bound.kwargs)

        vars(checked)["constraints"] = types.MappingProxyType(rules)  # read by the tests
        return checked

    return decorate


#: The rules most functions share, declared once.
D_MODEL, BASE, LAYOUT, DTYPE, POSITIONS = Width(), Base(), Layout(), DType(), RealArray()
FLAG = Flag()


# check_count applies one rule in a body; the encoding wing declares its scalar
# arguments instead. Kept while sinpe.lab calls it.


def check_count(
    value: object, name: str, *, minimum: int = 1, maximum: int | None = None, hint: str = ""
) -> int:
    """Return ``value`` as an ``int`` after checking it is an integer in ``[minimum, maximum]``."""
    return Integer(minimum, maximum, hint=hint)(value, name)


# Array checks: the shape, dtype and entries of array arguments.


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


def check_real_array(values: npt.ArrayLike, *, name: str = "positions") -> np.ndarray:
    """Return ``values`` as a float64 array, checked by :data:`POSITIONS` (:class:`RealArray`)."""
    return POSITIONS(values, name)


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


def check_instance(
    value: object, name: str, kind: type[T], *, shown: str = "", hint: str = ""
) -> T:
    """Return ``value`` after checking it is a ``kind`` (:class:`Instance`'s rule)."""
    return Instance(kind, shown=shown, hint=hint)(value, name)


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
    scores = np.where(array == -np.inf, 0, array) if allow_negative_infinity else array
    check_finite_entries(scores, name=name)
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
