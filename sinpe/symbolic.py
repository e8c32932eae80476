"""Machine-checked identities of the sinusoidal encoding, with SymPy.

Each ``verify_*`` function checks one result for an *encoding passed in as a
parameter* and returns a :class:`VerifiedIdentity` whose LaTeX is generated
from the very expressions that were checked. When the identity does not hold
for the encoding it is given, it raises :class:`IdentityError` (an
``AssertionError``), so a proof cannot pass silently for a wrong formula.

An *encoding* here is any callable ``encoding(position, d_model, *, base)`` that
returns a SymPy column matrix of length ``d_model``; :func:`sinusoidal_encoding`
is the paper's, :func:`one_indexed_encoding` the textbook's, and
:data:`WRONG_ENCODINGS` holds encodings with bugs seen in real code (the symbolic
side of :data:`sinpe.checkpoint.tables.BUGGY_TABLES`), for the tests.

Shared conventions: ``position`` is a SymPy expression or number (e.g. the symbol
:data:`position`, ``p``); ``base`` the constant ``C``, by default the positive
symbol :data:`base`; ``d_model`` a positive even width of at most 4096 (exact
expressions grow fast), else TypeError or ValueError as everywhere in sinpe. An
encoding returns a column of shape ``(d_model, 1)``. A ``verify_*`` function's
``d_model`` is the width it checks at; the identity's ``name`` and ``objects``
are given with each.

SymPy is imported here only; the core of :mod:`sinpe` needs NumPy alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sinpe._validation import FLAG, Integer, Width, constrained
from sinpe.rope import _LAYOUT

try:
    import sympy as sp
except ModuleNotFoundError:
    raise ModuleNotFoundError("sinpe.symbolic needs SymPy: pip install 'sinpe[symbolic]'") from None

__all__ = [
    "WRONG_ENCODINGS",
    "IdentityError",
    "VerifiedIdentity",
    "base",
    "counterclockwise",
    "derive_shift_map",
    "frequency",
    "integer_features",
    "mixed_angle",
    "omega",
    "one_indexed_encoding",
    "other_position",
    "position",
    "rope",
    "rotation",
    "shift",
    "shift_matrix",
    "sine_only_encoding",
    "sinusoidal_encoding",
    "verify_dot_product",
    "verify_indexings_agree",
    "verify_mixed_shift",
    "verify_no_linear_shift",
    "verify_pair_rotation",
    "verify_periodic_features",
    "verify_rope_layouts",
    "verify_rope_norm",
    "verify_rope_relative",
    "verify_shift_group",
]

#: The position ``p``, a second position ``q``, the shift ``k`` and a free angle ``x``.
position, other_position, shift, second_shift = sp.symbols("p q k j", real=True)
angle = sp.Symbol("x", real=True)
#: The base ``C`` (10000 in the paper).
base = sp.Symbol("C", positive=True)
#: A generic angular frequency ``omega``.
omega = sp.Symbol("omega", positive=True)

# Longest statement (characters of LaTeX, both sides) that latex(stacked=True) keeps on
# one line.
_SHORT = 64


class Encoding(Protocol):
    """An encoding as the ``verify_*`` functions call it: ``encoding(p, d_model, base=C)``."""

    def __call__(self, position: sp.Expr, d_model: int, *, base: sp.Expr = ...) -> sp.Matrix: ...


class IdentityError(AssertionError):
    """An identity claimed for an encoding does not hold for it.

    An ``AssertionError``, raised by :func:`derive_shift_map` and every ``verify_*``
    function, with a ``message`` that names the entry or the step that fails.

    Examples
    --------
    The paper's encoding is no counterexample to a linear shift map: its
    ``PE(0)`` is not zero.

    >>> from sinpe import symbolic
    >>> try:
    ...     symbolic.verify_no_linear_shift(symbolic.sinusoidal_encoding)
    ... except symbolic.IdentityError as error:
    ...     print(isinstance(error, AssertionError), error)
    True PE(0) = [0, 1, 0, 1] is not zero: no counterexample at p = 0
    """


@dataclass(frozen=True)
class VerifiedIdentity:
    """An identity that SymPy has checked, ready for display (as LaTeX in a notebook).

    Parameters
    ----------
    name : str
        What was proved.
    statements : tuple of sympy.Eq
        The checked equalities, in the order of the proof (unevaluated, so that
        both sides display as they were compared).
    objects : dict of str to sympy.Basic, optional
        Named SymPy objects the proof produced (e.g. the derived matrix).

    Examples
    --------
    >>> import sympy as sp
    >>> from sinpe import symbolic
    >>> p = symbolic.position
    >>> square = sp.Eq(sp.sin(p) ** 2 + sp.cos(p) ** 2, 1, evaluate=False)
    >>> identity = symbolic.VerifiedIdentity("Pythagoras", (square,))
    >>> print(identity.latex())
    \\begin{aligned}
    {\\sin^{2}{\\left(p \\right)} + \\cos^{2}{\\left(p \\right)}} &= {1}
    \\end{aligned}
    """

    name: str
    statements: tuple[sp.Eq, ...]
    objects: dict[str, sp.Basic] = field(default_factory=dict)

    @constrained(stacked=FLAG)
    def latex(self, *, stacked: bool = False, between: str | Sequence[str] = "") -> str:
        """The statements as one LaTeX ``aligned`` block, each side in braces.

        Parameters
        ----------
        stacked : bool, optional
            Put each right-hand side under its left-hand side (``& lhs \\\\ &\\quad =
            rhs``) unless the statement is short, and drop the brackets of a function's
            argument where none are needed (``\\cos {k \\omega}``): about half as wide,
            so that a long identity fits a phone's screen.
        between : str or sequence of str, optional
            Words on a line of their own between consecutive statements (e.g. ``"and"``),
            ``$...$`` in them set as maths: one text for every gap, or one per gap.

        Examples
        --------
        >>> import sympy as sp
        >>> from sinpe import symbolic
        >>> identity = symbolic.VerifiedIdentity("one", (sp.Eq(sp.Symbol("x"), 1),))
        >>> print(identity.latex(stacked=True))
        \\begin{aligned}
        & {x} = {1}
        \\end{aligned}
        >>> two = symbolic.VerifiedIdentity("two", (sp.Eq(sp.Symbol("x"), 1),) * 2)
        >>> print(two.latex(between="and"))
        \\begin{aligned}
        {x} &= {1} \\\\
        &\\text{and} \\\\
        {x} &= {1}
        \\end{aligned}
        """
        # Each side in braces: a line that starts with "[" right after
        # \begin{aligned} would be read as aligned's optional argument and vanish.
        # Stacked, also "cos k omega" for cos(k omega) where no bracket is needed.
        options = {"fold_func_brackets": True} if stacked else {}
        sides = [
            (sp.latex(eq.lhs, **options), sp.latex(eq.rhs, **options)) for eq in self.statements
        ]
        if stacked:  # a short statement stays on one line
            lines = [
                f"& {{{lhs}}} = {{{rhs}}}"
                if len(lhs) + len(rhs) <= _SHORT
                else f"& {{{lhs}}} \\\\\n&\\quad = {{{rhs}}}"
                for lhs, rhs in sides
            ]
        else:
            lines = [f"{{{lhs}}} &= {{{rhs}}}" for lhs, rhs in sides]
        for index, words in reversed(list(enumerate(_gaps(between, len(lines) - 1)))):
            if words:
                lines.insert(index + 1, f"&{words}")
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"

    def _repr_latex_(self) -> str:
        return f"$\\displaystyle {self.latex()}$"


def _gaps(between: object, gaps: int) -> list[str]:
    """``between`` as LaTeX, one line per gap: words in ``\\text``, ``$...$`` as math."""
    if isinstance(between, str):
        between = [between] * gaps
    if not isinstance(between, (list, tuple)) or not all(isinstance(w, str) for w in between):
        raise TypeError(f"between must be text or a list of texts, got {between!r}")
    if len(between) != gaps:
        raise ValueError(
            f"between needs one text for each of the {gaps} gaps between statements, "
            f"got {len(between)}"
        )
    lines = []
    for words in between:
        parts = words.split("$")
        if len(parts) % 2 == 0:
            raise ValueError(f"between has an unpaired '$' in {words!r}")
        lines.append(
            "".join(
                (f"\\text{{{part}}}" if part else "") if index % 2 == 0 else part
                for index, part in enumerate(parts)
            )
        )
    return lines


#: Largest width or count the symbolic functions build (exact expressions grow fast).
MAX_SYMBOLIC_SIZE = 4096


class _SymbolicWidth(Width):
    """``d_model`` for exact work: a positive even integer, at most MAX_SYMBOLIC_SIZE."""

    def accepted(self) -> list[tuple[str, object]]:
        # Typically 2, and not the bound itself: exact work 4096 wide takes too long for
        # a sweep (the largest width is tested in tests/test_oracles.py, on frequency alone).
        found = [pair for pair in super().accepted()[1:] if pair[0] != "high"]
        return [("typical", 2), *found]


_WIDTH = _SymbolicWidth(high=MAX_SYMBOLIC_SIZE, hint="a small width such as 4 or 6")
_COUNT = Integer(1, MAX_SYMBOLIC_SIZE, hint="such as 3")


# ---------------------------------------------------------------------------
# The encodings


@constrained(d_model=_WIDTH, index=Integer(0, hint="a pair index such as 0"))
def frequency(index: int, d_model: int, *, base: sp.Expr = base) -> sp.Expr:
    """The paper's frequency ``w_i = C**(-2 i / d)`` of pair ``index``, exact.

    ``index`` is a Python ``int`` (any, though meant to be in ``0 .. d_model/2 - 1``).

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.frequency(1, 4), symbolic.frequency(1, 4, base=10000)
    (1/sqrt(C), 1/100)
    """
    if index >= d_model // 2:
        raise ValueError(f"index must be below d_model / 2 = {d_model // 2}, got {index}")
    return base ** sp.Rational(-2 * index, d_model)


@constrained(d_model=_WIDTH)
def sinusoidal_encoding(position: sp.Expr, d_model: int, *, base: sp.Expr = base) -> sp.Matrix:
    """The paper's encoding, 0-indexed and interleaved, as a SymPy column.

    ``PE(p, 2i) = sin(p w_i)``, ``PE(p, 2i + 1) = cos(p w_i)``.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.sinusoidal_encoding(symbolic.position, 4).T
    Matrix([[sin(p), cos(p), sin(p/sqrt(C)), cos(p/sqrt(C))]])
    """
    entries = []
    for i in range(d_model // 2):
        entries += [
            sp.sin(position * frequency(i, d_model, base=base)),
            sp.cos(position * frequency(i, d_model, base=base)),
        ]
    return sp.Matrix(entries)


@constrained(d_model=_WIDTH)
def one_indexed_encoding(position: sp.Expr, d_model: int, *, base: sp.Expr = base) -> sp.Matrix:
    """The textbook's encoding: components counted from 1.

    As :func:`sinusoidal_encoding`, written ``[pe(pos)]_{2i-1} = sin(pos /
    C**(2(i-1)/d))`` and ``[pe(pos)]_{2i} = cos(pos / C**(2(i-1)/d))`` for ``i = 1 ..
    d/2``; the entry numbered ``j`` is at index ``j - 1`` of the column.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.one_indexed_encoding(symbolic.position, 4).T
    Matrix([[sin(p), cos(p), sin(p/sqrt(C)), cos(p/sqrt(C))]])
    """
    entries: dict[int, sp.Expr] = {}
    for i in range(1, d_model // 2 + 1):
        scale = base ** sp.Rational(2 * (i - 1), d_model)
        entries[2 * i - 1] = sp.sin(position / scale)
        entries[2 * i] = sp.cos(position / scale)
    return sp.Matrix([entries[j] for j in range(1, d_model + 1)])


@constrained(d_model=_WIDTH)
def sine_only_encoding(position: sp.Expr, d_model: int, *, base: sp.Expr = base) -> sp.Matrix:
    """A bug, and a thought experiment: each pair holds two sines, no cosine.

    As :func:`sinusoidal_encoding`, but ``PE(p, 2i) = PE(p, 2i + 1) = sin(p w_i)``. It
    is zero at ``p = 0``, so no linear map sends ``PE(p)`` to ``PE(p + k)``
    (:func:`verify_no_linear_shift`).

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.sine_only_encoding(symbolic.position, 4).T
    Matrix([[sin(p), sin(p), sin(p/sqrt(C)), sin(p/sqrt(C))]])
    """
    entries = []
    for i in range(d_model // 2):
        entries += [sp.sin(position * frequency(i, d_model, base=base))] * 2
    return sp.Matrix(entries)


def _cosine_at_double_frequency(
    position: sp.Expr, d_model: int, *, base: sp.Expr = base
) -> sp.Matrix:
    """A wrong encoding: the cosine of each pair turns twice as fast as its sine."""
    # d_model is checked by the verify_* function that calls it
    entries = []
    for i in range(d_model // 2):
        w = frequency(i, d_model, base=base)
        entries += [sp.sin(position * w), sp.cos(2 * position * w)]
    return sp.Matrix(entries)


def _swapped_layout(position: sp.Expr, d_model: int, *, base: sp.Expr = base) -> sp.Matrix:
    """A wrong encoding: (cos, sin) pairs where the paper has (sin, cos)."""
    paper = sinusoidal_encoding(position, d_model, base=base)
    return sp.Matrix([paper[j ^ 1] for j in range(d_model)])


def _integer_division(position: sp.Expr, d_model: int, *, base: sp.Expr = base) -> sp.Matrix:
    """A bug seen in the wild: ``2 * i // d_model`` makes every exponent 0."""
    # d_model is checked by the verify_* function that calls it
    entries = []
    for i in range(d_model // 2):
        w = base ** -sp.Integer(2 * i // d_model)
        entries += [sp.sin(position * w), sp.cos(position * w)]
    return sp.Matrix(entries)


#: Encodings with bugs seen in real code; every ``verify_*`` function rejects some.
WRONG_ENCODINGS: dict[str, Encoding] = {
    "sine only": sine_only_encoding,
    "cosine at double frequency": _cosine_at_double_frequency,
    "swapped layout (cos, sin)": _swapped_layout,
    "integer division 2*i//d": _integer_division,
}


# ---------------------------------------------------------------------------
# Building blocks


def rotation(phi: sp.Expr) -> sp.Matrix:
    """``R(phi) = [[cos phi, sin phi], [-sin phi, cos phi]]``, acting on (sin, cos).

    With the sine on the first axis and the cosine on the second, this turns a vector
    *clockwise* by ``phi``: it is ``counterclockwise(-phi)``. ``phi`` is anything SymPy
    accepts (else ValueError).

    Examples
    --------
    ``R(pi/2)`` turns ``(sin 0, cos 0) = (0, 1)`` into ``(sin(pi/2), cos(pi/2)) = (1, 0)``:

    >>> import sympy as sp
    >>> from sinpe import symbolic
    >>> (symbolic.rotation(sp.pi / 2) * sp.Matrix([0, 1])).T
    Matrix([[1, 0]])
    """
    return sp.Matrix([[sp.cos(phi), sp.sin(phi)], [-sp.sin(phi), sp.cos(phi)]])


def counterclockwise(phi: sp.Expr) -> sp.Matrix:
    """The textbook rotation ``[[cos phi, -sin phi], [sin phi, cos phi]]``: ``rotation(-phi)``.

    Examples
    --------
    >>> import sympy as sp
    >>> from sinpe import symbolic
    >>> symbolic.counterclockwise(sp.pi / 2) == symbolic.rotation(-sp.pi / 2)
    True
    """
    return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])


