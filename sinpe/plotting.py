"""The one figure style of the book.

Every figure is drawn through this module, so all share fonts, sizes and colours:
the Okabe-Ito palette for lines (safe for the common colour blindnesses) and
``cividis`` for colour maps (perceptually uniform, readable in greyscale).
Matplotlib is imported here only; the core of :mod:`sinpe` needs NumPy alone.
"""

from __future__ import annotations

import base64
import io
import itertools
import re
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sinpe._validation import FLAG, Integer, constrained

try:
    import matplotlib as mpl
    import matplotlib.pyplot as plt
    from cycler import cycler
    from matplotlib.animation import Animation
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.image import AxesImage
except ModuleNotFoundError:
    raise ModuleNotFoundError(
        "sinpe.plotting needs matplotlib: pip install 'sinpe[plot]'"
    ) from None

__all__ = [
    "COLORS",
    "FONT_KEY",
    "MAX_WIDTH",
    "MIN_FONT_SIZE",
    "NARROW_ABOVE",
    "NARROW_KEY",
    "NARROW_WIDTH",
    "SEQUENTIAL",
    "animation_html",
    "colorbar_in",
    "figure",
    "heatmap",
    "narrow_png",
    "style",
    "unit_circle",
]

#: Okabe & Ito (2008) colours, distinguishable with protanopia and deuteranopia.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

#: The colour map of every heatmap, perceptually uniform and readable in greyscale.
SEQUENTIAL = "cividis"

#: Widest figure of the book in inches; at 100 CSS px per inch it fits the text column
#: of the book's pages (about 700 px at 1280 px), so no figure is shown shrunk there.
MAX_WIDTH = 7.0

#: Smallest font size of the style in points; 10 pt at 100 dpi is 14 CSS px, so figure
#: text stays above 10 CSS px even when a figure is shown at 70 % of its size.
MIN_FONT_SIZE = 10.0

#: Width in inches of a figure's phone variant: about 360 CSS px as saved (cropped to
#: its content), the text column of a 390 px phone, which shows it at about its own
#: size, its 10 pt text at 13 CSS px or more.
NARROW_WIDTH = 3.5

#: Width in inches above which a figure gets a phone variant: shown whole in a phone's
#: text column (about 360 CSS px), a wider one would set 10 pt text below 9 CSS px.
NARROW_ABOVE = 4.6

#: Key of the figure's phone variant in the metadata of its ``image/png`` output
#: (book/_ext/book_assets.py serves it to narrow screens; scripts/nbval_figures.py
#: compares it with the committed one).
NARROW_KEY = "sinpe_narrow"

#: Key of the figure's smallest font size (points) in the same metadata.
FONT_KEY = "sinpe_font_pt"

_RC: dict[Any, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "figure.figsize": (7.0, 3.6),
    "font.size": 11.0,
    "axes.titlesize": 11.5,
    "axes.labelsize": 11.0,
    "xtick.labelsize": MIN_FONT_SIZE,
    "ytick.labelsize": MIN_FONT_SIZE,
    "legend.fontsize": MIN_FONT_SIZE,
    "legend.title_fontsize": MIN_FONT_SIZE,
    "figure.titlesize": 12.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=COLORS),
    "lines.linewidth": 1.8,
    "image.cmap": SEQUENTIAL,
    "legend.frameon": False,
    "svg.hashsalt": "sinpe",
}


def style() -> None:
    """Apply the book's Matplotlib settings (idempotent).

    Updates the global ``matplotlib.rcParams`` (wrap the call in
    ``matplotlib.rc_context()`` to keep it local): 7 x 3.6 inches at 100 dpi (200 when
    saved), fonts of at least :data:`MIN_FONT_SIZE`, a light grid, no top and right
    spines, :data:`COLORS` for lines and :data:`SEQUENTIAL` for images. In a Jupyter
    kernel with the inline backend it also asks for "retina" PNGs, sharp on 2x screens.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     plotting.style()
    ...     print(mpl.rcParams["image.cmap"], mpl.rcParams["figure.figsize"])
    cividis [7.0, 3.6]
    """
    mpl.rcParams.update(_RC)
    _retina_inline_figures()


