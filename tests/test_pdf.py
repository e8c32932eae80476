"""The book as one PDF (`make pdf`): its text, read back with pdftotext (`make pdf-check`).

Needs `_build/pdf/sinpe-book.pdf` (`make pdf`: TeX, see the Makefile) and Debian's
`poppler-utils` (pdftotext, pdfinfo). Without them the tests skip with a hint, except
under CI=true, where they fail.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.pdf

PDF = "sinpe-book.pdf"
HINT = (
    "no {missing}: run `make pdf` (TeX: sudo apt-get install texlive-xetex latexmk "
    "texlive-latex-extra texlive-latex-recommended texlive-fonts-recommended "
    "fonts-freefont-otf), and install poppler-utils for pdftotext"
)


def _missing(what: str):
    if os.environ.get("CI") == "true":
        pytest.fail(HINT.format(missing=what))
    pytest.skip(HINT.format(missing=what))


@pytest.fixture(scope="session")
def pdf(root):
    built = root / "_build" / "pdf" / PDF
    if not built.exists():
        _missing(str(built.relative_to(root)))
    if shutil.which("pdftotext") is None or shutil.which("pdfinfo") is None:
        _missing("pdftotext")
    return built


@pytest.fixture(scope="session")
def pages(pdf) -> list[str]:
    """The text of each page, whitespace collapsed (pdftotext separates pages by \\f)."""
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    return [" ".join(page.split()) for page in text.split("\f")]


def _page_count(pdf) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.MULTILINE).group(1))


def _first_page(pages: list[str], text: str) -> int:
    found = [number for number, page in enumerate(pages, start=1) if text in page]
    assert found, f"{text!r} is on no page of the PDF"
    return found[0]


def test_the_whole_book_is_there(pdf, pages):
    assert _page_count(pdf) >= 80
    assert "sinpe: the sinusoidal positional encoding, executed" in pages[0]  # title page
    assert "The sinpe authors" in pages[0]


def test_the_file_name_is_the_configured_one(root):
    # book/_ext/book_assets.py and the Makefile copy the PDF under this name.
    config = (root / "_config.yml").read_text()
    assert re.search(r"^\s+targetname: sinpe-book\.tex$", config, re.MULTILINE)


def test_chapters_come_in_order(pages):
    contents = " ".join(pages[1:8])
    assert "1 The definition" in contents  # the table of contents
    openings = [
        _first_page(pages, f"Chapter {number}. {title}")  # running footers
        for number, title in [(1, "The definition"), (2, "Shifting a position is a rotation")]
    ]
    assert openings == sorted(openings)


def test_theorems_formulas_and_outputs(pages):
    # A theorem of chapter 2, and a number of chapter 1's worked vector (a cell output).
    assert _first_page(pages, "Theorem 2.1 (A shift rotates each pair)")
    assert _first_page(pages, "0.0998")
    # Unicode of the prose and of the outputs survives (FreeFont has the glyphs):
    # almost equal, minus sign, and the math italic omega of unicode-math.
    for glyph in ("\u2248", "\u2212", "\U0001d714"):
        assert _first_page(pages, glyph)


def test_the_animation_is_a_still_not_a_placeholder(pages):
    assert not [page for page in pages if "IPython.core.display" in page]
    assert _first_page(pages, "An animation in the HTML version of the book; here, its last frame.")


def test_references_close_the_book(pages):
    bibliography = _first_page(pages, "BIBLIOGRAPHY")
    assert bibliography > len(pages) / 2
    entries = " ".join(pages[bibliography - 1 :])
    assert "[Vaswani et al., 2017]" in entries
    assert "Attention is all you need" in entries


#: What the book numbers with a caption: sphinx-proof's statements, sphinx-exercise's
#: exercises, and figures.
NUMBERED = r"(Theorem|Lemma|Corollary|Proposition|Definition|Remark|Example|Exercise|Fig\.)"
_CAPTION = re.compile(
    r'<span class="caption-number">' + NUMBERED + r" (\d+(?:\.\d+)*) </span>(.*?)</p>", re.S
)
_LABEL = re.compile(NUMBERED + r"\s+(\d+(?:\.\d+)+)\b")


def web_captions(page: str) -> list[tuple[str, str, str]]:
    """The numbered captions of a web page: ``(kind, number, title)``, the title as text
    ("(A shift rotates each pair)"; empty for an untitled exercise)."""
    return [
        (kind, number, " ".join(html.unescape(re.sub(r"<[^>]+>", "", title)).split()))
        for kind, number, title in _CAPTION.findall(page)
    ]


def test_web_captions_are_read(root):
    page = (
        '<p class="admonition-title"><span class="caption-number">Theorem 2.1 </span>'
        " (A shift <em>rotates</em> &amp; turns)</p>"
        '<p class="admonition-title"><span class="caption-number">Exercise 3.2 </span></p>'
        '<p><span class="caption-number">Fig. 8.11 </span><span class="caption-text">A'
        "</span></p>"
    )
    assert web_captions(page) == [
        ("Theorem", "2.1", "(A shift rotates & turns)"),
        ("Exercise", "3.2", ""),
        ("Fig.", "8.11", "A"),
    ]
    assert _LABEL.findall("see Theorem 2.1.1 and Fig. 3.4, not 1.2") == [
        ("Theorem", "2.1.1"),
        ("Fig.", "3.4"),
    ]


@pytest.fixture(scope="session")
def web(root) -> list[tuple[str, str, str]]:
    """The numbered captions of every chapter of the built web edition (`make book`)."""
    chapters = sorted((root / "_build" / "html" / "book").glob("ch[0-9][0-9]_*.html"))
    if not chapters:
        _missing("_build/html/book (make book)")
    return [caption for page in chapters for caption in web_captions(page.read_text())]


def test_numbers_are_the_webs(web, pages):
    """Theorems, exercises and figures carry the numbers of the web edition, and the
    statements their titles; no label in the PDF has a number the web does not show."""
    assert {kind for kind, _, _ in web} >= {"Theorem", "Definition", "Exercise", "Fig."}
    text = " ".join(pages)
    in_pdf = set(_LABEL.findall(text))
    web_labels = {(kind, number) for kind, number, _ in web}
    assert sorted(web_labels - in_pdf) == [], "numbered on the web, not in the PDF"
    assert sorted(in_pdf - web_labels) == [], "numbered in the PDF, not on the web"
    # A title's words up to its first formula (pdftotext spells formulas its own way).
    titled = [
        f"{kind} {number} {title.split(chr(92) + '(')[0]}".strip()
        for kind, number, title in web
        if kind != "Fig."
    ]
    assert [caption for caption in titled if caption not in text] == []


def test_proofs_are_titled(root, pages):
    """Each proof box has the title "Proof" (not an empty bar over "Proof. ...")."""
    chapters = (root / "_build" / "html" / "book").glob("ch[0-9][0-9]_*.html")
    proofs = sum(page.read_text().count('<div class="proof admonition"') for page in chapters)
    assert proofs >= 1
    text = " ".join(pages)
    assert "Proof. " not in text
    assert text.count("Proof ") >= proofs
