"""The book's Sphinx extensions that lighten pages and fix the PDF, function by function.

book/_ext/page_weight.py (icons as inline SVG, the theme's assets pruned) and
book/_ext/pdf_proofs.py (titled proof boxes); the built book itself is checked by
tests/test_page_weight.py and tests/test_pdf.py.
"""

from __future__ import annotations

import importlib.util
import json
import re

import pytest
from docutils import nodes


def _extension(root, name):
    spec = importlib.util.spec_from_file_location(name, root / "book" / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def page_weight(root):
    return _extension(root, "page_weight")


#: The shape of fontawesome.js: one object literal per pack, handed to d("fa?", p).
SCRIPT = (
    'var p={github:[496,512,[],"f09b","M1 1z"]};x;d("fab",p),d("fa-brands",p)'
    'var p={"trash-can":[448,512,[61460,"trash-alt"],"f2ed","M2 2z"]};d("far",p)'
    'var p={"forward-step":[320,512,["step-forward"],"f051","M3 3z"],sun:[512,512,[],'
    '"f185","M4 4z"]};d("fas",p)'
    "e=':host,:root{--fa-font-solid:x}.svg-inline--fa{height:1em}';"
)


def test_icons_and_their_aliases_are_read(page_weight):
    packs = page_weight.read_icons(SCRIPT)
    assert packs["fab"]["github"] == (496, 512, "M1 1z")
    assert packs["far"]["trash-alt"] == packs["far"]["trash-can"]
    assert packs["fas"]["step-forward"] == (320, 512, "M3 3z")
    assert page_weight.read_stylesheet(SCRIPT).endswith(".svg-inline--fa{height:1em}")
    assert page_weight._without_font_variables(page_weight.read_stylesheet(SCRIPT)) == (
        ".svg-inline--fa{height:1em}"
    )


def test_a_script_without_packs_fails(page_weight):
    with pytest.raises(Exception, match="no icon packs"):
        page_weight.read_icons("var p={};")


def test_icon_elements_become_svg(page_weight):
    packs = page_weight.read_icons(SCRIPT)
    page = (
        '<i class="theme-switch fa-solid fa-sun fa-lg" data-mode="light" title="Light"></i>'
        '<span class="fa fa-step-forward"></span><span class="caption-number"></span>'
        '<i class="fab fa-github">text</i>'
    )
    drawn, missing = page_weight.inline_icons(page, packs)
    assert missing == []
    assert drawn.startswith(
        '<svg class="svg-inline--fa theme-switch fa-sun fa-lg" aria-hidden="true" '
        'focusable="false" data-prefix="fas" data-icon="sun" role="img"'
    )
    assert 'viewBox="0 0 512 512" data-mode="light"><title>Light</title>' in drawn
    assert '<path fill="currentColor" d="M4 4z"></path></svg>' in drawn
    assert 'data-icon="step-forward" role="img" xmlns="http://www.w3.org/2000/svg" ' in drawn
    # Not icons: an element of other classes, and one with content.
    assert drawn.endswith('<span class="caption-number"></span><i class="fab fa-github">text</i>')


def test_an_unknown_icon_is_reported(page_weight):
    packs = page_weight.read_icons(SCRIPT)
    page = '<i class="fa-solid fa-no-such-icon"></i><i class="fab fa-sun"></i>'
    drawn, missing = page_weight.inline_icons(page, packs)
    assert drawn == page
    assert missing == ["fa-solid fa-no-such-icon", "fab fa-sun"]  # sun is not a brand


def test_the_installed_theme_is_read(page_weight):
    """The theme's own fontawesome.js still has the shape the parser expects."""
    text = page_weight.theme_script().read_text(encoding="utf-8")
    packs = page_weight.read_icons(text)
    assert len(packs["fas"]) > 1000
    assert {"magnifying-glass", "sun", "moon", "bars"} <= packs["fas"].keys()
    assert "github" in packs["fab"]
    assert ".svg-inline--fa{" in page_weight.read_stylesheet(text)


def test_the_theme_stylesheet_loses_only_glyph_rules(page_weight):
    css = (
        '/*x*/.fa-github:before{content:"\\f09b"}.fa-lg{font-size:1.25em}'
        '.fa-a:before,.fa-b:before{content:"\\f00a"}'
        ".admonition-title:after{content:var(--pst-icon-info)}"
        '.x i.fa-arrow:before{content:"\\f00b"}'
    )
    assert page_weight.without_glyph_rules(css) == (
        "/*x*/.fa-lg{font-size:1.25em}.admonition-title:after{content:var(--pst-icon-info)}"
        '.x i.fa-arrow:before{content:"\\f00b"}'
    )


def test_the_glyphs_the_theme_css_draws(page_weight):
    css = (
        ':root{--pst-icon-info:"\uf05a"}.fa-github:before{content:"\\f09b"}'
        '@media (min-width:1px){.onthispage:after{content:"\\f107";font-weight:900}}'
    )
    assert page_weight.css_glyphs(css) == {0xF05A, 0xF107}


def test_head_filters(page_weight):
    head = (
        '<script defer src="../_static/scripts/fontawesome.js?digest=1"></script>\n'
        '<link rel="preload" as="script" href="../_static/scripts/bootstrap.js" />\n'
        '<script src="../_static/searchtools.js"></script>\n'
        '<script src="../_static/language_data.js"></script>\n'
        '<script src="../searchindex.js"></script>'
    )
    assert "fontawesome" not in page_weight.without_fontawesome(head)
    assert "bootstrap.js" in page_weight.without_fontawesome(head)
    kept = page_weight.without_search_index(head)
    assert "search" not in kept.replace("fontawesome", "")
    assert "language_data" not in kept


def test_body_images_load_lazily(page_weight):
    context = {"body": '<img src="a.png" alt="a"><img loading="eager" src="b.png">'}
    page_weight.lazy_images(None, "page", "page.html", context, None)
    assert (
        context["body"]
        == '<img loading="lazy" src="a.png" alt="a"><img loading="eager" src="b.png">'
    )


def test_design_assets_only_where_used(page_weight):
    class Asset:
        def __init__(self, filename):
            self.filename = filename

    def context(body):
        return {
            "body": body,
            "css_files": [Asset("_static/sphinx-design.min.css"), Asset("_static/book.css")],
            "script_files": [Asset("_static/design-tabs.js"), Asset("_static/doctools.js")],
        }

    plain = context("<p>text</p>")
    page_weight.only_used_assets(None, "page", "page.html", plain, None)
    assert [asset.filename for asset in plain["css_files"]] == ["_static/book.css"]
    assert [asset.filename for asset in plain["script_files"]] == ["_static/doctools.js"]
    cards = context('<div class="sd-card sd-shadow">card</div>')
    page_weight.only_used_assets(None, "page", "page.html", cards, None)
    assert len(cards["css_files"]) == len(cards["script_files"]) == 2


def test_a_proof_box_is_titled(root):
    pdf_proofs = _extension(root, "pdf_proofs")
    box = nodes.admonition()
    box += nodes.paragraph("", "", nodes.Text("Proof. Expand "), nodes.literal(text="v"))
    pdf_proofs.TitledProofs._drop_prefix(box)
    box.insert(0, nodes.title("", "Proof"))
    assert box[0].astext() == "Proof"
    assert box[1].astext() == "Expand v"
    only_code = nodes.admonition()
    only_code += nodes.paragraph("", "", nodes.Text("Proof. "), nodes.literal(text="f()"))
    pdf_proofs.TitledProofs._drop_prefix(only_code)
    assert only_code[0].astext() == "f()"


# --- book/_ext/chapter_seconds.py: the table of seconds per chapter ---------------


@pytest.fixture(scope="module")
def chapter_seconds(root):
    return _extension(root, "chapter_seconds")


def test_every_chapter_has_a_row_measured_or_not(chapter_seconds):
    chapters = [("book/ch01_a", 1, "The definition"), ("book/ch99_new", 9, "New"),
                ("book/claims_ledger", None, "Claims ledger")]  # fmt: skip
    seconds = {"ch01_a": 5.24, "claims_ledger": 1.0, "ch42_removed": 3.0}
    assert chapter_seconds.rows(chapters, seconds) == [
        ("book/ch01_a", "1 The definition", "5.2"),
        ("book/ch99_new", "9 New", chapter_seconds.NOT_MEASURED),
        ("book/claims_ledger", "Claims ledger", "1.0"),
    ]


def test_the_book_s_table_lists_its_chapters_from_the_toc(chapter_seconds, root):
    import json

    chapters = chapter_seconds.book_chapters(root)
    names = [docname for docname, _, _ in chapters]
    assert names[-1] == "book/claims_ledger" and chapters[-1][1] is None
    numbered = [number for _, number, _ in chapters if number is not None]
    assert numbered == list(range(1, len(numbered) + 1)) and len(numbered) >= 8
    assert chapters[0] == ("book/ch01_definition", 1, "The definition")
    record = json.loads((root / chapter_seconds.RECORD).read_text(encoding="utf-8"))
    assert {"date", "machine", "how", "seconds"} <= set(record)
    rows = chapter_seconds.rows(chapters, record["seconds"])
    assert len(rows) == len(chapters)
    table = chapter_seconds.table(rows, "book/building")
    links = [node["reftarget"] for node in table.findall(lambda node: "reftarget" in node)]
    assert links == [f"/{name}" for name in names]
    assert "```{chapter-seconds}" in (root / "book" / "building.md").read_text(encoding="utf-8")


def test_the_measurement_says_its_commands_as_code(chapter_seconds):
    found = chapter_seconds.inline("the reader's path of `make test`, on 2 cores")
    assert [type(node).__name__ for node in found] == ["Text", "literal", "Text"]
    assert found[1].astext() == "make test"


def test_a_chapter_figure_is_read_from_its_twin(root):
    """book/_ext/chapter_figure.py: the intro's figure is the chapter's own output, with
    the chapter's alt text and phone variant; a name no twin has fails the build."""
    import base64

    from sphinx.errors import ExtensionError

    from sinpe.plotting import NARROW_KEY

    chapter_figure = _extension(root, "chapter_figure")
    found = chapter_figure.find_figure(root / "book", "fig-heatmap")
    assert found["twin"].name == "ch03_seeing.ipynb"
    assert base64.b64decode(found["png"]).startswith(b"\x89PNG")
    assert found["alt"].startswith("A heatmap with position") and "\n" not in found["alt"]
    assert NARROW_KEY in found["metadata"]
    with pytest.raises(ExtensionError, match=r"no executed twin .* named 'fig-nowhere'"):
        chapter_figure.find_figure(root / "book", "fig-nowhere")


def test_the_intro_opens_with_a_figure_and_a_question(root):
    """Issue 41: the intro opened with no picture and no hook. Before any formula and
    before its first section: a chapter's figure, then a question in bold."""
    text = (root / "book" / "intro.md").read_text(encoding="utf-8")
    opening = text[: text.index("\n## ")]
    figure = re.search(r"^```\{chapter-figure\} (\S+)$", opening, re.M)
    assert figure, "the intro's first screen shows no chapter figure"
    question = re.search(r"\*\*[^*]+\?\*\*", opening)
    assert question and figure.start() < question.start()
    first_formula = min(
        (i for i in (opening.find("$"), opening.find("{math}")) if i >= 0), default=len(opening)
    )
    assert question.start() < first_formula


# --- book/_ext/live_cells.py: the cells a chapter's page runs (issue 41) -----------------


@pytest.fixture(scope="module")
def live_cells(root):
    return _extension(root, "live_cells")


def _code(source, tags=()):
    return {"cell_type": "code", "source": source, "metadata": {"tags": list(tags)}}


def test_hidden_cells_run_unshown_and_tagged_cells_get_the_note(live_cells):
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": "text", "metadata": {}},
            _code("from sinpe.claims import glue", ["remove-cell"]),
            _code(["import numpy as np\n", "print(1)"]),
            _code("x = 1", ["hide-input"]),
            _code("import torch\ntorch.zeros(3)", ["not-in-page"]),
            _code("model = training.train_model(task)", ["not-in-page", "hide-input"]),
        ]
    }
    found = live_cells.cells(notebook)
    assert [cell["index"] for cell in found] == [1, 2, 3, 4, 5]
    assert [cell["shown"] for cell in found] == [False, True, False, True, False]
    assert [cell["runnable"] for cell in found] == [True, True, True, False, False]
    assert found[1]["source"] == "import numpy as np\nprint(1)"
    assert live_cells.note(4, "88 s in the page") == (
        '<p class="sinpe-live sinpe-live-note" data-cell="4">'
        "This cell runs in Colab or the download: 88 s in the page.</p>"
    )
    assert live_cells.NOTE in live_cells.note(4)


