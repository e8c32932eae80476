"""Time and memory of ``sinpe inspect`` on a large .safetensors table (GitHub issue 32).

Usage::

    python benchmarks/inspect_large.py [--rows 1000000] [--width 1024] [--folder /tmp]

Writes the paper's table, float32, ``rows x width`` (4 GiB at the default 10**6 x
1024) to a .safetensors file in a temporary folder, block by block (``sinpe.table``
with ``start``; the write is not timed), then runs ``python -m sinpe inspect`` on it
as a user does, in a child process, and reports:

* wall-clock seconds of the command (target: at most 10 s on 2 cores);
* its peak anonymous memory (RssAnon, sampled every 20 ms from /proc): what the
  command allocates (target: under 300 MB);
* its peak resident set (``ru_maxrss``, target under 300 MB), which also counts the
  pages of the file the memory map brought in (the command lets each block's go once
  it has read it);
* the peak of Python's own allocations (``tracemalloc``), from a second run of the
  same inspection in this process.

The file is deleted at the end. Not a test: no test depends on wall-clock time.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
from timing import machine_info

import sinpe
from sinpe.checkpoint.cli import inspect_file

#: Rows written per block (64 MiB of float32 at width 1024).
_BLOCK_ROWS = 16384


def write_table(path: Path, rows: int, width: int) -> None:
    """The paper's float32 table as one safetensors tensor, written block by block."""
    header = json.dumps(
        {
            "embed_positions.weight": {
                "dtype": "F32",
                "shape": [rows, width],
                "data_offsets": [0, rows * width * 4],
            }
        }
    ).encode()
    header += b" " * (-len(header) % 8)  # the format aligns the data to 8 bytes
    with path.open("wb") as handle:
        handle.write(len(header).to_bytes(8, "little") + header)
        for start in range(0, rows, _BLOCK_ROWS):
            count = min(_BLOCK_ROWS, rows - start)
            block = sinpe.table(count, width, start=float(start), dtype=np.float32)
            handle.write(block.astype("<f4", copy=False).tobytes())


def peak_anonymous(pid: int, peaks: list[int], stop: threading.Event) -> None:
    """Sample the RssAnon of ``pid`` (kB) until ``stop``, keeping the largest."""
    status = Path(f"/proc/{pid}/status")
    while not stop.is_set():
        try:
            for line in status.read_text().splitlines():
                if line.startswith("RssAnon:"):
                    peaks[0] = max(peaks[0], int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError):
            return
        time.sleep(0.02)


def run_command(path: Path) -> tuple[float, float, float, str]:
    """(wall s, peak RssAnon MB, ru_maxrss MB, stdout) of ``python -m sinpe inspect``."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "sinpe", "inspect", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    peaks, stop = [0], threading.Event()
    sampler = threading.Thread(target=peak_anonymous, args=(child.pid, peaks, stop))
    sampler.start()
    out, _ = child.communicate()
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    maxrss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if child.returncode != 0:
        raise SystemExit(f"sinpe inspect exited {child.returncode}:\n{out}")
    return wall, peaks[0] / 1024, maxrss, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**6)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--folder", default=None, help="where to write the file (a temp folder)")
    args = parser.parse_args()
    print(", ".join(f"{k}: {v}" for k, v in machine_info().items()))
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        path = Path(folder) / "large.safetensors"
        start = time.perf_counter()
        write_table(path, args.rows, args.width)
        size = path.stat().st_size / 2**30
        print(
            f"wrote {args.rows} x {args.width} float32 ({size:.2f} GiB) "
            f"in {time.perf_counter() - start:.1f} s (not timed)"
        )
        wall, anonymous, maxrss, out = run_command(path)
        print(out.rstrip())
        print(
            f"python -m sinpe inspect: {wall:.2f} s wall (target <= 10 s), "
            f"peak RssAnon {anonymous:.0f} MB (target < 300 MB), "
            f"ru_maxrss {maxrss:.0f} MB (target < 300 MB, the mapped file's pages included)"
        )
        tracemalloc.start()
        findings, status = inspect_file(str(path))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert status == 0, findings
        print(f"in-process inspect_file: tracemalloc peak {peak / 2**20:.0f} MB")


if __name__ == "__main__":
    main()
