"""Regenerate and check the executed ``.ipynb`` twins of the MyST chapters.

Usage::

    python -m scripts.notebooks build [CHAPTER.md ...]   # (re)write executed twins
    python -m scripts.notebooks check                    # md vs twin, all executed
    python -m scripts.notebooks validate [PATH ...]      # nbval: outputs reproduce
    python -m scripts.notebooks validate --elsewhere     # ... on "another machine"
    python -m scripts.notebooks validate --reader        # ... as a reader runs them
    python -m scripts.notebooks validate --changed       # only what a change affects

``build`` reads each MyST notebook with jupytext, gives its cells stable ids,
executes it with nbclient (no timing metadata) and writes the twin beside it,
so regenerating an unchanged chapter gives a byte-identical file. ``check``
fails when a twin is missing, its cells differ from the ``.md`` in type,
source or metadata tags, or a code cell was never executed. ``validate`` runs
nbval on the twins with the same deterministic environment, plus the figure
check of ``scripts/nbval_figures.py`` (every PNG a cell draws against the
committed one, which nbval itself skips); with ``--elsewhere`` it is the
portability check: NumPy limited to its baseline SIMD level, another libm and
perturbed random floats (``tests/portability/startup.py``), and the committed
outputs, figures included, must still match. With ``--reader`` it is the reader's
path (issue 27): the notebook download (``scripts/notebook_zips.py``) unpacked into an
empty folder, a new virtual environment with only what its README installs, and nbval
on the reader's editions with that environment's kernel and none of the variables
above (no thread limits, no hash seed), as in a reader's Jupyter.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import jupytext
import nbformat

from scripts import changed_chapters, notebook_times, notebook_zips
from scripts.book import BOOK, ROOT, chapters, twin_of

#: Environment that makes execution deterministic; set for generation and for nbval.
DETERMINISTIC_ENV = {
    "PYTHONHASHSEED": "0",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "SOURCE_DATE_EPOCH": "0",
    "IPYKERNEL_CELL_NAME": "<IPY-INPUT>",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}

#: IPython startup file that makes a kernel compute as another machine would.
ELSEWHERE_STARTUP = ROOT / "tests" / "portability" / "startup.py"

#: The nbval command (paths are appended). ``scripts/nbval_figures.py`` adds the figure
#: comparison that nbval lacks (it skips PNG outputs), ``scripts/notebook_times.py`` a
#: table of seconds per notebook (and its JSON, :func:`seconds_option`).
NBVAL = [
    "-m",
    "pytest",
    "-p",
    "no:cacheprovider",
    "-p",
    "scripts.nbval_figures",
    "-p",
    "scripts.notebook_times",
    "--nbval",
    "--nbval-sanitize-with",
    str(ROOT / "tests" / "nbval_sanitize.cfg"),
]

#: Where the reader's path runs: the unpacked download, its venv and its kernel.
READER_RUN = ROOT / "_build" / "reader-path"
#: The kernel of the reader's venv, as nbval knows it.
READER_KERNEL = "sinpe-reader"

#: Where the figure check saves failing figures (one folder per run: they run side by side).
FIGURE_DIFFS = ROOT / "_build" / "figure-diffs"

#: Cell timeout in seconds (each chapter should run well within it).
TIMEOUT = 600


def _tags(cell) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def build(path: Path) -> Path:
    """Execute one chapter and write its twin deterministically."""
    from nbclient import NotebookClient

    os.environ.update(DETERMINISTIC_ENV)
    notebook = jupytext.read(path)
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number:03d}"
        cell.get("metadata", {}).pop("execution", None)
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    errors = unexpected_errors(notebook)
    if errors:
        raise RuntimeError(f"{path.name} ran with errors:\n" + "\n".join(errors))
    for cell in notebook.cells:
        cell.get("metadata", {}).pop("execution", None)
        if "outputs" in cell:
            cell["outputs"] = coalesce_streams(cell["outputs"])
    notebook.metadata.pop("widgets", None)
    target = twin_of(path)
    nbformat.write(notebook, target)
    return target


def coalesce_streams(outputs: list) -> list:
    """Merge consecutive stream outputs of the same stream into one.

    How the kernel chunks a cell's printed text depends on timing, so the same
    cell can give one stream output or several; merged, the twin is byte-stable.
    """
    merged: list = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] = previous["text"] + output["text"]
        else:
            merged.append(output)
    return merged


def unexpected_errors(notebook) -> list[str]:
    """Error outputs and stderr in cells that are not tagged ``raises-exception``.

    Some failures (a figure that cannot be drawn, a warning) do not stop
    execution; they would show up in the book as a traceback or a stderr block.
    """
    found = []
    for number, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or "raises-exception" in _tags(cell):
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append(f"cell {number}: {output.get('ename')}: {output.get('evalue')}")
            elif output.get("output_type") == "stream" and output.get("name") == "stderr":
                found.append(f"cell {number}: stderr: {output.get('text', '')[:200]}")
    return found


def differences(path: Path) -> list[str]:
    """Why the twin of ``path`` is out of date (empty when it is in sync)."""
    target = twin_of(path)
    if not target.exists():
        return [f"{target.name} is missing: run `make twins`"]
    source = jupytext.read(path)
    twin = nbformat.read(target, as_version=4)
    problems = []
    if len(source.cells) != len(twin.cells):
        problems.append(f"{len(source.cells)} cells in the .md, {len(twin.cells)} in the twin")
    for number, (mine, theirs) in enumerate(zip(source.cells, twin.cells, strict=False)):
        where = f"cell {number}"
        if mine.cell_type != theirs.cell_type:
            problems.append(f"{where}: {mine.cell_type} in the .md, {theirs.cell_type} in twin")
        elif mine.source != theirs.source:
            problems.append(f"{where}: source differs")
        elif _tags(mine) != _tags(theirs):
            problems.append(f"{where}: tags {_tags(mine)} vs {_tags(theirs)}")
        elif theirs.cell_type == "code" and theirs.get("execution_count") is None:
            problems.append(f"{where}: code cell was not executed in the twin")
    problems += unexpected_errors(twin)
    return [f"{path.name}: {problem}" for problem in problems]


def dispatch_above_baseline() -> list[str]:
    """NumPy's SIMD dispatch groups above the baseline that this CPU has (e.g. X86_V3)."""
    try:
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as umath
    return [group for group in umath.__cpu_dispatch__ if umath.__cpu_features__.get(group)]


