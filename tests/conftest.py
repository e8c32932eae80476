"""Shared fixtures: the repository root and the notebook tooling in scripts/."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

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
    from scripts import notebooks

    return notebooks


# --- the built book in Chromium (make browser: tests/test_site.py, test_page_weight.py).
# site_check (and with it Playwright) is imported by the fixtures that need it only.


@pytest.fixture(scope="session")
def site(root):
    built = root / "_build" / "html"
    if not (built / "book" / "intro.html").exists():
        pytest.fail("the book is not built: run `make book` first")
    return built


@pytest.fixture(scope="session")
def chromium():
    import site_check

    executable = site_check.find_chromium()
    if executable is None:
        if os.environ.get("CI") == "true":
            pytest.fail(site_check.INSTALL_HINT)
        pytest.skip(site_check.INSTALL_HINT)
    browser = site_check.Chromium(executable)
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def base(site):
    """The book served on a loopback port, for the whole session."""
    import site_check

    with site_check.serve(site) as url:
        yield url


@pytest.fixture(scope="session")
def screenshots(root):
    folder = root / "_build" / "screenshots"
    shutil.rmtree(folder, ignore_errors=True)
    return folder


@pytest.fixture(scope="session")
def visits(chromium, site, base, screenshots):
    """Every page once at each width: {(page, width): site_check.Visit}."""
    import site_check

    found = chromium.run(site_check.sweep(chromium, site, base, screenshots))
    assert len(found) == 2 * len(site_check.pages(site))
    return found
