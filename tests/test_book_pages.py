"""What a reader sees, checked in the sources: issue 18's defects, kept fixed.

The browser test (tests/test_site.py) checks the built pages; these checks read the
MyST chapters and their executed twins, so they run in `make unit`, in seconds:

* no display formula starts a line with "[" right after ``\\begin{aligned}`` (LaTeX
  reads it as aligned's optional argument, and the left-hand side disappears);
* teaching cells are free of verdict plumbing (``claims.judge``, ``glue``): that lives
  in cells whose input is hidden (or, on the ledger page, folded);
* every visible code line fits the text column (80 characters at 13 px);
* figures are retina PNGs (200 dpi, sharp on 2x screens) no wider than the column, and
  no chapter asks for text below the style's minimum size;
* a printed table (lines whose columns are set apart by runs of spaces) fits a phone's
  column, so it keeps its alignment there instead of wrapping;
* a caption of panels side by side (stacked on a phone) that names a panel "left" or
  "right" says where it is on a phone too (issue 41).

Each check is a function of text, and is shown failing on a bad example.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from pathlib import Path

import jupytext
import pytest

from sinpe import plotting

#: Widest visible code line: 80 characters of 13 px monospace fill the text column.
CODE_COLUMNS = 80

#: Widest figure in CSS px: the text column at 1280 px (about 700 px) plus a margin.
FIGURE_CSS_WIDTH = 740

HIDDEN = ("remove-input", "remove-cell")

#: Widest printed line that keeps a table's columns on a phone: 10 px monospace in a
#: 390 px screen's column (book.css), as Chromium lays it out (measured; the browser
#: check of tests/site_check.py fails a table that wraps). Wider printed text wraps there.
PHONE_COLUMNS = 54

#: The same in a folded output ("hide-output": the answer to a prediction), whose box
#: takes a few pixels more of the column.
PHONE_COLUMNS_FOLDED = 50


def visible_code(markdown: str, *, folded: bool = True) -> list[str]:
    """Source of each code cell whose input a reader sees (read as jupytext reads it).

    With ``folded=False``, cells folded away behind a "show" button (``hide-input``)
    are left out too.
    """
    cells = []
    for cell in jupytext.reads(markdown, fmt="md:myst").cells:
        tags = cell.metadata.get("tags", [])
        if cell.cell_type != "code" or any(tag in tags for tag in HIDDEN):
            continue
        if not folded and "hide-input" in tags:
            continue
        cells.append(cell.source)
    return cells


def bracket_after_aligned(tex: str) -> list[str]:
    """Display lines that start with '[' right after \\begin{aligned} (or gathered, split)."""
    pattern = r"\\begin\{(?:aligned|alignedat|gathered|split)\}\s*\["
    return [tex[m.start() : m.start() + 40] for m in re.finditer(pattern, tex)]


def plumbing(cell: str) -> list[str]:
    """Lines of a visible cell that record verdicts or glue numbers into the prose."""
    pattern = r"\bclaims\.judge\(|\bglue\(|import glue"
    return [line.strip() for line in cell.splitlines() if re.search(pattern, line)]


def long_lines(cell: str, columns: int = CODE_COLUMNS) -> list[str]:
    return [line for line in cell.splitlines() if len(line) > columns]


def small_text(source: str) -> list[str]:
    """Explicit font sizes below the style's minimum, and figures wider than the column."""
    found = []
    named = {"xx-small": 0.579, "x-small": 0.694, "small": 0.833}  # Matplotlib's scalings
    for match in re.finditer(r"fontsize\s*=\s*(?:([0-9.]+)|[\"']([a-z-]+)[\"'])", source):
        number, name = match.groups()
        size = float(number) if number else named.get(name, 1.0) * 11.0
        if size < plotting.MIN_FONT_SIZE:
            found.append(match.group(0))
    for match in re.finditer(r"plotting\.figure\([^)]*\bwidth\s*=\s*([0-9.]+)", source):
        if float(match.group(1)) > plotting.MAX_WIDTH:
            found.append(match.group(0))
    return found


def png_outputs(notebook: dict):
    """(cell index, pixel width, CSS width or None) of each PNG a notebook shows."""
    for index, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" in data:
                raw = base64.b64decode(data["image/png"])
                pixels = struct.unpack(">I", raw[16:20])[0]
                css = output.get("metadata", {}).get("image/png", {}).get("width")
                yield index, pixels, css


def figure_problems(notebook: dict) -> list[str]:
    problems = []
    for index, pixels, css in png_outputs(notebook):
        if css is None or abs(pixels - 2 * css) > 1:
            problems.append(f"cell {index}: {pixels} px shown at {css} CSS px, not 2x")
        elif css > FIGURE_CSS_WIDTH:
            problems.append(f"cell {index}: {css} CSS px, wider than the column")
    return problems


def chapters(root: Path) -> list[Path]:
    return [*sorted((root / "book").glob("ch*.md")), root / "book" / "claims_ledger.md"]