def test_only_an_html_build_gets_live_cells(live_cells, tmp_path):
    from types import SimpleNamespace

    notebook = {"cells": [_code("print(1)"), _code("import torch", ["not-in-page"])]}
    (tmp_path / "ch.ipynb").write_text(json.dumps(notebook), encoding="utf-8")

    def doctree():
        tree = nodes.section()
        for index in (0, 1):
            cell = nodes.container(nb_element="cell_code", cell_index=index)
            cell += nodes.container(nb_element="cell_code_source")
            tree += cell
        return tree

    def app(builder_format):
        return SimpleNamespace(
            builder=SimpleNamespace(format=builder_format),
            config=SimpleNamespace(live_chapters=["book/ch"]),
            env=SimpleNamespace(doc2path=lambda docname: tmp_path / "ch.ipynb"),
        )

    def marks(tree):
        classes = [c for node in tree.findall(nodes.container) for c in node["classes"]]
        notes = [node for node in tree.findall(nodes.raw) if "sinpe-live-note" in node.astext()]
        return [c for c in classes if c.startswith(live_cells.MARK)], len(notes)

    for builder_format in ("latex", "text"):
        live_cells.add_buttons(app(builder_format), tree := doctree(), "book/ch")
        assert marks(tree) == ([], 0), builder_format
    live_cells.add_buttons(app("html"), tree := doctree(), "book/ch")
    assert marks(tree) == (["sinpe-run-0"], 1)  # the cell that runs marked, the other noted
    live_cells.add_buttons(app("html"), tree := doctree(), "book/other")
    assert marks(tree) == ([], 0)


