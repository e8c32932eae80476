"""The house as the code states it (issue 38): the import graph of sinpe/ is flat and
has no circle, scripts/ imports itself one way, and the drawing of the folders in
CONTRIBUTING.md is the one scripts/layout.py writes.

The graph counts every import statement of every module, those inside functions too,
as written (no module is imported to find them). Each rule is also shown failing on a
made-up graph or a made-up module.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from scripts import layout


@pytest.fixture(scope="module")
def sinpe_graph(root):
    return layout.graph(root, "sinpe")


def _package(tmp_path, files: dict[str, str]):
    """A made-up package ``pkg`` in ``tmp_path``: ``{relative path: source}``."""
    for name, source in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return layout.graph(tmp_path, "pkg")


def test_imports_are_read_as_the_code_states_them(tmp_path):
    graph = _package(
        tmp_path,
        {
            "__init__.py": "from pkg.core import f\n",
            "core.py": "import numpy\n",
            "lab/__init__.py": "",
            "lab/nn.py": "from pkg import core\nfrom . import tasks\n",
            "lab/tasks.py": "def late():\n    from ..core import f\n    import pkg.lab.nn\n",
            "cli.py": "from pkg.lab import nn, tasks\nfrom pkg import f\nimport pkg.core.f\n",
        },
    )
    assert graph == {
        "pkg": {"pkg.core"},
        "pkg.core": set(),
        "pkg.lab": set(),
        "pkg.lab.nn": {"pkg.core", "pkg.lab.tasks"},
        "pkg.lab.tasks": {"pkg.core", "pkg.lab.nn"},  # inside a function, relative too
        "pkg.cli": {"pkg.lab.nn", "pkg.lab.tasks", "pkg", "pkg.core"},
    }


def test_floors_count_from_the_modules_that_import_nothing():
    graph = {"a": set(), "b": {"a"}, "c": {"a", "b"}, "d": {"a"}}
    assert layout.floors(graph) == {"a": 1, "b": 2, "c": 3, "d": 2}
    assert layout.longest_chain(graph) == ["c", "b", "a"]


def test_a_circle_and_an_eighth_floor_fail():
    with pytest.raises(ValueError, match="import circle: b -> c -> d -> b"):
        layout.floors({"a": set(), "b": {"a", "c"}, "c": {"d"}, "d": {"b"}})
    with pytest.raises(ValueError, match="import circle: a -> a"):
        layout.floors({"a": {"a"}})
    tower = {f"m{n}": {f"m{n - 1}"} if n else set() for n in range(8)}
    assert max(layout.floors(tower).values()) == 8 > layout.MAX_FLOORS
    del tower["m7"]
    assert max(layout.floors(tower).values()) == layout.MAX_FLOORS


def test_sinpe_has_no_import_circle(sinpe_graph):
    floors = layout.floors(sinpe_graph)
    assert set(floors) >= {"sinpe", "sinpe.core", "sinpe.lab.nn", "sinpe.checkpoint.cli"}
    assert floors["sinpe._validation"] == 1


def test_sinpe_has_at_most_seven_floors(sinpe_graph):
    floors = layout.floors(sinpe_graph)
    chain = " -> ".join(layout.longest_chain(sinpe_graph))
    assert max(floors.values()) <= layout.MAX_FLOORS, chain


# --- scripts/: a package that imports itself one way ------------------------------


def sibling_imports(path, siblings: set[str]) -> list[str]:
    """The imports of a scripts/ module that reach a sibling other than as
    ``from scripts import x`` / ``from scripts.x import y``, and the lines that put a
    folder on ``sys.path`` or load a file by its path."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        where = f"{path.name}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.ImportFrom):
            top = (node.module or "").split(".")[0]
            if node.level:
                found.append(f"{where}: relative import")
            elif top in siblings:
                found.append(f"{where}: from {node.module} (say from scripts.{node.module})")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                if top in siblings or top == "scripts":
                    found.append(f"{where}: import {alias.name} (say from scripts import ...)")
        elif isinstance(node, ast.Attribute):
            if node.attr == "spec_from_file_location":
                found.append(f"{where}: spec_from_file_location")
            if node.attr == "path" and isinstance(node.value, ast.Name) and node.value.id == "sys":
                found.append(f"{where}: sys.path")
        elif isinstance(node, ast.Name) and node.id == "spec_from_file_location":
            found.append(f"{where}: spec_from_file_location")
    return sorted(found, key=lambda problem: int(problem.split(":")[1]))


