"""Where the book's chapters are: the MyST notebooks and their executed twins."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"

#: The notebook that collects the chapters' verdicts (built after them).
LEDGER = "claims_ledger"


def chapters() -> list[Path]:
    """The MyST notebooks of the book: every ``book/*.md`` with a jupytext header.

    The claims ledger comes last: it reads the verdicts from the chapters' twins.
    """
    found = []
    for path in sorted(BOOK.glob("*.md"), key=lambda md: (md.stem == LEDGER, md.name)):
        head = path.read_text(encoding="utf-8")[:400]
        if head.startswith("---") and "format_name: myst" in head:
            found.append(path)
    return found


def twin_of(path: Path) -> Path:
    """The executed ``.ipynb`` beside a chapter's ``.md``."""
    return path.with_suffix(".ipynb")
