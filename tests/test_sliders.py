"""The sliders' formulas (book/_ext/static/sliders.js) held to sinpe's numbers, in node.

The page's script re-implements a few of sinpe's formulas, so that a figure moves
without a kernel (issue 41, item 2). Here node runs that very file on every value its
sliders offer (book/_ext/sliders.py: KINDS) and each result is compared with sinpe's:
the page cannot drift from the package. The slider figures on the built pages are moved
in Chromium by tests/test_site.py.

Tolerances: entries and dot products within 1e-12. ``Math.pow`` is not correctly rounded
(sinpe's frequencies are): a frequency may be a few ulps off, and a phase ``delta *
w_i`` is then off by about ``delta`` times that, so a distance at offset ``delta`` is held
within ``1e-12 + 1e-15 * delta``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess

import numpy as np
import pytest

import sinpe
from sinpe import geometry
from sinpe.rope import apply_rope

NODE = shutil.which("node")
#: Without node the tests skip with this hint, except under CI=true, where they fail.
NODE_HINT = "node is not installed: `sudo apt-get install nodejs` (Debian)"


@pytest.fixture(scope="module")
def node():
    if NODE is None:
        if os.environ.get("CI") == "true":
            pytest.fail(NODE_HINT)
        pytest.skip(NODE_HINT)
    return NODE


#: Runs the script's formulas on the requests given on stdin, one JSON list per line.
HARNESS = r"""
const formulas = require(process.argv[1]);
const requests = JSON.parse(require("fs").readFileSync(0, "utf8"));
const answers = requests.map(([name, ...args]) => {
  const found = formulas[name](...args);
  return ArrayBuffer.isView(found) ? Array.from(found) : found;
});
process.stdout.write(JSON.stringify(answers));
"""


@pytest.fixture(scope="module")
def sliders(root):
    spec = importlib.util.spec_from_file_location("sliders", root / "book/_ext/sliders.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def run(root, node):
    script = str(root / "book" / "_ext" / "static" / "sliders.js")

    def run(requests: list) -> list:
        done = subprocess.run(
            [node, "-e", HARNESS, script],
            input=json.dumps(requests),
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(done.stdout)

    return run


def _values(sliders, kind: str, name: str) -> list:
    return next(c["values"] for c in sliders.KINDS[kind]["controls"] if c["name"] == name)


def test_frequencies_and_wavelengths_within_a_few_ulps(sliders, run):
    """Every width and base the ladder offers; of the heatmap's widths (every even one
    from 32 to 256) every tenth and the last, with every base."""
    heatmap_widths = _values(sliders, "heatmap", "width")
    grid = sorted(
        {(w, b) for w in _values(sliders, "ladder", "width") for b in sliders.BASES}
        | {(w, b) for w in heatmap_widths[::10] + heatmap_widths[-1:] for b in sliders.BASES}
    )
    found = run([["frequencies", width, base] for width, base in grid])
    lengths = run([["wavelengths", js] for js in found])
    for (width, base), js, length in zip(grid, found, lengths, strict=True):
        assert len(js) == width // 2
        exact = sinpe.frequencies(width, base=base)
        np.testing.assert_allclose(js, exact, rtol=1e-14, atol=0, err_msg=f"{width}, {base}")
        np.testing.assert_allclose(length, sinpe.wavelengths(width, base=base), rtol=1e-14)


def test_the_heatmap_and_its_readout_match_sinpe(sliders, run):
    config = sliders.KINDS["heatmap"]
    positions, rows = config["positions"], config["rows"]
    widths = _values(sliders, "heatmap", "width")
    grid = [(w, b) for w in (widths[0], 98, 128, 130, widths[-1]) for b in sliders.BASES]
    ladders = run([["frequencies", width, base] for width, base in grid])
    requests = []
    for ladder in ladders:
        requests += [["encoding", p, ladder] for p in (1, 37, positions)]
        requests.append(["meanChanges", ladder, positions, rows])
    found = iter(run(requests))
    for width, base in grid:
        table = sinpe.positional_encoding(np.arange(1, positions + 1), width, base=base)
        for p in (1, 37, positions):
            np.testing.assert_allclose(next(found), table[p - 1], rtol=0, atol=1e-12)
        change = np.abs(np.diff(table.T, axis=1)).mean(axis=1)
        means = next(found)
        assert means["bottom"] == pytest.approx(change[:rows].mean(), abs=1e-12)
        assert means["top"] == pytest.approx(change[-rows:].mean(), abs=1e-12)


def test_the_ladder_distances_and_aliasing_match_geometry(sliders, run):
    config = sliders.KINDS["ladder"]
    context, far = config["context"], config["far"]
    widths, bases = _values(sliders, "ladder", "width"), _values(sliders, "ladder", "base")
    # the search is the slowest formula: four bases at d = 128, and both ends of the widths
    grid = [(128, b) for b in (bases[0], bases[1], 10000.0, bases[-1])]
    grid += [(w, 100.0) for w in (widths[0], widths[-1])]
    ladders = run([["frequencies", width, base] for width, base in grid])
    offsets = np.unique(np.geomspace(1, context - 1, 200).astype(int)).tolist()
    requests = []
    for ladder in ladders:
        requests += [["distanceByOffset", delta, ladder] for delta in offsets]
        requests.append(["aliasing", context, ladder, far])
    found = iter(run(requests))
    for width, base in grid:
        js = np.array([next(found) for _ in offsets])
        exact = geometry.distance_by_offset(offsets, width, base=base)
        assert np.all(np.abs(js - exact) <= 1e-12 + 1e-15 * np.array(offsets)), (width, base)
        alias, expected = next(found), geometry.aliasing(context, width, base=base, far=far)
        assert (alias["farOffset"], alias["looksLike"]) == (
            expected.far_offset,
            expected.looks_like,
        ), (width, base)
        assert alias["distance"] == pytest.approx(expected.distance, abs=1e-10)


def test_the_rope_pair_turns_as_apply_rope(sliders, run):
    config = sliders.KINDS["rope-pair"]
    shifts, gaps = _values(sliders, "rope-pair", "shift"), _values(sliders, "rope-pair", "gap")
    keys = np.array([config["key"] + s for s in shifts for _ in gaps], dtype=float)
    queries = keys + np.array([g for _ in shifts for g in gaps], dtype=float)
    theta = config["theta"]
    requests = [["rotate", config["q"], m, theta] for m in queries.tolist()]
    requests += [["rotate", config["k"], n, theta] for n in keys.tolist()]
    found = np.array(run(requests))
    turned = {
        "q": apply_rope(np.tile(config["q"], (keys.size, 1)), queries, frequencies=[theta]),
        "k": apply_rope(np.tile(config["k"], (keys.size, 1)), keys, frequencies=[theta]),
    }
    np.testing.assert_allclose(found[: keys.size], turned["q"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(found[keys.size :], turned["k"], rtol=0, atol=1e-12)


def test_the_shifted_pairs_and_their_dot_product_match_sinpe(sliders, run):
    config = sliders.KINDS["shift-pairs"]
    width, base = config["width"], config["base"]
    ladder = run([["frequencies", width, base]])[0]
    positions = _values(sliders, "shift-pairs", "position")
    shifts = _values(sliders, "shift-pairs", "shift")
    requests = [
        ["encoding", p, ladder] for p in range(min(positions), max(positions) + max(shifts) + 1)
    ]
    requests += [["dotByOffset", k, ladder] for k in shifts]
    found = run(requests)
    table = sinpe.positional_encoding(
        np.arange(min(positions), max(positions) + max(shifts) + 1), width, base=base
    )
    np.testing.assert_allclose(found[: len(table)], table, rtol=0, atol=1e-12)
    dots = geometry.dot_product_by_offset(shifts, width, base=base)
    np.testing.assert_allclose(found[len(table) :], dots, rtol=0, atol=1e-12)


def test_the_tolerance_tells_a_wrong_convention_apart(run):
    """The comparison would fail for a script that drifted to another convention: the
    ``n - 1`` spacing of tensor2tensor differs from the paper's by far more than 1e-12."""
    from sinpe import conventions

    ladder = run([["frequencies", 128, 10000.0]])[0]
    js = np.array(run([["encoding", 37, ladder]])[0])
    assert np.abs(js - sinpe.positional_encoding(37, 128)).max() < 1e-12
    wrong = conventions.encode(37, 128, "tensor2tensor")
    wrong = sinpe.convert_layout(wrong, "concat", "interleaved")
    assert np.abs(js - wrong).max() > 1e-3


