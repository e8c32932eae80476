"""Time sinpe.checkpoint.tables.inspect_table on large float32 tables (GitHub issue 16).

Usage::

    python benchmarks/inspect_table.py [--rows 1000000] [--width 1024] [--repeats 3]

Builds ``sinpe.table(rows, width, dtype=np.float32)`` (4 GiB at the default
10**6 x 1024; the build is not timed) and times ``inspect_table`` on it: the
correct table, then the same table with one (sin, cos) pair swapped in the last
rows, which must be reported (it is no longer the paper's table, and no longer
rotates as one map). Prints wall-clock and CPU seconds; each time is the best of
``--repeats`` runs after one warm-up call. Target: a few seconds for the correct
10**6 x 1024 table on 2 cores.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from timing import machine_info

import sinpe
from sinpe.checkpoint.tables import inspect_table


def timed(function, repeats: int) -> tuple[float, float, object]:
    """(best wall seconds, CPU seconds of that run, result) over ``repeats`` calls."""
    result = function()  # warm-up: frequencies cache, first-touch of buffers
    best = (np.inf, np.inf)
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        result = function()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best[0], best[1], result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**6)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(", ".join(f"{k}: {v}" for k, v in machine_info().items()))
    start = time.perf_counter()
    table = sinpe.table(args.rows, args.width, dtype=np.float32)
    print(
        f"built {args.rows} x {args.width} float32 ({table.nbytes / 2**30:.2f} GiB) "
        f"in {time.perf_counter() - start:.1f} s (not timed below)"
    )
    wall, cpu, report = timed(lambda: inspect_table(table), args.repeats)
    assert report.valid and report.matches == ["paper"], report
    print(f"correct table:      {wall:6.2f} s wall, {cpu:6.2f} s CPU  -> {report.matches}")
    table[-1000:, 2:4] = table[-1000:, 2:4][:, ::-1].copy()  # swap one pair late
    wall, cpu, report = timed(lambda: inspect_table(table), args.repeats)
    assert not report.valid and "paper" not in report.matches, report
    print(f"one pair swapped:   {wall:6.2f} s wall, {cpu:6.2f} s CPU  -> {report.problems}")


if __name__ == "__main__":
    main()
