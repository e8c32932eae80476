"""Visible code runs on its own: no name it uses comes only from a hidden cell.

A reader who copies the cells shown on a chapter's page into a fresh notebook must not
meet a ``NameError``. A code cell is *hidden* when its input is folded or removed on the
page (tags ``hide-input``, ``remove-input``, ``hide-cell``, ``remove-cell``); every other
code cell is *visible*. Walking a chapter in order, a visible cell may use a name only
if an earlier (or the same) visible cell defines it, by assignment, ``for``, ``with``,
``def``, ``class``, ``import`` or ``except ... as``, or if it is a builtin. A name that
only a hidden cell defines is the defect this test catches (issue 30, item 7).

Names are read with :mod:`ast`: a cell's *definitions* are the names its module-level
code binds; the names it *uses* are those it loads anywhere (in functions and
comprehensions too) and binds nowhere in the cell, so a function's parameters and
locals never count as uses.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("ch*.md"))

HIDDEN = frozenset({"hide-input", "remove-input", "hide-cell", "remove-cell"})

#: Builtins, and the names IPython puts in every kernel's namespace.
PREDEFINED = frozenset(dir(builtins)) | {"display", "get_ipython", "In", "Out"}

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def parse(source: str) -> ast.Module:
    """A cell's code, with IPython's line magics and shell escapes blanked out."""
    lines = ["" if re.match(r"\s*[%!]", line) else line for line in source.splitlines()]
    return ast.parse("\n".join(lines))


def _import_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    return {alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name != "*"}


def _targets(node: ast.AST) -> set[str]:
    """Names a binding target stores: ``x``, ``x, (y, *z)``; not ``a.b`` or ``a[0]``."""
    return {
        name.id
        for name in ast.walk(node)
        if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store)
    }


def defined(tree: ast.Module) -> set[str]:
    """Names bound at module level: what a later cell can use."""
    names: set[str] = set()
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue  # its body is another scope
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= _import_names(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names |= _targets(target)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
            names |= _targets(node.target)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    names |= _targets(item.optional_vars)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.NamedExpr):
            names |= _targets(node.target)
        if isinstance(node, _SCOPES):
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _COMPREHENSIONS):
                # only a walrus inside a comprehension binds in the module
                names |= {n.target.id for n in ast.walk(child) if isinstance(n, ast.NamedExpr)}
            else:
                pending.append(child)
    return names


def bound_anywhere(tree: ast.Module) -> set[str]:
    """Every name the cell binds, at any depth: locals, parameters, loop variables."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= _import_names(node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
    return names


def used(tree: ast.Module) -> set[str]:
    """Names the cell loads and does not bind itself: what it needs from earlier cells."""
    loads = {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    return loads - bound_anywhere(tree) - PREDEFINED


def hidden_only_names(notebook) -> list[tuple[int, str]]:
    """(cell index, name) for each name a visible cell uses that only hidden cells define."""
    seen_visible: set[str] = set()
    seen_hidden: set[str] = set()
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        tree = parse(cell.source)
        if HIDDEN & set(cell.metadata.get("tags", [])):
            seen_hidden |= defined(tree)
            continue
        for name in sorted(used(tree) & seen_hidden - seen_visible):
            found.append((index, name))
        seen_visible |= defined(tree)
    return found


def _cell(source: str, *tags: str):
    cell = nbformat.v4.new_code_cell(source)
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def test_a_planted_name_from_a_hidden_cell_is_caught():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        _cell("import numpy as np"),
        _cell("from sinpe import shift_matrix as make\nshift = make(1, 8)", "hide-input"),
        _cell("def helper(x):\n    return x", "remove-cell"),
        _cell("table = np.ones(3)\nfor row in table:\n    last = row"),
        # visible: uses shift (hidden only) and helper (hidden only) inside a function
        _cell("def turn(v):\n    return shift @ v\nprint(turn(table), helper(last))"),
    ]
    assert hidden_only_names(notebook) == [(4, "helper"), (4, "shift")]


def test_names_a_visible_cell_defines_or_binds_locally_are_fine():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        _cell("shift = 1\nomega = 2", "hide-input"),
        _cell("omega = 3  # defined again, visibly"),
        # parameters, comprehension variables, with/except names and builtins
        _cell(
            "def f(shift):\n    return shift\n"
            "values = [shift for shift in range(omega)]\n"
            "try:\n    len(values)\nexcept ValueError as error:\n    print(error)\n"
            "%matplotlib inline"
        ),
        _cell("print(omega, values, f(2))"),
    ]
    assert hidden_only_names(notebook) == []


def test_a_name_defined_visibly_only_after_its_use_is_caught():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        _cell("clock = 1", "hide-cell"),
        _cell("print(clock)"),
        _cell("clock = 2"),
    ]
    assert hidden_only_names(notebook) == [(1, "clock")]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: path.stem)
def test_visible_code_needs_no_hidden_cell(chapter: Path):
    notebook = jupytext.read(chapter)
    found = hidden_only_names(notebook)
    assert not found, (
        f"{chapter.name}: visible code uses names that only hidden cells define "
        f"(a reader copying the visible cells gets NameError): {found}"
    )
