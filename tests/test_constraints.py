"""Hostile calls derived from the declared argument constraints (issue 31).

A public function declares the rule each argument obeys with
``sinpe._validation.constrained`` (``@constrained(d_model=D_MODEL, length=Integer(0))``),
and the rule object that checks the argument is the one read here, from
``function.constraints``. For every declared argument of every function of
``tests/test_hostile.py``'s ``CASES`` (the valid arguments are built there), each
value the rule lists as refused must raise ``TypeError``/``ValueError`` naming the
argument, and each value it lists as accepted (its bounds, when closed) must give a
finite result. The generic sweep of ``test_hostile`` stays as it is. Which arguments
must be declared is checked too: a callable of CASES that takes an argument of the
shared VOCABULARY (``d_model``, ``base``, ...) declares it, unless EXEMPT says why not.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from test_hostile import CASES, Case, _entry, _finite

from sinpe import PrecisionWarning, core, fourier, geometry
from sinpe._validation import (
    D_MODEL,
    MIN_BASE,
    Base,
    Constraint,
    Flag,
    Instance,
    Integer,
    Layout,
    Options,
    Pair,
    Real,
    RealArray,
    Width,
    constrained,
)

#: Accepted boundary values too large to allocate a result for (a width of 2**24):
#: the rule itself is checked on them, not the function.
LARGEST_CALLED = 2**16

#: Arguments whose upper bound the sweep checks on the rule, not by calling the
#: function there, with the reason: what the call at the bound would run is called there
#: elsewhere in the sweep.
RULE_ONLY_AT_HIGH = {
    ("sinpe.symbolic.verify_periodic_features", "n_frequencies"): (
        "the proof at 4096 frequencies is integer_features at 4096, twice (10 s of exact "
        "trigonometry); the sweep calls integer_features at its bound"
    ),
}

#: Functions that narrow one argument's range by the others (after its rule): an
#: accepted bound may still be refused there, by a ValueError that names that argument
#: (its message starts with the first string given here, or one of them).
NARROWED = {
    "sinpe.core.component": ("index", "its range is first_index .. first_index + d_model - 1"),
    "sinpe.conventions.encode": ("min_timescale", "min_timescale**2 / base must be a float64"),
    "sinpe.binary.binary_encoding": ("positions", "they must lie in [0, 2**n_bits)"),
    "sinpe.images.sincos_2d": ("d_model", "it must be a multiple of 4 (two tables of pairs)"),
    "sinpe.claims.settled": ("step", "value / step must be a float64"),
    "sinpe.checkpoint.tables.buggy_table": (
        "the 'fp16 phases' table overflows at these positions",
        "float16 phases hold positions up to 65504 only",
    ),
    "sinpe.checkpoint.tables.inspect_table": ("positions must have shape", "one position per row"),
    "sinpe.rope.apply_rope": ("positions of shape", "they must broadcast to x.shape[:-1]"),
    "sinpe.axes.apply_mrope": ("positions must have one row per axis", "shape (3, ...)"),
    "sinpe.axes.apply_axial_rope": (
        "positions must have one row per axis",
        "shape (len(axes_dim), ...)",
    ),
    "sinpe.axes.mixed_frequencies": ("rng is needed", "rotate=True draws the angles from it"),
    "sinpe.axes.mixed_angles": ("positions must have one row per image axis", "shape (2, ...)"),
    "sinpe.axes.apply_mixed_rope": (
        "positions must have one row per image axis",
        "shape (2, ...)",
    ),
    # The frequencies of a base must be finite in the low precision computed in.
    "sinpe.numerics.low_precision_frequencies": ("base", "finite in float16/32 too"),
    "sinpe.numerics.low_precision_bound": ("base", "finite in float32 too"),
    "sinpe.numerics.computed_in": ("base", "finite in the precision too"),
    "sinpe.symbolic.frequency": ("index", "its range is 0 .. d_model / 2 - 1"),
    "sinpe.geometry.aliasing": ("context must be greater than far", "far is another argument"),
    "sinpe.rope.llama3_frequencies": ("Llama 3 needs", "0 < low_freq_factor < high_freq_factor"),
    "sinpe.rope.scaled_frequencies": ("YaRN needs", "0 <= alpha < beta"),
    "sinpe.lab.nn.MultiHeadAttention": (
        "frequencies",
        "given frequencies need a rotating scheme and fix the head width d_model / n_heads",
    ),
    "sinpe.rope_scaling.longrope_frequencies": (
        "ext_factors must hold one factor per pair",
        "one factor per pair of d_model",
    ),
    "sinpe.rope_scaling.yarn_frequencies": (
        "YaRN needs 0 <= alpha < beta",
        "beta_fast must exceed beta_slow (with truncate, as sinpe.rope.scaled_frequencies)",
    ),
    "sinpe.mla.decoupled_scores": ("positions must hold one position per token", "one per row"),
    "sinpe.mla.absorbed_scores": ("positions must hold one position per token", "one per row"),
    "sinpe.base_bound.smallest_base": (
        "no base from",
        "a head too narrow for the context (one pair fails at m = 2) has no good base",
    ),
    "sinpe.lab.probes.query_key_form": (("layer", "head"), "the model's layers and heads"),
    "sinpe.lab.probes.attention_peak": ("layer", "the model's layers, from 0"),
    "sinpe.lab.context.extend_context": ("ramp=", "a ramp is YaRN's option, refused with 'ntk'"),
    "sinpe.lab.nn.attention_bias": (
        ("mask must have shape", "key_padding_mask must be boolean of shape"),
        "batch, heads and length fix the shapes of the masks",
    ),
    "sinpe.lab.nn.ModelConfig": (
        "d_model",
        "n_heads must divide it, sinusoids need it even, RoPE heads of even width",
    ),
}

#: Arguments that mean one thing wherever they appear (each is taken by three or more
#: public callables), so whoever takes one declares its rule with ``constrained``:
#: the table's width, the constant C, a table layout, an output dtype, positions as
#: data, the heads of an attention layer, and how low-precision frequencies are formed.
VOCABULARY = ("d_model", "base", "layout", "dtype", "positions", "n_heads", "recipe")

#: (callable, argument) pairs that take a word of VOCABULARY in another sense, and why.
EXEMPT: dict[tuple[str, str], str] = {
    (f"sinpe.symbolic.{name}", "base"): "the constant C as a SymPy expression (the positive "
    "symbol C by default), carried exactly: no float rule applies"
    for name in (
        "frequency",
        "one_indexed_encoding",
        "rope",
        "shift_matrix",
        "sine_only_encoding",
        "sinusoidal_encoding",
    )
}


def declared() -> list[tuple[str, str, Constraint]]:
    """(callable, argument, rule) for every argument a callable of CASES declares."""
    return [
        (name, argument, rule)
        for name, case in sorted(CASES.items())
        for argument, rule in getattr(_entry(case.call), "constraints", {}).items()
    ]


def undeclared(cases: dict[str, Any], exempt: dict[tuple[str, str], str]) -> list[str]:
    """``callable(argument)`` for each word of VOCABULARY a callable takes without a rule."""
    found = []
    for name, case in sorted(cases.items()):
        entry = _entry(case.call)
        rules = getattr(entry, "constraints", {})
        for argument in inspect.signature(entry).parameters:
            if argument in VOCABULARY and argument not in rules and (name, argument) not in exempt:
                found.append(f"{name}({argument})")
    return found


def _is_large(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and abs(int(value)) > LARGEST_CALLED


def violations(
    call: Callable[..., Any],
    make: Callable[[], dict[str, Any]],
    argument: str,
    rule: Constraint,
    allowed: tuple[type[BaseException], ...] = (),
    infinite_ok: bool = False,
    rule_only: tuple[str, ...] = (),
) -> list[str]:
    """What ``call`` does against ``rule``'s boundary values for ``argument``, when wrong
    (``allowed``: the exceptions it documents besides TypeError and ValueError;
    ``infinite_ok``: the result may hold infinities by design, as a mask does;
    ``rule_only``: the labels of accepted values checked on the rule alone). A value
    is called once, under its first label."""
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
    called = set()
    for label, value in rule.accepted():
        if _is_large(value) or label in rule_only:
            try:
                rule(value, argument)
            except (TypeError, ValueError) as error:
                found.append(f"accepted {label} {value!r} is refused by its rule: {error}")
            continue
        if (type(value), repr(value)) in called:
            continue
        called.add((type(value), repr(value)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                warnings.simplefilter("ignore", PrecisionWarning)
                result = call(**{**make(), argument: value})
                _finite(result, f"{argument}={value!r}", infinite_ok)
        except allowed:
            pass
        except Exception as error:  # every failure is reported
            found.append(f"accepted {label} {value!r} raised {type(error).__name__}: {error}")
    return found


def stale_exemptions(cases: dict[str, Any], exempt: dict[tuple[str, str], str]) -> list[str]:
    """The exemptions that exempt nothing: the argument is declared, or not taken."""
    taken = set(undeclared(cases, {}))
    named = sorted(f"{name}({argument})" for name, argument in exempt)
    return [found for found in named if found not in taken]


def test_functions_declare_their_constraints():
    """The modules converted so far declare through ``constrained``; a new public
    function of theirs should too (its rules are then swept below)."""
    names = {name for name, _, _ in declared()}
    assert {"sinpe.core.frequencies", "sinpe.core.positional_encoding"} <= names


def test_the_shared_arguments_are_declared():
    """As scikit-learn's test_common: every public callable that takes an argument of
    the shared vocabulary declares its rule (so the sweep below derives its boundary
    calls), unless EXEMPT says why not; an exemption no longer needed is stale."""
    missing = undeclared(CASES, EXEMPT)
    assert not missing, f"declare these with @constrained (or EXEMPT, with a reason): {missing}"
    stale = stale_exemptions(CASES, EXEMPT)
    assert not stale, f"EXEMPT names arguments that are declared or not taken: {stale}"


def test_an_undeclared_shared_argument_is_found():
    """A made-up function that declares d_model but not positions nor base has those two
    named, so has a made-up class's ``__init__`` its n_heads, and a function that
    declares nothing all three; an exemption silences exactly the argument it names."""

    def made_up(positions, d_model, *, base=10000.0, scale=1.0):
        return positions, d_model, base, scale

    class MadeUp:
        @constrained(d_model=D_MODEL)
        def __init__(self, d_model, n_heads):
            self.d_model, self.n_heads = d_model, n_heads

    cases = {
        "fake.made_up": Case(constrained(d_model=D_MODEL)(made_up), dict),
        "fake.MadeUp": Case(MadeUp, dict),
    }
    expected = ["fake.MadeUp(n_heads)", "fake.made_up(positions)", "fake.made_up(base)"]
    assert undeclared(cases, {}) == expected
    assert undeclared({"fake.bare": Case(made_up, dict)}, {}) == [
        "fake.bare(positions)",
        "fake.bare(d_model)",
        "fake.bare(base)",
    ]
    exempt = {("fake.made_up", "base"): "a made-up reason"}
    assert undeclared(cases, exempt) == expected[:2]
    assert stale_exemptions(cases, exempt) == []
    exempt[("fake.made_up", "d_model")] = "declared after all"
    exempt[("fake.MadeUp", "layout")] = "not an argument"
    assert stale_exemptions(cases, exempt) == ["fake.MadeUp(layout)", "fake.made_up(d_model)"]


@pytest.mark.parametrize(
    ("name", "argument", "rule"),
    declared(),
    ids=[f"{name}-{argument}" for name, argument, _ in declared()],
)
def test_declared_boundaries(name, argument, rule):
    case = CASES[name]
    rule_only = ("high",) if (name, argument) in RULE_ONLY_AT_HIGH else ()
    problems = violations(
        case.call, case.kwargs, argument, rule, case.allowed, case.infinite_ok, rule_only
    )
    if name in NARROWED:
        starts = NARROWED[name][0]
        narrowed = [f"raised ValueError: {start}" for start in np.atleast_1d(starts)]
        problems = [
            p for p in problems if not (p.startswith("accepted") and any(n in p for n in narrowed))
        ]
    assert not problems, "\n".join(problems)


def test_a_bound_checked_on_the_rule_alone_is_called_for_another_function():
    rules = {(name, argument): rule for name, argument, rule in declared()}
    for (name, argument), reason in RULE_ONLY_AT_HIGH.items():
        rule = rules[name, argument]
        assert "high" in dict(rule.accepted()), (name, argument)
        called = [
            other
            for other, rule_there in rules.items()
            if rule_there is rule and other not in RULE_ONLY_AT_HIGH
        ]
        assert any(other[0].rpartition(".")[2] in reason for other in called), reason


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
        Instance(np.random.Generator),
        Pair(Real(0.0, 1.0, closed="left")),
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
    problems = violations(loose, CASES["sinpe.core.table"].kwargs, "length", Integer(-1))
    assert any(p.startswith("accepted low -1") for p in problems), problems


def test_a_bound_off_by_one_is_caught():
    """nearest_distinct_position needs two positions: ``Integer(2)`` mutated to
    ``Integer(1)`` makes the sweep call it with context=1, which has no offset at all."""
    rules = dict(geometry.nearest_distinct_position.constraints)
    assert rules["context"].low == 2
    mutated = {**rules, "context": Integer(1, hint="such as 512")}
    loose = constrained(**mutated)(geometry.nearest_distinct_position.__wrapped__)
    case = CASES["sinpe.geometry.nearest_distinct_position"]
    problems = violations(loose, case.kwargs, "context", mutated["context"])
    assert any(p.startswith("accepted low 1") for p in problems), problems
    assert not violations(case.call, case.kwargs, "context", rules["context"])


def test_an_odd_width_declared_where_the_formula_needs_pairs_is_caught():
    loose = constrained(d_model=Width(even=False))(core.positional_encoding.__wrapped__)
    case = CASES["sinpe.core.positional_encoding"]
    problems = violations(loose, case.kwargs, "d_model", Width(even=False))
    assert any(p.startswith("accepted low 1") for p in problems), problems


def test_a_function_that_skips_its_check_is_caught():
    """Declared but not applied: the rule is attached without ``constrained``."""
    unchecked = core.table.__wrapped__
    problems = violations(unchecked, CASES["sinpe.core.table"].kwargs, "length", Integer(0))
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
    with pytest.raises(
        ValueError, match=r"base must be a finite number >= 2\*\*-1022.*outside float64"
    ):
        core.frequencies(4, base=subnormal)


@pytest.mark.parametrize("scale", [-1074.0, 1023.0])
def test_the_scale_domain_keeps_every_power_of_two_in_float64(scale):
    matrix = fourier.log_spaced_matrix(9, 2, scale)
    assert np.isfinite(matrix).all()
    assert np.abs(matrix).max() == (2.0**scale - 1 if scale > 0 else 1.0)
    with pytest.raises(ValueError, match="scale must be a finite number >= -1074 and <= 1023"):
        fourier.log_spaced_matrix(9, 2, scale + np.sign(scale) * 0.5)