@constrained(d_model=_WIDTH)
def shift_matrix(k: sp.Expr, d_model: int, *, base: sp.Expr = base) -> sp.Matrix:
    """Block-diagonal ``M_k`` of the paper's encoding: one :func:`rotation` ``(k w_i)`` per pair.

    The symbolic counterpart of :func:`sinpe.shift_matrix` (interleaved layout), shape
    ``(d_model, d_model)``; ``k`` is e.g. the symbol :data:`shift`.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.shift_matrix(symbolic.shift, 2)
    Matrix([
    [ cos(k), sin(k)],
    [-sin(k), cos(k)]])
    """
    return sp.diag(*[rotation(k * frequency(i, d_model, base=base)) for i in range(d_model // 2)])


def _is_zero(expr: sp.Expr) -> bool:
    """True when ``expr`` simplifies to exactly 0 (after expanding trig sums)."""
    return sp.simplify(sp.expand_trig(sp.expand(expr))) == 0


def _vanishes(latex: str) -> sp.Equality:
    """The statement ``latex = 0``, shown as written (``latex`` is not a SymPy expression)."""
    return sp.Eq(sp.Symbol(latex), sp.Integer(0), evaluate=False)


def _matrix_is_zero(matrix: sp.Matrix) -> bool:
    return all(_is_zero(entry) for entry in matrix)


def _expand(expr: sp.Expr) -> sp.Expr:
    """Split sin/cos of sums into products, keeping each p-dependent factor whole."""
    return sp.expand(sp.expand_trig(sp.expand(expr, trig=False)))


def derive_shift_map(
    block: Callable[[sp.Expr], sp.Matrix], position: sp.Expr = position, k: sp.Expr = shift
) -> sp.Matrix:
    """Derive ``A`` with ``block(position + k) = A @ block(position)`` for every ``position``.

    ``block(position)`` returns a SymPy column (a list or ``Matrix``) of linear
    combinations of sines and cosines of ``position``, written as ``B f`` in the basis
    ``f`` of those functions; ``block(position + k)``, expanded with the
    angle-addition formulas, must be ``D f`` with coefficients free of ``position``.
    Then ``A = D B**-1``, simplified. The defaults are the symbols :data:`position`
    and :data:`shift`.

    Raises
    ------
    IdentityError
        When no fixed linear map exists: ``block(position + k)`` needs another
        function of ``position``, or is not linear in them, or the entries of
        ``block(position)`` are not independent. The expansion also splits multiple
        angles (``sin(2 p)`` into ``sin p`` and ``cos p``), so write a frequency as a
        symbol (``omega * p``), not an integer multiple of ``p``.

    Examples
    --------
    >>> import sympy as sp
    >>> from sinpe import symbolic
    >>> p, w = symbolic.position, symbolic.omega
    >>> symbolic.derive_shift_map(lambda p: sp.Matrix([sp.sin(w * p), sp.cos(w * p)]))
    Matrix([
    [ cos(k*omega), sin(k*omega)],
    [-sin(k*omega), cos(k*omega)]])

    A sine alone has no fixed shift map: ``sin(p + k)`` needs ``cos p``.

    >>> symbolic.derive_shift_map(lambda p: sp.Matrix([sp.sin(p)]))
    Traceback (most recent call last):
    ...
    sinpe.symbolic.IdentityError: PE(p + k) needs [cos(p)], which is not a linear ...
    """
    here = sp.Matrix(block(position))
    there = sp.Matrix([_expand(entry) for entry in block(position + k)])
    basis = sorted(
        {atom for atom in here.atoms(sp.sin, sp.cos) if atom.has(position)}, key=sp.default_sort_key
    )
    names = sp.symbols(f"f0:{len(basis)}")
    table = dict(zip(basis, names, strict=True))

    def coefficients(vector: sp.Matrix, what: str) -> sp.Matrix:
        rows = []
        for entry in vector:
            replaced = sp.expand(entry.xreplace(table))
            if replaced.has(position):
                leftover = sorted(
                    {a for a in replaced.atoms(sp.sin, sp.cos) if a.has(position)},
                    key=sp.default_sort_key,
                )
                raise IdentityError(
                    f"{what} needs {leftover or replaced}, which is not a linear function "
                    f"of the entries of PE({position}) = {list(here)}: no fixed linear map exists"
                )
            poly = sp.Poly(replaced, *names) if names else None
            if poly is None or poly.total_degree() > 1 or poly.coeff_monomial(1) != 0:
                raise IdentityError(f"{what} entry {entry} is not linear in {basis}")
            rows.append([poly.coeff_monomial(name) for name in names])
        return sp.Matrix(rows)

    start = coefficients(here, f"PE({position})")
    if start.shape[0] != start.shape[1] or sp.simplify(start.det()) == 0:
        raise IdentityError(
            f"the entries of PE({position}) = {list(here)} are not independent functions "
            f"of {position}; "
            f"PE({position} + {k}) cannot be recovered from them by a fixed linear map"
        )
    moved = coefficients(there, f"PE({position} + {k})")
    derived = sp.simplify(moved * start.inv())
    if derived.has(position):
        raise IdentityError(f"the map depends on the position {position}: {derived}")
    return derived


def _pair_block(
    encoding: Encoding, index: int, d_model: int, base: sp.Expr
) -> Callable[[sp.Expr], sp.Matrix]:
    return lambda position: encoding(position, d_model, base=base)[2 * index : 2 * index + 2, 0]


# ---------------------------------------------------------------------------
# The results


def verify_pair_rotation(encoding: Encoding = sinusoidal_encoding) -> VerifiedIdentity:
    """Theorem: a shift by ``k`` rotates a (sin, cos) pair by ``k * omega``.

    For the first pair of ``encoding(omega * p)``, the map ``A`` with ``[sin w(p+k),
    cos w(p+k)] = A [sin wp, cos wp]`` is derived, then checked to be ``R(k omega)``,
    free of ``p``, orthogonal and of determinant 1. Named ``"pair rotation"``;
    ``objects``: ``"R"`` (``R(k omega)``), ``"derived"`` (the map derived from
    ``encoding``) and ``"sense"`` (the symbol ``clockwise``).

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_pair_rotation().objects["R"]
    Matrix([
    [ cos(k*omega), sin(k*omega)],
    [-sin(k*omega), cos(k*omega)]])
    """

    def block(position: sp.Expr) -> sp.Matrix:
        return encoding(omega * position, 2, base=base)[0:2, 0]

    derived = derive_shift_map(block)
    expected = rotation(shift * omega)
    if not _matrix_is_zero(derived - expected):
        raise IdentityError(f"the derived map {derived} is not R(k*omega) = {expected}")
    if not _matrix_is_zero(derived.T * derived - sp.eye(2)):
        raise IdentityError(f"the derived map {derived} is not orthogonal")
    determinant = sp.simplify(derived.det())
    if determinant != 1:
        raise IdentityError(f"the derived map has determinant {determinant}, not 1")
    if not _matrix_is_zero(derived - counterclockwise(-shift * omega)):
        raise IdentityError("the derived map is not a clockwise turn by k*omega")
    here, there = block(position), block(position + shift)
    statements = (
        sp.Eq(there, sp.MatMul(expected, here, evaluate=False), evaluate=False),
        sp.Eq(sp.MatMul(expected.T, expected, evaluate=False), sp.eye(2), evaluate=False),
        sp.Eq(sp.Symbol(r"\det R(k\omega)"), determinant, evaluate=False),
    )
    return VerifiedIdentity(
        "pair rotation",
        statements,
        {"R": expected, "derived": derived, "sense": sp.Symbol("clockwise")},
    )


@constrained(d_model=_WIDTH)
def verify_shift_group(
    encoding: Encoding = sinusoidal_encoding, d_model: int = 6
) -> VerifiedIdentity:
    """Theorem: ``PE(p + k) = M_k PE(p)`` with block-diagonal ``M_k``, and the shifts form a group.

    ``M_k`` is derived pair by pair from ``encoding``, checked to equal
    :func:`shift_matrix` (the rotations by ``k w_i`` of the paper's frequencies), and
    then ``M_j M_k = M_(j+k)``, ``M_(-k) = M_k^T = M_k^-1`` and ``M_0 = I`` (under a
    second at the default width 6). Named ``"shift group"``; ``objects["M_k"]`` is
    :func:`shift_matrix` ``(k, d_model)``.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_shift_group(d_model=2).objects["M_k"]
    Matrix([
    [ cos(k), sin(k)],
    [-sin(k), cos(k)]])
    """
    blocks = [
        derive_shift_map(_pair_block(encoding, i, d_model, base)) for i in range(d_model // 2)
    ]
    derived = sp.diag(*blocks)
    expected = shift_matrix(shift, d_model)
    if not _matrix_is_zero(derived - expected):
        raise IdentityError(f"the derived M_k {derived} is not the block rotation {expected}")
    whole = encoding(position + shift, d_model, base=base) - derived * encoding(
        position, d_model, base=base
    )
    if not _matrix_is_zero(whole):
        raise IdentityError("PE(p + k) != M_k PE(p) for the whole vector")

    def m(k: sp.Expr) -> sp.Matrix:
        return derived.xreplace({shift: k})

    checks = {
        "M_j M_k = M_(j+k)": m(second_shift) * m(shift) - m(second_shift + shift),
        "M_(-k) = M_k^T": m(-shift) - m(shift).T,
        "M_k^T M_k = I": m(shift).T * m(shift) - sp.eye(d_model),
        "M_0 = I": m(sp.Integer(0)) - sp.eye(d_model),
    }
    for name, difference in checks.items():
        if not _matrix_is_zero(difference):
            raise IdentityError(f"{name} fails")
    blocks_latex = ", ".join(
        f"R\\left({sp.latex(shift * frequency(i, d_model))}\\right)" for i in range(d_model // 2)
    )
    statements = (
        sp.Eq(
            sp.Symbol("M_{k}"),
            sp.Symbol(f"\\operatorname{{diag}}\\left({blocks_latex}\\right)"),
            evaluate=False,
        ),
        sp.Eq(sp.Symbol(r"M_{j} M_{k}"), sp.Symbol("M_{j+k}"), evaluate=False),
        sp.Eq(sp.Symbol("M_{-k}"), sp.Symbol(r"M_{k}^{\mathsf{T}} = M_{k}^{-1}"), evaluate=False),
        sp.Eq(sp.Symbol("M_{0}"), sp.Symbol("I"), evaluate=False),
    )
    return VerifiedIdentity("shift group", statements, {"M_k": expected})


@constrained(d_model=_WIDTH)
def verify_dot_product(
    encoding: Encoding = sinusoidal_encoding, d_model: int = 6
) -> VerifiedIdentity:
    """Theorem: ``PE(p) . PE(q) = sum_i cos((p - q) w_i)``; even in ``p - q``; ``|PE(p)|^2 = d/2``.

    Named ``"dot product"``; ``objects["dot"]`` is the sum.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_dot_product(d_model=4).objects["dot"]
    cos((p - q)/sqrt(C)) + cos(p - q)
    """
    p_vec = encoding(position, d_model, base=base)
    q_vec = encoding(other_position, d_model, base=base)
    dot = (p_vec.T * q_vec)[0, 0]
    offset_form = sum(
        sp.cos((position - other_position) * frequency(i, d_model)) for i in range(d_model // 2)
    )
    if not _is_zero(dot - offset_form):
        raise IdentityError(f"PE(p).PE(q) = {dot} is not {offset_form}")
    swapped = offset_form.xreplace({position: other_position, other_position: position})
    if not _is_zero(swapped - offset_form):
        raise IdentityError("the dot product is not even in the offset")
    norm = sp.simplify((p_vec.T * p_vec)[0, 0])
    if norm != sp.Rational(d_model, 2):
        raise IdentityError(f"|PE(p)|^2 = {norm}, not d/2 = {d_model // 2}")
    statements = (
        sp.Eq(sp.Symbol(r"PE(p) \cdot PE(q)"), offset_form, evaluate=False),
        sp.Eq(sp.Symbol(r"\lVert PE(p) \rVert^2"), norm, evaluate=False),
    )
    return VerifiedIdentity("dot product", statements, {"dot": offset_form})


def verify_indexings_agree(
    encoding: Encoding = sinusoidal_encoding, widths: tuple[int, ...] = (2, 4, 6, 8, 12)
) -> VerifiedIdentity:
    """Theorem: the 1-indexed textbook definition and ``encoding`` are the same function.

    Compared entry by entry, at each width of ``widths``, with a symbolic position and
    base. Named ``"indexings agree"``; ``objects["widths"]`` holds ``widths``.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> swapped = symbolic.WRONG_ENCODINGS["swapped layout (cos, sin)"]
    >>> symbolic.verify_indexings_agree(swapped, widths=(2,))
    Traceback (most recent call last):
    ...
    sinpe.symbolic.IdentityError: d = 2: component 1 (counted from 1) is sin(p), but entry 0 ...
    """
    for width in widths:
        textbook = one_indexed_encoding(position, width)
        given = encoding(position, width, base=base)
        for j in range(width):
            if not _is_zero(textbook[j] - given[j]):
                raise IdentityError(
                    f"d = {width}: component {j + 1} (counted from 1) is {textbook[j]}, "
                    f"but entry {j} (counted from 0) is {given[j]}"
                )
    i = sp.Symbol("i", integer=True, positive=True)
    d = sp.Symbol("d", integer=True, positive=True)
    angle_one = position / base ** (2 * (i - 1) / d)
    statements = (
        sp.Eq(sp.Symbol(r"[\operatorname{pe}(p)]_{2i-1}"), sp.sin(angle_one), evaluate=False),
        sp.Eq(sp.Symbol(r"PE(p, 2(i-1))"), sp.sin(angle_one), evaluate=False),
        sp.Eq(sp.Symbol(r"[\operatorname{pe}(p)]_{2i}"), sp.cos(angle_one), evaluate=False),
        sp.Eq(sp.Symbol(r"PE(p, 2(i-1)+1)"), sp.cos(angle_one), evaluate=False),
    )
    return VerifiedIdentity("indexings agree", statements, {"widths": sp.Tuple(*widths)})


@constrained(d_model=_WIDTH)
def verify_no_linear_shift(
    encoding: Encoding = sine_only_encoding, d_model: int = 4, k: sp.Expr = sp.S.One
) -> VerifiedIdentity:
    """Theorem: if ``PE(0) = 0`` but ``PE(k) != 0``, no linear map sends ``PE(p)`` to ``PE(p+k)``.

    A linear map sends zero to zero, so ``A PE(0) = PE(k)`` is impossible: the exact
    counterexample for sines alone (:func:`sine_only_encoding`, the default). Raises
    :class:`IdentityError` when it does not apply (the paper's ``PE(0)`` has cosines
    1). Named ``"no linear shift"``; ``objects``: the columns ``"PE(0)"`` and
    ``"PE(k)"`` (``k = 1`` by default).

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_no_linear_shift().objects["PE(k)"].T
    Matrix([[sin(1), sin(1), sin(1/sqrt(C)), sin(1/sqrt(C))]])
    """
    at_zero = encoding(sp.Integer(0), d_model, base=base)
    at_shift = encoding(k, d_model, base=base)
    if any(sp.simplify(entry) != 0 for entry in at_zero):
        raise IdentityError(f"PE(0) = {list(at_zero)} is not zero: no counterexample at p = 0")
    if all(sp.simplify(entry) == 0 for entry in at_shift):
        raise IdentityError(f"PE({k}) is zero as well: no counterexample at k = {k}")
    statements = (
        sp.Eq(sp.Symbol("PE(0)"), at_zero.T, evaluate=False),
        sp.Eq(sp.Symbol(f"PE({sp.latex(k)})"), at_shift.T, evaluate=False),
    )
    return VerifiedIdentity("no linear shift", statements, {"PE(0)": at_zero, "PE(k)": at_shift})


@constrained(n_frequencies=_COUNT)
def integer_features(x: sp.Expr, n_frequencies: int) -> sp.Matrix:
    """``[sin x, cos x, sin 2x, cos 2x, ..., sin kx, cos kx]`` for ``k = n_frequencies``.

    The symbolic counterpart of :func:`sinpe.fourier.integer_features`; ``1 <=
    n_frequencies <= 4096``.

    Examples
    --------
    >>> import sympy as sp
    >>> from sinpe import symbolic
    >>> symbolic.integer_features(sp.Symbol("x"), 2).T
    Matrix([[sin(x), cos(x), sin(2*x), cos(2*x)]])
    """
    entries = []
    for n in range(1, n_frequencies + 1):
        entries += [sp.sin(n * x), sp.cos(n * x)]
    return sp.Matrix(entries)


@constrained(n_frequencies=_COUNT)
def verify_periodic_features(
    features: Callable[[sp.Expr, int], sp.Matrix] = integer_features, n_frequencies: int = 3
) -> VerifiedIdentity:
    """Theorem: any ``f`` composed after the feature map is ``2 pi``-periodic.

    Checks ``features(x + 2 pi) = features(x)`` entry by entry; then
    ``f(features(x + 2 pi)) - f(features(x))`` is 0 for an undefined SymPy function
    ``f``, i.e. for every ``f``. ``features(x, n_frequencies)`` returns a SymPy column
    (default :func:`integer_features`). Named ``"periodic features"``;
    ``objects["features"]`` is ``features(x, n_frequencies)``.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_periodic_features(n_frequencies=2).objects["features"].T
    Matrix([[sin(x), cos(x), sin(2*x), cos(2*x)]])
    """
    here = features(angle, n_frequencies)
    there = features(angle + 2 * sp.pi, n_frequencies)
    for entry_here, entry_there in zip(here, there, strict=True):
        if not _is_zero(entry_there - entry_here):
            raise IdentityError(f"{entry_here} is not 2*pi-periodic: it becomes {entry_there}")
    # Each entry simplified once; one SymPy already reduced (sin(k x + 2 pi k)) is kept.
    pairs = zip(here, there, strict=True)
    settled = sp.Matrix([h if t == h else sp.simplify(t) for h, t in pairs])
    f = sp.Function("f")
    simplified = sp.simplify(f(*settled) - f(*here))
    if simplified != 0:
        raise IdentityError(f"f(features(x + 2 pi)) - f(features(x)) = {simplified}")
    statements = (
        sp.Eq(sp.Symbol(r"\gamma(x + 2\pi)"), settled, evaluate=False),
        sp.Eq(sp.Symbol(r"f(\gamma(x + 2\pi))"), sp.Symbol(r"f(\gamma(x))"), evaluate=False),
    )
    return VerifiedIdentity("periodic features", statements, {"features": here})


# ---------------------------------------------------------------------------
# RoPE: the rotation moved into attention


@constrained(layout=_LAYOUT)
def rope(
    vector: sp.Matrix, position: sp.Expr, *, base: sp.Expr = base, layout: str = "interleaved"
) -> sp.Matrix:
    """RoPE of a symbolic column ``vector`` at ``position``, as :func:`sinpe.rope.apply_rope`.

    Each pair ``(a, b)`` of entries is turned counterclockwise by ``position * w_i``:
    ``(a cos - b sin, a sin + b cos)``. ``vector`` has an even length up to 4096;
    ``layout`` as :func:`sinpe.rope.apply_rope`.

    Examples
    --------
    >>> import sympy as sp
    >>> from sinpe import symbolic
    >>> m = sp.Symbol("m", real=True)
    >>> symbolic.rope(sp.Matrix([1, 0]), m).T
    Matrix([[cos(m), sin(m)]])
    >>> symbolic.rope(sp.Matrix([1, 0, 0, 0]), m, layout="half").T
    Matrix([[cos(m), 0, sin(m), 0]])
    """
    width = _WIDTH(len(vector), "the length of vector")  # a shape check
    half = width // 2
    out = list(vector)
    for i in range(half):
        angle_i = position * frequency(i, width, base=base)
        a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + half)
        out[a] = vector[a] * sp.cos(angle_i) - vector[b] * sp.sin(angle_i)
        out[b] = vector[a] * sp.sin(angle_i) + vector[b] * sp.cos(angle_i)
    return sp.Matrix(out)


def _vector(name: str, width: int) -> sp.Matrix:
    return sp.Matrix(sp.symbols(f"{name}0:{width}", real=True))


@constrained(d_model=_WIDTH)
def verify_rope_relative(
    rope_fn: Callable[..., sp.Matrix] = rope, d_model: int = 4
) -> VerifiedIdentity:
    """Theorem: ``RoPE(q, m) . RoPE(k, n)`` depends on ``m - n`` only.

    Checked as translation invariance: ``(d/dm + d/dn)`` of the dot product simplifies
    to 0 for symbolic ``q``, ``k``, ``m``, ``n`` and ``C``. ``rope_fn(vector,
    position)`` returns a SymPy column (default :func:`rope`). Named ``"rope
    relative"``; ``objects["dot"]`` is the dot product.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_rope_relative(d_model=2).name
    'rope relative'
    """
    m, n = sp.symbols("m n", real=True)
    q, k = _vector("q", d_model), _vector("k", d_model)
    dot = (rope_fn(q, m).T * rope_fn(k, n))[0, 0]
    drift = sp.diff(dot, m) + sp.diff(dot, n)
    if not _is_zero(drift):
        raise IdentityError("RoPE(q, m).RoPE(k, n) changes when m and n move together")
    statements = (
        _vanishes(
            r"\left(\tfrac{\partial}{\partial m} + \tfrac{\partial}{\partial n}\right)"
            r"\, \mathrm{RoPE}(q, m) \cdot \mathrm{RoPE}(k, n)"
        ),
    )
    return VerifiedIdentity("rope relative", statements, {"dot": dot})


@constrained(d_model=_WIDTH)
def verify_rope_norm(
    rope_fn: Callable[..., sp.Matrix] = rope, d_model: int = 4
) -> VerifiedIdentity:
    """Theorem: ``|RoPE(q, m)| = |q|`` (RoPE is a rotation).

    As :func:`verify_rope_relative`; named ``"rope norm"``, ``objects`` empty.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> print(symbolic.verify_rope_norm(d_model=2).latex().splitlines()[1])
    {\\lVert \\mathrm{RoPE}(q, m) \\rVert^2} &= {q_{0}^{2} + q_{1}^{2}}
    """
    m = sp.Symbol("m", real=True)
    q = _vector("q", d_model)
    rotated = rope_fn(q, m)
    if not _is_zero((rotated.T * rotated)[0, 0] - (q.T * q)[0, 0]):
        raise IdentityError("RoPE changes the norm of q")
    statements = (
        sp.Eq(sp.Symbol(r"\lVert \mathrm{RoPE}(q, m) \rVert^2"), (q.T * q)[0, 0], evaluate=False),
    )
    return VerifiedIdentity("rope norm", statements, {})


@constrained(d_model=_WIDTH)
def verify_rope_layouts(d_model: int = 6) -> VerifiedIdentity:
    """Theorem: ``half(P x) = P interleaved(x)`` with ``P = [0, 2, 4, ..., 1, 3, 5, ...]``.

    Named ``"rope layouts"``; ``objects["P"]`` is the permutation as a row.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_rope_layouts(d_model=4).objects["P"]
    Matrix([[0, 2, 1, 3]])
    """
    m = sp.Symbol("m", real=True)
    x = _vector("x", d_model)
    perm = [*range(0, d_model, 2), *range(1, d_model, 2)]
    left = rope(sp.Matrix([x[j] for j in perm]), m, layout="concat")
    right = rope(x, m, layout="interleaved")
    right = sp.Matrix([right[j] for j in perm])
    if not _matrix_is_zero(left - right):
        raise IdentityError("half(P x) != P interleaved(x)")
    statements = (
        sp.Eq(
            sp.Symbol(r"\mathrm{RoPE}_{\mathrm{half}}(P x, m)"),
            sp.Symbol(r"P\, \mathrm{RoPE}_{\mathrm{interleaved}}(x, m)"),
            evaluate=False,
        ),
    )
    return VerifiedIdentity("rope layouts", statements, {"P": sp.Matrix(perm).T})


# ---------------------------------------------------------------------------
# RoPE-Mixed: a pair that turns with both image axes


def mixed_angle(position: Sequence[sp.Expr], frequency: Sequence[sp.Expr]) -> sp.Expr:
    """RoPE-Mixed's angle of one pair, ``t_x f_x + t_y f_y``, as :func:`sinpe.axes.mixed_angles`.

    ``position`` is the patch ``(t_x, t_y)``, ``frequency`` the pair's vector ``(f_x,
    f_y)``, two SymPy expressions each (else ValueError).

    Examples
    --------
    >>> import sympy as sp
    >>> from sinpe import symbolic
    >>> symbolic.mixed_angle(sp.symbols("t_x t_y"), sp.symbols("f_x f_y"))
    f_x*t_x + f_y*t_y
    """
    t_x, t_y = _two(position, "position")
    f_x, f_y = _two(frequency, "frequency")
    return t_x * f_x + t_y * f_y


def _two(values: Sequence[sp.Expr], name: str) -> tuple[sp.Expr, sp.Expr]:
    if isinstance(values, (str, bytes)) or len(values) != 2:
        raise ValueError(f"{name} must be two expressions (x, y), got {values!r}")
    return sp.sympify(values[0]), sp.sympify(values[1])


def verify_mixed_shift(
    angle_fn: Callable[[Sequence[sp.Expr], Sequence[sp.Expr]], sp.Expr] = mixed_angle,
) -> VerifiedIdentity:
    """Theorem: moving a patch by ``s`` along a direction ``u`` turns a pair by ``s (u . f)``.

    For a pair with the vector ``f = (f_x, f_y)`` at any patch ``t = (t_x, t_y)``:
    ``angle(t + s u) = angle(t) + s (u_x f_x + u_y f_y)`` with ``u = (cos psi, sin
    psi)``, so the turn of a shift depends on the shift alone; and the score of two
    rotated pairs, ``R(angle(m)) q . R(angle(n)) k``, is unchanged when ``m`` and ``n``
    move together along either axis (``d/dm_x + d/dn_x`` and ``d/dm_y + d/dn_y`` of it
    simplify to 0). All symbols are free reals. ``angle_fn(position, frequency)`` is the
    angle of one pair (default :func:`mixed_angle`). Named ``"mixed shift"``;
    ``objects["turn"]`` is ``s (u . f)``.

    Examples
    --------
    >>> from sinpe import symbolic
    >>> symbolic.verify_mixed_shift().objects["turn"]
    s*(f_x*cos(psi) + f_y*sin(psi))
    >>> try:
    ...     symbolic.verify_mixed_shift(lambda t, f: t[0] * f[0] + t[1] * f[0])
    ... except symbolic.IdentityError as error:
    ...     print(error)
    a shift by s along (cos psi, sin psi) does not turn the pair by s (u . f)
    """
    t_x, t_y, f_x, f_y, s, psi = sp.symbols("t_x t_y f_x f_y s psi", real=True)
    turn = s * (f_x * sp.cos(psi) + f_y * sp.sin(psi))
    before = angle_fn((t_x, t_y), (f_x, f_y))
    after = angle_fn((t_x + s * sp.cos(psi), t_y + s * sp.sin(psi)), (f_x, f_y))
    if not _is_zero(after - before - turn):
        raise IdentityError(
            "a shift by s along (cos psi, sin psi) does not turn the pair by s (u . f)"
        )
    m_x, m_y, n_x, n_y = sp.symbols("m_x m_y n_x n_y", real=True)
    q, k = _vector("q", 2), _vector("k", 2)
    at_m = counterclockwise(angle_fn((m_x, m_y), (f_x, f_y))) * q
    at_n = counterclockwise(angle_fn((n_x, n_y), (f_x, f_y))) * k
    dot = (at_m.T * at_n)[0, 0]
    for one, other in ((m_x, n_x), (m_y, n_y)):
        if not _is_zero(sp.diff(dot, one) + sp.diff(dot, other)):
            raise IdentityError(
                f"the score of two rotated pairs changes when {one} and {other} move together"
            )
    statements = (
        sp.Eq(after, before + turn, evaluate=False),
        _vanishes(
            r"\left(\tfrac{\partial}{\partial m_x} + \tfrac{\partial}{\partial n_x}\right)"
            r"\, R_m q \cdot R_n k"
        ),
        _vanishes(
            r"\left(\tfrac{\partial}{\partial m_y} + \tfrac{\partial}{\partial n_y}\right)"
            r"\, R_m q \cdot R_n k"
        ),
    )
    return VerifiedIdentity("mixed shift", statements, {"turn": turn})
