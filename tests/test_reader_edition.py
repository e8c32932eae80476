"""The reader's editions (notebooks/, scripts/reader_edition.py): they read like the page
in plain Jupyter and run with nothing but what they install (issue 27).

``make test`` also regenerates them from the build and compares (``reader_edition.py
check`` after the strict build), checks their links against the built pages, and runs
them from the notebook download in a new venv (``notebooks.py validate --reader``).
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from types import SimpleNamespace

import nbformat
import pytest


@pytest.fixture(scope="module")
def reader():
    from scripts import reader_edition

    return reader_edition


@pytest.fixture(scope="module")
def editions(root, reader):
    """(twin, edition) of every notebook of the book."""
    pairs = []
    for twin in sorted((root / "book").glob("*.ipynb")):
        edition = root / "notebooks" / twin.name
        assert edition.is_file(), f"{edition} is missing: run `make twins`"
        pairs.append((nbformat.read(twin, as_version=4), nbformat.read(edition, as_version=4)))
    assert len(pairs) >= 9
    return pairs


def _markdown(notebook) -> str:
    return "\n\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")


def _code(source: str) -> str:
    return re.sub(r"^# @title .*\n", "", source)


def test_every_edition_runs_the_twin_s_code_in_the_same_order(root, reader, editions):
    for twin, edition in editions:
        assert edition.cells[0].source == reader.install_cell()
        ours = [_code(c.source) for c in edition.cells[1:] if c.cell_type == "code"]
        assert ours == [c.source for c in twin.cells if c.cell_type == "code"]
        kept = {c.id: _without_alt(c.outputs) for c in edition.cells if c.cell_type == "code"}
        assert all(kept[c.id] == c.outputs for c in twin.cells if c.cell_type == "code")


def _without_alt(outputs):
    """Outputs as the twin has them: without the alt text the edition adds to images."""
    import copy

    outputs = copy.deepcopy(outputs)
    for output in outputs:
        for mime, metadata in output.get("metadata", {}).items():
            if mime.startswith("image/"):
                metadata.pop("alt", None)
    return outputs


def test_every_figure_of_the_edition_has_the_book_s_alt_text(editions):
    carried = 0
    for twin, edition in editions:
        cells = {c.id: c for c in edition.cells}
        for cell in twin.cells:
            alt = " ".join(cell.metadata.get("mystnb", {}).get("image", {}).get("alt", "").split())
            images = [
                output["metadata"].get("image/png", {})
                for output in cells.get(cell.id, cell).get("outputs", [])
                if "image/png" in output.get("data", {})
            ]
            if alt and images:
                assert all(image.get("alt") == alt for image in images), cell.id
                carried += 1
    assert carried >= 30


def test_no_myst_is_left_in_the_markdown(editions, reader):
    for _twin, edition in editions:
        found = reader.MYST_LEFTOVERS.findall(_markdown(edition))
        assert not found, found[:5]


@pytest.mark.parametrize(
    "myst",
    [
        "a {glue:text}`ratio-32` b",
        "see {numref}`fig-x`",
        ":::{admonition} Predict, then run",
        "```{exercise}",
        "````{prf:theorem} A shift",
        "(sec-layer)=",
        "$$ (eq-pe-zero)",
        "{term}`pair`",
    ],
)
def test_the_leftover_pattern_sees_every_kind_of_myst(reader, myst):
    assert reader.MYST_LEFTOVERS.search(myst)


def test_every_glued_number_the_prose_quotes_is_written_in(reader, editions):
    quoted = 0
    for twin, edition in editions:
        values = reader.glued(twin)
        markdown = _markdown(edition)
        text = "\n".join(c.source for c in twin.cells if c.cell_type == "markdown")
        for key in re.findall(r"\{glue:text\}`([^`]+)`", text):
            assert reader._plain(values[key]["text/plain"]) in markdown, key
            quoted += 1
    assert quoted > 100


def test_the_worked_vector_table_appears(editions):
    chapter = next(edition for twin, edition in editions if "worked-table" in str(twin))
    assert "| entry | published | sinpe, rounded alike | sinpe, float64 |" in _markdown(chapter)
    assert "0.841470984808" in _markdown(chapter)


def test_solutions_and_answers_are_folded(editions):
    for twin, edition in editions:
        text = "\n".join(c.source for c in twin.cells if c.cell_type == "markdown")
        markdown = _markdown(edition)
        solutions = len(re.findall(r"\{solution-start\}", text))
        answers = len(re.findall(r":::\{admonition\} Answer", text))
        folded = re.findall(r"<summary><b>Solution to Exercise \d+\.\d+</b>", markdown)
        assert len(set(folded)) == solutions
        assert markdown.count("<summary><b>Answer</b></summary>") == answers
        for cell in edition.cells:
            if cell.cell_type == "code" and cell.source.startswith("# @title Solution"):
                assert cell.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}


def test_cross_references_are_numbered_links_to_the_web_page(reader, editions):
    url = reader.zips.book_url()
    chapter_one = _markdown(editions[0][1])
    assert f"[Figure 1.1]({url}book/ch01_definition.html#fig-binary-odometer)" in chapter_one
    assert r"\tag{1.1}" in chapter_one
    assert "(Vaswani et al., 2017)" in chapter_one or "Vaswani et al." in chapter_one
    everything = "\n".join(_markdown(edition) for _twin, edition in editions)
    assert re.search(r"\*\*Theorem 2\.1\*\* \(A shift rotates each pair\)", everything)
    assert re.search(r"\[Theorem \d\.\d\]\(" + re.escape(url), everything)


def test_hidden_cells_are_collapsed_and_bookkeeping_follows_code(editions):
    moved = 0
    for twin, edition in editions:
        tags = {c.id: c.metadata.get("tags", []) for c in twin.cells}
        for index, cell in enumerate(edition.cells):
            hidden = {"remove-cell", "remove-input", "hide-input"} & set(tags.get(cell.id, []))
            if cell.cell_type != "code" or not hidden:
                continue
            assert cell.metadata["jupyter"]["source_hidden"] is True
            assert cell.metadata["cellView"] == "form" and cell.source.startswith("# @title ")
            if cell.source.startswith("# @title Bookkeeping"):
                before = edition.cells[index - 1]
                assert before.cell_type == "code" or before.id.endswith("-caption")
                moved += 1
    assert moved > 50


def test_figures_have_their_caption_below_them(editions):
    for twin, edition in editions:
        figures = [c for c in twin.cells if c.metadata.get("mystnb", {}).get("figure")]
        captions = [c for c in edition.cells if c.id.endswith("-caption")]
        assert len(captions) == len(figures)
        ids = [c.id for c in edition.cells]
        for figure in figures:
            assert ids[ids.index(figure.id) + 1] == figure.id + "-caption"


def test_folded_outputs_stay_folded_with_their_captions(editions):
    """A folded output (the answer of a "Predict, then run" box) is folded in the
    edition too, and so is the caption of a folded figure, which may say the answer."""
    folded = 0
    for twin, edition in editions:
        cells = {c.id: c for c in edition.cells}
        for cell in twin.cells:
            tags = set(cell.metadata.get("tags", []))
            if cell.cell_type != "code" or not {"hide-output", "hide-cell", "remove-output"} & tags:
                continue
            assert cells[cell.id].metadata["jupyter"]["outputs_hidden"] is True
            folded += 1
            caption = cells.get(cell.id + "-caption")
            if caption is not None:
                assert caption.source.startswith("<details>\n<summary><b>Figure ")
    assert folded >= 16


@pytest.fixture
def fake_book(reader):
    """Numbers and links of a made-up book, for the converter alone."""

    class FakeBook(reader.Book):
        def number(self, docname, anchor):
            return {"ex-a": ("Exercise", "3.1"), "thm-a": ("Theorem", "3.2")}[anchor]

        def equation_number(self, label):
            return "3.4"

    return FakeBook(env=None, url="https://example.org/")


def test_the_converter_on_each_construct(reader, fake_book):
    convert = reader.Converter(fake_book, "book/ch03", {"x": {"text/plain": "'0.25'"}})
    text = "\n".join(
        [
            "(sec-a)=",
            "## A section",
            "",
            "Value {glue:text}`x`.",
            "",
            "`base`",
            ": the constant",
            "  $C$.",
            "",
            "$$",
            "a = b",
            "$$ (eq-a)",
            "",
            "::::{dropdown} Code",
            "```{exercise}",
            ":label: ex-a",
            "",
            "Do it.",
            "```",
            "::::",
        ]
    )
    out = convert.cell(text)
    assert "(sec-a)=" not in out and "## A section" in out
    assert "Value 0.25." in out
    assert "- **`base`**: the constant $C$." in out
    assert "a = b\n\\tag{3.4}\n$$" in out
    assert "<details>\n<summary><b>Code</b></summary>\n\n> **Exercise 3.1**\n>\n> Do it." in out
    with pytest.raises(ValueError, match="no Markdown for the MyST role"):
        convert.cell("{unknown}`x`")


def test_a_solution_across_cells_is_folded_in_each_piece(reader, fake_book):
    convert = reader.Converter(fake_book, "book/ch03", {})
    first = convert.cell("```{solution-start} ex-a\n:class: dropdown\n```\n\nBecause.")
    summary = "<summary><b>Solution to Exercise 3.1</b></summary>"
    assert first == f"<details>\n{summary}\n\nBecause.\n\n</details>"
    assert convert.in_solution  # the code cell after it is folded too
    second = convert.cell("More.\n\n```{solution-end}\n```\n\nNext.")
    assert second.startswith("<details>") and second.endswith("</details>\n\nNext.")
    assert not convert.in_solution


@pytest.mark.parametrize("wheel", [True, False])
def test_the_install_cell_installs_the_wheel_beside_it_or_the_release(reader, tmp_path, wheel):
    """Run the cell with sinpe missing: it asks pip for the wheel if there, else the release."""
    if wheel:
        (tmp_path / reader.zips.wheel_name()).write_bytes(b"")
    calls = []
    namespace = {}
    fake = SimpleNamespace(run=lambda command, check: calls.append(command))
    code = reader.install_cell().replace("import subprocess\n", "")
    original = importlib.util.find_spec
    try:
        importlib.util.find_spec = lambda name: None
        namespace["subprocess"] = fake
        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(tmp_path)
            exec(compile(code, "install-cell", "exec"), namespace)
    finally:
        importlib.util.find_spec = original
    (command,) = calls
    assert command[:4] == [sys.executable, "-m", "pip", "install"]
    version = reader.zips.version()
    if wheel:
        assert command[-1] == (
            "sinpe[plot,symbolic,reference] @ "
            + (tmp_path / reader.zips.wheel_name()).resolve().as_uri()
        )
    else:
        assert command[-1] == f"sinpe[plot,symbolic,reference]=={version}"


def test_the_install_cell_does_nothing_where_sinpe_is_importable(reader):
    code = reader.install_cell().replace("import subprocess\n", "")
    namespace = {"subprocess": SimpleNamespace(run=lambda *a, **k: pytest.fail("installed"))}
    exec(compile(code, "install-cell", "exec"), namespace)


def test_binder_installs_what_the_download_does(root):
    from scripts import notebook_zips as zips

    assert (root / "binder" / "requirements.txt").read_text() == zips.requirements(wheel=False)
    assert "pip install --no-deps ." in (root / "binder" / "postBuild").read_text()


def test_chapters_glue_without_myst_nb(root):
    """The chapters import glue from sinpe, so a reader needs no Sphinx stack."""
    for path in sorted((root / "book").glob("*.md")):
        text = path.read_text()
        assert "myst_nb" not in text, path.name
    result = subprocess.run(
        [sys.executable, "-c", "import sinpe.claims, sys; sys.exit('myst_nb' in sys.modules)"],
        check=False,
    )
    assert result.returncode == 0


def test_doc_links_are_resolved_from_the_page_that_makes_them(reader, fake_book):
    convert = reader.Converter(fake_book, "book/api/encoding", {})
    out = convert.cell("See {doc}`the ledger <../claims_ledger>` and {doc}`this <models>`.")
    assert "[the ledger](https://example.org/book/claims_ledger.html)" in out
    assert "[this](https://example.org/book/api/models.html)" in out


def test_a_slider_becomes_a_sentence_with_a_link(reader, fake_book):
    """The reader's edition has no JavaScript: a slider (book/_ext/sliders.py) is a
    sentence that links to it on the web page, then its own text."""
    convert = reader.Converter(fake_book, "book/ch03", {})
    out = convert.cell("Before.\n\n```{slider} heatmap\nThe heatmap for any $d$.\n```\n\nAfter.")
    link = "[the book's web page](https://example.org/book/ch03.html#slider-heatmap)"
    assert (
        out
        == f"Before.\n\n*On {link}, sliders move this figure.* The heatmap for any $d$.\n\nAfter."
    )
    assert not reader.MYST_LEFTOVERS.search(out)


def _planted_twin(tmp_path, plotting_html: str):
    """A twin with a hidden cell, a figure with alt text, a folded answer and an
    animation, as a chapter's executed twin has them."""
    png = nbformat.v4.new_output(
        "display_data", data={"image/png": "iVBORw0KGgo=", "text/plain": "<Figure>"}
    )
    cells = [
        nbformat.v4.new_code_cell("import sinpe", id="setup", metadata={"tags": ["remove-cell"]}),
        nbformat.v4.new_code_cell(
            "plt.show()",
            id="drawn",
            outputs=[png],
            metadata={
                "mystnb": {
                    "figure": {"caption": "A figure.", "name": "fig-a"},
                    "image": {"alt": "A rising\n  line."},
                }
            },
        ),
        nbformat.v4.new_markdown_cell("Predict, then run."),
        nbformat.v4.new_code_cell(
            "print(2)",
            id="answer",
            metadata={"tags": ["hide-output"]},
            outputs=[nbformat.v4.new_output("stream", name="stdout", text="2\n")],
        ),
        nbformat.v4.new_code_cell(
            "HTML(html)",
            id="player",
            outputs=[
                nbformat.v4.new_output(
                    "execute_result", data={"text/html": plotting_html}, execution_count=1
                )
            ],
        ),
    ]
    twin = tmp_path / "ch03_planted.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=cells), twin)
    return twin