def elsewhere_env(ipython_dir: Path) -> dict[str, str]:
    """Environment of the portability run; installs the startup file in ``ipython_dir``."""
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True, exist_ok=True)
    shutil.copy(ELSEWHERE_STARTUP, startup / "00-sinpe-elsewhere.py")
    groups = dispatch_above_baseline()
    env = {**os.environ, **DETERMINISTIC_ENV, "IPYTHONDIR": str(ipython_dir)}
    env["NPY_DISABLE_CPU_FEATURES"] = " ".join(groups)
    return env


def reader_env(run: Path = READER_RUN) -> tuple[dict[str, str], Path]:
    """Unpack the notebook download into an empty folder and install what its README
    says into a new venv; return nbval's environment (a reader's: none of
    :data:`DETERMINISTIC_ENV`) and the folder of the notebooks."""
    shutil.rmtree(run, ignore_errors=True)
    executed, _fresh = notebook_zips.write_zips(run / "downloads")
    with zipfile.ZipFile(executed) as archive:
        archive.extractall(run)
    folder = run / notebook_zips.FOLDER
    readme = (folder / "README.md").read_text(encoding="utf-8")
    install = notebook_zips.INSTALL.removesuffix(f" {notebook_zips.FRONT_END}").split()
    assert notebook_zips.INSTALL in readme, "the README gives the install command"
    venv = run / "venv"
    python = venv / "bin" / "python"
    subprocess.run([sys._base_executable, "-m", "venv", str(venv)], check=True)
    print(f"reader's path: {' '.join(install)} in {folder}", flush=True)
    subprocess.run([str(python), *install[1:], "--quiet"], cwd=folder, check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "ipykernel",
            "install",
            "--prefix",
            str(run / "jupyter"),
            "--name",
            READER_KERNEL,
        ],
        check=True,
        # "Installing to ..., which is not in [...]": nbval finds it through JUPYTER_PATH.
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    probe = json.loads(
        subprocess.run(
            [str(python), str(ROOT / "scripts" / "wheel_probe.py")],
            check=True, capture_output=True, text=True,
        ).stdout
    )  # fmt: skip
    broken = {name: outcome for name, outcome in probe["modules"].items() if outcome != "ok"}
    if broken or probe["reference"] != "ok":
        raise SystemExit(f"the download's install lacks modules or extras: {broken or probe}")
    print(f"reader's path: all {len(probe['modules'])} modules import, extras included")
    env = {key: value for key, value in os.environ.items() if key not in DETERMINISTIC_ENV}
    env["JUPYTER_PATH"] = str(run / "jupyter" / "share" / "jupyter")
    return env, folder


