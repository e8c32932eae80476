"""The live cells' tags against their committed measurement (issue 41), without timing.

Every code cell of a chapter that ``live_chapters`` names, hidden or shown, has its
seconds in ``book/_live/seconds.json`` for its present source (a new or edited cell
has none until `python -m scripts.live_seconds measure book/chNN_topic`), and carries
the tag ``not-in-page`` exactly when the page cannot run it: its source needs what a
browser lacks, or the measurement found it over ten seconds or stopping with an error.
The seconds are read from the file, never measured here.
"""

from __future__ import annotations

import pytest

from scripts import live_seconds

CHAPTERS = live_seconds.live_chapters()


@pytest.fixture(scope="module")
def record():
    return live_seconds.load()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_cell_of_a_live_chapter_has_its_seconds_measured(chapter, record):
    missing = [
        cell["index"]
        for cell in live_seconds.cells(live_seconds.notebook(chapter))
        if live_seconds.lacks(cell["source"]) is None
        and live_seconds.entry(record, chapter, cell) is None
    ]
    assert missing == [], (
        f"{chapter}: cells {missing} have no measurement of their present source: "
        f"python -m scripts.live_seconds measure {chapter}"
    )


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_cell_is_tagged_exactly_when_the_page_cannot_run_it(chapter, record):
    wrong = []
    for cell in live_seconds.cells(live_seconds.notebook(chapter)):
        why = live_seconds.reason(cell["source"], live_seconds.entry(record, chapter, cell))
        if (why is None) != cell["runnable"]:
            wrong.append(f"cell {cell['index']}: tagged {not cell['runnable']}, {why or 'runs'}")
    assert wrong == [], f"{chapter}: {wrong}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_live_chapter_has_a_cell_to_run(chapter):
    cells = live_seconds.cells(live_seconds.notebook(chapter))
    assert any(cell["shown"] and cell["runnable"] for cell in cells), chapter


def _measured(seconds, **more):
    return {"sha256": "x", "seconds": seconds, **more}


def test_the_reason_is_what_the_browser_lacks_or_the_seconds_measured():
    reason = live_seconds.reason
    assert reason("import torch\nx = 1", _measured(0.1)) == (
        "it needs PyTorch, which a browser lacks"
    )
    assert reason("import subprocess", None) == "it needs a subprocess, which a browser lacks"
    assert reason("from concurrent.futures import ThreadPoolExecutor", None).startswith(
        "it needs threads"
    )
    assert reason("x = 1", None) is None  # not measured: the tests above say so
    assert reason("x = 1", _measured(live_seconds.LIMIT)) is None
    assert reason("x = 1", _measured(9.99)) is None
    assert reason("x = 1", _measured(87.6)) == "88 s in the page"
    assert reason("x = 1", _measured(60.02, stopped=True)) == "more than 60 s in the page"
    assert reason(
        "import sympy", _measured(0.2, error="ModuleNotFoundError: No module named 'sympy'")
    ) == ("it needs sympy, which the page does not load")
    mpmath = "ModuleNotFoundError: sinpe.numerics.reference_encoding needs mpmath: pip install"
    assert reason("r()", _measured(0.0, error=mpmath)) == (
        "it needs mpmath, which the page does not load"
    )
    assert reason("y = x", _measured(0.0, error="NameError: name 'x' is not defined")) == (
        "it needs what a cell above computes, which does not run in the page"
    )
    assert reason("1 / 0", _measured(0.0, error="ZeroDivisionError: division by zero")) == (
        "in the page it stops with ZeroDivisionError: division by zero"
    )
    assert reason("torchvision = 1", None) is None  # a word, not an import


def test_a_measurement_belongs_to_the_source_it_was_taken_of():
    cell = {"index": 3, "source": "x = 1"}
    record = {"chapters": {"ch": {"3": {"sha256": live_seconds.digest("x = 1"), "seconds": 0.1}}}}
    assert live_seconds.entry(record, "book/ch", cell) == record["chapters"]["ch"]["3"]
    assert live_seconds.entry(record, "book/ch", {**cell, "source": "x = 2"}) is None
    assert live_seconds.entry(record, "book/ch", {**cell, "index": 4}) is None
    assert live_seconds.entry(record, "book/other", cell) is None


def test_the_tag_takes_a_cell_out_of_the_page():
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": "text", "metadata": {}},
            {"cell_type": "code", "source": "x = 1", "metadata": {}},
            {
                "cell_type": "code",
                "source": ["train()\n", "y = 2"],
                "metadata": {"tags": [live_seconds.TAG]},
            },
            {"cell_type": "code", "source": "z", "metadata": {"tags": ["remove-input"]}},
        ]
    }
    found = live_seconds.cells(notebook)
    assert [(c["index"], c["shown"], c["runnable"]) for c in found] == [
        (1, True, True),
        (2, True, False),
        (3, False, True),
    ]
    assert found[1]["source"] == "train()\ny = 2"


def test_the_tag_is_written_into_every_form_of_a_cells_options():
    chapter = "\n".join(
        [
            "# A chapter",
            "```{code-cell} ipython3",
            "slow()",
            "```",
            "```{code-cell} ipython3",
            ":tags: [hide-input]",
            "slow()",
            "```",
            "```{code-cell} ipython3",
            "---",
            "mystnb:",
            "  figure: {}",
            "---",
            "slow()",
            "```",
            "```{code-cell} ipython3",
            ":tags: [remove-input, not-in-page]",
            "fast()",
            "```",
            "```{code-cell} ipython3",
            "---",
            "tags: [not-in-page]",
            "mystnb: {}",
            "---",
            "fast()",
            "```",
            "```{code-cell} ipython3",
            "kept()",
            "```",
        ]
    )
    written = live_seconds.retag(chapter, {0: True, 1: True, 2: True, 3: False, 4: False})
    assert written.split("\n") == [
        "# A chapter",
        "```{code-cell} ipython3",
        ":tags: [not-in-page]",
        "",
        "slow()",
        "```",
        "```{code-cell} ipython3",
        ":tags: [hide-input, not-in-page]",
        "slow()",
        "```",
        "```{code-cell} ipython3",
        "---",
        "tags: [not-in-page]",
        "mystnb:",
        "  figure: {}",
        "---",
        "slow()",
        "```",
        "```{code-cell} ipython3",
        ":tags: [remove-input]",
        "fast()",
        "```",
        "```{code-cell} ipython3",
        "---",
        "mystnb: {}",
        "---",
        "fast()",
        "```",
        "```{code-cell} ipython3",
        "kept()",
        "```",
    ]
    assert live_seconds.retag(written, {0: True, 1: True, 2: True}) == written
    untagged = live_seconds.retag(written, {0: False})  # off again, its blank line too
    assert untagged.split("\n")[1:4] == ["```{code-cell} ipython3", "slow()", "```"]