# --- book/_ext/sliders.py: the directive in a small Sphinx project -------------------

PAGE = """A page
======

.. slider:: {kind}

   Text of the slider, with :math:`x`.
"""


def _build(root, tmp_path, builder: str, pages: dict[str, str]):
    from sphinx.application import Sphinx

    source = tmp_path / "source"
    source.mkdir(exist_ok=True)
    (source / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(root / 'book' / '_ext')!r})\n"
        "extensions = ['sliders']\nhtml_static_path = []\n"
        f"html_static_path.append({str(root / 'book' / '_ext' / 'static')!r})\n"
    )
    (source / "index.rst").write_text(
        "Index\n=====\n\n.. toctree::\n\n" + "".join(f"   {name}\n" for name in pages)
    )
    for name, text in pages.items():
        (source / f"{name}.rst").write_text(text)
    out = tmp_path / builder
    app = Sphinx(source, source, out, tmp_path / "doctrees" / builder, builder, status=None,
                 warning=None, freshenv=True)  # fmt: skip
    app.build()
    return out


def test_the_directive_writes_a_figure_with_its_config_and_the_script(root, tmp_path, sliders):
    import html
    import re

    pages = {kind: PAGE.format(kind=kind) for kind in sliders.KINDS}
    pages["plain"] = "Plain\n=====\n\nNo slider here.\n"
    out = _build(root, tmp_path, "html", pages)
    for kind in sliders.KINDS:
        page = (out / f"{kind}.html").read_text()
        assert f'id="slider-{kind}"' in page and "Text of the slider" in page
        config = re.search(r'data-config="([^"]*)"', page).group(1)
        assert json.loads(html.unescape(config)) == sliders.config(kind)
        assert 'src="_static/sliders.js' in page and "_static/sliders.css" in page
    plain = (out / "plain.html").read_text()
    assert "sliders.js" not in plain and "sliders.css" not in plain
    script = (root / "book" / "_ext" / "static" / "sliders.js").read_text()
    drawn = re.search(r"const KINDS = \{(.*?)\};", script).group(1)
    assert set(re.findall(r'"?([\w-]+)"?:', drawn)) == set(sliders.KINDS)


def test_the_pdf_leaves_a_slider_out(root, tmp_path, sliders):
    out = _build(root, tmp_path, "latex", {"ladder": PAGE.format(kind="ladder")})
    tex = "".join(path.read_text() for path in out.glob("*.tex"))
    assert "A page" in tex and "Text of the slider" not in tex


def test_an_unknown_kind_is_refused(root, tmp_path):
    import io

    from sphinx.application import Sphinx

    source = tmp_path / "source"
    source.mkdir()
    (source / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(root / 'book' / '_ext')!r})\n"
        "extensions = ['sliders']\n"
    )
    (source / "index.rst").write_text("Index\n=====\n\n.. slider:: nonsense\n")
    warnings = io.StringIO()
    Sphinx(source, source, tmp_path / "out", tmp_path / "dt", "html", status=None,
           warning=warnings).build()  # fmt: skip
    assert "unknown slider 'nonsense': one of heatmap, ladder, rope-pair, shift-pairs" in (
        warnings.getvalue()
    )
