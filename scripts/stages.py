"""Run ``make`` stages in order and end with a table of their seconds (issue 29).

``make test`` calls it with its stages, each with its budget in seconds on a 2-core
machine (``STAGES`` in the Makefile; CONTRIBUTING.md explains them)::

    python scripts/stages.py lint:10 unit:90 ...

It stops at the first stage that fails, after printing the table so far. A stage over
its budget is marked in the table but does not fail the run: time is measured, never
asserted (a loaded machine must not turn a correct change red).
"""

from __future__ import annotations

import subprocess
import sys
import time


def parse(entries: list[str]) -> list[tuple[str, float]]:
    """``["lint:10", ...]`` -> ``[("lint", 10.0), ...]``."""
    stages = []
    for entry in entries:
        name, _, budget = entry.partition(":")
        if not name or not budget:
            raise SystemExit(f"stages.py: {entry!r} is not STAGE:SECONDS")
        stages.append((name, float(budget)))
    return stages


def table(times: list[tuple[str, float, float]]) -> str:
    """The report: stage, seconds, budget, and a mark where a stage took longer."""
    lines = [f"{'stage':<14}{'seconds':>9}{'budget':>8}"]
    for name, seconds, budget in times:
        over = "  over budget" if seconds > budget else ""
        lines.append(f"{name:<14}{seconds:>9.0f}{budget:>8.0f}{over}")
    total = sum(seconds for _, seconds, _ in times)
    lines.append(f"{'total':<14}{total:>9.0f}{sum(b for *_, b in times):>8.0f}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    times = []
    for name, budget in parse(argv):
        start = time.monotonic()
        code = subprocess.call(["make", "--no-print-directory", name])
        times.append((name, time.monotonic() - start, budget))
        if code:
            print(table(times), flush=True)
            print(f"stage {name} failed", file=sys.stderr)
            return code
    print(table(times), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
