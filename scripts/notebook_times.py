"""Pytest plugin: how long each notebook took to run under nbval, printed at the end.

Used by ``scripts/notebooks.py validate``. Nothing asserts on these seconds (tests never
depend on wall-clock time); the table shows a slow chapter the day it appears.
"""

from __future__ import annotations

from collections import defaultdict

_seconds: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report) -> None:
    # setup includes starting the kernel, call runs the cell.
    _seconds[report.fspath] += report.duration


def pytest_terminal_summary(terminalreporter) -> None:
    if not _seconds:
        return
    terminalreporter.section("seconds per notebook")
    for path, seconds in sorted(_seconds.items()):
        terminalreporter.write_line(f"{seconds:7.1f} s  {path}")
