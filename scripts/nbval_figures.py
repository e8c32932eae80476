"""nbval plugin: every figure a cell draws must match the committed one in its twin.

nbval 0.11 leaves ``image/png`` and ``image/jpeg`` out of its output comparison
(``IPyNbFile.skip_compare``), so a notebook whose figure changed still passes.
``scripts/notebooks.py validate`` loads this module (``-p scripts.nbval_figures``)
in the native and in the portability run alike, so the check costs no extra
notebook execution. It keeps nbval's text comparison exactly as it is and, when
that passes, compares the cell's figures with those of the committed cell:

- a figure's phone variant (``sinpe.plotting.narrow_png``, kept in the output's
  metadata, which nbval does not compare) counts as one more figure of the cell;
- the cell must draw as many figures as the committed cell holds, of the same
  MIME type and the same size in pixels (a figure without a committed counterpart,
  or a committed figure that is no longer drawn, fails by name);
- each figure is decoded and compared with the committed one by
  :func:`matplotlib.testing.compare.compare_images`: the root mean square of the
  per-channel pixel differences (0-255 scale) must be at most :data:`TOLERANCE`,
  or the allowance of the figure in :data:`MACHINE_DEPENDENT`.

A failing figure is saved with the committed one and a difference image in
``_build/figure-diffs/<run>/``. Cells tagged ``nbval-ignore-output`` are not
compared at all, text or figures. The run ends with a summary: how many figures
were compared and the largest RMS seen.
"""

from __future__ import annotations

import base64
import binascii
import io
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from nbval.plugin import IPyNbCell

# Where a figure's output keeps its phone variant, compared as one more figure of the cell.
from sinpe.plotting import NARROW_KEY

#: Largest RMS pixel difference (0-255 scale) between a figure and its committed one.
#: Measured on the 17 figures of the twins: natively every figure is bit-identical
#: (RMS 0); in the portability run the largest RMS of a figure outside
#: ``MACHINE_DEPENDENT`` is 0.005 (antialiasing of ch03's clock arrows). A changed
#: curve gives far more: ch03's wavelength line 1 % higher (a third of a pixel) 3.9,
#: 0.3 % higher 1.0; one line colour of any figure moved up by 2 pixels, 2.0 to 23.
TOLERANCE = 0.5

#: Figures that another machine draws differently, by chapter and a line of the cell
#: that draws them: (allowed RMS, or None for "pixels not compared, only the number,
#: type and size of the figures", why). Each plots numbers that the chapter asserts
#: with a margin elsewhere; the RMS in the reason is the portability run's. Adding one
#: is a deliberate, reviewed decision, as for an ``nbval-ignore-output`` cell.
MACHINE_DEPENDENT: dict[tuple[str, str], tuple[float | None, str]] = {
    ("ch07_numerics", "np.maximum(direct_error.max(axis=1), floor),"): (
        5.0,
        "rounding errors of one ULP are the machine's own: with the y range fixed and "
        "errors below eps drawn at eps, the markers of the smallest positions still move "
        "by a pixel or two (RMS 3.2); the cell before asserts every error is within the "
        "stated bound",
    ),
    ("ch04_transformer", "for position, logs in enumerate(scaling.values()):"): (
        5.0,
        "each seed's accuracy after 50 and 150 steps of 15 training runs: the runs are "
        "chaotic, one of the 30 markers moves by a few pixels (RMS 1.15)",
    ),
    ("ch06_rope_alibi", "100 * depth_probes[residual, stage, seed][:, column]"): (
        5.0,
        "probe accuracies of trained models, per seed: chaotic, two line segments move "
        "by about a pixel (RMS 1.39)",
    ),
    ("ch08_trained_models", 'ax.plot([where, where], [values.min(), values.max()], color="0.2")'): (
        5.0,
        "the length-extension lab: accuracies of 15 training runs at three lengths, as "
        "medians and seed ranges; the runs are chaotic, and the ends of a few range lines "
        "move by a pixel (RMS 1.02); the next cell asserts every ordering the text states",
    ),
}

#: Figure types that nbval skips and this check compares (raster images, decoded).
FIGURE_TYPES = ("image/png", "image/jpeg")

#: Where failing figures, their committed counterparts and their differences are kept.
DIFF_DIR = Path("_build") / "figure-diffs"


