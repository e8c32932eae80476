"""The package as a user installs it: a wheel, in a fresh venv, with only its declared dependencies.

Every module imports in a NumPy-only install, except the ones that need an extra,
which say which extra to install (``scripts/wheel_probe.py``). With the extras they
import too: the reader's path checks that in its venv. Needs the package index (as
``make test`` does for the lock).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

import sinpe

ROOT = Path(__file__).resolve().parents[1]


def _extras() -> dict[str, str]:
    """{package an extra installs: the extra}, from pyproject.toml (the test extra aside)."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    found = {}
    for extra, requirements in extras.items():
        for requirement in requirements if extra != "test" else ():
            found[re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower()] = extra
    return found


def _imported_on_load(module: str) -> set[str]:
    """The modules that ``module``'s source imports at its top level (not in functions)."""
    path = ROOT / module.replace(".", "/")
    tree = ast.parse(
        (path / "__init__.py" if path.is_dir() else path.with_suffix(".py")).read_text()
    )
    names = set()
    for statement in tree.body:
        for node in statement.body if isinstance(statement, ast.Try) else [statement]:
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
    return names


def extra_modules(imports: dict[str, set[str]], extras: dict[str, str]) -> dict[str, str]:
    """{module: the extra its ImportError must name}: the modules that import a package
    of an extra on load, directly or through another module (``imports`` as
    :func:`_imported_on_load` gives them, ``extras`` as :func:`_extras`)."""
    needs: dict[str, str] = {}
    added = True
    while added:  # until no module is added: a module importing one that needs an extra
        added = False
        for module, names in sorted(imports.items()):
            wanted = [extras.get(name.split(".")[0]) or needs.get(name) for name in sorted(names)]
            if module not in needs and any(wanted):
                needs[module] = next(filter(None, wanted))
                added = True
    return {module: f"sinpe[{extra}]" for module, extra in needs.items()}


#: The modules that need an extra, and the extra their error must name (read from
#: pyproject.toml and the modules' imports). Every other module of ``sinpe.SUBMODULES``
#: must import with NumPy alone.
EXTRA_MODULES = extra_modules(
    {f"sinpe.{name}": _imported_on_load(f"sinpe.{name}") for name in sinpe.SUBMODULES},
    _extras(),
)


def test_the_modules_that_need_an_extra_are_found_through_imports():
    imports = {
        "sinpe.a": {"numpy", "sinpe.b"},
        "sinpe.b": {"sinpe.c"},
        "sinpe.c": {"matplotlib.pyplot"},
        "sinpe.d": {"numpy", "mpmath_like"},
    }
    found = extra_modules(imports, {"matplotlib": "plot", "mpmath": "reference"})
    assert found == {name: "sinpe[plot]" for name in ("sinpe.a", "sinpe.b", "sinpe.c")}


@pytest.fixture(scope="module")
def distributions(root, tmp_path_factory):
    """The wheel and the source archive, built as the book's downloads build them."""
    from scripts import notebook_zips as zips

    out = tmp_path_factory.mktemp("dist")
    zips.build_wheel(out, sdist=True)
    return sorted(out.iterdir())


@pytest.fixture(scope="module")
def wheel(distributions):
    (built,) = [path for path in distributions if path.suffix == ".whl"]
    return built


def test_the_distributions_are_ready_for_the_package_index(distributions):
    """twine's check: metadata complete, the README renders as the project page."""
    assert sorted(path.suffix for path in distributions) == [".gz", ".whl"]
    run = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, distributions)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("PASSED") == 2


def test_the_metadata_names_the_book_and_the_repository(wheel):
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode()
    assert "Project-URL: Source, https://github.com/sinpe/sinpe" in metadata
    assert "Project-URL: Documentation, https://sinpe.github.io/sinpe/" in metadata
    assert "Requires-Dist: threadpoolctl" in metadata
    assert "Description-Content-Type: text/markdown" in metadata


def _fresh_env(tmp_path: Path, requirement: str) -> Path:
    venv.create(tmp_path / "env", with_pip=True)
    python = tmp_path / "env" / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         requirement],
        check=True, capture_output=True,
    )  # fmt: skip
    return python


def _probe(root: Path, python: Path) -> dict:
    import json

    script = root / "scripts" / "wheel_probe.py"
    run = subprocess.run([str(python), str(script)], check=True, capture_output=True, text=True)
    return json.loads(run.stdout)


def test_numpy_only_install_imports_and_names_the_extras(root, wheel, tmp_path):
    found = _probe(root, _fresh_env(tmp_path, str(wheel)))
    modules = found["modules"]
    assert set(EXTRA_MODULES) < set(modules) and len(modules) > 10
    for name, outcome in modules.items():
        if name in EXTRA_MODULES:
            assert EXTRA_MODULES[name] in outcome, outcome
        else:
            assert outcome == "ok", (name, outcome)
    assert "sinpe[reference]" in found["reference"]
    assert found["typed"] is True
    assert found["table"] == pytest.approx(0.8414709848078965, abs=1e-15)
    version, count, worst = found["recorded"]
    assert version.startswith("2.") and count == 16 and worst < 1e-4, found["recorded"]


# With every extra, every module imports: the reader's path checks it in the venv it
# makes from the notebook download (scripts/notebooks.py validate --reader), the one
# fresh install with extras that make test needs.
