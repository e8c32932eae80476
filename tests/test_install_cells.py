"""The hidden first cell of each chapter installs what the chapter needs, pinned (issue 16).

On Colab or Binder a chapter starts in a kernel without sinpe. Its hidden cell
installs sinpe from the release tag of this version (``v`` + pyproject's
version), plus every optional dependency the chapter's code imports, each pinned
to the version in requirements.lock, so a reader runs what the book was built with.
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

# Every chapter (found, not listed: a new chapter is checked too) and the ledger.
CHAPTERS = [
    path.stem for path in sorted((Path(__file__).parent.parent / "book").glob("ch*.md"))
] + ["claims_ledger"]

# What a chapter's code uses -> the module its install cell must check for.
USES = {
    r"\bplotting\b|^import matplotlib|^from matplotlib": "matplotlib",
    r"\bsymbolic\b|^import sympy|^from sympy": "sympy",
    r"^import mpmath|reference_encoding": "mpmath",
    r"\bglue\b": "myst_nb",
}


def _code_cells(text: str) -> list[str]:
    return re.findall(r"```\{code-cell\}[^\n]*\n(.*?)```", text, re.S)


def _install_cell(text: str) -> tuple[str, dict[str, str]]:
    cell = next(c for c in _code_cells(text) if "NEEDS = {" in c)
    tree = ast.parse(re.sub(r"^:tags:.*$", "", cell, flags=re.M))
    values = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    sinpe = ast.literal_eval(values["SINPE"])
    needs = {
        ast.literal_eval(key): value
        for key, value in zip(values["NEEDS"].keys, values["NEEDS"].values, strict=True)
    }
    pins = {name: ast.literal_eval(v) for name, v in needs.items() if name != "sinpe"}
    assert "sinpe" in needs
    return sinpe, pins


@pytest.fixture(scope="module")
def versions(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    lock = {}
    for line in (root / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.strip().split("==")
            lock[name.lower().replace("_", "-")] = version
    return project, lock


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_install_cell_is_pinned_and_complete(root, versions, chapter):
    project, lock = versions
    text = (root / "book" / f"{chapter}.md").read_text()
    first = _code_cells(text)[0]
    assert first.startswith(":tags: [remove-cell]"), "the install cell comes first, hidden"
    assert "NEEDS = {" in first
    sinpe, pins = _install_cell(text)
    assert sinpe == f"git+https://github.com/sinpe/sinpe@v{project}"
    for pin in pins.values():
        name, _, version = pin.partition("==")
        assert lock.get(name) == version, f"{chapter}: {pin} is not the locked version"
    code = "\n".join(cell for cell in _code_cells(text) if "NEEDS = {" not in cell)
    for pattern, module in USES.items():
        if re.search(pattern, code, re.M):
            assert module in pins, f"{chapter} uses {module} but its install cell omits it"
    if "git" in first and "clone" in first:
        assert f'"--branch", "v{project}"' in first


def test_usage_patterns_see_what_they_look_for():
    # The patterns are not vacuous: chapter 7 needs all three extras' modules.
    code = "from sinpe import plotting\nimport mpmath\nfrom myst_nb import glue\n"
    found = {module for pattern, module in USES.items() if re.search(pattern, code, re.M)}
    assert found == {"matplotlib", "mpmath", "myst_nb"}
