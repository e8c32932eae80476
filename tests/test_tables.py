"""The table checker, sinpe.checkpoint.tables: real tables named, bugs seen in real code
caught and reported in words (the sources are in chapter 6's gallery)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import sinpe
from sinpe import symbolic as sym
from sinpe.checkpoint import tables
from sinpe.checkpoint.tables import inspect_table

# The table checker, on bugs seen in real code (the sources are in chapter 6's gallery).
positions = np.arange(64)[:, None]
i = np.arange(0, 32, 2)


def paper_like(frequencies_of_i):
    table = np.zeros((64, 32))
    table[:, 0::2] = np.sin(positions * frequencies_of_i)
    table[:, 1::2] = np.cos(positions * frequencies_of_i)
    return table


def test_checker_accepts_real_tables_and_names_them():
    assert inspect_table(sinpe.positional_encoding(np.arange(64), 32)).matches == ["paper"]
    report = inspect_table(sinpe.encode(np.arange(64), 32, "whisper"))
    assert report.valid and {"tensor2tensor", "whisper"} <= set(report.matches)
    assert (
        "hf-marian"
        in inspect_table(sinpe.positional_encoding(np.arange(64), 32, layout="concat")).matches
    )
    low = inspect_table(sinpe.positional_encoding(np.arange(64), 32, dtype=np.float16))
    assert low.valid and low.matches == ["paper"]


@pytest.mark.parametrize(
    ("name", "table", "words"),
    [
        ("integer division", paper_like(1 / 10000 ** (i // 32)), "distinct"),
        ("/div_term instead of *", paper_like(10000 ** (i / 32)), None),
        ("sin only", np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32)), "no pairing"),
        (
            "wrong exponent on cos",
            np.where(
                np.arange(32) % 2 == 0,
                np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32)),
                np.cos(positions / 10000 ** (np.arange(32) / 32)),
            ),
            None,
        ),
        (
            "every token position 0",
            np.tile(sinpe.positional_encoding(0, 32), (64, 1)),
            "rows are distinct",
        ),
        (
            "fp16 phases",
            paper_like(
                (positions * (1 / 10000 ** (i / 32))).astype(np.float16) / np.maximum(positions, 1)
            ),
            None,
        ),
    ],
)
def test_checker_rejects_or_does_not_recognise_bugs(name, table, words):
    report = inspect_table(table)
    assert "paper" not in report.matches, name
    if words is not None:
        assert not report.valid and any(words in problem for problem in report.problems), name


# The same bugs as in sinpe.checkpoint.tables.BUGGY_TABLES, transcribed independently above from
# the reports (the registry must build exactly these tables).
TRANSCRIBED = {
    "integer division 2*i//d": paper_like(1 / 10000 ** (i // 32)),
    "/div_term instead of *": paper_like(10000 ** (i / 32)),
    "sines only": np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32)),
    "every token at position 0": np.tile(sinpe.positional_encoding(0, 32), (64, 1)),
}


@pytest.mark.parametrize("name", sorted(TRANSCRIBED))
def test_registry_builds_the_transcribed_bug(name):
    built = tables.buggy_table(name, np.arange(64), 32)
    # phases up to 6e5 radians for /div_term: the two transcriptions round differently
    np.testing.assert_allclose(built, TRANSCRIBED[name], rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", sorted(tables.BUGGY_TABLES))
def test_checker_catches_every_bug_in_the_registry(name):
    bug = tables.BUGGY_TABLES[name]
    assert bug.name == name and bug.bug and bug.source
    report = inspect_table(tables.buggy_table(name, np.arange(64), 32))
    # flagged: a property fails, or (a valid rotation) no code base computes it
    assert not report.valid or not report.matches, (name, report)


def test_registry_hand_values():
    p = np.arange(3.0)
    # integer division: every pair at frequency 1
    assert tables.buggy_table("integer division 2*i//d", p, 4)[2].tolist() == [
        math.sin(2),
        math.cos(2),
        math.sin(2),
        math.cos(2),
    ]
    # /div_term: pair 1 of d = 4 turns 100 radians per position instead of 1/100
    assert tables.buggy_table("/div_term instead of *", p, 4)[1, 2] == pytest.approx(
        math.sin(100.0), abs=1e-12
    )
    # fp16 phases: 2 * 10000**(-1/2) = 0.02 rounds to float16 0.0200042724609375, and
    # its sine, taken in float16 too, rounds back to the same float16 (sin x ~ x there)
    assert tables.buggy_table("fp16 phases", p, 4)[2, 2] == 0.0200042724609375
    assert tables.buggy_table("swapped layout (cos, sin)", p, 2)[1].tolist() == [
        math.cos(1),
        math.sin(1),
    ]
    with pytest.raises(ValueError, match="name must be one of"):
        tables.buggy_table("no such bug", p, 4)


def test_registry_and_symbolic_wrong_encodings_are_one_gallery():
    linked = {bug.symbolic: bug.name for bug in tables.BUGGY_TABLES.values() if bug.symbolic}
    assert set(linked) == set(sym.WRONG_ENCODINGS)
    for key, name in linked.items():
        column = sym.WRONG_ENCODINGS[key](sym.position, 6, base=sp.Integer(10000))
        evaluate = sp.lambdify(sym.position, column.T, "numpy")
        rows = np.array([np.asarray(evaluate(q), float).ravel() for q in range(5)])
        np.testing.assert_allclose(tables.buggy_table(name, np.arange(5), 6), rows, atol=1e-12)


def test_checker_reports_in_words():
    text = str(inspect_table(np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32))))
    assert "NOT a valid sinusoidal table" in text and "no known convention" in text
    with pytest.raises(ValueError, match="shape"):
        inspect_table(np.zeros(5))
    assert inspect_table(sinpe.positional_encoding(np.arange(5), 4)).shape == (5, 4)


def test_a_concat_table_is_named_once():
    # issue 17: the paper's table in the concat layout is Hugging Face Marian's, and
    # used to be reported twice, as 'hf-marian' and 'paper (concat layout)'.
    table = sinpe.positional_encoding(np.arange(40), 16, layout="concat")
    assert inspect_table(table).matches == ["hf-marian"]
