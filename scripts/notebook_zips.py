"""The book's notebooks as two self-contained zips for its readers (issues 19 and 27).

* ``sinpe-notebooks.zip``: the reader's edition of every notebook (``notebooks/*.ipynb``,
  see ``scripts/reader_edition.py``) as executed, with the outputs the book shows;
* ``sinpe-notebooks-fresh.zip``: the same notebooks with their outputs cleared.

Each zip holds one folder, ``sinpe-notebooks/``, with everything a reader needs to run
the notebooks on any machine with Python: the notebooks, the ``sinpe`` wheel, a
``requirements.txt`` (the wheel, and the lock's version of every package the notebooks
and Jupyter need) and a ``README.md`` with the commands that start Jupyter on them. The
site also serves the wheel beside the zips.

Both are deterministic: entries in name order, each with a fixed timestamp and
permissions, and a wheel built with ``SOURCE_DATE_EPOCH``, so the same sources always
give the same bytes. The book's Sphinx extension (``book/_ext/book_assets.py``) writes
them into ``_build/html/_downloads/`` at every HTML build. By hand::

    python -m scripts.notebook_zips [TARGET_DIR]    # default: _build/html/_downloads
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import nbformat
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from scripts import lockfile

ROOT = Path(__file__).resolve().parent.parent
#: The reader's editions (scripts/reader_edition.py writes them).
READER = ROOT / "notebooks"
LOCK = ROOT / "requirements.lock"
#: Binder's environment (the launch buttons open the reader's editions there).
BINDER = ROOT / "binder" / "requirements.txt"

EXECUTED = "sinpe-notebooks.zip"
FRESH = "sinpe-notebooks-fresh.zip"
#: The folder inside both zips.
FOLDER = "sinpe-notebooks"
#: Timestamp of every entry: the earliest a zip file can record (no build time leaks in).
TIMESTAMP = (1980, 1, 1, 0, 0, 0)
#: The same moment for the wheel's entries (seconds since 1970).
EPOCH = "315532800"
#: The extras of sinpe the notebooks use (figures, proofs, the mpmath reference).
EXTRAS = ("plot", "symbolic", "reference")
#: What runs the notebooks besides sinpe: a Jupyter kernel (requirements.txt pins it).
KERNEL = "ipykernel"
#: The front end the README installs beside requirements.txt.
FRONT_END = "jupyterlab"
#: The commands of the README: install, then start Jupyter.
INSTALL = f"python -m pip install -r requirements.txt {FRONT_END}"
START = "python -m jupyter lab"


def version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def wheel_name() -> str:
    return f"sinpe-{version()}-py3-none-any.whl"


def notebooks(reader: Path = READER) -> list[Path]:
    """The reader's editions, in name order."""
    return sorted(reader.glob("*.ipynb"))


