"""Run ``make`` stages in order and end with a table of their seconds (issue 29).

``make test`` calls it with its stages, each with its budget in seconds on a 2-core
machine (``STAGES`` in the Makefile; CONTRIBUTING.md explains them)::

    python -m scripts.stages lint:10 unit:90 ...

It stops at the first stage that fails, after printing the table so far. A stage over
its budget is marked in the table but does not fail the run: time is measured, never
asserted (a loaded machine must not turn a correct change red).

An entry may hold lanes that run side by side, ``A|B``, each lane a list of stages run
one after the other, ``A1,A2|B``: stages that keep one core busy (Sphinx, LaTeX, mypy)
go beside each other, so the second core is not idle. The first lane writes to the
terminal as it runs; the others' output is shown whole when each of their stages ends.
The next entry starts when every lane is done; a failure in one lane lets the others
finish the stage they are in, then the run stops. The table marks the stages that ran
beside others, and its total is the time on the clock.

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
import threading
import time
from dataclasses import dataclass
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


def plan(entries: list[str]) -> list[list[list[tuple[str, float, bool]]]]:
    """The entries as steps of lanes of stages: ``["a:1,b:2|c:3", "d:4"]`` ->
    ``[[[a, b], [c]], [[d]]]``, each stage as :func:`parse` gives it."""
    return [[parse(lane.split(",")) for lane in entry.split("|")] for entry in entries]


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


@dataclass
class Timed:
    """One stage's run: its seconds, budget, whether it was reused, whether it passed,
    and whether other stages ran beside it."""

    name: str
    seconds: float
    budget: float
    reused: bool = False
    passed: bool = True
    beside: bool = False


def table(times: list[Timed], wall: float | None = None) -> str:
    """The report: stage, seconds, budget, and a mark where a stage took longer, was
    reused or ran beside others. The total is ``wall``, the time on the clock, when
    given (stages side by side overlap), else the sum."""
    lines = [f"{'stage':<14}{'seconds':>9}{'budget':>8}"]
    for timed in times:
        notes = ["reused (same inputs)"] if timed.reused else []
        notes += ["over budget"] if not timed.reused and timed.seconds > timed.budget else []
        notes += ["beside others"] if timed.beside else []
        note = "".join(f"  {text}" for text in notes)
        lines.append(f"{timed.name:<14}{timed.seconds:>9.0f}{timed.budget:>8.0f}{note}")
    total = sum(timed.seconds for timed in times) if wall is None else wall
    budget = sum(timed.budget for timed in times)
    lines.append(f"{'total':<14}{total:>9.0f}{budget:>8.0f}")
    return "\n".join(lines)


def run_stage(name: str, budget: float, reuse: bool, *, echo: bool) -> Timed:
    """``make name``, unless it is reusable; its output goes to the terminal as it comes
    (``echo``), or is printed whole when it ends."""
    start = time.monotonic()
    key = inputs_key(name) if reuse else ""
    if reuse and reusable(name, key):
        print(f"{name}: passed on these exact inputs before; reused (FRESH=1 runs it)")
        return Timed(name, time.monotonic() - start, budget, reused=True)
    command = ["make", "--no-print-directory", name]
    if echo:
        code = subprocess.call(command)
    else:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        code = done.returncode
        print(f"--- {name} (ran beside others), its output:\n{done.stdout.decode(errors='replace')}"
              f"--- end of {name}", flush=True)  # fmt: skip
    if reuse and not code and key == inputs_key(name):
        KEYS.mkdir(parents=True, exist_ok=True)
        (KEYS / f"{name}.key").write_text(key)
    return Timed(name, time.monotonic() - start, budget, passed=not code)


def run_step(lanes: list[list[tuple[str, float, bool]]]) -> list[Timed]:
    """Run the lanes side by side, each lane's stages in turn; stop starting stages once
    one has failed. The stages' results in the order of the entry."""
    results: list[list[Timed]] = [[] for _ in lanes]
    failed = threading.Event()
    beside = len(lanes) > 1

    def lane(index: int) -> None:
        for name, budget, reuse in lanes[index]:
            if failed.is_set():
                return
            timed = run_stage(name, budget, reuse, echo=index == 0)
            timed.beside = beside
            results[index].append(timed)
            if not timed.passed:
                failed.set()

    threads = [threading.Thread(target=lane, args=(i,)) for i in range(1, len(lanes))]
    for thread in threads:
        thread.start()
    lane(0)
    for thread in threads:
        thread.join()
    return [timed for found in results for timed in found]


def main(argv: list[str]) -> int:
    started = time.monotonic()
    times: list[Timed] = []
    for lanes in plan(argv):
        times += run_step(lanes)
        failed = [timed.name for timed in times if not timed.passed]
        if failed:
            print(table(times, time.monotonic() - started), flush=True)
            print(f"stage {' and '.join(failed)} failed", file=sys.stderr)
            return 1
    print(table(times, time.monotonic() - started), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