def _retina_inline_figures() -> None:
    """In an IPython kernel with the inline backend, draw figures as 2x PNGs."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or "inline" not in mpl.get_backend():
        return
    from matplotlib_inline.backend_inline import set_matplotlib_formats

    set_matplotlib_formats("retina")
    png = shell.display_formatter.formatters["image/png"]
    drawn = png.lookup_by_type(mpl.figure.Figure)
    png.for_type(mpl.figure.Figure, lambda fig: _with_narrow(drawn(fig), fig))


def _with_narrow(drawn: tuple[Any, dict] | None, fig: Figure) -> tuple[Any, dict] | None:
    """IPython's retina PNG of ``fig``, its phone variant and smallest font in the metadata."""
    if drawn is None:
        return None
    data, metadata = drawn
    metadata = {**metadata, FONT_KEY: _smallest_font(fig)}
    narrow = narrow_png(fig)
    if narrow is not None:
        metadata = {**metadata, NARROW_KEY: narrow}
    return data, metadata


def _smallest_font(fig: Figure) -> float:
    """The smallest font size (points) of any visible, non-empty text of ``fig``."""
    sizes = [
        text.get_fontsize()
        for text in fig.findobj(mpl.text.Text)
        if text.get_visible() and text.get_text().strip()
    ]
    return float(min(sizes, default=MIN_FONT_SIZE))


def _grid_axes(fig: Figure) -> list[tuple[Axes, int, int]] | None:
    """The axes of ``fig`` with their (row, column) in one grid, or None (several grids or
    spanning axes); colour bars follow their axes.
    """
    placed, grids = [], set()
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is None:
            continue  # a colour bar (constrained layout places it beside its axes)
        if len(spec.rowspan) != 1 or len(spec.colspan) != 1:
            return None
        grids.add(id(spec.get_gridspec()))
        placed.append((ax, spec.rowspan.start, spec.colspan.start))
    return placed if len(grids) == 1 else None


