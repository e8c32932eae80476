"""The "Where else to read" page (issue 40): every disagreement it lists is quoted,
addressed and backed by a check of this repository."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

import sinpe

PAGE = "book/where_else_to_read.md"
CONFIGS = "sinpe/data/configs"


def sections(text: str) -> dict[str, str]:
    """The page's ``## `` sections by title."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.fixture(scope="module")
def page(root) -> dict[str, str]:
    return sections((root / PAGE).read_text(encoding="utf-8"))


def test_the_page_is_in_the_back_matter(root):
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    assert toc.index("book/where_else_to_read") > toc.index("caption: Back matter")


def test_each_anchor_says_what_it_does_best_and_where_the_book_goes_further(page):
    assert len(page) == 9
    for title, body in page.items():
        assert "**Best at:**" in body and "**Goes further here:**" in body, title
        assert "{cite}`" in body, title  # the anchor in the bibliography


def test_every_disagreement_is_quoted_with_the_address_and_source_it_was_read_from(page):
    listed = 0
    for title, body in page.items():
        verdict = re.search(
            r"\*\*Where a check here (disagrees|qualifies it)(:?)\*\*(.*)", body, re.S
        )
        assert verdict, title
        if verdict.group(2) == ":":
            assert verdict.group(3).lstrip().startswith("none listed"), title
            assert "> " not in body, title  # nothing quoted where nothing could be read
            continue
        listed += 1
        rest = verdict.group(3)
        assert re.search(r"read from\s+<https://[^>\s]+>", rest), title
        assert re.search(
            r"source\s+`[\w.-]+/[\w.-]+`, file\s+`[^`]+`,\s+commit\s+`[0-9a-f]{40}`", rest
        )
        assert re.search(r"^  > \S", rest, re.M), title  # the quote, word for word
    assert listed == 3


def _inspect(path: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "sinpe", "inspect", path, "--json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    (encoding,) = json.loads(out)["encodings"]
    return encoding


def test_phi2_has_no_rope_scaling_and_longrope_came_with_phi3(page, root):
    """The documentation's "LongRoPE scaling as in Phi-2 model series", against the configs."""
    assert "Phi-2 model series" in page["Hugging Face's RoPE utilities page"]
    phi2 = _inspect(str(root / CONFIGS / "phi-2" / "config.json"))
    phi3 = _inspect(str(root / CONFIGS / "Phi-3.5-mini-instruct" / "config.json"))
    assert phi2["kind"] == "rope" and phi2["scaling"] is None
    assert phi3["scaling"]["type"] == "longrope"


@pytest.mark.parametrize("d_model", [64, 128, 512, 4096])
def test_the_base_is_not_a_wavelength(d_model):
    """Fleetwood's "10,000 is the base wavelength": the wavelengths are 2 pi C^(2i/d)."""
    wavelengths = sinpe.wavelengths(d_model)
    assert wavelengths[0] == pytest.approx(2 * np.pi, rel=1e-15)
    assert wavelengths[-1] < 2 * np.pi * 10000
    assert not np.isclose(wavelengths, 10000.0, rtol=1e-3).any()
