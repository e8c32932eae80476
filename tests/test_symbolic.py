"""Each symbolic proof passes for the paper's encoding and fails for wrong ones."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import sinpe
from sinpe import symbolic as sym
from sinpe.fourier import integer_features

WRONG = sym.WRONG_ENCODINGS

# (proof, wrong encodings it must reject). Some wrong encodings keep a property on
# purpose: a swapped layout keeps every dot product, integer division keeps the
# per-pair form (only its frequencies are wrong) -- the chapter says so.
REJECTIONS = [
    (
        sym.verify_pair_rotation,
        ["sine only", "cosine at double frequency", "swapped layout (cos, sin)"],
    ),
    (sym.verify_shift_group, list(WRONG)),
    (
        sym.verify_dot_product,
        ["sine only", "cosine at double frequency", "integer division 2*i//d"],
    ),
    (sym.verify_indexings_agree, list(WRONG)),
]


@pytest.mark.parametrize(
    "proof", [proof for proof, _ in REJECTIONS] + [sym.verify_periodic_features]
)
def test_proofs_hold_for_the_paper(proof):
    result = proof()
    assert isinstance(result, sym.VerifiedIdentity)
    assert result.latex().startswith("\\begin{aligned}")


@pytest.mark.parametrize(
    ("proof", "wrong"), [(proof, name) for proof, names in REJECTIONS for name in names]
)
def test_proofs_fail_for_wrong_encodings(proof, wrong):
    with pytest.raises(sym.IdentityError):
        proof(WRONG[wrong])


def test_one_indexed_definition_is_accepted_as_an_encoding():
    sym.verify_indexings_agree(sym.one_indexed_encoding)
    sym.verify_shift_group(sym.one_indexed_encoding, d_model=4)


def test_pair_rotation_is_clockwise_in_the_sin_cos_plane():
    result = sym.verify_pair_rotation()
    phi = sym.shift * sym.omega
    assert result.objects["R"] == sym.counterclockwise(-phi).applyfunc(sp.simplify)
    swapped = sym.derive_shift_map(
        lambda at: WRONG["swapped layout (cos, sin)"](sym.omega * at, 2, base=sym.base)
    )
    assert sp.simplify(swapped - sym.counterclockwise(phi)) == sp.zeros(2)


def test_derivation_explains_why_sines_alone_fail():
    with pytest.raises(sym.IdentityError, match="not independent"):
        sym.derive_shift_map(lambda at: sym.sine_only_encoding(at, 2, base=sym.base))
    with pytest.raises(sym.IdentityError, match=r"needs \[cos\(p\)\]"):
        sym.derive_shift_map(lambda at: sp.Matrix([sp.sin(at)]))


def test_sine_only_counterexample_and_not_for_the_paper():
    result = sym.verify_no_linear_shift(sym.sine_only_encoding, d_model=4)
    assert list(result.objects["PE(0)"]) == [0, 0, 0, 0]
    with pytest.raises(sym.IdentityError, match="is not zero"):
        sym.verify_no_linear_shift(sym.sinusoidal_encoding)


def test_periodic_features_reject_a_non_integer_frequency():
    def half(x, count):
        return sp.Matrix([sp.sin(x / 2), sp.cos(x / 2)] * count)

    with pytest.raises(sym.IdentityError, match="not 2\\*pi-periodic"):
        sym.verify_periodic_features(half)


# Cross-checks of the symbolic objects against the NumPy package.


def test_symbolic_encoding_matches_numpy():
    d = 8
    expr = sym.sinusoidal_encoding(sym.position, d)
    evaluate = sp.lambdify((sym.position, sym.base), expr, "numpy")
    for p in (0.0, 1.0, 17.25, -300.5):
        np.testing.assert_allclose(
            np.asarray(evaluate(p, 10000.0), float).ravel(),
            sinpe.positional_encoding(p, d),
            atol=1e-12,
        )
    one = sp.lambdify((sym.position, sym.base), sym.one_indexed_encoding(sym.position, d))
    for j in range(1, d + 1):
        assert float(one(3.5, 500.0)[j - 1, 0]) == pytest.approx(
            float(sinpe.component(3.5, j, d, base=500.0, first_index=1)), abs=1e-12
        )


def test_symbolic_shift_matrix_matches_numpy():
    evaluate = sp.lambdify((sym.shift, sym.base), sym.shift_matrix(sym.shift, 6), "numpy")
    np.testing.assert_allclose(
        np.asarray(evaluate(2.5, 10000.0), float), sinpe.shift_matrix(2.5, 6), atol=1e-12
    )


def test_symbolic_features_match_numpy():
    evaluate = sp.lambdify(sym.angle, sym.integer_features(sym.angle, 3), "numpy")
    np.testing.assert_allclose(
        np.asarray(evaluate(0.7), float).ravel(), integer_features(0.7, 3), atol=1e-14
    )


def test_bad_widths():
    # The same errors as sinpe.positional_encoding: ValueError for an odd width,
    # TypeError for a float one (issue 17: one check, in sinpe._validation).
    with pytest.raises(ValueError, match="must be even, got 3"):
        sym.sinusoidal_encoding(sym.position, 3)
    with pytest.raises(TypeError, match=r"must be an integer, got 8\.0"):
        sym.sinusoidal_encoding(sym.position, 8.0)
    with pytest.raises(ValueError, match="n_frequencies must be at least 1"):
        sym.integer_features(sym.angle, 0)
    with pytest.raises(ValueError, match="layout must be one of"):
        sym.rope(sp.Matrix([1, 2]), sym.position, layout="neox")


def test_latex_keeps_each_left_hand_side():
    # A display line that starts with "[" right after \begin{aligned} is read as
    # aligned's optional argument, and its left-hand side disappears (issue 18).
    identity = sym.VerifiedIdentity(
        "bracket", (sp.Eq(sp.Symbol("[PE(p)]_{2i}"), sp.Symbol("x"), evaluate=False),)
    )
    body = identity.latex().split("\n")[1:-1]
    assert body == ["{[PE(p)]_{2i}} &= {x}"]
    for proof in (sym.verify_shift_group(d_model=2), sym.verify_dot_product(d_model=2)):
        for line in proof.latex().split("\n")[1:-1]:
            assert line.startswith("{") and "} &= {" in line, line


def test_stacked_latex_puts_each_side_on_its_own_line():
    # Theorem boxes on a phone (issue 18): each long right-hand side under its left-hand
    # side; a short statement stays on one line (issue 30).
    long = "x_{" + "1" * 64 + "}"
    identity = sym.VerifiedIdentity(
        "two",
        (
            sp.Eq(sp.Symbol("[a]_{1}"), sp.Symbol(long), evaluate=False),
            sp.Eq(sp.Symbol("c"), sp.Symbol("d"), evaluate=False),
        ),
    )
    assert identity.latex(stacked=True).split("\n") == [
        "\\begin{aligned}",
        "& {[a]_{1}} \\\\",
        f"&\\quad = {{{long}}} \\\\",
        "& {c} = {d}",
        "\\end{aligned}",
    ]
    assert identity.latex(stacked=False) == identity.latex()
    with pytest.raises(TypeError, match="stacked"):
        identity.latex(stacked="yes")


def test_latex_puts_words_between_statements():
    # Issue 30: stacked statements read as one sentence, not as a column of formulas.
    three = sym.VerifiedIdentity("three", (sp.Eq(sp.Symbol("x"), 1, evaluate=False),) * 3)
    lines = three.latex(stacked=True, between=["and, written out, $R^T R = I$:", ""])
    assert lines.split("\n") == [
        "\\begin{aligned}",
        "& {x} = {1} \\\\",
        "&\\text{and, written out, }R^T R = I\\text{:} \\\\",
        "& {x} = {1} \\\\",
        "& {x} = {1}",
        "\\end{aligned}",
    ]
    assert three.latex(between="and").count("\\text{and}") == 2
    assert three.latex(between="") == three.latex()
    with pytest.raises(ValueError, match="2 gaps"):
        three.latex(between=["and"])
    with pytest.raises(ValueError, match="unpaired"):
        three.latex(between="and $x")
    with pytest.raises(TypeError, match="between"):
        three.latex(between=3)
    # The theorems of chapter 2 still fail loudly on a wrong encoding.
    with pytest.raises(sym.IdentityError):
        sym.verify_pair_rotation(sym.WRONG_ENCODINGS["swapped layout (cos, sin)"])


def test_stacked_latex_folds_function_brackets_only_where_unambiguous():
    k, omega, p, q = sp.symbols("k omega p q")
    identity = sym.VerifiedIdentity(
        "fold", (sp.Eq(sp.cos(k * omega), sp.cos(p - q), evaluate=False),)
    )
    assert identity.latex(stacked=True).split("\n")[1] == (
        "& {\\cos {k \\omega}} = {\\cos{\\left(p - q \\right)}}"  # p - q keeps its brackets
    )
    assert "\\cos{\\left(k \\omega \\right)}" in identity.latex()