def fresh(text: str) -> str:
    """A notebook's JSON with every code cell's outputs and execution count cleared."""
    notebook = nbformat.reads(text, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nbformat.writes(notebook) + "\n"


#: The files besides sinpe/ that the wheel is built from (pyproject.toml names them).
WHEEL_SOURCES = ("pyproject.toml", "README.md", "LICENSE")


def build_wheel(target_dir: Path, *, sdist: bool = False) -> Path:
    """Build sinpe's wheel (and with ``sdist`` its source archive) into ``target_dir``;
    the same sources give the same wheel bytes. Returns the wheel."""
    with tempfile.TemporaryDirectory(prefix="sinpe-wheel-") as scratch:
        # From a copy of what the wheel is made of: setuptools' build/ folder in the work
        # tree may hold modules that no longer exist.
        source = Path(scratch) / "source"
        shutil.copytree(
            ROOT / "sinpe", source / "sinpe", ignore=shutil.ignore_patterns("__pycache__")
        )
        for name in WHEEL_SOURCES:
            shutil.copy2(ROOT / name, source / name)
        kinds = ["--wheel", "--sdist"] if sdist else ["--wheel"]
        subprocess.run(
            [sys.executable, "-m", "build", *kinds, "--no-isolation", "--outdir",
             str(target_dir), str(source)],
            check=True,
            capture_output=True,
            env={**os.environ, "SOURCE_DATE_EPOCH": EPOCH},
        )  # fmt: skip
    return target_dir / wheel_name()


def needed(roots: list[str]) -> set[str]:
    """Every installed distribution that ``roots`` need, recursively (extras followed)."""
    found: set[str] = set()
    todo = [Requirement(root) for root in roots]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        key = f"{name}[{','.join(sorted(requirement.extras))}]"
        if key in found:
            continue
        found.add(key)
        for text in _requires(name):
            child = Requirement(text)
            extras = requirement.extras or {""}
            if child.marker is None or any(child.marker.evaluate({"extra": e}) for e in extras):
                todo.append(child)
    return {key.partition("[")[0] for key in found}


def _requires(name: str) -> list[str]:
    """What a distribution requires: sinpe's from pyproject.toml (its source, not a
    possibly stale install), the others' from their installed metadata."""
    if name == "sinpe":
        project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
        extras = project.get("optional-dependencies", {})
        return project["dependencies"] + [
            f"{text}; extra == '{extra}'" for extra, texts in extras.items() for text in texts
        ]
    return metadata.requires(name) or []


def requirements(*, wheel: bool = True) -> str:
    """The reader's requirements.txt: the wheel, and the lock's version of all it needs.

    Without ``wheel``, Binder's (``binder/requirements.txt``): its ``postBuild``
    installs sinpe from the repository itself.
    """
    roots = [f"sinpe[{','.join(EXTRAS)}]", KERNEL]
    pins = lockfile.pins(LOCK)
    names = sorted(needed(roots) - {"sinpe"})
    missing = [name for name in names if name not in pins]
    if missing:
        raise ValueError(f"not in requirements.lock: {', '.join(missing)}")
    head = (
        [
            "# sinpe from the wheel beside this file, and the versions the book was built",
            "# and tested with (its requirements.lock) of everything the notebooks and",
            "# their Jupyter kernel need.",
            f"./{wheel_name()}[{','.join(EXTRAS)}]",
        ]
        if wheel
        else [
            "# Binder: the versions the book was built and tested with (requirements.lock) of",
            "# everything the notebooks and their Jupyter kernel need; postBuild installs sinpe.",
            "# Generated by scripts/notebook_zips.py --binder (tests/test_reader_edition.py).",
            FRONT_END + "==" + pins[FRONT_END],
        ]
    )
    lines = [*head, *(f"{name}=={pins[name]}" for name in names)]
    return "\n".join(lines) + "\n"


def readme(url: str) -> str:
    return f"""# sinpe: the notebooks

The chapters of *sinpe: the sinusoidal positional encoding, executed*
(<{url}>) as notebooks for Jupyter, JupyterLab, VS Code or Colab.

With Python 3.11 or newer, in this folder (a virtual environment keeps it apart:
`python -m venv .venv`, then `source .venv/bin/activate`, or `.venv\\Scripts\\activate`
on Windows):

```
{INSTALL}
{START}
```

`requirements.txt` installs `sinpe` from the wheel in this folder
(`{wheel_name()}`) with the versions of NumPy, Matplotlib, SymPy and the Jupyter
kernel the book was built and tested with; the first command adds JupyterLab.
Start with `ch01_definition.ipynb`. `claims_ledger.ipynb` collects the verdicts of
the chapters in this folder: in the fresh download, run the chapters first.

A notebook opened alone (in Colab, say) installs `sinpe` in its first cell.
"""


def _write_zip(target: Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            entry = zipfile.ZipInfo(f"{FOLDER}/{name}", date_time=TIMESTAMP)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16  # rw-r--r--, whoever builds it
            archive.writestr(entry, files[name])


def write_zips(target_dir: Path, reader: Path = READER, *, url: str = "") -> list[Path]:
    """Write the wheel and both zips into ``target_dir``; return the zips (executed, fresh)."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in notebooks(reader)}
    if not sources:
        raise FileNotFoundError(f"no notebooks in {reader}: run `make twins`")
    target_dir.mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(target_dir)
    common = {
        wheel.name: wheel.read_bytes(),
        "requirements.txt": requirements().encode(),
        "README.md": readme(url or book_url()).encode(),
    }
    written = []
    for name, texts in (
        (EXECUTED, sources),
        (FRESH, {notebook: fresh(text) for notebook, text in sources.items()}),
    ):
        files = {**common, **{notebook: text.encode() for notebook, text in texts.items()}}
        # Write next to the target, then rename: a reader never gets half a zip.
        partial = target_dir / f".{name}.partial"
        _write_zip(partial, files)
        partial.replace(target_dir / name)
        written.append(target_dir / name)
    return written


def book_url() -> str:
    """The web book's address (``_config.yml``: ``html.baseurl``), ending in ``/``."""
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return config["html"]["baseurl"].rstrip("/") + "/"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "target", nargs="?", type=Path, default=ROOT / "_build" / "html" / "_downloads"
    )
    parser.add_argument("--binder", action="store_true", help=f"write only {BINDER}")
    args = parser.parse_args(argv)
    if args.binder:
        BINDER.write_text(requirements(wheel=False))
        print(f"wrote {BINDER.relative_to(ROOT)}")
        return
    target = args.target
    for path in [*write_zips(target), target / wheel_name()]:
        print(f"{path} ({path.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
