"""Shared fixtures: the repository root and the notebook tooling in scripts/."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings
from scripts_loader import load_script

# Property tests explore new examples on a developer's machine, and replay a fixed
# set under CI=true so that a CI run is reproducible.
# No deadline in either: a test must never depend on wall-clock time (a loaded CI
# machine made Hypothesis's default 200 ms deadline fail a correct test).
settings.register_profile("local", deadline=None)
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "local")

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
    return load_script("notebooks")