def _scripts(root):
    return {path.stem: path for path in sorted((root / "scripts").glob("*.py"))}


def test_scripts_import_siblings_only_through_the_package(root):
    scripts = _scripts(root)
    assert {"book", "notebooks", "layout"} <= set(scripts)
    siblings = set(scripts) - {"__init__"}
    problems = [problem for path in scripts.values() for problem in sibling_imports(path, siblings)]
    assert problems == []


def test_scripts_have_no_import_circle(root):
    graph = layout.graph(root, "scripts")
    assert "scripts.notebooks" in graph and "scripts.book" in graph["scripts.notebooks"]
    layout.floors(graph)  # raises on a circle


def test_the_scripts_rule_catches_each_other_way(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(
        "import sys\nimport importlib.util\nsys.path.insert(0, 'scripts')\n"
        "import notebooks\nfrom book import ROOT\nfrom . import lockfile\nimport scripts.book\n"
        "spec = importlib.util.spec_from_file_location('x', 'scripts/x.py')\n"
        "from scripts import book\nfrom scripts.book import ROOT\n"
    )
    problems = sibling_imports(path, {"book", "notebooks"})
    assert [problem.split(": ", 1)[1] for problem in problems] == [
        "sys.path",
        "import notebooks (say from scripts import ...)",
        "from book (say from scripts.book)",
        "relative import",
        "import scripts.book (say from scripts import ...)",
        "spec_from_file_location",
    ]


# --- the drawing of the house ----------------------------------------------------


def test_the_committed_drawing_is_the_generated_one(root):
    """Regenerate it with ``python -m scripts.layout --write`` after adding, removing
    or redescribing a module (its docstring's first sentence) or changing an import."""
    text = (root / layout.DRAWING_FILE).read_text(encoding="utf-8")
    assert layout.committed(text) == layout.drawing(root), "run: python -m scripts.layout --write"


def test_the_drawing_shows_every_module_with_its_floor(root, sinpe_graph):
    drawing = layout.drawing(root)
    floors = layout.floors(sinpe_graph)
    for folder in ("sinpe/", "tests/", "scripts/", "book/", "notebooks/", "benchmarks/"):
        assert f"\n{folder} " in f"\n{drawing}", folder
    assert "\n  lab/ " in drawing and "\n    nn.py " in drawing and "\n  checkpoint/ " in drawing
    rope = next(line for line in drawing.splitlines() if line.startswith("  rope.py "))
    assert rope.split()[1] == str(floors["sinpe.rope"])
    assert "Rotary position embedding (RoPE)" in rope


def test_the_drawing_fails_a_module_without_a_docstring(tmp_path):
    path = tmp_path / "bare.py"
    path.write_text("x = 1\n")
    with pytest.raises(ValueError, match="no docstring"):
        layout.summary(path)
    path.write_text('"""ALiBi (Press et al. 2022): a penalty. More here."""\n')
    assert layout.summary(path) == "ALiBi (Press et al. 2022): a penalty"


# tests/ mirrors the package: every public module ``sinpe/**/<name>.py`` has its own
# ``tests/test_<name>.py`` (the file scripts/mutants.py runs first for its mutants).
def unmirrored(root) -> set[str]:
    """The public modules of ``root/sinpe`` with no ``root/tests/test_<name>.py``."""
    package = root / "sinpe"
    return {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if not path.name.startswith("_") and not (root / "tests" / f"test_{path.stem}.py").is_file()
    }


def test_every_public_module_has_a_test_file_of_its_own(root):
    assert unmirrored(root) == set()


def test_a_module_without_its_test_file_is_named(tmp_path):
    for name in ("sinpe/__init__.py", "sinpe/_private.py", "sinpe/lab/new.py", "sinpe/kept.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text('"""A module."""\n')
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_kept.py").write_text("")
    assert unmirrored(tmp_path) == {"lab/new.py"}
