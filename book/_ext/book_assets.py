"""Sphinx extension for the sinpe book: offline MathJax and ``.md`` downloads.

* MathJax 3 is served from the book's own ``_static/mathjax`` (copied from the
  ``django-static-mathjax`` wheel pinned in requirements.lock), so formulas typeset
  without network -- for readers offline and for the browser test in CI.
* ``static/book.css``: wide display formulas scroll instead of being cut off.
* References are labelled "Author et al., year", the way the chapters cite them
  (``bibtex_reference_style: author_year``), instead of pybtex's "[VSP+17]".
* Chapters are built from their executed ``.ipynb`` twins; the MyST ``.md`` each
  twin was generated from is copied next to the ``.ipynb`` under ``_sources`` and
  offered in the page's download menu.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle

#: Parts of MathJax's es5 distribution that tex-chtml.js loads on demand.
MATHJAX_PARTS = ("tex-chtml.js", "input", "output", "ui", "a11y", "sre", "adaptors")


def mathjax_root() -> Path:
    """Directory of MathJax's es5 build inside the installed django-static-mathjax."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "MathJax is not installed: `pip install -r requirements.lock` "
            "(it ships in django-static-mathjax)"
        )
    root = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
    if not (root / "tex-chtml.js").exists():
        raise RuntimeError(f"no tex-chtml.js under {root}")
    return root


def copy_mathjax(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    source = mathjax_root()
    for part in MATHJAX_PARTS:
        origin = source / part
        if origin.is_dir():
            shutil.copytree(origin, target / part, dirs_exist_ok=True)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target / part)


def _myst_source(app, pagename: str) -> Path | None:
    source = Path(app.srcdir) / f"{pagename}.md"
    twin = Path(app.srcdir) / f"{pagename}.ipynb"
    return source if source.exists() and twin.exists() else None


def add_markdown_download(app, pagename, templatename, context, doctree) -> None:
    """Offer the MyST ``.md`` beside the ``.ipynb`` in the download menu."""
    if _myst_source(app, pagename) is None:
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].insert(
                1,
                {
                    "type": "link",
                    "url": f"{context['pathto']('_sources', 1)}/{pagename}.md",
                    "text": ".md",
                    "icon": "fas fa-code",
                    "tooltip": "Download the MyST Markdown notebook",
                    "label": "download-myst-button",
                },
            )


def copy_markdown_sources(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for docname in app.env.found_docs:
        source = _myst_source(app, docname)
        if source is not None:
            target = Path(app.outdir) / "_sources" / f"{docname}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


STATIC = Path(__file__).resolve().parent / "static"


class AuthorYearLabels(BaseLabelStyle):
    """Labels such as "Vaswani et al., 2017", as the chapters' author-year citations."""

    def format_labels(self, sorted_entries):
        seen: dict[str, int] = {}
        for entry in sorted_entries:
            people = entry.persons.get("author", [])
            # "{Sun Microsystems}": braces keep a corporate author whole; not shown
            last = [" ".join(person.last_names).strip("{}") for person in people]
            if len(last) > 2:
                names = f"{last[0]} et al."
            elif len(last) == 2:
                names = f"{last[0]} and {last[1]}"
            else:
                names = last[0] if last else entry.key
            label = f"{names}, {entry.fields.get('year', 'n.d.')}"
            seen[label] = seen.get(label, 0) + 1
            yield label if seen[label] == 1 else f"{label}{'abcdefgh'[seen[label] - 1]}"


class AuthorYearStyle(UnsrtStyle):
    """pybtex's ``unsrt`` entries, sorted by author and year, with :class:`AuthorYearLabels`."""

    default_label_style = "sinpe-author-year"
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.labels", "sinpe-author-year", AuthorYearLabels)
register_plugin("pybtex.style.formatting", "sinpe-author-year", AuthorYearStyle)


def add_static_files(app):
    app.config.html_static_path.append(str(STATIC))
    app.add_css_file("book.css")


def setup(app):
    app.connect("builder-inited", add_static_files)
    app.connect("html-page-context", add_markdown_download, priority=600)
    app.connect("build-finished", copy_mathjax)
    app.connect("build-finished", copy_markdown_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
