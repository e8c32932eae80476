"""Sphinx extension: the table of how long each chapter runs, ``{chapter-seconds}``.

The rows are the book's chapters as they are now (``scripts/book.py``: every MyST
notebook, numbered as ``_toc.yml`` numbers it), the seconds those of the committed
measurement ``book/_data/chapter_seconds.json``, which only
``python -m scripts.notebook_times record`` writes, from a ``make test`` run. Nothing is
typed: a new chapter has its row at once ("not measured yet") and its seconds from the
next recorded run; a removed chapter's seconds are not shown.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective

#: The committed measurement, relative to the repository.
RECORD = "book/_data/chapter_seconds.json"
#: What a chapter without a recorded measurement shows.
NOT_MEASURED = "not measured yet"


def rows(
    chapters: list[tuple[str, int | None, str]], seconds: dict[str, float]
) -> list[tuple[str, str, str]]:
    """``(docname, label, seconds)`` for each ``(docname, number, title)`` of the book.

    The label is ``"3 Seeing the encoding"`` (a page without a number: its title), the
    seconds one decimal or :data:`NOT_MEASURED`; ``seconds`` is keyed by file stem.
    """
    found = []
    for docname, number, title in chapters:
        label = title if number is None else f"{number} {title}"
        measured = seconds.get(docname.rpartition("/")[2])
        found.append((docname, label, NOT_MEASURED if measured is None else f"{measured:.1f}"))
    return found


def book_chapters(root: Path) -> list[tuple[str, int | None, str]]:
    """``(docname, number, title)`` of every chapter, from the repository's scripts."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    book = importlib.import_module("scripts.book")
    numbers = book.numbers(root)
    found = []
    for path in book.chapters(root):
        docname = path.relative_to(root).with_suffix("").as_posix()
        found.append((docname, numbers.get(docname), book.title(path)))
    return found


def inline(text: str) -> list[nodes.Node]:
    """``text`` with its backticked spans as code."""
    parts = text.split("`")
    return [nodes.literal(part, part) if odd else nodes.Text(part)
            for odd, part in ((n % 2, part) for n, part in enumerate(parts)) if part]  # fmt: skip


def _cell(*children: nodes.Node) -> nodes.entry:
    return nodes.entry("", nodes.paragraph("", "", *children))


def table(found: list[tuple[str, str, str]], docname: str) -> nodes.table:
    """A two-column table, each chapter a link to its page."""
    group = nodes.tgroup(cols=2)
    group += [nodes.colspec(colwidth=80), nodes.colspec(colwidth=20)]
    head = nodes.row("", _cell(nodes.Text("chapter")), _cell(nodes.Text("seconds")))
    body = nodes.tbody()
    for target, label, seconds in found:
        link = addnodes.pending_xref(
            "", nodes.inline("", label), refdomain="std", reftype="doc",
            reftarget=f"/{target}", refexplicit=True, refdoc=docname,
        )  # fmt: skip
        body += nodes.row("", _cell(link), _cell(nodes.Text(seconds)))
    group += [nodes.thead("", head), body]
    return nodes.table("", group, classes=["chapter-seconds"])


class ChapterSeconds(SphinxDirective):
    """``{chapter-seconds}``: when and how it was measured, then the table."""

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.app.confdir)
        self.env.note_dependency(str(root / RECORD))
        record = json.loads((root / RECORD).read_text(encoding="utf-8"))
        found = rows(book_chapters(root), record["seconds"])
        text = f"Measured on {record['date']} by {record['how']}, on {record['machine']}:"
        return [nodes.paragraph("", "", *inline(text)), table(found, self.env.docname)]


def setup(app):
    app.add_directive("chapter-seconds", ChapterSeconds)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
