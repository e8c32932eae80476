"""Pytest plugin: how long each notebook took to run under nbval, printed at the end.

Used by ``scripts/notebooks.py validate``, which also asks it to write the seconds to
``_build/notebook-seconds/<run>.json`` (``--notebook-seconds``). Nothing asserts on
these seconds (tests never depend on wall-clock time); the table shows a slow chapter
the day it appears. The book's page "How this book is built" shows the seconds of the
reader's path from the committed :data:`RECORD`, which only this command rewrites,
after a ``make test`` (or ``make reader``) on a quiet machine::

    python -m scripts.notebook_times record     # _build/notebook-seconds/reader.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
from collections import defaultdict
from pathlib import Path

from scripts.book import BOOK, ROOT

#: Where each nbval run writes its seconds (``reader.json``, ``native.json``, ...).
RUNS = ROOT / "_build" / "notebook-seconds"
#: The committed measurement the book shows (``book/_ext/generated.py``).
RECORD = BOOK / "_data" / "chapter_seconds.json"
#: What each run is, as the book says it.
DESCRIPTIONS = {
    "reader": "the reader's path of `make test` (the notebook download in a new venv, "
    "nbval's seconds per notebook, kernel start included, while the portability run "
    "uses the other core)",
    "native": "`make nbval` (nbval in the build's venv, kernel start included)",
    "elsewhere": "the portability run of `make test` (as another machine computes)",
}


class NotebookTimes:
    """Adds up the seconds of each notebook's cells (setup includes the kernel start)."""

    def __init__(self, target: Path | None) -> None:
        self.target = target
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report) -> None:
        self.seconds[report.fspath] += report.duration

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.seconds:
            return
        terminalreporter.section("seconds per notebook")
        for path, seconds in sorted(self.seconds.items()):
            terminalreporter.write_line(f"{seconds:7.1f} s  {path}")
        if self.target is not None:
            self.target.parent.mkdir(parents=True, exist_ok=True)
            measured = {Path(path).stem: round(s, 1) for path, s in sorted(self.seconds.items())}
            run = {
                "run": self.target.stem,
                "date": datetime.date.today().isoformat(),
                "machine": f"{os.cpu_count()} cores, {platform.machine()}",
                "seconds": measured,
            }
            self.target.write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")


def pytest_addoption(parser) -> None:
    parser.addoption("--notebook-seconds", type=Path, help="write the seconds here (JSON)")


def pytest_configure(config) -> None:
    times = NotebookTimes(config.getoption("notebook_seconds"))
    config.pluginmanager.register(times, "sinpe-notebook-times")


def record(run: Path, target: Path = RECORD) -> dict:
    """Commit-ready: the run's seconds, date, machine and what the run was."""
    measured = json.loads(run.read_text(encoding="utf-8"))
    if measured["run"] not in DESCRIPTIONS:
        raise SystemExit(f"{run}: unknown run {measured['run']!r} ({', '.join(DESCRIPTIONS)})")
    measured["how"] = DESCRIPTIONS[measured["run"]]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(measured, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="record a run's seconds for the book")
    sub = parser.add_subparsers(dest="command", required=True)
    record_parser = sub.add_parser("record", help=f"copy a run's seconds to {RECORD.name}")
    record_parser.add_argument("run", nargs="?", type=Path, default=RUNS / "reader.json")
    args = parser.parse_args(argv)
    if not args.run.is_file():
        print(f"{args.run} is missing: run `make reader` (or `make test`) first", file=sys.stderr)
        return 1
    measured = record(args.run)
    print(f"{RECORD.relative_to(ROOT)}: {len(measured['seconds'])} notebooks, {measured['date']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
