"""Shared fixtures: the repository root and the notebook tooling in scripts/."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests explore new examples on a developer's machine, and replay a fixed
# set under CI=true so that a CI run is reproducible.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parent.parent

# An IPython startup file that changes NumPy on import (the portability check,
# scripts/notebooks.py validate --elsewhere): never import it into the test session.
collect_ignore = ["portability"]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def notebooks():
    """The module scripts/notebooks.py (twin generation and sync checks)."""
    spec = importlib.util.spec_from_file_location("notebooks", ROOT / "scripts" / "notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
