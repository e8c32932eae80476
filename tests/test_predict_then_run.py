"""Predict, then run: no answer is shown before the reader asks for it (issue 30, item 3).

Every "Predict, then run" box of a chapter must be followed, before the next one, by
an "Answer" box that is folded (``:class: dropdown``); and no code cell between the
two may show its output unfolded. A code cell there passes when its output is folded
or removed (tags ``hide-output``, ``hide-cell``, ``remove-output``, ``remove-cell``) or
when it shows nothing: no outputs in the executed twin other than glue records made
with ``display=False``. Nor may visible code there state the answer: a line that checks
a result against a number (``assert flattest == 7``, ``np.isclose(x, 256.0)``) goes to
a hidden cell (issue 41). Prose that gives the answer away (the paragraph after a
folded Answer restating it) cannot be checked by a program; the browser test
(tests/test_site.py) checks the built pages.

The structure comes from the MyST sources (``book/ch*.md``, read by jupytext); the
outputs from the executed twins beside them, cell by cell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "book").glob("ch*.md"))

PREDICT, ANSWER = "Predict, then run", "Answer"
FOLDED_OUTPUT = frozenset({"hide-output", "hide-cell", "remove-output", "remove-cell"})
HIDDEN_INPUT = frozenset({"hide-input", "hide-cell", "remove-input", "remove-cell"})

#: A code line that checks a result against a number: it states the answer.
_CHECK = re.compile(
    r"\b(?:assert\b.*(?:==|!=|<=|>=|<|>)\s*-?\(?\d|(?:isclose|allclose)\([^()]*,\s*-?\d)"
)

#: An admonition's opening line and its options (``:class: ...``) up to the first blank line.
_ADMONITION = re.compile(
    r"^(?P<fence>:{3,}|`{3,})\{admonition\}[ \t]*(?P<title>[^\n]*)\n(?P<options>(?::[^\n]*\n)*)",
    re.M,
)


@dataclass
class Box:
    title: str
    classes: list[str]
    where: str


def shows_output(outputs: list) -> bool:
    """Whether a cell's stored outputs show anything: glue records with display=False
    (outputs marked with a scrapbook ``mime_prefix``) show nothing."""
    return any(
        not output.get("metadata", {}).get("scrapbook", {}).get("mime_prefix") for output in outputs
    )


def boxes(markdown: str, where: str) -> list[Box]:
    found = []
    for match in _ADMONITION.finditer(markdown):
        title = match["title"].strip()
        if title not in (PREDICT, ANSWER):
            continue
        options = dict(
            line[1:].split(":", 1) for line in match["options"].splitlines() if ":" in line[1:]
        )
        classes = options.get("class", "").split()
        found.append(Box(title, classes, where))
    return found


def spoilers(notebook) -> list[str]:
    """What gives an answer away in an executed notebook (its cells carry outputs)."""
    problems: list[str] = []
    open_box: Box | None = None
    for index, cell in enumerate(notebook.cells):
        where = f"cell {index}"
        if cell.cell_type == "markdown":
            for box in boxes(cell.source, where):
                if box.title == PREDICT:
                    if open_box is not None:
                        problems.append(f"{open_box.where}: Predict box with no Answer after it")
                    open_box = box
                elif open_box is None:
                    continue  # an Answer with no question: not this test's business
                else:
                    if "dropdown" not in box.classes:
                        problems.append(f"{where}: Answer not folded (add ':class: dropdown')")
                    open_box = None
            continue
        if open_box is None or cell.cell_type != "code":
            continue
        tags = set(cell.metadata.get("tags", []))
        if not tags & HIDDEN_INPUT:
            problems += [
                f"{where}: visible code states the answer before it is opened: "
                f"{line.strip()!r} (move it to a hidden cell)"
                for line in cell.source.splitlines()
                if _CHECK.search(line)
            ]
        if not tags & FOLDED_OUTPUT and shows_output(cell.get("outputs", [])):
            problems.append(
                f"{where}: output shown between a Predict box ({open_box.where}) and its "
                "Answer (tag the cell hide-output)"
            )
    if open_box is not None:
        problems.append(f"{open_box.where}: Predict box with no Answer after it")
    return problems


def executed(chapter: Path):
    """The chapter's cells as its MyST source has them, with the twin's outputs."""
    notebook = jupytext.read(chapter)
    twin = nbformat.read(chapter.with_suffix(".ipynb"), as_version=4)
    assert [c.source for c in notebook.cells] == [c.source for c in twin.cells], (
        f"{chapter.name} and its twin differ: rebuild the twin "
        f"(python -m scripts.notebooks build book/{chapter.name})"
    )
    for cell, stored in zip(notebook.cells, twin.cells, strict=True):
        if cell.cell_type == "code":
            cell.outputs = stored.outputs
    return notebook


# --- the check, shown failing on planted cases -----------------------------------------


def _notebook(*cells):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = list(cells)
    return notebook


def _code(tags=(), *, prints=False, glue_only=False):
    cell = nbformat.v4.new_code_cell("x = 1")
    if tags:
        cell.metadata["tags"] = list(tags)
    if prints:
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    if glue_only:
        record = nbformat.v4.new_output(
            "display_data",
            data={"application/papermill.record/text/plain": "'0.5'"},
            metadata={"scrapbook": {"name": "x", "mime_prefix": "application/papermill.record/"}},
        )
        cell.outputs = [record]
    return cell


_QUESTION = nbformat.v4.new_markdown_cell(
    ":::{admonition} Predict, then run\n:class: tip\n\nHow much?\n:::\n"
)
_FOLDED = nbformat.v4.new_markdown_cell(":::{admonition} Answer\n:class: dropdown\n\n42.\n:::\n")
_OPEN = nbformat.v4.new_markdown_cell(":::{admonition} Answer\n:class: note\n\n42.\n:::\n")


def test_a_well_formed_box_passes():
    notebook = _notebook(
        _QUESTION,
        _code(),  # no output
        _code(("hide-output",), prints=True),
        _code(("hide-input", "hide-output"), prints=True),
        _code(("remove-input",), glue_only=True),
        _FOLDED,
        _code(prints=True),  # after the Answer: fine
    )
    assert spoilers(notebook) == []


def test_an_output_shown_before_the_answer_is_caught():
    for tags in ((), ("hide-input",), ("remove-input",)):
        notebook = _notebook(_QUESTION, _code(tags, prints=True), _FOLDED)
        assert len(spoilers(notebook)) == 1, tags


def test_visible_code_that_states_the_answer_is_caught():
    def cell(source, tags=()):
        code = nbformat.v4.new_code_cell(source)
        code.metadata["tags"] = list(tags)
        return code

    for line in ("assert flattest == 7", "ok = np.isclose(far @ far, 256.0)", "assert x < 1e-2"):
        found = spoilers(_notebook(_QUESTION, cell(line, ("hide-output",)), _FOLDED))
        assert len(found) == 1 and "states the answer" in found[0], line
        assert spoilers(_notebook(_QUESTION, cell(line, ("remove-input",)), _FOLDED)) == []
        assert spoilers(_notebook(_QUESTION, _FOLDED, cell(line))) == []  # after: fine
    harmless = "ok = all(np.allclose(np.diag(g, k), row[9 - k]) for k in range(-9, 10))"
    assert spoilers(_notebook(_QUESTION, cell(harmless, ("hide-output",)), _FOLDED)) == []


def test_an_unfolded_or_missing_answer_is_caught():
    assert "not folded" in spoilers(_notebook(_QUESTION, _OPEN))[0]
    assert "no Answer" in spoilers(_notebook(_QUESTION, _code()))[0]
    assert "no Answer" in spoilers(_notebook(_QUESTION, _QUESTION, _FOLDED))[0]


def test_the_options_of_a_backtick_admonition_are_read():
    fenced = nbformat.v4.new_markdown_cell("```{admonition} Answer\n:class: dropdown\n\n42.\n```\n")
    assert spoilers(_notebook(_QUESTION, fenced)) == []


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: path.stem)
def test_no_answer_is_shown_before_it_is_opened(chapter: Path):
    assert spoilers(executed(chapter)) == []


def test_the_book_has_predict_boxes():
    """The chapter check must not pass for want of boxes to check."""
    count = sum(
        box.title == PREDICT
        for chapter in CHAPTERS
        for cell in jupytext.read(chapter).cells
        if cell.cell_type == "markdown"
        for box in boxes(cell.source, "")
    )
    assert count >= 16
