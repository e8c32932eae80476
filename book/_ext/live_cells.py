"""Sphinx extension: live cells, the chapters' code run in the reader's browser by Pyodide.

On the web pages of the chapters that ``live_chapters`` (``_config.yml``, the one list)
names, each code cell whose source the page shows gets three buttons under its code:
Run, Edit and Reset. The page holds only a small loader (``live_loader.js``, inline,
under 2 kB), which makes them in each cell this extension marks with the class
``sinpe-run-N`` (N: the cell's index in the notebook); the first Run or Edit fetches the
rest (``static/live.js``). The first Run starts Pyodide in a web worker
(``static/live-worker.js``), from files the site serves itself (``_static/live/``:
``python -m scripts.live_assets``, called at the end of the build), runs once, in order,
every earlier cell of the page (the cells the page hides, that compute and set up, and
the shown ones), then the cell; its text output, its error's message line or its figures
replace the stored output, and Reset puts the stored output back.

A cell tagged ``not-in-page`` in its chapter gets a one-line note instead of Run, which
says why (``scripts/live_seconds.py``, from the committed measurement
``book/_live/seconds.json``): "runs in Colab or the download: 87 s in the page", or what
a browser lacks that it needs. The page skips such a cell, shown or hidden.

The cells' sources are written to ``_static/live/pages/<page>.json``, fetched on the
first Run or Edit, so a page that is only read weighs the loader and some 13 bytes more
per cell. Everything is HTML only: added when the doctree is resolved for an HTML
builder, so the PDF and the reader's editions never see it.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from pathlib import Path

from docutils import nodes

#: The note a cell gets instead of Run.
NOTE = "runs in Colab or the download"
#: Where the runtime and the pages' cells go in the built site.
LIVE = Path("_static") / "live"
#: The class that marks a cell the page can run, with its index (the loader reads it).
MARK = "sinpe-run-"
#: The loader's source; the page holds it inline (:func:`loader`).
LOADER = Path(__file__).resolve().parent / "live_loader.js"


def _live_seconds():
    """scripts/live_seconds.py, the rule of which cells run in the page (the one place)."""
    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("scripts.live_seconds")


def cells(notebook: dict) -> list[dict]:
    """The code cells of ``notebook`` as the page's script reads them, in order."""
    return _live_seconds().cells(notebook)


def note(index: int, why: str | None = None) -> str:
    """What a shown cell that cannot run in the page gets under its code, with ``why``."""
    said = NOTE + (f": {why}" if why else "")
    return f'<p class="sinpe-live sinpe-live-note" data-cell="{index}">This cell {said}.</p>'


def loader() -> str:
    """The loader as a live page holds it: ``live_loader.js`` without its first comment
    and its lines' indentation (which means nothing to JavaScript outside a multi-line
    string, which the loader therefore may not hold, nor ``</``, which would end the
    page's script element)."""
    source = LOADER.read_text(encoding="utf-8")
    for forbidden in ("`", "</"):
        if forbidden in source:
            raise ValueError(f"{LOADER.name} holds {forbidden!r}: it cannot be inlined as is")
    code = source[source.index("*/") + 2 :]
    return "\n".join(line.strip() for line in code.strip().splitlines())


def _notebook(app, docname: str) -> dict | None:
    path = Path(app.env.doc2path(docname))
    if path.suffix != ".ipynb":
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def add_buttons(app, doctree, docname: str) -> None:
    """On an HTML build of a live chapter, each shown code cell marked for the loader's
    buttons (the class ``sinpe-run-N``), or, if it cannot run, the note under its code."""
    if app.builder.format != "html" or docname not in app.config.live_chapters:
        return
    notebook = _notebook(app, docname)
    if notebook is None:
        return
    rule = _live_seconds()
    record = rule.load()
    found = {cell["index"]: cell for cell in cells(notebook)}
    for container in list(doctree.findall(nodes.container)):
        if container.get("nb_element") != "cell_code":
            continue
        cell = found.get(container.get("cell_index"))
        if cell is None or not cell["shown"]:
            continue
        if cell["runnable"]:
            container["classes"].append(f"{MARK}{cell['index']}")
            continue
        sources = [
            place
            for place, child in enumerate(container.children, start=1)
            if child.get("nb_element") == "cell_code_source"
        ]
        why = rule.reason(cell["source"], rule.entry(record, docname, cell))
        container.insert(
            sources[0] if sources else 0, nodes.raw("", note(cell["index"], why), format="html")
        )


def add_script(app, pagename, templatename, context, doctree) -> None:
    """The loader, inline, on the pages with live cells only (the notes' style is its)."""
    body = context.get("body", "")
    if MARK in body or 'class="sinpe-live' in body:
        app.add_js_file(None, body=loader())


def build_assets(app, exception) -> None:
    """The runtime (scripts/live_assets.py) and each live page's cells, into _static/live/."""
    if exception is not None or app.builder.format != "html":
        return
    _live_seconds()
    from scripts import live_assets

    target = Path(app.outdir) / LIVE
    try:
        live_assets.build(target)
    except live_assets.AssetError as error:
        raise RuntimeError(f"live cells: {error}") from error
    pages = target / "pages"
    shutil.rmtree(pages, ignore_errors=True)  # a chapter no longer live leaves no file
    pages.mkdir(parents=True)
    for docname in app.config.live_chapters:
        notebook = _notebook(app, docname)
        if notebook is None:
            raise RuntimeError(f"live_chapters names {docname}, which is not a notebook page")
        (pages / (Path(docname).name + ".json")).write_text(
            json.dumps({"cells": cells(notebook)}, separators=(",", ":")), encoding="utf-8"
        )


def setup(app):
    app.add_config_value("live_chapters", [], "html")
    app.connect("doctree-resolved", add_buttons)
    app.connect("html-page-context", add_script, priority=400)
    app.connect("build-finished", build_assets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
