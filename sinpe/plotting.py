"""The one figure style of the book.

Every figure of the book is drawn through this module, so they share fonts,
sizes and colours: the Okabe-Ito palette for lines (safe for the common forms
of colour blindness) and ``cividis`` for colour maps (perceptually uniform,
colour-blind safe, and monotone in lightness, so it still reads in greyscale).

Matplotlib is imported here only; the core of :mod:`sinpe` needs NumPy alone.

Used in: chapter 3 (Seeing the encoding), chapter 4 (A Transformer layer in NumPy — and
what the encoding buys), chapter 5 (Periodic features and NeRF), chapter 6 (From
sinusoids to RoPE and ALiBi — and the convention zoo), chapter 7 (Numerics: an accurate
table, and a fast one).
"""

from __future__ import annotations

import base64
import io
import re
import sys
from collections.abc import Sequence

import numpy as np

try:
    import matplotlib as mpl
    import matplotlib.pyplot as plt
except ModuleNotFoundError:
    raise ModuleNotFoundError(
        "sinpe.plotting needs matplotlib: pip install 'sinpe[plot]'"
    ) from None

__all__ = [
    "COLORS",
    "MAX_WIDTH",
    "MIN_FONT_SIZE",
    "SEQUENTIAL",
    "animation_html",
    "figure",
    "heatmap",
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

_RC = {
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
    "axes.prop_cycle": mpl.cycler(color=COLORS),
    "lines.linewidth": 1.8,
    "image.cmap": SEQUENTIAL,
    "legend.frameon": False,
    "svg.hashsalt": "sinpe",
}


def style() -> None:
    """Apply the book's Matplotlib settings (idempotent).

    Updates the global ``matplotlib.rcParams``: figure size 7 x 3.6 inches at
    100 dpi (200 dpi when saved), font sizes no smaller than
    :data:`MIN_FONT_SIZE`, a light grid, no top and right spines, the
    :data:`COLORS` cycle for lines and :data:`SEQUENTIAL` for images. Wrap the
    call in ``matplotlib.rc_context()`` to keep the change local.

    In a Jupyter kernel with Matplotlib's inline backend it also asks for
    "retina" PNGs: twice the pixels, shown at the same size, so figures are
    sharp on 2x screens. Outside a kernel nothing else changes.

    Returns
    -------
    None

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


def figure(nrows: int = 1, ncols: int = 1, *, width: float = 7.0, height: float = 3.6, **kwargs):
    """A styled figure with ``nrows x ncols`` axes (matplotlib's order), in constrained layout.

    Calls :func:`style` first (so it changes the global ``rcParams``), then
    ``matplotlib.pyplot.subplots`` with ``layout="constrained"`` and
    ``squeeze=True``.

    Parameters
    ----------
    nrows, ncols : int, optional
        Rows and columns of axes (positive).
    width, height : float, optional
        Figure size in inches; the default is the book's 7 x 3.6.
    **kwargs
        Passed on to ``matplotlib.pyplot.subplots`` (e.g. ``sharex=True``); not
        ``figsize``, ``layout`` or ``squeeze``, which this function sets.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The new figure, registered with pyplot (close it with ``plt.close(fig)``).
    axes : matplotlib.axes.Axes or numpy.ndarray
        One ``Axes`` for a 1 x 1 figure, else an array of them of shape
        ``(ncols,)``, ``(nrows,)`` or ``(nrows, ncols)``, as ``subplots`` squeezes it.

    Raises
    ------
    TypeError
        If ``kwargs`` repeats ``figsize``, ``layout`` or ``squeeze``.
    ValueError
        If ``nrows`` or ``ncols`` is not a positive integer (raised by Matplotlib).

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
    return plt.subplots(
        nrows, ncols, figsize=(width, height), layout="constrained", squeeze=True, **kwargs
    )


def heatmap(
    ax,
    values: np.ndarray,
    *,
    extent: Sequence[float],
    colorbar_label: str,
    vmin: float | None = None,
    vmax: float | None = None,
):
    """Draw ``values`` (rows bottom to top) with the book's colour map and a labelled colour bar.

    Row 0 of ``values`` is drawn at the bottom (``origin="lower"``), without
    interpolation, filling ``extent``; the grid of ``ax`` is turned off and a
    colour bar labelled ``colorbar_label`` is added next to it.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw in.
    values : numpy.ndarray
        A 2-d array of shape ``(rows, columns)``.
    extent : sequence of float
        ``(left, right, bottom, top)`` in data coordinates.
    colorbar_label : str
        Label of the colour bar: the quantity and its unit.
    vmin, vmax : float, optional
        Limits of the colour scale; by default those of ``values``.

    Returns
    -------
    matplotlib.image.AxesImage
        The image, with its colour bar as ``image.colorbar``.

    Raises
    ------
    TypeError
        If ``values`` has a shape Matplotlib cannot show as an image (raised by
        ``Axes.imshow``).

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
    image = ax.imshow(
        values,
        origin="lower",
        aspect="auto",
        extent=tuple(extent),
        cmap=SEQUENTIAL,
        vmin=vmin,
        vmax=vmax,
        interpolation="nearest",
    )
    bar = ax.figure.colorbar(image, ax=ax)
    bar.set_label(colorbar_label)
    ax.grid(False)
    return image


def unit_circle(ax, *, horizontal: str, vertical: str) -> None:
    """Draw the unit circle with labelled axes, equal aspect, for 'clock hand' plots.

    A light grey circle of radius 1, both axes limited to ``[-1.25, 1.25]``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw in.
    horizontal, vertical : str
        Labels of the horizontal and vertical axes (e.g. the sine and the cosine
        of a pair).

    Returns
    -------
    None

    Raises
    ------
    AttributeError
        If ``ax`` is not a Matplotlib ``Axes``.

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


def animation_html(
    animation, *, name: str, alt: str, width: int = 700, colors: int = 64, autoplay: bool = True
) -> str:
    """An animation as self-contained, reproducible HTML for a static page.

    Matplotlib's ``Animation.to_jshtml`` gives a player with a frame slider that
    needs no kernel. This function makes its output fit for a book page:

    * the player's random id is replaced by ``name``, so running the cell twice
      stores the same bytes (and nbval can compare them);
    * each frame is re-encoded with ``colors`` colours (Pillow's maximum-coverage
      palette), about a quarter of the bytes of a full-colour PNG;
    * the frames are shown ``width`` CSS px wide with ``alt`` as their text
      alternative, the frame slider is labelled for screen readers, and the link to
      Font Awesome's CDN is dropped (the page has its own icons; nothing is fetched
      from the network);
    * with ``autoplay``, it starts once it scrolls into view, unless the reader's
      system asks for reduced motion.

    Frames are drawn at ``savefig.dpi`` (200 in :func:`style`): sharp on 2x screens.

    Parameters
    ----------
    animation : matplotlib.animation.Animation
        The animation; close its figure afterwards so that no still image is shown.
    name : str
        A short identifier (letters, digits, underscores), unique on the page.
    alt : str
        What the animation shows, for readers who cannot see it.
    width : int, optional
        Width in CSS px (default 700, the book's text column).
    colors : int, optional
        Colours of each frame's palette, 2 to 256.
    autoplay : bool, optional
        Start when scrolled into view (default ``True``).

    Returns
    -------
    str
        HTML to display with ``IPython.display.HTML``.

    Raises
    ------
    ValueError
        If ``name`` is not an identifier, ``alt`` is empty, ``width`` is not
        positive or ``colors`` is outside 2 to 256.
    TypeError
        If ``width`` or ``colors`` is not an integer, or ``autoplay`` not a boolean.

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
    from sinpe._validation import check_count, check_flag

    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"name must be a short identifier such as 'clock', got {name!r}")
    if not isinstance(alt, str) or not alt.strip():
        raise ValueError("alt must describe what the animation shows, got an empty text")
    width = check_count(width, "width")
    colors = check_count(colors, "colors")
    if not 2 <= colors <= 256:
        raise ValueError(f"colors must be between 2 and 256, got {colors}")
    autoplay = check_flag(autoplay, "autoplay")
    from PIL import Image

    html = animation.to_jshtml(default_mode="loop")

    def palette(match: re.Match) -> str:
        frame = Image.open(io.BytesIO(base64.b64decode(match[1].replace("\\\n", ""))))
        small = frame.convert("RGB").quantize(colors, method=Image.Quantize.MAXCOVERAGE)
        buffer = io.BytesIO()
        small.save(buffer, format="png", optimize=True)
        return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()

    html = re.sub(r"data:image/png;base64,([\w+/=\\\n]+)", palette, html)
    uid = re.search(r"_anim_img(\w+)", html)[1]  # random in every run
    html = html.replace(uid, name)
    safe_alt = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    html = html.replace(
        f'<img id="_anim_img{name}">',
        f'<img id="_anim_img{name}" width="{width}" alt="{safe_alt}">',
    )
    html = re.sub(r"<link[^>]*font-awesome[^>]*>", "", html)
    html = html.replace('class="anim-slider"', 'class="anim-slider" aria-label="frame"')
    return html + (_AUTOPLAY % {"name": name} if autoplay else "")
