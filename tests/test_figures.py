"""The figure check of nbval (scripts/nbval_figures.py) fails on a changed figure.

nbval skips PNG outputs; ``scripts/notebooks.py validate`` loads the plugin that
compares them with ``matplotlib.testing.compare.compare_images``. These tests run
the comparison on committed figures and tampered copies, without executing notebooks.
"""

from __future__ import annotations

import base64
import copy
import io
from types import SimpleNamespace

import nbformat
import numpy as np
import pytest
from PIL import Image

from sinpe import plotting


@pytest.fixture(scope="module")
def check():
    """The module scripts/nbval_figures.py."""
    from scripts import nbval_figures

    return nbval_figures


def _twin(root, chapter: str):
    """A committed twin, read without nbformat's (slow) schema validation."""
    text = (root / "book" / f"{chapter}.ipynb").read_text(encoding="utf-8")
    return nbformat.v4.reads(text)


@pytest.fixture(scope="module")
def wavelengths(root):
    """The committed outputs of chapter 3's wavelength figure (a blue line, three dashes)."""
    notebook = _twin(root, "ch03_seeing")
    (cell,) = [c for c in notebook.cells if c.source.startswith("lengths = sinpe.wavelengths(")]
    assert any("image/png" in output.get("data", {}) for output in cell.outputs)
    outputs = copy.deepcopy(cell.outputs)
    for output in outputs:  # the figure only: its phone variant has a test of its own
        output.get("metadata", {}).get("image/png", {}).pop(plotting.NARROW_KEY, None)
    return outputs


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="png")
    return buffer.getvalue()


def _display(*images: bytes, mime: str = "image/png") -> list[dict]:
    """Outputs of a cell that shows ``images`` (as IPython's inline backend does)."""
    return [
        nbformat.v4.new_output(
            "display_data",
            data={
                "text/plain": "<Figure size 700x360 with 1 Axes>",
                mime: base64.b64encode(png).decode(),
            },
        )
        for png in images
    ]


def _committed(outputs) -> bytes:
    (data,) = [base64.b64decode(o["data"]["image/png"]) for o in outputs if "data" in o]
    return data


def _move_blue_curve(png: bytes, rise: int = 3, before_column: int = 400) -> bytes:
    """The same figure with the left part of its blue curve drawn ``rise`` pixels higher."""
    pixels = np.array(Image.open(io.BytesIO(png)).convert("RGBA"))
    blue = np.array([0x00, 0x72, 0xB2, 0xFF])
    curve = np.abs(pixels.astype(int) - blue).sum(axis=2) < 60
    curve[:, before_column:] = False  # leave the legend's swatch alone
    tampered = pixels.copy()
    tampered[curve] = 255  # opaque white, the background
    tampered[np.roll(curve, -rise, axis=0)] = blue
    return _png(Image.fromarray(tampered))


def test_validate_loads_the_figure_check(notebooks):
    at = notebooks.NBVAL.index("scripts.nbval_figures")
    assert notebooks.NBVAL[at - 1] == "-p"


def test_a_committed_figure_matches_itself(check, wavelengths):
    result = check.compare_figures(wavelengths, wavelengths)
    assert result.ok and result.rms == [0.0]


def test_a_moved_curve_fails(check, wavelengths, tmp_path):
    tampered = _display(_move_blue_curve(_committed(wavelengths)))
    result = check.compare_figures(wavelengths, tampered, keep=tmp_path, label="ch03")
    assert not result.ok
    (rms,) = result.rms
    assert rms > 2 * check.TOLERANCE
    assert f"RMS {rms:.3f} > tolerance" in result.problems[0]
    kept = sorted(path.name for path in result.kept)
    assert kept == ["ch03-1-actual-failed-diff.png", "ch03-1-actual.png", "ch03-1-expected.png"]


def _render(scale: float = 1.0, relative_noise: float = 0.0) -> bytes:
    """A figure in the book's style: four sine curves, the first scaled by ``scale``."""
    import matplotlib
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    with matplotlib.rc_context():  # the book's style, not left to the other tests
        plotting.style()
        x = np.linspace(0.0, 50.0, 400)
        fig, ax = plotting.figure(width=5.0, height=2.5)
        for i in range(4):
            y = np.sin(x / 2.0**i) * (scale if i == 0 else 1.0)
            ax.plot(x, y * (1 + relative_noise * np.cos(7 * x)), label=f"pair {i}")
        ax.set(xlabel="position", ylabel="value", ylim=(-1.2, 1.2))
        ax.legend(loc="upper right", ncols=4)
        fig.savefig(buffer, format="png")
        plt.close(fig)
    return buffer.getvalue()


