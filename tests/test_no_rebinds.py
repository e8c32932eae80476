"""No statement of sinpe/ only rebinds parameters to other names (issue 38).

``width = d_model`` or ``width, constant = d_model, base`` gives a reader two names for
one thing; they were kept so that text mutants matched, and the mutants are now anchored
by syntax (scripts/locate.py). A statement whose right side is only parameter names of
the enclosing function, bound to other names, fails here; normalising a parameter
(``base = float(base)``) is a call, not a rebind, and passes.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "sinpe"


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = function.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {arg.arg for arg in every if arg is not None}


def names(node: ast.expr) -> list[str] | None:
    """The names of a bare name or a tuple of bare names, else None."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Tuple) and all(isinstance(item, ast.Name) for item in node.elts):
        return [item.id for item in node.elts]  # type: ignore[attr-defined]
    return None


def rebinds(source: str) -> list[str]:
    """``line: statement`` for each statement that only rebinds parameters, name for name
    (unpacking one parameter into its parts, ``t, w = work``, names the parts: not a rebind)."""
    found = []
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = parameters(function)
        for node in ast.walk(function):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            right, left = names(node.value), names(node.targets[0])
            if (
                right
                and left
                and set(right) <= params
                and left != right
                and len(left) == len(right)
            ):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def modules() -> list[str]:
    return sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("module", modules())
def test_no_statement_only_rebinds_parameters(module):
    assert rebinds((PACKAGE / module).read_text(encoding="utf-8")) == []


def test_a_planted_rebind_is_found():
    planted = "def f(d_model, *, base):\n    width, constant = d_model, base\n    return width\n"
    assert rebinds(planted) == ["2: width, constant = (d_model, base)"]
    assert rebinds(planted.replace("width, constant = d_model, base", "width = d_model")) == [
        "2: width = d_model"
    ]
    # Normalising a parameter, or a local computed from one, is not a rebind.
    fine = "def f(base, n):\n    base = float(base)\n    half = n // 2\n    return half\n"
    assert rebinds(fine) == []
    # Unpacking a parameter names its parts (sinpe/_trig.py's scratch arrays), one name each.
    unpacked = "def f(work, pair):\n    t, w = work\n    a, b = pair\n    return t + w + a + b\n"
    assert rebinds(unpacked) == []
    # ... but a swap of two parameters into two new names is still a rebind.
    assert rebinds(unpacked.replace("a, b = pair", "a, b = pair, work")) == [
        "3: a, b = (pair, work)"
    ]
