"""The house as the code states it: the import graph of a package and its floors, and a
drawing of the folders with one line per module (issue 38).

A module's *floor* is 1 when it imports no module of its package, else one more than
the highest floor among those it imports: the import statements as written, those
inside functions too, ``from sinpe.lab import nn`` an edge to ``sinpe.lab.nn`` (a
module), ``from sinpe import table`` an edge to ``sinpe`` (a name). An import circle
has no floors. The drawing, in ``CONTRIBUTING.md`` between two markers, is written from
each module's docstring (its first sentence) and the floors of ``sinpe/``;
``tests/test_layout.py`` fails when the committed one differs. By hand::

    python -m scripts.layout            # print the drawing
    python -m scripts.layout --write    # rewrite it in CONTRIBUTING.md
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

from scripts.book import ROOT

#: The most floors the package may have (issue 38: "at most 7 floors and no circle").
MAX_FLOORS = 7

#: The file holding the drawing, and the markers around it.
DRAWING_FILE = "CONTRIBUTING.md"
BEGIN = "<!-- the house: written by `python -m scripts.layout --write` -->"
END = "<!-- end of the house -->"

#: The longest summary of a module the drawing shows (longer ones are cut at a word).
SUMMARY = 80

#: The folders of the drawing, in order, each with what it holds when it is not a
#: package with a docstring of its own. Modules are listed for the folders whose
#: ``*.py`` files are modules (``glob``); the others get one line.
FOLDERS = (
    ("sinpe", None, "**/*.py"),
    ("tests", "the tests: `make unit` (pytest -n auto), `make test` (everything)", "*.py"),
    ("scripts", None, "*.py"),
    ("book", "the chapters: `chNN_*.md` (MyST, the source) + `.ipynb` (executed twin)", None),
    ("book/_ext", "the book's Sphinx extensions (`_config.yml`: local_extensions)", "*.py"),
    ("book/api", "the API reference: one autodoc directive per public name", None),
    ("notebooks", "the reader's editions, one per chapter (`make twins` writes them)", None),
    ("benchmarks", "timings measured side by side; ratios, never asserted", "*.py"),
)


def modules(root: Path, package: str) -> dict[str, Path]:
    """``{dotted name: file}`` of every module of ``package`` (a folder of ``root``)."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The module ``name`` is or is in (``sinpe.lab.nn.TokenModel``: ``sinpe.lab.nn``)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` imports, as its code states them."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_owner(alias.name, known) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x, from ..core import y
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                found.add(_owner(f"{source}.{alias.name}", known) or _owner(source, known))
    return {module for module in found if module is not None and module != name}


def graph(root: Path, package: str) -> dict[str, set[str]]:
    """``{module: the modules of the package it imports}``."""
    known = modules(root, package)
    return {name: imports(name, path, known) for name, path in known.items()}


def floors(edges: dict[str, set[str]]) -> dict[str, int]:
    """The floor of every module; :class:`ValueError` naming a circle if there is one."""
    found: dict[str, int] = {}

    def visit(name: str, path: tuple[str, ...]) -> int:
        if name in path:
            circle = (*path[path.index(name) :], name)
            raise ValueError("import circle: " + " -> ".join(circle))
        if name not in found:
            below = [visit(other, (*path, name)) for other in sorted(edges.get(name, ()))]
            found[name] = 1 + max(below, default=0)
        return found[name]

    for name in sorted(edges):
        visit(name, ())
    return found


def longest_chain(edges: dict[str, set[str]]) -> list[str]:
    """A chain of imports through every floor, from the top floor down to floor 1."""
    level = floors(edges)
    name = max(sorted(level), key=level.get)
    chain = [name]
    while level[name] > 1:
        name = next(other for other in sorted(edges[name]) if level[other] == level[name] - 1)
        chain.append(name)
    return chain


def summary(path: Path) -> str:
    """The first sentence of a module's docstring, without reST markup."""
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not docstring:
        raise ValueError(f"{path} has no docstring: say in one sentence what it holds")
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    paragraph = re.sub(r":\w+:`~?([^`]+)`", r"\1", paragraph).replace("``", "`")
    sentence = re.match(r"(.+?(?<!\bal)(?<!e\.g)(?<!i\.e)[.!?])(\s|$)", paragraph)
    text = (sentence.group(1) if sentence else paragraph).removesuffix(".")
    return text if len(text) <= SUMMARY else text[: text.rfind(" ", 0, SUMMARY - 4)] + " ..."


def _dotted(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def drawing(root: Path = ROOT) -> str:
    """The tree of the folders, one line per module, the floors of ``sinpe/`` shown."""
    level = floors(graph(root, "sinpe"))
    rows: list[tuple[str, str, str]] = []  # (name, floor, what it holds)
    for folder, what, pattern in FOLDERS:
        base = root / folder
        what = what or summary(base / "__init__.py")
        rows.append((f"{folder}/", str(level.get(folder, "")), what))
        files = sorted(base.glob(pattern)) if pattern else []
        for path in sorted(files, key=lambda path: path.relative_to(base).parts):
            depth = len(path.relative_to(base).parts)
            if path.name == "__init__.py":
                if path.parent == base:
                    continue  # the folder's own line
                depth, name = depth - 1, path.parent.name + "/"
            else:
                name = path.name
            floor = str(level.get(_dotted(path, root), ""))
            rows.append(("  " * depth + name, floor, summary(path)))
    width = max(len(name) for name, _, _ in rows)
    lines = [f"{'':<{width}}  floor  what it holds"]
    lines += [f"{name:<{width}}  {floor:>5}  {what}".rstrip() for name, floor, what in rows]
    return "\n".join(lines)


def committed(text: str) -> str:
    """The drawing between the markers of ``text``, without its code fence."""
    body = text.split(BEGIN, 1)[1].split(END, 1)[0]
    return body.strip().removeprefix("```text").removesuffix("```").strip("\n")


def write(root: Path = ROOT) -> bool:
    """Rewrite the drawing in :data:`DRAWING_FILE`; True when it changed."""
    path = root / DRAWING_FILE
    text = path.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    new = f"{head}{BEGIN}\n```text\n{drawing(root)}\n```\n{END}{rest.split(END, 1)[1]}"
    path.write_text(new, encoding="utf-8")
    return new != text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite it in {DRAWING_FILE}")
    args = parser.parse_args(argv)
    if args.write:
        print(f"{DRAWING_FILE}: {'rewritten' if write() else 'already up to date'}")
    else:
        print(drawing())
    return 0


if __name__ == "__main__":
    sys.exit(main())