def narrow_png(fig: Figure) -> dict | None:
    """The phone variant of a figure wider than :data:`NARROW_ABOVE` inches, as a 2x PNG.

    The same figure redrawn :data:`NARROW_WIDTH` inches wide, its text the same size:
    axes side by side are stacked (one column for up to three axes, else two), or laid
    out or drawn as :func:`figure`'s ``narrow`` says; a figure in one column, or not in
    one grid, is only narrowed. ``fig`` is left as it was. :func:`style` attaches this
    variant to every figure a Jupyter kernel shows (metadata key :data:`NARROW_KEY`).

    Returns
    -------
    dict or None
        ``{"data": base64 PNG, "width": w, "height": h, "font_pt": smallest font}``
        (1x size in CSS px), or None for a figure narrow enough already or too crowded.

    Examples
    --------
    >>> import matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     fig, axes = plotting.figure(ncols=2, width=7.0, height=3.0)
    ...     phone = plotting.narrow_png(fig)
    >>> 340 < phone["width"] < 380, phone["height"] > 500, fig.get_size_inches().tolist()
    (True, True, [7.0, 3.0])
    >>> plt.close(fig)
    """
    width, height = fig.get_size_inches()
    if width <= NARROW_ABOVE:
        return None
    wanted = getattr(fig, "sinpe_narrow", None)
    if callable(wanted):
        drawn = wanted()
        try:
            return narrow_png(drawn) or _png(drawn)
        finally:
            plt.close(drawn)
    placed = _grid_axes(fig)
    specs = {ax: ax.get_subplotspec() for ax in fig.axes if ax.get_subplotspec()}
    shown_left = {ax: ax.yaxis.get_tick_params()["labelleft"] for ax in specs}
    new_height = height
    if placed:
        rows, columns = placed[0][0].get_subplotspec().get_gridspec().get_geometry()  # type: ignore[union-attr]  # placed axes have one
        count = len(placed)
        if columns > 1:
            wanted = wanted or ((count, 1) if count <= 3 else (-(-count // 2), 2))
            grid = fig.add_gridspec(*wanted)
            order = sorted(placed, key=lambda item: (item[1], item[2]))
            for index, (ax, _, _) in enumerate(order):
                ax.set_subplotspec(grid[index // wanted[1], index % wanted[1]])
                if ax.get_shared_y_axes().get_siblings(ax)[1:]:
                    ax.yaxis.set_tick_params(labelleft=True)  # no neighbour shows them now
            new_height = height / rows * wanted[0]
    suptitle = getattr(fig, "_suptitle", None)
    titles = [ax.title for ax in fig.axes] + ([suptitle] if suptitle else [])
    wrapped = {title: title.get_wrap() for title in titles}
    try:
        for title in titles:
            title.set_wrap(True)  # a long title breaks instead of widening the figure
        fig.set_size_inches(NARROW_WIDTH, new_height)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UserWarning)  # constrained layout gave up
            try:
                turned = _turn_crowded_tick_labels(fig)
                relaid = _legends_in_one_column(fig)
                return _png(fig)
            except UserWarning:
                return None  # too crowded to narrow: the browser test reports it
    finally:
        for label, rotation in locals().get("turned", {}).items():
            label.set_rotation(rotation)
        for one, legend in locals().get("relaid", {}).items():
            one.remove()
            fig.legends.append(legend)
        for title, wrap in wrapped.items():
            title.set_wrap(wrap)
        fig.set_size_inches(width, height)
        for ax, spec in specs.items():
            ax.set_subplotspec(spec)  # type: ignore[arg-type]  # spec of a placed axes
            ax.yaxis.set_tick_params(labelleft=shown_left[ax])


def _turn_crowded_tick_labels(fig: Figure) -> dict:
    """Turn upright overlapping x tick labels; returns {label: its former rotation}."""
    fig.canvas.draw()  # lays the figure out at its present size
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # the Agg canvas has one
    turned = {}
    for ax in fig.axes:
        labels = [label for label in ax.get_xticklabels() if label.get_text().strip()]
        boxes = sorted(
            (label.get_window_extent(renderer) for label in labels if label.get_visible()),
            key=lambda box: box.x0,
        )
        if any(left.x1 > right.x0 for left, right in itertools.pairwise(boxes)):
            for label in labels:
                turned[label] = label.get_rotation()
                label.set_rotation(90)
    return turned


def _legends_in_one_column(fig: Figure) -> dict:
    """Swap each figure legend outside the axes that is wider than the figure for a
    one-column one; returns {new legend: the one it stands in for}.
    """
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # the Agg canvas has one
    swapped = {}
    for legend in list(fig.legends):
        side = getattr(legend, "_outside_loc", None)
        if side not in ("upper", "lower") or legend._ncols == 1:  # type: ignore[attr-defined]  # no public getter
            continue
        if legend.get_window_extent(renderer).width <= fig.bbox.width:
            continue
        fig.legends.remove(legend)
        labels = [text.get_text() for text in legend.texts]
        one = fig.legend(  # type: ignore[call-overload]  # handles as the legend had them
            list(legend.legend_handles),
            labels,
            loc=f"outside {side} center",
            ncols=1,
            fontsize=legend.prop.get_size(),
        )
        swapped[one] = legend
    return swapped


def _png(fig: Figure) -> dict:
    """``fig`` as a 2x PNG cropped to its content, as :func:`narrow_png` returns it."""
    from PIL import Image

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=2 * fig.dpi, bbox_inches="tight")
    with Image.open(io.BytesIO(buffer.getvalue())) as image:
        pixels = image.size
    return {
        "data": base64.b64encode(buffer.getvalue()).decode("ascii"),
        "width": pixels[0] // 2,
        "height": pixels[1] // 2,
        "font_pt": _smallest_font(fig),
    }


def figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    width: float = 7.0,
    height: float = 3.6,
    narrow: tuple[int, int] | Callable[[], object] | None = None,
    **kwargs: Any,
) -> tuple[Figure, Any]:
    """A styled figure with ``nrows x ncols`` axes, in constrained layout.

    Calls :func:`style`, then ``matplotlib.pyplot.subplots(..., layout="constrained",
    squeeze=True)``, passing ``**kwargs`` on (not ``figsize``, ``layout`` or ``squeeze``).

    Parameters
    ----------
    width, height : float, optional
        Figure size in inches; the default is the book's 7 x 3.6.
    narrow : tuple of (int, int) or callable, optional
        The phone variant (:func:`narrow_png`): the rows and columns of its axes, or a
        function that draws it as a new figure and returns it.

    Returns
    -------
    fig : matplotlib.figure.Figure
        Registered with pyplot (close it with ``plt.close(fig)``).
    axes : matplotlib.axes.Axes or numpy.ndarray
        As ``subplots`` squeezes them.

    Examples
    --------
    >>> import matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     fig, axes = plotting.figure(2, 3, width=6.0, height=4.0)
    >>> axes.shape, fig.get_size_inches().tolist()
    ((2, 3), [6.0, 4.0])
    >>> plt.close(fig)
    """
    style()
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(width, height), layout="constrained", squeeze=True, **kwargs
    )
    if narrow is not None:
        vars(fig)["sinpe_narrow"] = narrow if callable(narrow) else tuple(narrow)
    return fig, axes


def heatmap(
    ax: Axes,
    values: np.ndarray,
    *,
    extent: Sequence[float],
    colorbar_label: str,
    vmin: float | None = None,
    vmax: float | None = None,
) -> AxesImage:
    """Draw 2-d ``values`` in ``ax`` with the book's colour map and a labelled colour bar.

    Row 0 at the bottom (``origin="lower"``), no interpolation, filling ``extent =
    (left, right, bottom, top)``; the grid is turned off. ``colorbar_label`` names the
    quantity and its unit; ``vmin`` and ``vmax`` default to the range of ``values``.
    Returns the image, its colour bar as ``image.colorbar``.

    ``bottom`` must be below ``top``: a swapped pair would label row 0 with the last
    row's coordinate and draw a diagonal on the anti-diagonal. For row 0 on top, call
    ``ax.invert_yaxis()`` after this.

    Examples
    --------
    >>> import numpy as np, matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     fig, ax = plotting.figure()
    ...     image = plotting.heatmap(ax, np.arange(6.0).reshape(2, 3), extent=(0, 3, 0, 2),
    ...                              colorbar_label="value")
    >>> image.get_cmap().name, image.origin, image.colorbar.ax.get_ylabel()
    ('cividis', 'lower', 'value')
    >>> plt.close(fig)
    """
    if not extent[2] < extent[3]:
        raise ValueError(
            "extent must be (left, right, bottom, top) with bottom < top, got "
            f"{tuple(extent)}; for row 0 on top, call ax.invert_yaxis() after heatmap"
        )
    image = ax.imshow(
        values,
        origin="lower",
        aspect="auto",
        extent=(extent[0], extent[1], extent[2], extent[3]),
        cmap=SEQUENTIAL,
        vmin=vmin,
        vmax=vmax,
        interpolation="nearest",
    )
    bar = ax.figure.colorbar(image, ax=ax)
    bar.set_label(colorbar_label)
    ax.grid(False)
    return image


def colorbar_in(ax: Axes, image: Any, *, label: str, ticks: Sequence[float] | None = None) -> Any:
    """Draw the colour bar of several heatmaps across ``ax``, an empty cell of their grid.

    ``ax`` is turned off and holds a horizontal colour bar, labelled ``label`` (the
    quantity and its unit), in its middle. It takes no room beside the grid, so the
    heatmaps keep their width, and the phone variant (:func:`narrow_png`) moves it
    with its cell: beside the grid, a shared bar squeezed into a stacked layout
    overlapped the panels' labels. ``ticks`` default to Matplotlib's; give a few
    (such as ``[-1, 0, 1]``) for a narrow cell. Returns the colour bar.

    Examples
    --------
    >>> import numpy as np, matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     fig, axes = plotting.figure(ncols=2, width=6.0, height=3.0)
    ...     image = axes[0].imshow(np.eye(3))
    ...     bar = plotting.colorbar_in(axes[1], image, label="value", ticks=[0, 1])
    >>> bar.orientation, bar.ax.get_xlabel(), axes[1].axison
    ('horizontal', 'value', False)
    >>> plt.close(fig)
    """
    ax.set_axis_off()
    bar_ax = ax.inset_axes((0.1, 0.45, 0.8, 0.1))
    bar = ax.figure.colorbar(image, cax=bar_ax, orientation="horizontal", ticks=ticks)
    bar.set_label(label)
    return bar


def unit_circle(ax: Axes, *, horizontal: str, vertical: str) -> None:
    """Draw the unit circle in ``ax`` for 'clock hand' plots: labelled axes, equal aspect.

    Examples
    --------
    >>> import matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     fig, ax = plotting.figure(width=3.0, height=3.0)
    ...     plotting.unit_circle(ax, horizontal="sin", vertical="cos")
    >>> ax.get_xlim() == ax.get_ylim() == (-1.25, 1.25), ax.get_aspect()
    (True, 1.0)
    >>> plt.close(fig)
    """
    angles = np.linspace(0.0, 2.0 * np.pi, 361)
    ax.plot(np.cos(angles), np.sin(angles), color="0.75", linewidth=1.0)
    ax.set_aspect("equal")
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-1.25, 1.25)
    ax.set_xlabel(horizontal)
    ax.set_ylabel(vertical)