def test_the_phone_variant_is_compared_too(check, wavelengths):
    png = _committed(wavelengths)
    moved = _move_blue_curve(png)

    def with_variant(variant: bytes) -> list:
        outputs = copy.deepcopy(wavelengths)
        outputs[-1]["metadata"] = {
            "image/png": {plotting.NARROW_KEY: {"data": base64.b64encode(variant).decode()}}
        }
        return outputs

    assert check.compare_figures(with_variant(png), with_variant(png)).rms == [0.0, 0.0]
    changed = check.compare_figures(with_variant(png), with_variant(moved))
    assert not changed.ok and changed.rms[0] == 0.0 and changed.rms[1] > 2 * check.TOLERANCE
    lost = check.compare_figures(with_variant(png), wavelengths)
    assert "committed figure 2 was not drawn" in " ".join(lost.problems)


def test_a_changed_line_fails_and_last_bit_noise_passes(check):
    reference = _display(_render())
    # data off by 1e-12 (far more than the +-1 ULP of the portability run): passes
    noisy = check.compare_figures(reference, _display(_render(relative_noise=1e-12)))
    assert noisy.ok and noisy.rms[0] <= check.TOLERANCE / 10
    # one curve of four 2 % taller: fails
    changed = check.compare_figures(reference, _display(_render(scale=1.02)))
    assert not changed.ok and changed.rms[0] > 4 * check.TOLERANCE


def test_a_figure_without_committed_counterpart_fails(check, wavelengths):
    png = _committed(wavelengths)
    extra = check.compare_figures(_display(png), _display(png, png))
    assert not extra.ok
    assert "drew 2 figure(s)" in extra.problems[0]
    assert "figure 2 has no committed counterpart" in extra.problems[1]
    missing = check.compare_figures(_display(png), [])
    assert "committed figure 1 was not drawn" in missing.problems[1]
    text_only = [nbformat.v4.new_output("stream", name="stdout", text="done\n")]
    assert check.compare_figures(text_only, text_only).ok  # no figure on either side