def test_no_display_formula_loses_its_left_side(root):
    bad = {}
    for path in sorted((root / "book").glob("*.md")):
        if found := bracket_after_aligned(path.read_text()):
            bad[path.name] = found
    for path in sorted((root / "book").glob("*.ipynb")):  # glued formulas (theorems)
        if found := bracket_after_aligned(path.read_text()):
            bad[path.name] = found
    assert bad == {}


def test_the_bracket_check_fails_the_broken_definition():
    broken = "$$\n\\begin{aligned}\n[\\operatorname{pe}(\\text{pos})]_{2i-1} &= 1\n\\end{aligned}"
    fixed = broken.replace("\n[\\operatorname{pe}(\\text{pos})]", "\n{[\\operatorname{pe}]}")
    assert len(bracket_after_aligned(broken)) == 1
    assert bracket_after_aligned(fixed) == []
    assert len(bracket_after_aligned("\\begin{split}[x] = 1\\end{split}")) == 1


def test_teaching_cells_are_free_of_verdict_plumbing(root):
    found = {
        path.name: lines
        for path in chapters(root)
        if (
            lines := [
                line
                for cell in visible_code(path.read_text(), folded=False)
                for line in plumbing(cell)
            ]
        )
    }
    assert found == {}


def test_the_plumbing_check_sees_a_visible_verdict_and_ignores_a_hidden_one():
    visible = "```{code-cell} ipython3\nx = 1\nverdict = claims.judge('a', holds=True)\n```\n"
    hidden = "```{code-cell} ipython3\n:tags: [remove-input]\n\nglue('x', 1)\n```\n"
    cells = visible_code(visible + "\n" + hidden)
    assert len(cells) == 1
    assert plumbing(cells[0]) == ["verdict = claims.judge('a', holds=True)"]


def test_visible_code_fits_the_column(root):
    found = {
        path.name: lines
        for path in chapters(root)
        if (lines := [line for cell in visible_code(path.read_text()) for line in long_lines(cell)])
    }
    assert found == {}
    assert long_lines("x = 1\n" + "y" * 81) == ["y" * 81]


def test_figures_are_sharp_and_fit_the_column(root):
    problems = {}
    for path in sorted((root / "book").glob("ch*.ipynb")):
        notebook = json.loads(path.read_text())
        assert list(png_outputs(notebook)) or path.stem.startswith(("ch01", "ch02"))
        if found := figure_problems(notebook):
            problems[path.name] = found
    assert problems == {}


def _png_header(width: int) -> str:
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", width, 10)
    return base64.b64encode(header).decode()


@pytest.mark.parametrize(
    ("pixels", "css", "problem"),
    [
        (1422, 711, None),
        (711, None, "711 px shown at None CSS px, not 2x"),  # a plain 100-dpi PNG
        (1422, 400, "1422 px shown at 400 CSS px, not 2x"),
        (2000, 1000, "1000 CSS px, wider than the column"),
    ],
)
def test_the_figure_check_fails_blurry_and_oversized_figures(pixels, css, problem):
    metadata = {"image/png": {"width": css}} if css else {}
    output = {"data": {"image/png": _png_header(pixels)}, "metadata": metadata}
    found = figure_problems({"cells": [{"outputs": [output]}]})
    assert found == ([] if problem is None else [f"cell 0: {problem}"])


def test_no_chapter_asks_for_small_figure_text(root):
    found = {path.name: hits for path in chapters(root) if (hits := small_text(path.read_text()))}
    assert found == {}
    assert small_text('ax.text(0, 0, "p", fontsize=8)') == ["fontsize=8"]
    assert small_text('ax.legend(fontsize="small")') == ['fontsize="small"']
    assert small_text("ax.set_title('t', fontsize=12)") == []
    assert small_text("plotting.figure(ncols=3, width=9.0)") == [
        "plotting.figure(ncols=3, width=9.0"
    ]


PREDICT = re.compile(
    r":::\{admonition\} Predict, then run\n:class: tip\n.*?:::\n(.*?):::\{admonition\} Answer\n"
    r":class: dropdown\n",
    re.S,
)


def predictions(markdown: str) -> int:
    """Predict-then-reveal questions: a question box, then (after the cell) its answer."""
    return len(PREDICT.findall(markdown))


def test_every_chapter_asks_the_reader_to_predict(root):
    chapters = (root / "book").glob("ch[0-9][0-9]_*.md")
    counts = {path.stem: predictions(path.read_text()) for path in chapters}
    assert len(counts) >= 7 and min(counts.values()) >= 1, counts
    assert sum(counts.values()) >= 10, counts
    question = ":::{admonition} Predict, then run\n:class: tip\n\nWhich?\n:::\n\ncell\n\n"
    assert predictions(question + ":::{admonition} Answer\n:class: dropdown\n\nThis.\n:::\n") == 1
    assert predictions(question) == 0  # a question without its answer does not count


def wide_tables(text: str, columns: int = PHONE_COLUMNS) -> list[str]:
    """Lines of printed tables wider than ``columns``.

    A table is two or more consecutive lines that each have at least two fields set
    apart by a run of two or more spaces (the way ``f"{x:>8}"`` columns print).
    """
    table = re.compile(r"\S {2,}\S")
    wide, run = [], []
    for line in [*text.splitlines(), ""]:
        if table.search(line.strip()):
            run.append(line)
            continue
        if len(run) >= 2:
            wide += [row for row in run if len(row.rstrip()) > columns]
        run = []
    return wide


