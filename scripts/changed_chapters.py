"""The chapters a change can affect: those whose ``.md`` changed, and those that use a
``sinpe`` module that changed, directly or through the modules it imports (issue 29).

``make check`` validates only these with nbval, so a one-chapter change is checked in
a couple of minutes; ``make test`` still validates every chapter. "Changed" means
changed in the work tree (staged or not, or new) against the commit where the branch
left ``main`` (against ``HEAD`` on ``main`` itself). A change to anything under
``sinpe/`` that is not a module (data files), to the lock or to ``pyproject.toml``
affects every chapter. By hand::

    python -m scripts.changed_chapters          # the affected twins, one per line
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from scripts.book import LEDGER, ROOT, chapters

PACKAGE = ROOT / "sinpe"
#: Files whose change affects every chapter.
EVERYTHING = ("requirements.lock", "pyproject.toml")


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout


def changed_files() -> set[str]:
    """Paths (relative to the repository) changed since the branch left ``main``."""
    head = _git("rev-parse", "HEAD").strip()
    try:
        base = _git("merge-base", "HEAD", "main").strip()
    except subprocess.CalledProcessError:  # no main branch: compare with HEAD
        base = head
    if base == head:
        base = "HEAD"
    names = _git("diff", "--name-only", base).split()
    names += _git("ls-files", "--others", "--exclude-standard").split()
    return set(names)


def reexports() -> dict[str, str]:
    """The names ``sinpe/__init__.py`` takes from its modules: ``{"table": "sinpe.core"}``."""
    return dict(_reexports((PACKAGE / "__init__.py").read_text(encoding="utf-8")))


@functools.cache
def _reexports(text: str) -> tuple[tuple[str, str], ...]:
    # Parsed once per text: every test file and chapter read asks again.
    return tuple(
        (alias.asname or alias.name, node.module)
        for node in ast.parse(text).body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("sinpe.")
        for alias in node.names
    )


def imported_modules(tree: ast.AST) -> set[str]:
    """The ``sinpe`` modules a piece of code imports or reaches as ``sinpe.<name>...``
    (``sinpe.lab.nn``, ``from sinpe.lab import nn``), a name the package re-exports
    counting for its module (``sinpe.table``: ``sinpe.core``)."""
    owners = {f"sinpe.{name}": module for name, module in reexports().items()}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "sinpe" or node.module.startswith("sinpe."):
                found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "sinpe"}
        elif isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted and dotted.startswith("sinpe."):
                parts = dotted.split(".")
                found |= {".".join(parts[:end]) for end in range(2, len(parts) + 1)}
    found |= {owners[name] for name in found if name in owners}
    return {name for name in found if _module_path(name) is not None}


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def _module_path(name: str) -> Path | None:
    """The file of module ``name`` (a package's ``__init__.py``), or None."""
    if name == "sinpe":
        return PACKAGE / "__init__.py"
    path = PACKAGE.joinpath(*name.split(".")[1:])
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def closure(modules: set[str]) -> set[str]:
    """``modules`` and every ``sinpe`` module they import, transitively."""
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parents = name.split(".")[:-1]  # importing sinpe.a.b runs sinpe's and sinpe.a's inits
        todo += [".".join(parents[:end]) for end in range(1, len(parents) + 1)]
        todo += sorted(_imports_of(_module_path(name).read_text(encoding="utf-8")) - seen)
    return seen


@functools.cache
def _imports_of(source: str) -> frozenset[str]:
    # Parsed once per text: every chapter's closure walks the same modules.
    return frozenset(imported_modules(ast.parse(source)))


def chapter_modules(path: Path) -> set[str]:
    """Every ``sinpe`` module a chapter's code cells need."""
    return closure(imported_modules(chapter_code(path)))


def chapter_code(path: Path) -> ast.AST:
    """The code cells of a chapter, parsed (IPython magics left out)."""
    import jupytext

    return parse_cells(
        cell.source for cell in jupytext.read(path).cells if cell.cell_type == "code"
    )


def parse_cells(sources: Iterable[str]) -> ast.AST:
    """Code cells' sources, parsed as one module (IPython magics left out)."""
    code = re.sub(r"^\s*[%!].*$", "", "\n".join(sources), flags=re.M)
    return ast.parse(code)


def chapter_uses(chapters: list[Path]) -> dict[str, list[Path]]:
    """``{module: the chapters whose code imports it}``, each list in book order.

    A module counts for the chapters that import it or reach it as ``sinpe.<name>``
    in their own cells (:func:`imported_modules`), not for those that only run it
    through another module: the API reference's "Used in" lines.
    """
    uses: dict[str, list[Path]] = {}
    for path in chapters:
        for name in sorted(imported_modules(chapter_code(path))):
            uses.setdefault(name, []).append(path)
    return uses


def affected(changed: set[str], chapters: list[Path]) -> list[Path]:
    """The chapters among ``chapters`` that ``changed`` files can affect."""
    if any(name in changed for name in EVERYTHING) or any(
        name.startswith("sinpe/") and not name.endswith(".py") for name in changed
    ):
        return chapters
    modules = {
        name.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for name in changed
        if name.startswith("sinpe/") and name.endswith(".py")
    }
    found = [
        chapter
        for chapter in chapters
        if chapter.relative_to(ROOT).as_posix() in changed
        or chapter.with_suffix(".ipynb").relative_to(ROOT).as_posix() in changed
        or chapter_modules(chapter) & modules
    ]
    # The ledger reads the verdicts of the chapters' twins: it follows any of them.
    ledger = [chapter for chapter in chapters if chapter.stem == LEDGER]
    if found and ledger and ledger[0] not in found:
        found += ledger
    return found


def main() -> int:
    for chapter in affected(changed_files(), chapters()):
        print(chapter.with_suffix(".ipynb").relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