#: The most the inline loader of a live page may weigh (bytes): it is all such a page
#: loads of the live cells until a Run or Edit (tests/test_page_weight.py counts it).
LOADER_BUDGET = 2000


def test_a_live_page_holds_the_small_loader_inline_and_only_it(live_cells):
    from types import SimpleNamespace

    added = []
    app = SimpleNamespace(add_js_file=lambda name, **kw: added.append((name, kw)))
    live_cells.add_script(app, "book/ch", "page.html", {"body": "<p>no cells</p>"}, None)
    assert added == []
    body = '<div class="cell docutils container sinpe-run-3">'
    live_cells.add_script(app, "book/ch", "page.html", {"body": body}, None)
    assert added == [(None, {"body": live_cells.loader()})]
    code = live_cells.loader()
    assert len(code.encode()) <= LOADER_BUDGET, len(code.encode())
    assert "/*" not in code and not any(line.startswith(" ") for line in code.splitlines())
    assert live_cells.MARK in code and '"_static/live.js"' in code  # it fetches the rest


def test_a_loader_that_cannot_be_inlined_as_is_fails(live_cells, tmp_path, monkeypatch):
    for text in ("const a = `x\n  y`;", 'const a = "</script>";'):
        (tmp_path / "loader.js").write_text(f"/* c */\n{text}\n")
        monkeypatch.setattr(live_cells, "LOADER", tmp_path / "loader.js")
        with pytest.raises(ValueError, match="cannot be inlined"):
            live_cells.loader()
