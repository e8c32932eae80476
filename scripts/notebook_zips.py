"""The book's notebooks as two zip files for its readers (issue 19).

* ``sinpe-notebooks.zip``: every notebook of the book (``book/*.ipynb``) as executed,
  with the outputs the book shows;
* ``sinpe-notebooks-fresh.zip``: the same notebooks with their outputs and execution
  counts cleared, for readers who want to run them from scratch.

Each zip holds one folder, ``sinpe-notebooks/``, so that unzipping does not scatter
files. The zips are deterministic: entries in name order, each with a fixed timestamp
and permissions, so the same notebooks always give the same bytes.

The book's Sphinx extension (``book/_ext/book_assets.py``) writes them into
``_build/html/_downloads/`` at every HTML build, so the intro page's links to them
always resolve. By hand::

    python scripts/notebook_zips.py [TARGET_DIR]    # default: _build/html/_downloads
"""

from __future__ import annotations

import argparse
import zipfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

EXECUTED = "sinpe-notebooks.zip"
FRESH = "sinpe-notebooks-fresh.zip"
#: The folder inside both zips.
FOLDER = "sinpe-notebooks"
#: Timestamp of every entry: the earliest a zip file can record (no build time leaks in).
TIMESTAMP = (1980, 1, 1, 0, 0, 0)


def notebooks(book: Path = BOOK) -> list[Path]:
    """The book's executed notebooks, in name order."""
    return sorted(book.glob("*.ipynb"))


def fresh(text: str) -> str:
    """A notebook's JSON with every code cell's outputs and execution count cleared."""
    notebook = nbformat.reads(text, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    return nbformat.writes(notebook) + "\n"


def _write_zip(target: Path, files: dict[str, str]) -> None:
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            entry = zipfile.ZipInfo(f"{FOLDER}/{name}", date_time=TIMESTAMP)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16  # rw-r--r--, whoever builds it
            archive.writestr(entry, files[name].encode("utf-8"))


def write_zips(target_dir: Path, book: Path = BOOK) -> list[Path]:
    """Write both zips into ``target_dir``; return their paths (executed, fresh)."""
    sources = {path.name: path.read_text(encoding="utf-8") for path in notebooks(book)}
    if not sources:
        raise FileNotFoundError(f"no notebooks in {book}: run `make twins`")
    target_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, files in (
        (EXECUTED, sources),
        (FRESH, {notebook: fresh(text) for notebook, text in sources.items()}),
    ):
        # Write next to the target, then rename: a reader never gets half a zip.
        partial = target_dir / f".{name}.partial"
        _write_zip(partial, files)
        partial.replace(target_dir / name)
        written.append(target_dir / name)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "target", nargs="?", type=Path, default=ROOT / "_build" / "html" / "_downloads"
    )
    for path in write_zips(parser.parse_args(argv).target):
        print(f"{path} ({path.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
