"""The package as a user installs it: a wheel, in a fresh venv, with only its declared dependencies.

Every module imports in a NumPy-only install, except the ones that need an extra,
which say which extra to install; with the extras, they import too. Needs the package
index (as ``make test`` does for the lock) and takes about a minute.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import venv
from pathlib import Path

import pytest

CORE_MODULES = [
    "sinpe", "sinpe.core", "sinpe.conventions", "sinpe.geometry", "sinpe.numerics",
    "sinpe.binary", "sinpe.fourier", "sinpe.rope", "sinpe.alibi", "sinpe.checks",
    "sinpe.claims", "sinpe.experiments", "sinpe.nn", "sinpe.tasks", "sinpe.pytorch_record",
]  # fmt: skip
EXTRA_MODULES = {"sinpe.symbolic": "sinpe[symbolic]", "sinpe.plotting": "sinpe[plot]"}

PROBE = """
import importlib, json, sys
from importlib import resources
result = {}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
        result[name] = "ok"
    except ModuleNotFoundError as error:
        result[name] = str(error)
import sinpe, numpy as np
result["typed"] = resources.files("sinpe").joinpath("py.typed").is_file()
result["table"] = float(sinpe.positional_encoding(1, 8)[0])
import sinpe.pytorch_record
version, layers = sinpe.pytorch_record.recorded_layers()  # the record is package data
worst = max(float(np.abs(case.run() - case.outputs).max()) for case in layers)
result["recorded"] = [version, len(layers), worst]
try:
    sinpe.numerics.reference_encoding([1.0], 2)
    result["reference"] = "ok"
except ModuleNotFoundError as error:
    result["reference"] = str(error)
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def distributions(root, tmp_path_factory):
    """The wheel and the source archive, built as the book's downloads build them."""
    spec = importlib.util.spec_from_file_location(
        "notebook_zips", root / "scripts" / "notebook_zips.py"
    )
    zips = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(zips)
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


def _probe(python: Path) -> dict:
    import json

    modules = CORE_MODULES + list(EXTRA_MODULES)
    run = subprocess.run(
        [str(python), "-c", PROBE, *modules], check=True, capture_output=True, text=True
    )
    return json.loads(run.stdout)


def test_numpy_only_install_imports_and_names_the_extras(wheel, tmp_path):
    found = _probe(_fresh_env(tmp_path, str(wheel)))
    assert all(found[name] == "ok" for name in CORE_MODULES), found
    for name, extra in EXTRA_MODULES.items():
        assert extra in found[name], found[name]
    assert "sinpe[reference]" in found["reference"]
    assert found["typed"] is True
    assert found["table"] == pytest.approx(0.8414709848078965, abs=1e-15)
    version, count, worst = found["recorded"]
    assert version.startswith("2.") and count == 16 and worst < 1e-4, found["recorded"]


def test_install_with_every_extra_imports_everything(wheel, tmp_path):
    found = _probe(_fresh_env(tmp_path, f"sinpe[plot,symbolic,reference] @ {wheel.as_uri()}"))
    assert all(found[name] == "ok" for name in CORE_MODULES + list(EXTRA_MODULES)), found
    assert found["reference"] == "ok"