def test_the_edition_opens_on_one_line_folds_answers_and_carries_alt(reader, tmp_path):
    """Issue 41, the reader's editions: the install cell is one visible line where the
    front end collapses it (and a short cell where not), an answer's output is folded for
    JupyterLab and the classic Notebook alike, each image has the book's alt text, and
    the animation's buttons are drawn, not Font Awesome icons."""

    class Numbers(reader.Book):
        def number(self, docname, anchor):
            return {"fig-a": ("Figure", "3.1")}[anchor]

    # a button as sinpe.plotting.animation_html draws it (tests/test_plotting.py)
    html = '<button title="Play"><svg viewBox="0 0 16 16"><polygon points="4,2 14,8 4,14"/></svg>'
    edition = reader.edition(_planted_twin(tmp_path, html), Numbers(None, "https://e.org/"))
    install, cells = edition.cells[0], {c.id: c for c in edition.cells}
    lines = install.source.split("\n")
    assert lines[0].startswith("# @title Install sinpe") and len(lines) <= 13
    assert max(map(len, lines)) <= 79  # the book's rule for visible code (phones)
    assert install.metadata == {"jupyter": {"source_hidden": True}, "cellView": "form"}
    answer = cells["answer"].metadata
    assert answer["jupyter"]["outputs_hidden"] is True and answer["collapsed"] is True
    assert "collapsed" not in cells["drawn"].metadata  # a figure that answers nothing
    (image,) = cells["drawn"].outputs
    assert image["metadata"]["image/png"]["alt"] == "A rising line."
    assert cells["drawn"].metadata["alt"] == "A rising line."
    assert "alt" not in cells["answer"].metadata  # no image, no alt
    (player,) = cells["player"].outputs
    assert "<svg" in player["data"]["text/html"] and "fa-play" not in player["data"]["text/html"]
    nbformat.validate(edition)


def test_the_book_s_animation_reaches_the_edition_with_drawn_buttons(root):
    """The reader's edition copies the twin's outputs: the animation there must carry
    its buttons drawn (sinpe.plotting.animation_html), with no Font Awesome icon."""
    twin = nbformat.read(root / "book" / "ch03_seeing.ipynb", as_version=4)
    players = [
        output["data"]["text/html"]
        for cell in twin.cells
        for output in cell.get("outputs", [])
        if "_anim_img" in output.get("data", {}).get("text/html", "")
    ]
    assert players
    for html in players:
        assert 'class="fa' not in html and html.count("<svg ") >= 9