_AUTOPLAY = """<script>
setTimeout(() => new IntersectionObserver((seen, watcher) => {
  if (!seen[0].isIntersecting) return;  /* play once it scrolls into view */
  watcher.disconnect();
  if (!matchMedia("(prefers-reduced-motion: reduce)").matches) {
    anim%(name)s.play_animation();
  }
}).observe(document.getElementById("_anim_img%(name)s")), 0);</script>"""


#: The player fits a narrow column (a phone): frames, slider and buttons shrink or wrap
#: instead of running off the side.
_FITS = """<style>
.animation { max-width: 100%; }
.animation img { max-width: 100%; height: auto; }
input[type=range].anim-slider { max-width: 100%; }
.anim-buttons { display: flex; flex-wrap: wrap; justify-content: center; }
</style>"""


#: The player's button icons as inline SVG (16 x 16, in the text colour), by the Font
#: Awesome class ``to_jshtml`` names them with: without Font Awesome's stylesheet (a
#: notebook front end, the reader's edition) its ``<i class="fa ...">`` icons are blank.
_ICONS = {
    "fa-minus": '<rect x="3" y="7" width="10" height="2"/>',
    "fa-plus": '<rect x="3" y="7" width="10" height="2"/><rect x="7" y="3" width="2" height="10"/>',
    "fa-play": '<polygon points="4,2 14,8 4,14"/>',
    "fa-play fa-flip-horizontal": '<polygon points="12,2 2,8 12,14"/>',
    "fa-pause": '<rect x="3" y="2" width="4" height="12"/>'
    '<rect x="9" y="2" width="4" height="12"/>',
    "fa-step-forward": '<polygon points="3,2 11,8 3,14"/>'
    '<rect x="11" y="2" width="2" height="12"/>',
    "fa-step-backward": '<polygon points="13,2 5,8 13,14"/>'
    '<rect x="3" y="2" width="2" height="12"/>',
    "fa-fast-forward": '<polygon points="1,2 8,8 1,14"/><polygon points="8,2 15,8 8,14"/>',
    "fa-fast-backward": '<polygon points="15,2 8,8 15,14"/><polygon points="8,2 1,8 8,14"/>',
}