def seconds_option(run: str) -> list[str]:
    """Where nbval's run ``run`` writes its seconds per notebook (scripts/notebook_times.py)."""
    return ["--notebook-seconds", str(notebook_times.RUNS / f"{run}.json")]


def validate(paths: list[Path], *, elsewhere: bool, reader: bool = False) -> int:
    """Run nbval on the twins; with ``elsewhere``, as on another machine; with
    ``reader``, on the reader's editions as a reader runs them."""
    targets = [str(path) for path in paths] or [str(BOOK)]
    if reader:
        env, folder = reader_env()
        targets = [str(folder / Path(path).name) for path in paths] or [str(folder)]
        diffs = ["--figure-diff-dir", str(FIGURE_DIFFS / "reader"), *seconds_option("reader")]
        kernel = ["--nbval-kernel-name", READER_KERNEL]
        return subprocess.call(
            [sys.executable, *NBVAL, *kernel, *diffs, *targets], env=env, cwd=ROOT
        )
    with tempfile.TemporaryDirectory(prefix="sinpe-elsewhere-") as scratch:
        if elsewhere:
            env = elsewhere_env(Path(scratch))
            print(
                "portability run: NumPy SIMD dispatch at the baseline (disabled: "
                f"{env['NPY_DISABLE_CPU_FEATURES'] or 'nothing above it here'}), another "
                "libm (+-1 ULP) and random floats perturbed by 1e-12",
                flush=True,
            )
        else:
            env = {**os.environ, **DETERMINISTIC_ENV}
        run = "elsewhere" if elsewhere else "native"
        diffs = ["--figure-diff-dir", str(FIGURE_DIFFS / run), *seconds_option(run)]
        command = [sys.executable, *NBVAL, "--nbval-current-env", *diffs, *targets]
        return subprocess.call(command, env=env, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build_parser = sub.add_parser("build", help="execute chapters and write their twins")
    build_parser.add_argument("paths", nargs="*", type=Path)
    sub.add_parser("check", help="fail if any twin is out of sync or unexecuted")
    validate_parser = sub.add_parser("validate", help="nbval: the stored outputs reproduce")
    validate_parser.add_argument("paths", nargs="*", type=Path)
    mode = validate_parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--elsewhere", action="store_true", help="the portability check (see the docstring)"
    )
    mode.add_argument("--reader", action="store_true", help="the reader's path (see the docstring)")
    mode.add_argument(
        "--changed",
        action="store_true",
        help="only the chapters a change can affect (scripts/changed_chapters.py)",
    )
    args = parser.parse_args(argv)
    if args.command == "validate" and args.changed:
        changed = changed_chapters.changed_files()
        paths = [twin_of(chapter) for chapter in changed_chapters.affected(changed, chapters())]
        if not paths:
            print("no chapter is affected by the change: nothing to validate")
            return 0
        print("validating the chapters the change affects:", *(p.name for p in paths))
        return validate(paths, elsewhere=False)
    if args.command == "validate":
        return validate(args.paths, elsewhere=args.elsewhere, reader=args.reader)
    if args.command == "build":
        for path in args.paths or chapters():
            print(f"executing {path} ...", flush=True)
            print(f"wrote {build(path.resolve())}", flush=True)
        return 0
    problems = [problem for path in chapters() for problem in differences(path)]
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(chapters())} chapters checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
