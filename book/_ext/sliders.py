"""Sphinx extension: figures the reader moves with sliders, ``{slider} KIND``, no kernel.

A chapter writes::

    ```{slider} ladder
    Move the base and the width: ...
    ```

and the web page shows the sentence, labelled range inputs with their values, and the
figure, drawn on SVG or canvas by ``static/sliders.js`` (served by the site itself; only
pages with a slider load it and ``static/sliders.css``). What each kind draws, its
controls and their values are :data:`KINDS`, read by the page (``data-config``) and by
the tests alike (tests/test_sliders.py runs the script's formulas in node against
sinpe, and moves every slider of the built book in Chromium). Colours are the book's
(``sinpe.plotting.COLORS``, and its colour map for the heatmap).

Elsewhere a slider is not there: the PDF leaves it out, and the reader's edition
(``scripts/reader_edition.py``) says in a sentence that the web page has it.
"""

from __future__ import annotations

import html
import json
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import SphinxDirective


def _choices(label: str, name: str, values: list, value, digits: int | None = None) -> dict:
    spec = {"label": label, "name": name, "values": values, "value": value}
    if digits is not None:
        spec["digits"] = digits
    if value not in values:
        raise ValueError(f"{name}: {value!r} is not one of its values")
    return spec


#: Bases the sliders offer: the paper's 10000, those of chapter 3's table, Llama 3's
#: 500000 and Code Llama's 1000000.
BASES = [10.0, 100.0, 1000.0, 10000.0, 100000.0, 500000.0, 1000000.0]

#: Each kind: its controls (label, name, values, starting value) and its constants.
#: The starting values are those of the static figure next to it.
KINDS: dict[str, dict[str, Any]] = {
    # §3.6: the ladder of wavelengths (fig-ladder) and the distance by offset
    # (fig-base), with chapter 3's aliasing search over offsets 64 to 65 535.
    "ladder": {
        "controls": [
            _choices("base C", "base", BASES, 10000.0),
            _choices("width d", "width", [16, 32, 64, 128, 256], 128),
        ],
        "context": 65536,
        "far": 64,
    },
    # Fig. 6.1: the query and key pair of the figure, theta = 0.4 radians per position.
    "rope-pair": {
        "controls": [
            _choices("both shifted by", "shift", list(range(0, 31)), 0),
            _choices("m \N{MINUS SIGN} n", "gap", list(range(-10, 11)), 2),
        ],
        "theta": 0.4,
        "q": [0.9, 0.3],
        "k": [0.85, 0.1],
        "key": 0,
    },
    # Fig. 2.1: every pair of the d = 16 encoding at p and p + k.
    "shift-pairs": {
        "controls": [
            _choices("position p", "position", list(range(0, 21)), 1),
            _choices("shift k", "shift", list(range(-20, 21)), 2),
        ],
        "width": 16,
        "base": 10000.0,
    },
    # Fig. 3.2: pe(1) .. pe(100), the mean change of the first and last 16 rows.
    "heatmap": {
        "controls": [
            _choices("width d", "width", list(range(32, 257, 2)), 128),
            _choices("base C", "base", BASES, 10000.0),
        ],
        "positions": 100,
        "rows": 16,
    },
}

#: Stops of the heatmap's colour map (sinpe.plotting.SEQUENTIAL), evenly spaced.
COLORMAP_STOPS = 64


def config(kind: str) -> dict[str, Any]:
    """What the page's script reads for one slider: :data:`KINDS`'s entry and the colours."""
    from matplotlib import colormaps, colors

    from sinpe import plotting

    found = dict(KINDS[kind], colors=list(plotting.COLORS))
    if kind == "heatmap":
        colormap = colormaps[plotting.SEQUENTIAL]
        found["colormap"] = [
            colors.to_hex(colormap((n + 0.5) / COLORMAP_STOPS)) for n in range(COLORMAP_STOPS)
        ]
    return found


class Slider(SphinxDirective):
    """``{slider} KIND``, its content the sentence shown above the controls.

    HTML only (an ``only`` node: the PDF and the text builders drop it whole), written
    as raw HTML around the parsed sentence: no node class of its own, so the build's
    environment, which keeps whole doctrees (sphinx-exercise's registry), unpickles
    without this module (scripts/reader_edition.py reads it).
    """

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        kind = self.arguments[0]
        if kind not in KINDS:
            raise self.error(f"unknown slider {kind!r}: one of {', '.join(sorted(KINDS))}")
        data = html.escape(json.dumps(config(kind), separators=(",", ":")), quote=True)
        opening = (
            f'<figure class="sinpe-slider" id="slider-{kind}" data-kind="{kind}" '
            f'data-config="{data}"><figcaption class="sinpe-slider-caption">'
        )
        shown = addnodes.only(expr="html")
        self.set_source_info(shown)
        shown += nodes.raw("", opening, format="html")
        shown += self.parse_content_to_nodes()
        shown += nodes.raw("", "</figcaption></figure>", format="html")
        return [shown]


def add_script(app, pagename, templatename, context, doctree) -> None:
    """The script and its style sheet, on the pages that have a slider only."""
    if 'class="sinpe-slider"' in context.get("body", ""):
        app.add_js_file("sliders.js", defer="defer")
        app.add_css_file("sliders.css")


def setup(app):
    app.add_directive("slider", Slider)
    # Before handlers that replace the page's list of assets with a new list (page_weight's
    # only_used_assets), after which add_js_file would no longer reach the page.
    app.connect("html-page-context", add_script, priority=400)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
