"""Shared timing helper of the benchmark scripts."""

from __future__ import annotations

import json
import os
import platform
import time
from collections.abc import Callable

import numpy as np


def machine_info() -> dict[str, str]:
    """Date, CPU, Python and NumPy of this run: printed first, and stored with the results."""
    return {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
    }


def best_time(function: Callable[[], object], repeats: int) -> float:
    """Seconds of the fastest of ``repeats`` calls, after one warm-up call."""
    function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def write_results(path: str | None, machine: dict[str, str], rows: list[dict]) -> None:
    """With ``--json PATH``: the machine and the rows of a run, as the book reads them."""
    if path:
        with open(path, "w") as handle:
            json.dump({"machine": machine, "rows": rows}, handle, indent=1)
        print(f"wrote {path}")
