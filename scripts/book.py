"""Where the book's chapters are: the MyST notebooks, their executed twins, their numbers.

Every list of chapters is found here, never typed: the twins a workflow runs, the
chapters an API entry links to, the rows of a table of seconds. By hand::

    python -m scripts.book twins      # the executed twins, one per line (CI's nbval runs)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

#: The notebook that collects the chapters' verdicts (built after them).
LEDGER = "claims_ledger"


def chapters(root: Path = ROOT) -> list[Path]:
    """The MyST notebooks of the book: every ``book/*.md`` with a jupytext header.

    The claims ledger comes last: it reads the verdicts from the chapters' twins.
    """
    found = []
    for path in sorted((root / "book").glob("*.md"), key=lambda md: (md.stem == LEDGER, md.name)):
        head = path.read_text(encoding="utf-8")[:400]
        if head.startswith("---") and "format_name: myst" in head:
            found.append(path)
    return found


def twin_of(path: Path) -> Path:
    """The executed ``.ipynb`` beside a chapter's ``.md``."""
    return path.with_suffix(".ipynb")


def numbers(root: Path = ROOT) -> dict[str, int]:
    """``{docname: number}`` of the numbered chapters, as the book numbers them.

    From ``_toc.yml``: the files of each part with ``numbered: true``, counted from 1
    in their order there (Jupyter Book 1 restarts the count with each numbered part).
    """
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    found = {}
    for part in toc.get("parts", []):
        if part.get("numbered"):
            for number, entry in enumerate(part.get("chapters", []), start=1):
                found[entry["file"]] = number
    return found


def title(path: Path) -> str:
    """The first ``# `` heading of a chapter's ``.md``."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    raise ValueError(f"{path} has no '# ' title")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["twins"]:
        print(__doc__, file=sys.stderr)
        return 2
    for path in chapters():
        print(twin_of(path).relative_to(ROOT).as_posix())
    return 0


if __name__ == "__main__":
    sys.exit(main())
