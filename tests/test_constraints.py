"""Hostile calls derived from the declared argument constraints (issue 31).

A public function declares the rule each argument obeys with
``sinpe._validation.constrained`` (``@constrained(d_model=D_MODEL, length=Integer(0))``),
and the rule object that checks the argument is the one read here, from
``function.constraints``. For every declared argument of every function of
``tests/test_hostile.py``'s ``CASES`` (the valid arguments are built there), each
value the rule lists as refused must raise ``TypeError``/``ValueError`` naming the
argument, and each value it lists as accepted (its bounds, when closed) must give a
finite result. The generic sweep of ``test_hostile`` stays as it is.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_hostile import CASES, _finite

from sinpe import PrecisionWarning, core, fourier, geometry
from sinpe._validation import (
    D_MODEL,
    MIN_BASE,
    Base,
    Constraint,
    Flag,
    Integer,
    Layout,
    Options,
    Real,
    RealArray,
    Width,
    constrained,
)

#: Accepted boundary values too large to allocate a result for (a width of 2**24):
#: the rule itself is checked on them, not the function.
LARGEST_CALLED = 2**16

#: Functions that narrow one argument's range by the others (after its rule): an
#: accepted bound may still be refused there, by a ValueError that names that argument.
NARROWED = {
    "sinpe.core.component": ("index", "its range is first_index .. first_index + d_model - 1"),
    "sinpe.conventions.encode": ("min_timescale", "min_timescale**2 / base must be a float64"),
    "sinpe.binary.binary_encoding": ("positions", "they must lie in [0, 2**n_bits)"),
    "sinpe.images.sincos_2d": ("d_model", "it must be a multiple of 4 (two tables of pairs)"),
    "sinpe.claims.settled": ("step", "value / step must be a float64"),
}


def declared() -> list[tuple[str, str, Constraint]]:
    """(function, argument, rule) for every argument a function of CASES declares."""
    return [
        (name, argument, rule)
        for name, case in sorted(CASES.items())
        for argument, rule in getattr(case.call, "constraints", {}).items()
    ]


def _is_large(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and abs(int(value)) > LARGEST_CALLED


def violations(
    call: Callable[..., Any],
    make: Callable[[], dict[str, Any]],
    argument: str,
    rule: Constraint,
    allowed: tuple[type[BaseException], ...] = (),
) -> list[str]:
    """What ``call`` does against ``rule``'s boundary values for ``argument``, when wrong
    (``allowed``: the exceptions it documents besides TypeError and ValueError)."""
    found = []
    for label, value in rule.refused():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call(**{**make(), argument: value})
        except (TypeError, ValueError) as error:
            if argument not in str(error):
                found.append(f"refused {label} {value!r}: message {str(error)!r} lacks the name")
        else:
            found.append(f"refused {label} {value!r} was accepted")
    for label, value in rule.accepted():
        if _is_large(value):
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                warnings.simplefilter("ignore", PrecisionWarning)
                _finite(call(**{**make(), argument: value}), f"{argument}={value!r}")
        except allowed:
            pass
        except Exception as error:  # every failure is reported
            found.append(f"accepted {label} {value!r} raised {type(error).__name__}: {error}")
    return found


def test_functions_declare_their_constraints():
    """The modules converted so far declare through ``constrained``; a new public
    function of theirs should too (its rules are then swept below)."""
    names = {name for name, _, _ in declared()}
    assert {"sinpe.core.frequencies", "sinpe.core.positional_encoding"} <= names


@pytest.mark.parametrize(
    ("name", "argument", "rule"),
    declared(),
    ids=[f"{name}-{argument}" for name, argument, _ in declared()],
)
def test_declared_boundaries(name, argument, rule):
    case = CASES[name]
    problems = violations(case.call, case.make, argument, rule, case.allowed)
    if name in NARROWED:
        narrowed = f"raised ValueError: {NARROWED[name][0]}"
        problems = [p for p in problems if not (p.startswith("accepted") and narrowed in p)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "rule",
    [
        Integer(0, 5),
        Integer(-3),
        D_MODEL,
        Width(even=False),
        Real(0.0, 1.0, closed="left"),
        Real(-1.0, closed="neither"),
        Real(),
        Base(),
        Options("a", "b"),
        Layout(),
        Flag(),
        RealArray(),
    ],
    ids=repr,
)
def test_each_rule_refuses_what_it_lists_and_accepts_its_bounds(rule):
    for _, value in rule.refused():
        with pytest.raises((TypeError, ValueError), match="x"):
            rule(value, "x")
    for _, value in rule.accepted():
        rule(value, "x")


def test_a_loose_bound_is_caught():
    """A mutated rule: ``length`` declared from -1 instead of 0 lets -1 reach NumPy."""
    loose = constrained(length=Integer(-1))(core.table.__wrapped__)
    problems = violations(loose, CASES["sinpe.core.table"].make, "length", Integer(-1))
    assert any(p.startswith("accepted low -1") for p in problems), problems


def test_a_bound_off_by_one_is_caught():
    """nearest_distinct_position needs two positions: ``Integer(2)`` mutated to
    ``Integer(1)`` makes the sweep call it with context=1, which has no offset at all."""
    rules = dict(geometry.nearest_distinct_position.constraints)
    assert rules["context"].low == 2
    mutated = {**rules, "context": Integer(1, hint="such as 512")}
    loose = constrained(**mutated)(geometry.nearest_distinct_position.__wrapped__)
    case = CASES["sinpe.geometry.nearest_distinct_position"]
    problems = violations(loose, case.make, "context", mutated["context"])
    assert any(p.startswith("accepted low 1") for p in problems), problems
    assert not violations(case.call, case.make, "context", rules["context"])


def test_an_odd_width_declared_where_the_formula_needs_pairs_is_caught():
    loose = constrained(d_model=Width(even=False))(core.positional_encoding.__wrapped__)
    case = CASES["sinpe.core.positional_encoding"]
    problems = violations(loose, case.make, "d_model", Width(even=False))
    assert any(p.startswith("accepted low 1") for p in problems), problems


def test_a_function_that_skips_its_check_is_caught():
    """Declared but not applied: the rule is attached without ``constrained``."""
    unchecked = core.table.__wrapped__
    problems = violations(unchecked, CASES["sinpe.core.table"].make, "length", Integer(0))
    assert any("was accepted" in p for p in problems), problems
    assert any("lacks the name" in p for p in problems), problems


# ---------------------------------------------------------------------------------
# Domains that replace overflow guards inside the formulas (issue 31, item 4)


@pytest.mark.parametrize("base", [MIN_BASE, float(np.nextafter(1.0, 0.0)), np.finfo(float).max])
@pytest.mark.parametrize("width", [2, 64, 2000])
def test_the_base_domain_keeps_every_frequency_in_float64(base, width):
    """From 2**-1022 to the largest float64 every w_i = base ** (-2i/d) is finite and
    nonzero, so frequencies need no overflow check of their own."""
    omega = core.frequencies(width, base=base)
    assert np.isfinite(omega).all() and (omega > 0).all()
    assert np.isfinite(core.component(1.0, width - 1, width, base=base))


def test_below_the_base_domain_a_wide_encoding_would_overflow():
    subnormal = float(np.nextafter(MIN_BASE, 0.0)) / 2**40
    assert core._nearest_power(subnormal, -1998, 2000) == np.inf  # why the bound is there
    with pytest.raises(ValueError, match=r"base must be at least 2\*\*-1022.*outside float64"):
        core.frequencies(4, base=subnormal)


@pytest.mark.parametrize("scale", [-1074.0, 1023.0])
def test_the_scale_domain_keeps_every_power_of_two_in_float64(scale):
    matrix = fourier.log_spaced_matrix(9, 2, scale)
    assert np.isfinite(matrix).all()
    assert np.abs(matrix).max() == (2.0**scale - 1 if scale > 0 else 1.0)
    with pytest.raises(ValueError, match="scale must be a finite number >= -1074 and <= 1023"):
        fourier.log_spaced_matrix(9, 2, scale + np.sign(scale) * 0.5)