@dataclass
class Figure:
    """One figure output of a cell: its MIME type and its decoded bytes."""

    mime: str
    data: bytes

    def size_text(self) -> str:
        """``WIDTHxHEIGHT`` in pixels, or ``(unreadable)``."""
        from PIL import Image

        try:
            with Image.open(io.BytesIO(self.data)) as image:
                width, height = image.size
        except Exception:  # an unreadable image is reported, not raised
            return "(unreadable)"
        return f"{width}x{height}"


@dataclass
class Comparison:
    """The outcome of comparing a cell's figures with the committed ones."""

    rms: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def figures(outputs) -> list[Figure]:
    """The figures among a cell's outputs, in order (decoded from base64)."""
    found = []
    for output in outputs:
        data = output.get("data") or {}
        for mime in FIGURE_TYPES:
            if mime in data:
                found.append(Figure(mime, _decoded(data[mime])))
        # The figure's phone variant (sinpe.plotting.narrow_png), in its metadata.
        narrow = ((output.get("metadata") or {}).get("image/png") or {}).get(NARROW_KEY)
        if isinstance(narrow, dict) and "data" in narrow:
            found.append(Figure("image/png", _decoded(narrow["data"])))
    return found


def _decoded(payload) -> bytes:
    if isinstance(payload, list):  # a multi-line string in the JSON
        payload = "".join(payload)
    try:
        return base64.b64decode(payload)
    except (binascii.Error, ValueError, TypeError) as error:
        return f"undecodable: {error}".encode()


def _as_png(figure: Figure, path: Path) -> Path:
    """Write ``figure`` as a PNG file (a JPEG is decoded and stored losslessly)."""
    if figure.mime == "image/png":
        path.write_bytes(figure.data)
    else:
        from PIL import Image

        with Image.open(io.BytesIO(figure.data)) as image:
            image.save(path, format="png")
    return path


def figure_rms(expected: Figure, actual: Figure, scratch: Path, stem: str = "figure") -> float:
    """RMS pixel difference (0-255 scale) of two figures, computed by ``compare_images``.

    ``compare_images`` at tolerance 0 returns ``None`` for identical pixels and the
    RMS otherwise (and writes ``<stem>-actual-failed-diff.png`` in ``scratch``).
    Raises ``ImageComparisonFailure`` when the sizes differ.
    """
    from matplotlib.testing.compare import compare_images

    expected_path = _as_png(expected, scratch / f"{stem}-expected.png")
    actual_path = _as_png(actual, scratch / f"{stem}-actual.png")
    result = compare_images(str(expected_path), str(actual_path), tol=0, in_decorator=True)
    return 0.0 if result is None else float(result["rms"])


def _describe(found: list[Figure]) -> str:
    if not found:
        return "none"
    return ", ".join(f"{figure.mime} {figure.size_text()}" for figure in found)


def compare_figures(
    reference,
    test,
    *,
    tolerance: float | None = TOLERANCE,
    keep: Path | None = None,
    label: str = "figure",
) -> Comparison:
    """Compare the figures of a cell's ``test`` outputs with the committed ``reference``.

    Both are lists of notebook outputs (dicts with a ``data`` bundle). Fails when the
    number of figures, their types or their sizes differ, or when a figure's RMS
    difference exceeds ``tolerance`` (``None``: RMS measured, never a failure).
    Failing figures are copied to ``keep`` (if given) as ``<label>-<k>-expected.png``,
    ``-actual.png`` and ``-actual-failed-diff.png``.
    """
    from matplotlib.testing.exceptions import ImageComparisonFailure

    result = Comparison()
    expected, actual = figures(reference), figures(test)
    if len(expected) != len(actual):
        result.problems.append(
            f"the cell drew {len(actual)} figure(s) ({_describe(actual)}), the committed "
            f"cell holds {len(expected)} ({_describe(expected)})"
        )
        if len(actual) > len(expected):
            result.problems.append(f"figure {len(expected) + 1} has no committed counterpart")
        else:
            result.problems.append(f"committed figure {len(actual) + 1} was not drawn")
        return result
    with tempfile.TemporaryDirectory(prefix="sinpe-figures-") as scratch:
        for number, (mine, theirs) in enumerate(zip(expected, actual, strict=True), start=1):
            where = f"figure {number}"
            if mine.mime != theirs.mime:
                result.problems.append(f"{where} is {theirs.mime}, the committed one {mine.mime}")
                continue
            stem = f"{label}-{number}"
            try:
                rms = figure_rms(mine, theirs, Path(scratch), stem)
            except ImageComparisonFailure:
                result.problems.append(
                    f"{where} is {theirs.size_text()} px, the committed one {mine.size_text()}"
                )
                continue
            except Exception as error:  # e.g. a PNG that does not decode
                result.problems.append(f"{where} cannot be compared: {error}")
                continue
            result.rms.append(rms)
            if tolerance is not None and rms > tolerance:
                message = (
                    f"{where} differs from the committed one: RMS {rms:.3f} > tolerance "
                    f"{tolerance} (0-255 scale)"
                )
                if keep is not None:
                    keep.mkdir(parents=True, exist_ok=True)
                    for path in sorted(Path(scratch).glob(f"{stem}-*.png")):
                        result.kept.append(Path(shutil.copy(path, keep / path.name)))
                    message += f"; see {keep / stem}-*.png"
                result.problems.append(message)
    return result


