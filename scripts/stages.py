"""Run ``make`` stages in order and end with a table of their seconds (issue 29).

``make test`` calls it with its stages, each with its budget in seconds on a 2-core
machine (``STAGES`` in the Makefile; CONTRIBUTING.md explains them)::

    python -m scripts.stages lint:10 unit:90 ...

It stops at the first stage that fails, after printing the table so far. A stage over
its budget is marked in the table but does not fail the run: time is measured, never
asserted (a loaded machine must not turn a correct change red).

A stage written ``STAGE:SECONDS:reuse`` is one whose result is a function of the files
alone (executing the notebooks, typesetting the PDF). When it passed on exactly the same
inputs — every file git tracks or would track, byte for byte, the packages installed in
the venv, the Python and the machine's architecture — and its outputs are still there,
it is not run again; the table says "reused". Any change to any file runs it again, and
``FRESH=1 make test`` runs every stage whatever it finds.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEYS = ROOT / "_build" / "stages"
# What a reused stage must have left behind for the stages after it.
OUTPUTS = {"pdf": ["_build/pdf/sinpe-book.pdf"]}


def parse(entries: list[str]) -> list[tuple[str, float, bool]]:
    """``["lint:10", "pdf:60:reuse"]`` -> ``[("lint", 10.0, False), ("pdf", 60.0, True)]``."""
    stages = []
    for entry in entries:
        name, _, rest = entry.partition(":")
        budget, _, flag = rest.partition(":")
        if not name or not budget or flag not in ("", "reuse"):
            raise SystemExit(f"stages.py: {entry!r} is not STAGE:SECONDS[:reuse]")
        stages.append((name, float(budget), flag == "reuse"))
    return stages


def inputs_key(stage: str, root: Path = ROOT) -> str:
    """A digest of everything a stage's result can depend on."""
    digest = hashlib.sha256(f"{stage}\0{sys.version}\0{platform.machine()}\0".encode())
    installed = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions())
    digest.update("\n".join(installed).encode())
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, capture_output=True, check=True,
    ).stdout  # fmt: skip
    for name in sorted(set(listed.split(b"\0")) - {b""}):
        path = root / os.fsdecode(name)
        digest.update(name + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest() if path.is_file() else b"-")
    return digest.hexdigest()


def reusable(stage: str, key: str, root: Path = ROOT) -> bool:
    """Whether ``stage`` passed on these very inputs and left its outputs in place."""
    stamp = root / "_build" / "stages" / f"{stage}.key"
    outputs = [root / output for output in OUTPUTS.get(stage, [])]
    return (
        os.environ.get("FRESH", "") in ("", "0")
        and stamp.is_file()
        and stamp.read_text() == key
        and all(output.is_file() for output in outputs)
    )


def table(times: list[tuple[str, float, float, bool]]) -> str:
    """The report: stage, seconds, budget, and a mark where a stage took longer or was reused."""
    lines = [f"{'stage':<14}{'seconds':>9}{'budget':>8}"]
    for name, seconds, budget, reused in times:
        note = "  reused (same inputs)" if reused else "  over budget" if seconds > budget else ""
        lines.append(f"{name:<14}{seconds:>9.0f}{budget:>8.0f}{note}")
    total = sum(seconds for _, seconds, *_ in times)
    lines.append(f"{'total':<14}{total:>9.0f}{sum(t[2] for t in times):>8.0f}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    times = []
    for name, budget, reuse in parse(argv):
        start = time.monotonic()
        key = inputs_key(name) if reuse else ""
        if reuse and reusable(name, key):
            print(f"{name}: passed on these exact inputs before; reused (FRESH=1 runs it)")
            times.append((name, time.monotonic() - start, budget, True))
            continue
        code = subprocess.call(["make", "--no-print-directory", name])
        if reuse and not code and key == inputs_key(name):
            KEYS.mkdir(parents=True, exist_ok=True)
            (KEYS / f"{name}.key").write_text(key)
        times.append((name, time.monotonic() - start, budget, False))
        if code:
            print(table(times), flush=True)
            print(f"stage {name} failed", file=sys.stderr)
            return code
    print(table(times), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