def _drawn_buttons(html: str) -> str:
    """The player's Font Awesome icons replaced by :data:`_ICONS`; an unknown one fails."""

    def drawn(match: re.Match) -> str:
        shapes = _ICONS.get(match[1].strip())
        if shapes is None:
            raise ValueError(f"no drawing for the player's icon {match[1]!r}")
        return (
            '<svg width="16" height="16" viewBox="0 0 16 16" fill="currentColor" '
            f'aria-hidden="true" focusable="false">{shapes}</svg>'
        )

    return re.sub(r'<i class="fa ([\w -]+)"></i>', drawn, html)


@constrained(
    width=Integer(hint="such as 700"), colors=Integer(2, 256, hint="such as 64"), autoplay=FLAG
)
def animation_html(
    animation: Animation,
    *,
    name: str,
    alt: str,
    width: int = 700,
    colors: int = 64,
    autoplay: bool = True,
) -> str:
    """An animation as self-contained, reproducible HTML for a static page.

    Matplotlib's ``Animation.to_jshtml`` player (a frame slider, no kernel), made fit
    for a book page:

    * its random id is replaced by ``name`` (an identifier unique on the page), so a
      rerun stores the same bytes;
    * each frame is re-encoded with ``colors`` colours (2 to 256; about a quarter of
      the bytes of a full-colour PNG), drawn at ``savefig.dpi`` (sharp on 2x screens);
    * frames are ``width`` CSS px wide at most (the player shrinks or wraps on a
      phone), with ``alt`` as their text alternative; the slider is labelled for
      screen readers; nothing is fetched from a CDN;
    * its buttons are drawn in inline SVG: they show without Font Awesome's stylesheet
      (in a notebook front end), each named for screen readers as Matplotlib names it;
    * with ``autoplay``, it starts once scrolled into view, unless the reader's system
      asks for reduced motion.

    Close the animation's figure afterwards, so that no still image is shown; display
    the result with ``IPython.display.HTML``.

    Examples
    --------
    >>> import matplotlib as mpl, matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     fig, ax = plotting.figure(width=2.0, height=1.0)
    ...     (line,) = ax.plot([0, 1], [0, 0])
    ...     moving = FuncAnimation(fig, lambda t: line.set_ydata([0, t]), frames=[0, 1])
    ...     html = plotting.animation_html(moving, name="demo", alt="a line tilting up")
    >>> plt.close(fig)
    >>> "_anim_imgdemo" in html, 'alt="a line tilting up"' in html, "font-awesome" in html
    (True, True, False)
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a short identifier such as 'clock', got {name!r}")
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("alt must describe what the animation shows, got an empty text")
    from PIL import Image

    html = animation.to_jshtml(default_mode="loop")

    def palette(match: re.Match) -> str:
        frame = Image.open(io.BytesIO(base64.b64decode(match[1].replace("\\\n", ""))))
        small = frame.convert("RGB").quantize(colors, method=Image.Quantize.MAXCOVERAGE)
        buffer = io.BytesIO()
        small.save(buffer, format="png", optimize=True)
        return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()

    html = re.sub(r"data:image/png;base64,([\w+/=\\\n]+)", palette, html)
    uid = re.findall(r"_anim_img(\w+)", html)[0]  # random in every run
    html = html.replace(uid, name)
    safe_alt = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    html = html.replace(
        f'<img id="_anim_img{name}">',
        f'<img id="_anim_img{name}" width="{width}" alt="{safe_alt}">',
    )
    html = re.sub(r"<link[^>]*font-awesome[^>]*>", "", html)
    html = html.replace('class="anim-slider"', 'class="anim-slider" aria-label="frame"')
    return _drawn_buttons(html) + _FITS + (_AUTOPLAY % {"name": name} if autoplay else "")
