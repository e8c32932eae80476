"""requirements.lock, requirements.in, pyproject.toml and environment.yml agree."""

from __future__ import annotations

import re
import sys
import tomllib

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name


def _lock(root):
    pins = {}
    for line in (root / "requirements.lock").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        assert match, f"not an exact pin: {line!r}"
        pins[canonicalize_name(match.group(1))] = match.group(2)
    return pins


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
    assert "-e ." in pip_section
    # Nothing else in the conda file may pin a package differently from the lock.
    conda_names = {str(d).split("=")[0] for d in deps if isinstance(d, str)}
    assert conda_names <= {"python", "pip"}
