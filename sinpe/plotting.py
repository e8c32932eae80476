"""The one figure style of the book.

Every figure of the book is drawn through this module, so they share fonts,
sizes and colours: the Okabe-Ito palette for lines (safe for the common forms
of colour blindness) and ``cividis`` for colour maps (perceptually uniform,
colour-blind safe, and monotone in lightness, so it still reads in greyscale).

Matplotlib is imported here only; the core of :mod:`sinpe` needs NumPy alone.

Used in: chapter 2 (Shifting a position is a rotation), chapter 3 (Seeing the
encoding), chapter 4 (A Transformer layer in NumPy — and what the encoding buys),
chapter 5 (Periodic features and NeRF), chapter 6 (From sinusoids to RoPE and ALiBi —
and the convention zoo), chapter 7 (Numerics: an accurate table, and a fast one).
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
    "attention_diagram",
    "attention_steps",
    "encoder_layer",
    "encoder_layer_steps",
    "figure",
    "heatmap",
    "shift_rotation",
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


# ---------------------------------------------------------------------------
# Diagrams: the opening pictures of chapters 2 and 4 (issue 30). Each draws on one
# Axes, computes what it shows through sinpe (never a formula of its own), and fits a
# phone's column: about 3.6 inches wide, text at MIN_FONT_SIZE.


def shift_rotation(
    ax,
    position: float,
    shift: float,
    d_model: int,
    pair: int,
    *,
    base: float = 10000.0,
    color: str = COLORS[0],
) -> float:
    """Draw one (sin, cos) pair of the encoding at ``position`` and ``position + shift``.

    The two points are the pair's entries of :func:`sinpe.positional_encoding`
    (sine horizontal, cosine vertical, on :func:`unit_circle`), joined to the
    centre; an arrowed arc through the encodings of the positions in between marks
    the turn, labelled with its angle ``shift * omega`` (from
    :func:`sinpe.frequencies`). As the position grows the point turns clockwise.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw in.
    position, shift : float
        The position ``p`` and the shift ``k`` (finite).
    d_model : int
        Even width of the encoding.
    pair : int
        The pair drawn, ``0 <= pair < d_model / 2``.
    base : float, optional
        The base ``C`` of the frequencies.
    color : str, optional
        Colour of the points and the arc.

    Returns
    -------
    float
        The angle of the turn, ``shift * omega_pair``, in radians.

    Raises
    ------
    TypeError, ValueError
        For a non-finite position or shift, a bad width or base, or a pair out of
        range (messages from ``sinpe._validation``).

    Examples
    --------
    >>> import matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import plotting
    >>> with mpl.rc_context():
    ...     fig, ax = plotting.figure(width=2.5, height=2.5)
    ...     turn = plotting.shift_rotation(ax, 1.0, 2.0, 16, 0)
    >>> round(turn, 12)   # pair 0 turns by k * omega_0 = 2 * 1 rad
    2.0
    >>> plt.close(fig)
    """
    from sinpe import core
    from sinpe._validation import check_count, check_d_model, check_real

    position = check_real(position, "position", hint="a position such as 3.0")
    shift = check_real(shift, "shift", hint="a shift such as 2.0")
    d_model = check_d_model(d_model)
    pair = check_count(pair, "pair", minimum=0, maximum=d_model // 2 - 1, hint="pair index")
    omega = float(core.frequencies(d_model, base=base)[pair])
    steps = np.linspace(position, position + shift, 61)
    path = core.positional_encoding(steps, d_model, base=base)[:, 2 * pair : 2 * pair + 2]
    ends = path[[0, -1]]  # the pair at p and at p + k, (sin, cos)
    unit_circle(ax, horizontal=rf"$\sin \omega_{pair} p$", vertical=rf"$\cos \omega_{pair} p$")
    for (x, y), name in zip(ends, ("$p$", "$p + k$"), strict=True):
        ax.plot([0.0, x], [0.0, y], color="0.45", linewidth=1.0)
        ax.annotate(
            name,
            (x, y),
            xytext=(14 * x, 14 * y),
            textcoords="offset points",
            ha="center",
            va="center",
            fontsize=MIN_FONT_SIZE,
        )
    ax.plot(ends[:, 0], ends[:, 1], "o", color=color, markersize=7, label="pair values")
    arc = 0.35 * path  # the encodings in between, scaled: the path of the turn
    ax.plot(arc[:-1, 0], arc[:-1, 1], color=color, linewidth=1.5)
    ax.annotate(
        "", xy=arc[-1], xytext=arc[-3], arrowprops={"arrowstyle": "-|>", "color": color, "lw": 1.5}
    )
    middle = path[len(path) // 2]  # a unit vector halfway through the turn
    ax.annotate(
        rf"$k\omega_{pair}$",
        0.74 * middle,
        ha="center",
        va="center",
        fontsize=MIN_FONT_SIZE,
        color=color,
    )
    turn = shift * omega
    ax.set_title(
        rf"pair {pair}: $k\omega_{pair}$ = {np.degrees(turn):.0f}°", fontsize=MIN_FONT_SIZE + 1
    )
    ax.set(xlim=(-1.5, 1.5), ylim=(-1.5, 1.5), xticks=[-1, 0, 1], yticks=[-1, 0, 1])
    ax.grid(False)  # room for the labels of points on the circle, inside the axes
    return turn


def _box(ax, y: float, text: str, *, fill: str, height: float = 0.62) -> None:
    """A labelled, rounded box centred at ``(5, y)``, 8 units wide."""
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (1.0, y - height / 2),
            8.0,
            height,
            boxstyle="round,pad=0.02,rounding_size=0.15",
            facecolor=fill,
            edgecolor="0.25",
            linewidth=1.0,
        )
    )
    ax.text(5.0, y, text, ha="center", va="center", fontsize=MIN_FONT_SIZE)


def _arrow(ax, start: tuple[float, float], end: tuple[float, float]) -> None:
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={"arrowstyle": "-|>", "color": "0.25", "lw": 1.0, "shrinkA": 0, "shrinkB": 0},
    )


def encoder_layer_steps(layer) -> list[str]:
    """The steps of ``layer`` (an :class:`sinpe.nn.EncoderLayer`), input to output.

    Post-LN (the paper, ``norm_first=False``): attention, add & norm, feed-forward,
    add & norm. Pre-LN: norm, attention, add, norm, feed-forward, add. Without
    ``residual`` the "add" steps are left out. Each label names the layer's sizes.

    Parameters
    ----------
    layer : sinpe.nn.EncoderLayer
        The layer.

    Returns
    -------
    list of str
        One label per step, first step first.

    Raises
    ------
    TypeError
        If ``layer`` is not an :class:`sinpe.nn.EncoderLayer`.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe import nn, plotting
    >>> layer = nn.EncoderLayer(8, 2, 16, np.random.default_rng(0))
    >>> plotting.encoder_layer_steps(layer)[1:]
    ['add & norm', 'feed-forward 8 → 16 → 8, ReLU', 'add & norm']
    """
    from sinpe import nn
    from sinpe._validation import check_instance

    check_instance(layer, "layer", nn.EncoderLayer, hint="an nn.EncoderLayer")
    d_model, d_ff = layer.linear1.params["weight"].shape[::-1]
    heads = layer.self_attn.n_heads
    attention = f"multi-head attention, {heads} head{'s' if heads > 1 else ''}"
    feed = f"feed-forward {d_model} → {d_ff} → {d_model}, {layer.activation.upper()}"
    feed = feed.replace("RELU", "ReLU")
    if layer.norm_first:
        add = ["add"] if layer.residual else []
        return ["norm", attention, *add, "norm", feed, *add]
    add = "add & " if layer.residual else ""
    return [attention, f"{add}norm", feed, f"{add}norm"]


def encoder_layer(ax, layer) -> list[str]:
    """Draw the input of a Transformer and one encoder ``layer`` as a block diagram.

    From the bottom up: token ids, the token embedding, the sum with the
    positional encoding (the box in orange), then the steps of
    :func:`encoder_layer_steps` inside a dashed frame, with each residual
    connection as an arrow that goes round the block it skips. Data flow
    upwards, as in the paper's figure 1. The axes get equal aspect and no frame.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw in; about 3.6 inches wide and 1.1 times as high reads
        well on a phone.
    layer : sinpe.nn.EncoderLayer
        The layer drawn.

    Returns
    -------
    list of str
        The labels of the boxes, bottom to top.

    Raises
    ------
    TypeError
        If ``layer`` is not an :class:`sinpe.nn.EncoderLayer`.

    Examples
    --------
    >>> import numpy as np, matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import nn, plotting
    >>> with mpl.rc_context():
    ...     fig, ax = plotting.figure(width=3.6, height=4.0)
    ...     layer = nn.EncoderLayer(8, 2, 16, np.random.default_rng(0))
    ...     boxes = plotting.encoder_layer(ax, layer)
    >>> boxes[:3]
    ['token embedding', '+ positional encoding PE(p)', 'multi-head attention, 2 heads']
    >>> plt.close(fig)
    """
    from matplotlib.patches import FancyBboxPatch

    steps = encoder_layer_steps(layer)
    labels = ["token embedding", "+ positional encoding PE(p)", *steps]
    ys = [1.3 + i for i in range(len(labels))]
    ys[2:] = [y + 0.5 for y in ys[2:]]  # the layer's frame starts between
    top = ys[-1] + 1.6
    ax.set_xlim(0.0, 10.0)
    ax.set_ylim(0.0, top)
    ax.set_aspect("equal")
    ax.set_axis_off()
    ax.text(5.0, 0.0, "token ids", ha="center", va="bottom", fontsize=MIN_FONT_SIZE)
    _arrow(ax, (5.0, 0.45), (5.0, ys[0] - 0.31))
    for index, (y, label) in enumerate(zip(ys, labels, strict=True)):
        if index == 1:
            fill = COLORS[1]
        elif "attention" in label:
            fill = COLORS[5]
        elif label.startswith("feed"):
            fill = COLORS[2]
        else:
            fill = "0.93" if index > 1 else "white"
        _box(ax, y, label, fill=fill)
        if index:
            _arrow(ax, (5.0, ys[index - 1] + 0.31), (5.0, y - 0.31))
    if layer.residual:  # each residual goes round its block, on the left
        for block, step in enumerate(steps):
            if "attention" not in step and not step.startswith("feed"):
                continue
            first = 2 + block - (1 if layer.norm_first else 0)  # the branch's first box
            start = (ys[first - 1] + ys[first]) / 2
            end = ys[2 + block + 1]
            ax.plot([5.0, 0.45, 0.45], [start, start, end], color="0.25", lw=1.0)
            ax.plot([5.0], [start], "o", color="0.25", markersize=3)
            _arrow(ax, (0.45, end), (1.0, end))
    bottom, upper = ys[2] - 0.75, ys[-1] + 0.5
    ax.add_patch(
        FancyBboxPatch(
            (0.15, bottom),
            9.7,
            upper - bottom,
            boxstyle="round,pad=0,rounding_size=0.2",
            fill=False,
            edgecolor=COLORS[0],
            linestyle="--",
            linewidth=1.2,
        )
    )
    ax.text(
        9.75,
        upper + 0.05,
        "encoder layer, N times",
        ha="right",
        va="bottom",
        fontsize=MIN_FONT_SIZE,
        color=COLORS[0],
    )
    _arrow(ax, (5.0, ys[-1] + 0.31), (5.0, top))
    return labels


def _matrix(ax, values: np.ndarray, title: str, digits: int) -> None:
    """One small matrix as coloured cells with its numbers, no ticks."""
    image = ax.imshow(values, cmap=SEQUENTIAL, interpolation="nearest")
    low, high = float(values.min()), float(values.max())
    middle = (low + high) / 2
    for (row, column), value in np.ndenumerate(values):
        ax.text(
            column,
            row,
            f"{value:.{digits}f}",
            ha="center",
            va="center",
            fontsize=MIN_FONT_SIZE - 1,
            color="black" if value > middle else "white",
        )
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():  # a matrix: framed on every side
        spine.set_visible(True)
    ax.set_title(title, fontsize=MIN_FONT_SIZE, pad=4)
    ax.grid(False)
    image.set_gid(title)


def attention_steps(attention, *, sample: int = 0, head: int = 0) -> dict[str, np.ndarray]:
    """What one head of ``attention`` computed in its last forward pass, step by step.

    Parameters
    ----------
    attention : sinpe.nn.MultiHeadAttention
        A layer that has run forward at least once.
    sample, head : int, optional
        Which sequence of the batch and which head.

    Returns
    -------
    dict of str to numpy.ndarray
        ``"Q"``, ``"K^T"``, ``"V"`` (queries, transposed keys, values of the head),
        ``"S"`` (the scores, scaled, biases included), ``"A"`` (the weights, the
        row-wise softmax of ``S``) and ``"AV"`` (their weighted sum of values,
        before the output projection), as the layer's cache holds them.

    Raises
    ------
    TypeError
        If ``attention`` is not an :class:`sinpe.nn.MultiHeadAttention`, or an
        index is not an integer.
    ValueError
        If the layer has not run forward yet, or an index is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe import nn, plotting
    >>> layer = nn.MultiHeadAttention(4, 2, np.random.default_rng(0))
    >>> _ = layer(np.ones((1, 3, 4)))
    >>> steps = plotting.attention_steps(layer)
    >>> steps["S"].shape, steps["AV"].shape, bool(np.allclose(steps["A"].sum(axis=1), 1))
    ((3, 3), (3, 2), True)
    """
    from sinpe import nn
    from sinpe._validation import check_count, check_instance

    check_instance(attention, "attention", nn.MultiHeadAttention, hint="an nn.MultiHeadAttention")
    cache = getattr(attention, "cache", None)
    if cache is None:
        raise ValueError("attention has not run forward yet; call it on an input first")
    batch, heads = cache.weights.shape[:2]
    sample = check_count(sample, "sample", minimum=0, maximum=batch - 1, hint="batch index")
    head = check_count(head, "head", minimum=0, maximum=heads - 1, hint="head index")
    weights = cache.weights[sample, head]
    values = cache.v[sample, head]
    return {
        "Q": cache.q[sample, head],
        "K^T": cache.k[sample, head].T,
        "S": attention.attention_scores[sample, head],
        "A": weights,
        "V": values,
        "AV": weights @ values,
    }


def attention_diagram(fig, attention, *, sample: int = 0, head: int = 0) -> dict:
    """Draw one head of scaled dot-product attention as two matrix equations.

    Top row: queries ``Q`` times transposed keys ``K^T`` give the scores ``S``
    (divided by the square root of the head width). Bottom row: the row-wise
    softmax of ``S``, the weights ``A`` (each row sums to 1: where that token
    looks), times the values ``V`` give each token's weighted sum ``A V``. Every
    cell shows its number; rows are tokens. The numbers are those of
    :func:`attention_steps`. Drawn on an empty ``fig`` about 3.8 x 3.5 inches.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        An empty figure (without constrained layout; the axes are placed by hand).
    attention : sinpe.nn.MultiHeadAttention
        A layer that has run forward at least once.
    sample, head : int, optional
        Which sequence of the batch and which head.

    Returns
    -------
    dict of str to matplotlib.axes.Axes
        The axes of each matrix, keyed as :func:`attention_steps`.

    Raises
    ------
    TypeError, ValueError
        As :func:`attention_steps`.

    Examples
    --------
    >>> import numpy as np, matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import nn, plotting
    >>> layer = nn.MultiHeadAttention(4, 2, np.random.default_rng(0))
    >>> _ = layer(np.ones((1, 3, 4)))
    >>> with mpl.rc_context():
    ...     plotting.style()
    ...     fig = plt.figure(figsize=(3.8, 3.5))
    ...     axes = plotting.attention_diagram(fig, layer)
    >>> sorted(axes)
    ['A', 'AV', 'K^T', 'Q', 'S', 'V']
    >>> plt.close(fig)
    """
    steps = attention_steps(attention, sample=sample, head=head)
    width, height = fig.get_size_inches()
    tokens, head_width = steps["Q"].shape
    gap = 0.34  # room for "x" and "=" between the matrices
    widest = max(2 * tokens + head_width, tokens + 2 * head_width)  # cells in a row
    cell = min(0.36, (width - 0.24 - 2 * gap) / widest)  # inches
    titles = {
        "Q": "queries $Q$",
        "K^T": "keys $K^{\\mathsf{T}}$",
        "S": f"scores $S$ (÷√{head_width})",
        "A": "$A$ = softmax($S$)",
        "V": "values $V$",
        "AV": "output $AV$",
    }
    rows = (("Q", "K^T", "S"), ("A", "V", "AV"))
    axes, y_top = {}, height - 0.35
    for names in rows:
        x = 0.12
        row_height = max(steps[name].shape[0] for name in names) * cell
        for index, name in enumerate(names):
            rows_, columns = steps[name].shape
            box = (
                x / width,
                (y_top - (row_height + rows_ * cell) / 2) / height,
                columns * cell / width,
                rows_ * cell / height,
            )
            ax = fig.add_axes(box)
            _matrix(ax, steps[name], titles[name], 2 if name == "A" else 1)
            axes[name] = ax
            x += columns * cell
            if index < 2:
                fig.text(
                    (x + gap / 2) / width,
                    (y_top - row_height / 2) / height,
                    "\N{MULTIPLICATION SIGN}" if index == 0 else "=",
                    ha="center",
                    va="center",
                    fontsize=MIN_FONT_SIZE + 3,
                )
                x += gap
        y_top -= row_height + 0.6
    return axes
