"""The chapters a change can affect: those whose ``.md`` changed, and those that use a
``sinpe`` module that changed, directly or through the modules it imports (issue 29).

``make check`` validates only these with nbval, so a one-chapter change is checked in
a couple of minutes; ``make test`` still validates every chapter. "Changed" means
changed in the work tree (staged or not, or new) against the commit where the branch
left ``main`` (against ``HEAD`` on ``main`` itself). A change to anything under
``sinpe/`` that is not a module (data files), to the lock or to ``pyproject.toml``
affects every chapter. By hand::

    python scripts/changed_chapters.py          # the affected twins, one per line
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
PACKAGE = ROOT / "sinpe"
#: The notebook that collects the chapters' verdicts (scripts/notebooks.py).
LEDGER = "claims_ledger"
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
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    return {
        alias.asname or alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("sinpe.")
        for alias in node.names
    }


def imported_modules(tree: ast.AST) -> set[str]:
    """The ``sinpe`` modules a piece of code imports or reaches as ``sinpe.<name>``,
    a name the package re-exports counting for its module (``sinpe.table``: ``sinpe.core``)."""
    owners = {f"sinpe.{name}": module for name, module in reexports().items()}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "sinpe":
                found |= {f"sinpe.{alias.name}" for alias in node.names} | {"sinpe"}
            elif node.module.startswith("sinpe."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "sinpe"}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id == "sinpe":
                found.add(f"sinpe.{node.attr}")
    found |= {owners[name] for name in found if name in owners}
    return {name for name in found if _module_path(name) is not None}


def _module_path(name: str) -> Path | None:
    parts = name.split(".")[1:]
    if not parts:
        return PACKAGE / "__init__.py"
    path = PACKAGE.joinpath(*parts).with_suffix(".py")
    return path if path.is_file() else None


def closure(modules: set[str]) -> set[str]:
    """``modules`` and every ``sinpe`` module they import, transitively."""
    seen: set[str] = set()
    todo = list(modules)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name != "sinpe":
            todo.append("sinpe")  # importing sinpe.x runs sinpe/__init__.py first
        tree = ast.parse(_module_path(name).read_text(encoding="utf-8"))
        todo += sorted(imported_modules(tree) - seen)
    return seen


def chapter_modules(path: Path) -> set[str]:
    """Every ``sinpe`` module a chapter's code cells need."""
    return closure(imported_modules(chapter_code(path)))


def chapter_code(path: Path) -> ast.AST:
    """The code cells of a chapter, parsed (IPython magics left out)."""
    import jupytext

    code = "\n".join(cell.source for cell in jupytext.read(path).cells if cell.cell_type == "code")
    code = re.sub(r"^\s*[%!].*$", "", code, flags=re.M)  # IPython magics
    return ast.parse(code)


def affected(changed: set[str], chapters: list[Path]) -> list[Path]:
    """The chapters among ``chapters`` that ``changed`` files can affect."""
    if any(name in changed for name in EVERYTHING) or any(
        name.startswith("sinpe/") and not name.endswith(".py") for name in changed
    ):
        return chapters
    modules = {
        "sinpe" if name == "sinpe/__init__.py" else name[:-3].replace("/", ".")
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
    sys.path.insert(0, str(ROOT / "scripts"))
    import notebooks

    for chapter in affected(changed_files(), notebooks.chapters()):
        print(chapter.with_suffix(".ipynb").relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