def test_a_figure_in_another_format_fails_clearly(check, wavelengths):
    png = _committed(wavelengths)
    image = Image.open(io.BytesIO(png))
    assert image.size == (1423, 743)  # 7 x 3.6 inches, tight bounding box, retina (2x)
    halved = _png(image.resize((image.width // 2, image.height // 2)))
    result = check.compare_figures(wavelengths, _display(halved))
    assert result.problems == ["figure 1 is 711x371 px, the committed one 1423x743"]
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="jpeg")
    jpeg = _display(buffer.getvalue(), mime="image/jpeg")
    assert check.compare_figures(wavelengths, jpeg).problems == [
        "figure 1 is image/jpeg, the committed one image/png"
    ]
    assert check.compare_figures(jpeg, jpeg).rms == [0.0]  # JPEG decoded and compared too


def test_machine_dependent_figures_are_listed_by_a_line_of_one_figure_cell(check, root):
    for (chapter, line), (allowed, reason) in check.MACHINE_DEPENDENT.items():
        notebook = _twin(root, chapter)
        cells = [c for c in notebook.cells if c.cell_type == "code" and line in c.source]
        assert len(cells) == 1, f"{chapter}: {line!r} must name exactly one code cell"
        assert check.figures(cells[0].outputs), f"{chapter}: {line!r} draws no figure"
        assert allowed is None or allowed > check.TOLERANCE
        assert reason and check.tolerance_for(chapter, cells[0].source) == (allowed, reason)
    assert check.tolerance_for("ch03_seeing", "plt.show()") == (check.TOLERANCE, "")


def _nbval_cell(check, tmp_path, source="plt.show()"):
    """An nbval cell item as the plugin receives it, with what compare_outputs reads."""
    from nbval.plugin import IPyNbCell, nocolors

    item = object.__new__(IPyNbCell)  # no pytest session: the attributes it uses
    attributes = dict(
        cell_num=5,
        cell=nbformat.v4.new_code_cell(source),
        colors=nocolors,
        parent=SimpleNamespace(
            fspath="book/ch03_seeing.ipynb",
            sanitize_patterns={},
            # nbval 0.11's defaults, with the figures it leaves out
            skip_compare=("metadata", "output_type", "name", "execution_count", "image/png"),
        ),
        config=SimpleNamespace(stash=pytest.Stash(), getoption=lambda name: tmp_path),
    )
    for name, value in attributes.items():  # some live in the slots of pytest's Node
        setattr(item, name, value)
    check.pytest_collection_modifyitems([item])
    assert type(item) is check.FigureCheckedCell
    return item


def test_the_plugin_adds_figures_to_nbvals_comparison(check, wavelengths, tmp_path, monkeypatch):
    item = _nbval_cell(check, tmp_path)
    assert item.compare_outputs(wavelengths, wavelengths)
    tampered = _display(_move_blue_curve(_committed(wavelengths)))
    tampered[0]["data"]["text/plain"] = wavelengths[0]["data"]["text/plain"]
    assert not item.compare_outputs(tampered, wavelengths)
    assert "figure 1 differs from the committed one" in "\n".join(item.comparison_traceback)
    # the text is compared by nbval exactly as before (no number masked)
    monkeypatch.setattr(
        check.FigureCheckedCell,
        "ihook",
        SimpleNamespace(pytest_assertrepr_compare=lambda **kwargs: []),
        raising=False,
    )
    retitled = copy.deepcopy(wavelengths)
    retitled[0]["data"]["text/plain"] = "<Figure size 700x361 with 1 Axes>"
    assert not item.compare_outputs(retitled, wavelengths)
    assert "mismatch 'text/plain'" in "\n".join(item.comparison_traceback)


def _phone_variant(root, chapter: str, name: str) -> np.ndarray:
    """The committed phone variant of figure ``name`` as grey levels (0 black)."""
    (cell,) = [
        c
        for c in _twin(root, chapter).cells
        if c.metadata.get("mystnb", {}).get("figure", {}).get("name") == name
    ]
    (variant,) = [
        o["metadata"]["image/png"][plotting.NARROW_KEY]
        for o in cell.outputs
        if plotting.NARROW_KEY in o.get("metadata", {}).get("image/png", {})
    ]
    image = Image.open(io.BytesIO(base64.b64decode(variant["data"]))).convert("L")
    assert image.size[0] // 2 == variant["width"]
    return np.asarray(image)


def _longest_dark_run(pixels: np.ndarray) -> float:
    """The longest horizontal run of dark pixels (an x axis), as a share of the width."""
    dark = np.pad(pixels < 60, ((0, 0), (1, 1))).astype(np.int8)
    edges = np.diff(dark, axis=1)
    runs = [(np.flatnonzero(row == -1) - np.flatnonzero(row == 1)).max(initial=0) for row in edges]
    return max(runs) / pixels.shape[1]


def test_fig_5_2_uses_the_whole_phone_width(root):
    # Its legends above the panels were wider than the panels: constrained layout shrank
    # the panels to about a third of the phone's width, and the variant came out wider
    # than the phone's column (396 CSS px), so the phone also scaled it down.
    pixels = _phone_variant(root, "ch05_fourier_features", "fig-spectral-bias")
    assert pixels.shape[1] // 2 <= plotting.NARROW_WIDTH * 100 + 15
    assert _longest_dark_run(pixels) > 0.6
    # the measure itself: a panel a third as wide as its image fails it
    third = np.full((40, 300), 255, np.uint8)
    third[20, 100:200] = 0
    assert _longest_dark_run(third) < 0.6


def _above_the_axes(root, chapter: str, name: str, colour: str) -> int:
    """Pixels of ``colour`` above the top of the y axis (the longest vertical dark run)
    in the committed phone variant of figure ``name``: a legend's swatch up there."""
    pixels = _phone_variant(root, chapter, name)
    dark = np.pad(pixels < 60, ((1, 1), (0, 0))).astype(np.int8)
    edges = np.diff(dark, axis=0)
    runs = [
        (int((ends - starts).max(initial=0)), int(starts[np.argmax(ends - starts)]))
        for starts, ends in (
            (np.flatnonzero(edges[:, x] == 1), np.flatnonzero(edges[:, x] == -1))
            for x in range(pixels.shape[1])
        )
        if len(starts)
    ]
    top = max(runs)[1]
    (cell,) = [
        c
        for c in _twin(root, chapter).cells
        if c.metadata.get("mystnb", {}).get("figure", {}).get("name") == name
    ]
    (png,) = [
        o["metadata"]["image/png"][plotting.NARROW_KEY]["data"]
        for o in cell.outputs
        if plotting.NARROW_KEY in o.get("metadata", {}).get("image/png", {})
    ]
    rgb = np.asarray(Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB")).astype(int)
    wanted = np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(rgb[:top] - wanted).sum(axis=2) < 40).sum())


def test_fig_4_6_legend_sits_above_the_data_on_a_phone(root):
    # At 390 px its legend (upper right, inside the axes) covered the accuracy peaks:
    # it sits above the axes now, its seed-0 swatch in the first colour of the style.
    assert _above_the_axes(root, "ch04_transformer", "fig-extrapolation", plotting.COLORS[0]) > 20
