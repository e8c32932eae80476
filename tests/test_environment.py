"""requirements.lock, requirements.in, pyproject.toml and environment.yml agree."""

from __future__ import annotations

import re
import sys
import tomllib

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from scripts import lockfile


def _lock(root):
    return lockfile.pins(root / "requirements.lock")


def test_every_locked_version_carries_its_hashes(root):
    # pip install --require-hashes (make, environment.yml) refuses an entry without one.
    entries = lockfile.entries(root / "requirements.lock")
    assert len(entries) > 100
    for entry in entries:
        assert entry.hashes, f"{entry.name}=={entry.version} has no --hash"
        assert len(set(entry.hashes)) == len(entry.hashes), entry.name
    # The universal lock pins what only Windows or macOS need, under their markers.
    markers = {entry.name: str(entry.marker) for entry in entries if entry.marker}
    assert "win32" in markers["colorama"] and "darwin" in markers["appnope"].lower()


def _satisfied(requirement: Requirement, pins: dict[str, str]) -> bool:
    name = canonicalize_name(requirement.name)
    return name in pins and requirement.specifier.contains(pins[name], prereleases=True)


def test_lock_satisfies_pyproject(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    pins = _lock(root)
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements += extra
    for text in requirements:
        assert _satisfied(Requirement(text), pins), text


def test_lock_satisfies_requirements_in(root):
    pins = _lock(root)
    for line in (root / "requirements.in").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert _satisfied(Requirement(line), pins), line
    assert pins["jupyter-book"] == "1.0.4.post1"


def test_lock_matches_this_interpreter_and_pyproject(root):
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    header = (root / "requirements.lock").read_text().splitlines()[0]
    locked_python = re.search(r"Python (\d+\.\d+)", header).group(1)
    assert SpecifierSet(project["requires-python"]).contains(locked_python)
    assert f"{sys.version_info.major}.{sys.version_info.minor}" == locked_python


def test_environment_yml_installs_the_lock(root):
    env = yaml.safe_load((root / "environment.yml").read_text())
    header = (root / "requirements.lock").read_text().splitlines()[0]
    locked_python = re.search(r"Python (\d+\.\d+)", header).group(1)
    deps = env["dependencies"]
    assert f"python={locked_python}" in deps
    pip_section = next(item["pip"] for item in deps if isinstance(item, dict))
    assert "-r requirements.lock" in pip_section
    # The lock's hashes put pip in hash-checking mode for the whole section, which refuses
    # an editable (or any local) requirement: sinpe itself is installed by a second command.
    assert not any(item.startswith(("-e", ".")) for item in pip_section), pip_section
    assert "pip install --no-deps -e ." in (root / "environment.yml").read_text()
    # Nothing else in the conda file may pin a package differently from the lock.
    conda_names = {str(d).split("=")[0] for d in deps if isinstance(d, str)}
    assert conda_names <= {"python", "pip"}