def printed_text(notebook: dict) -> list[tuple[str, bool]]:
    """Every stream and text/plain output of the visible cells of an executed twin, each
    with whether it is folded (shown in a box the reader opens)."""
    texts = []
    for cell in notebook["cells"]:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell["cell_type"] != "code" or "remove-output" in tags or "remove-cell" in tags:
            continue
        folded = "hide-output" in tags or "hide-cell" in tags
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            if "image/png" in output.get("data", {}) or "text/html" in output.get("data", {}):
                continue
            texts.append(("".join(text) if isinstance(text, list) else text, folded))
    return texts


def test_printed_tables_fit_a_phone(root):
    problems = []
    for twin in sorted((root / "book").glob("*.ipynb")):
        notebook = json.loads(twin.read_text(encoding="utf-8"))
        for text, folded in printed_text(notebook):
            columns = PHONE_COLUMNS_FOLDED if folded else PHONE_COLUMNS
            problems += [f"{twin.name}: {line!r}" for line in wide_tables(text, columns)]
    assert problems == [], "\n".join(problems)


def test_the_table_check_sees_a_wide_table_and_not_prose():
    narrow = "pair    period\n   0      6.28\n   1     62.83\n"
    wide = (
        "position   "
        + "   ".join(["0.000000"] * 6)
        + "\nrow        "
        + "   ".join(["1.000000"] * 6)
    )
    prose = "A long sentence of printed prose that wraps harmlessly on a phone, " * 2
    assert wide_tables(narrow) == []
    assert len(wide_tables(wide)) == 2
    assert wide_tables(prose) == []
    assert wide_tables(wide.splitlines()[0]) == []  # one line is not a table


#: A panel's place named in a caption, and what must follow it: the phone stacks the
#: panels of a figure drawn side by side (book_assets.PhoneFigures).
SIDE = re.compile(r"(?<!to the )(?<!is )\b(left|right)\b(?! of\b)", re.IGNORECASE)
ON_A_PHONE = re.compile(r"\s*[(;,]\s*(top|bottom) on a phone")


def side_by_side(source: str) -> bool:
    """Whether a figure cell draws panels side by side (``ncols`` of two or more)."""
    return any(int(n) >= 2 for n in re.findall(r"\bncols\s*=\s*(\d+)", source))


def sides_without_phone(caption: str) -> list[str]:
    """Places "left"/"right" in a caption not followed by their place on a phone."""
    found = []
    for match in SIDE.finditer(caption):
        if not ON_A_PHONE.match(caption, match.end()):
            found.append(caption[max(0, match.start() - 20) : match.end() + 20])
    return found


def test_captions_of_stacked_panels_say_where_they_are_on_a_phone(root):
    problems, checked = [], 0
    for path in sorted((root / "book").glob("ch*.md")):
        for cell in jupytext.reads(path.read_text(), fmt="md:myst").cells:
            figure = cell.metadata.get("mystnb", {}).get("figure", {})
            if cell.cell_type != "code" or not side_by_side(cell.source):
                continue
            checked += 1
            caption = " ".join(figure.get("caption", "").split())
            problems += [f"{path.name}: ...{text}..." for text in sides_without_phone(caption)]
    assert checked >= 8
    assert problems == [], "\n".join(problems)


def test_the_caption_check_sees_a_bare_left_and_not_a_direction():
    assert len(sides_without_phone("Left: the table. Right: its spectrum.")) == 2
    assert sides_without_phone("the weight falls (left); accuracy too (right).") != []
    fine = (
        "Left (top on a phone): the table. Right (bottom on a phone): its spectrum; "
        "the band just left of the diagonal, the keys further back (to the left), "
        "more (left; top on a phone), and what is left after it."
    )
    assert sides_without_phone(fine) == []
    assert side_by_side("fig, axes = plotting.figure(ncols=2)")
    assert not side_by_side("fig, ax = plotting.figure(ncols=1)")


def straight_quotes_in_titles(pages) -> list[str]:
    """The page titles (``# ...``) holding a straight quote."""
    found = []
    for page in pages:
        title = next(
            line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("# ")
        )
        if "'" in title or '"' in title:
            found.append(f"{page.name}: {title}")
    return found


def test_no_page_title_has_a_straight_quote(root, tmp_path):
    """sphinx-proof numbers a page's theorems in the PDF only if it finds the page's
    section by its title, and smartquotes curls the title's ' (U+2019), which the
    section's name keeps straight: chapter 9's theorems lost their numbers in the PDF.
    Type the curly apostrophe in the title instead."""
    pages = sorted((root / "book").glob("*.md"))
    assert len(pages) >= 10 and straight_quotes_in_titles(pages) == []
    planted = tmp_path / "ch99.md"
    planted.write_text("(ch-x)=\n# Positions in today's models\n", encoding="utf-8")
    assert straight_quotes_in_titles([planted]) == ["ch99.md: # Positions in today's models"]