def tolerance_for(chapter: str, source: str) -> tuple[float | None, str]:
    """The allowed RMS of a cell's figures (and why), from :data:`MACHINE_DEPENDENT`."""
    for (name, line), allowance in MACHINE_DEPENDENT.items():
        if name == chapter and line in source:
            return allowance
    return TOLERANCE, ""


#: Every compared figure of the run: (cell, figure number, RMS, tolerance, listed).
_SEEN = pytest.StashKey[list]()


class FigureCheckedCell(IPyNbCell):
    """An nbval cell whose figures are compared too (nbval's text comparison unchanged)."""

    def compare_outputs(self, test, ref, skip_compare=None):
        if not super().compare_outputs(test, ref, skip_compare):
            return False
        return self.compare_figures(test, ref)

    def compare_figures(self, test, ref) -> bool:
        chapter = Path(str(self.parent.fspath)).stem
        tolerance, reason = tolerance_for(chapter, self.cell.source)
        comparison = compare_figures(
            ref,
            test,
            tolerance=tolerance,
            keep=self.config.getoption("figure_diff_dir"),
            label=f"{chapter}-cell{self.cell_num:02d}",
        )
        seen = self.config.stash.setdefault(_SEEN, [])
        for number, rms in enumerate(comparison.rms, start=1):
            seen.append((f"{chapter}::Cell {self.cell_num}", number, rms, tolerance, bool(reason)))
        if comparison.ok:
            return True
        cc = self.colors
        self.comparison_traceback = [
            cc.FAIL + "Figures differ from the committed twin:" + cc.ENDC,
            *(f"  {problem}" for problem in comparison.problems),
            "  If the change is intended, rebuild the twin: "
            f"python -m scripts.notebooks build book/{chapter}.md",
        ]
        return False


def pytest_addoption(parser) -> None:
    parser.getgroup("nbval").addoption(
        "--figure-diff-dir",
        type=Path,
        default=DIFF_DIR,
        help="where failing figures are saved with the committed ones and a difference",
    )


def pytest_collection_modifyitems(items) -> None:
    """Give every nbval cell the figure comparison."""
    for item in items:
        if type(item) is IPyNbCell:
            item.__class__ = FigureCheckedCell


def pytest_terminal_summary(terminalreporter, config) -> None:
    """One line for the run (the largest RMS among the figures held to TOLERANCE), and
    one for each figure that is not pixel-identical or is machine-dependent."""
    seen = config.stash.get(_SEEN, [])
    if not seen:
        return
    held = [rms for _, _, rms, _, listed in seen if not listed]
    terminalreporter.write_line(
        f"figures: {len(seen)} compared with the committed twins, "
        f"{sum(entry[2] == 0 for entry in seen)} pixel-identical; largest RMS "
        f"{max(held, default=0.0):.4f} (tolerance {TOLERANCE}) among the {len(held)} "
        "not listed as machine-dependent"
    )
    for cell, number, rms, tolerance, listed in seen:
        if rms or listed:
            allowed = "pixels not compared" if tolerance is None else f"tolerance {tolerance}"
            kind = "machine-dependent, " if listed else ""
            terminalreporter.write_line(
                f"  {cell}, figure {number}: RMS {rms:.4f} ({kind}{allowed})"
            )
