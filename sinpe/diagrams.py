"""Diagrams of the book: the opening pictures of chapters 1, 2 and 4.

Each draws on one Axes in the house style (:mod:`sinpe.plotting`), computes what it
shows through sinpe (never a formula of its own), and fits a phone's column: about
3.6 inches wide, text at :data:`~sinpe.plotting.MIN_FONT_SIZE`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from sinpe._validation import BASE, D_MODEL, Integer, Real, check_instance, constrained
from sinpe.plotting import COLORS, MIN_FONT_SIZE, SEQUENTIAL, unit_circle

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from sinpe.lab import nn

__all__ = [
    "arrow",
    "attention_diagram",
    "attention_steps",
    "box",
    "encoder_layer",
    "encoder_layer_steps",
    "shift_rotation",
]


#: An index into the pairs, the batch or the heads (below the count, checked in the body).
_INDEX, _SHIFT = Integer(0, hint="such as 0"), Real(hint="such as 2.0")


@constrained(
    position=Real(hint="such as 3.0"), shift=_SHIFT, d_model=D_MODEL, pair=_INDEX, base=BASE
)
def shift_rotation(
    ax: Axes,
    position: float,
    shift: float,
    d_model: int,
    pair: int,
    *,
    base: float = 10000.0,
    color: str = COLORS[0],
) -> float:
    """Draw one (sin, cos) pair of the encoding at ``position`` and ``position + shift``.

    The two points (sine horizontal, cosine vertical, on :func:`~sinpe.plotting.unit_circle`) are
    joined to the centre; an arrowed arc through the positions in between marks the
    turn, labelled with its angle ``shift * omega``. As the position grows the point
    turns clockwise. ``pair`` counts from 0; returns the angle, in radians.

    Examples
    --------
    >>> import matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import diagrams, plotting
    >>> with mpl.rc_context():
    ...     fig, ax = plotting.figure(width=2.5, height=2.5)
    ...     turn = diagrams.shift_rotation(ax, 1.0, 2.0, 16, 0)
    >>> round(turn, 12)   # pair 0 turns by k * omega_0 = 2 * 1 rad
    2.0
    >>> plt.close(fig)
    """
    from sinpe import core

    if pair >= d_model // 2:
        raise ValueError(f"pair must be below d_model / 2 = {d_model // 2}, got {pair}")
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


def box(
    ax: Axes,
    centre: tuple[float, float],
    text: str,
    *,
    fill: str = "white",
    width: float = 8.0,
    height: float = 0.62,
) -> None:
    """A labelled, rounded box of a block diagram, centred at ``centre`` (data units)."""
    from matplotlib.patches import FancyBboxPatch

    corner = (centre[0] - width / 2, centre[1] - height / 2)
    ax.add_patch(
        FancyBboxPatch(
            corner,
            width,
            height,
            boxstyle="round,pad=0.02,rounding_size=0.15",
            facecolor=fill,
            edgecolor="0.25",
            linewidth=1.0,
        )
    )
    ax.text(*centre, text, ha="center", va="center", fontsize=MIN_FONT_SIZE)


def arrow(ax: Axes, tail: tuple[float, float], head: tuple[float, float]) -> None:
    """An arrow of a block diagram, from ``tail`` to ``head`` (data units)."""
    ax.annotate(
        "",
        xy=head,
        xytext=tail,
        arrowprops={"arrowstyle": "-|>", "color": "0.25", "lw": 1.0, "shrinkA": 0, "shrinkB": 0},
    )


def encoder_layer_steps(layer: nn.EncoderLayer) -> list[str]:
    """The steps of an :class:`sinpe.lab.nn.EncoderLayer`, input to output, one label each.

    Post-LN (the paper): attention, add & norm, feed-forward, add & norm. Pre-LN: norm,
    attention, add, norm, feed-forward, add. Without ``residual`` no "add" steps.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe import diagrams, plotting
    >>> from sinpe.lab import nn
    >>> config = nn.ModelConfig(d_model=8, n_heads=2, d_ff=16)
    >>> layer = nn.EncoderLayer(config, np.random.default_rng(0))
    >>> diagrams.encoder_layer_steps(layer)[1:]
    ['add & norm', 'feed-forward 8 → 16 → 8, ReLU', 'add & norm']
    """
    from sinpe.lab import nn

    check_instance(layer, "layer", nn.EncoderLayer, hint="an nn.EncoderLayer")
    d_model, d_ff = layer.linear1.params["weight"].shape[::-1]
    heads = layer.self_attn.n_heads
    attention = f"multi-head attention, {heads} head{'s' if heads > 1 else ''}"
    feed = f"feed-forward {d_model} → {d_ff} → {d_model}, {layer.activation.upper()}"
    feed = feed.replace("RELU", "ReLU")
    if layer.norm_first:
        adds = ["add"] if layer.residual else []
        return ["norm", attention, *adds, "norm", feed, *adds]
    add = "add & " if layer.residual else ""
    return [attention, f"{add}norm", feed, f"{add}norm"]


def encoder_layer(ax: Axes, layer: nn.EncoderLayer) -> list[str]:
    """Draw the input of a Transformer and one encoder ``layer`` as a block diagram.

    From the bottom up: token ids, the embedding, the sum with the positional encoding
    (in orange), then :func:`encoder_layer_steps` in a dashed frame, each residual
    connection an arrow round the block it skips, as in the paper's figure 1. About 3.6
    inches wide and 1.1 times as high reads well on a phone. Returns the box labels,
    bottom to top.

    Examples
    --------
    >>> import numpy as np, matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import diagrams, plotting
    >>> from sinpe.lab import nn
    >>> with mpl.rc_context():
    ...     fig, ax = plotting.figure(width=3.6, height=4.0)
    ...     config = nn.ModelConfig(d_model=8, n_heads=2, d_ff=16)
    ...     layer = nn.EncoderLayer(config, np.random.default_rng(0))
    ...     boxes = diagrams.encoder_layer(ax, layer)
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
    arrow(ax, (5.0, 0.45), (5.0, ys[0] - 0.31))
    for index, (y, label) in enumerate(zip(ys, labels, strict=True)):
        if index == 1:
            fill = COLORS[1]
        elif "attention" in label:
            fill = COLORS[5]
        elif label.startswith("feed"):
            fill = COLORS[2]
        else:
            fill = "0.93" if index > 1 else "white"
        box(ax, (5.0, y), label, fill=fill)
        if index:
            arrow(ax, (5.0, ys[index - 1] + 0.31), (5.0, y - 0.31))
    if layer.residual:  # each residual goes round its block, on the left
        for block, step in enumerate(steps):
            if "attention" not in step and not step.startswith("feed"):
                continue
            first = 2 + block - (1 if layer.norm_first else 0)  # the branch's first box
            start = (ys[first - 1] + ys[first]) / 2
            end = ys[2 + block + 1]
            ax.plot([5.0, 0.45, 0.45], [start, start, end], color="0.25", lw=1.0)
            ax.plot([5.0], [start], "o", color="0.25", markersize=3)
            arrow(ax, (0.45, end), (1.0, end))
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
    arrow(ax, (5.0, ys[-1] + 0.31), (5.0, top))
    return labels


def _matrix(ax: Axes, values: np.ndarray, title: str, digits: int) -> None:
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


@constrained(sample=_INDEX, head=_INDEX)
def attention_steps(
    attention: nn.MultiHeadAttention, *, sample: int = 0, head: int = 0
) -> dict[str, np.ndarray]:
    """What one head of ``attention`` computed in its last forward pass, step by step.

    ``sample`` and ``head`` pick the sequence and the head. Returns the layer's cached
    ``"Q"``, ``"K^T"``, ``"V"`` of the head, ``"S"`` (the scaled scores, biases
    included), ``"A"`` (the weights, softmax of ``S``) and ``"AV"`` (before the output
    projection). ValueError if the layer has not run forward yet.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe import diagrams, plotting
    >>> from sinpe.lab import nn
    >>> config = nn.ModelConfig(d_model=4, n_heads=2)
    >>> layer = nn.MultiHeadAttention(config, np.random.default_rng(0))
    >>> _ = layer(np.ones((1, 3, 4)))
    >>> steps = diagrams.attention_steps(layer)
    >>> steps["S"].shape, steps["AV"].shape, bool(np.allclose(steps["A"].sum(axis=1), 1))
    ((3, 3), (3, 2), True)
    """
    from sinpe.lab import nn

    check_instance(attention, "attention", nn.MultiHeadAttention, hint="an nn.MultiHeadAttention")
    cache = getattr(attention, "cache", None)
    if cache is None:
        raise ValueError("attention has not run forward yet; call it on an input first")
    batch, heads = cache.weights.shape[:2]
    for name, index, count in (("sample", sample, batch), ("head", head, heads)):
        if index >= count:
            raise ValueError(f"{name} must be below {count} (the layer's cache), got {index}")
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


@constrained(sample=_INDEX, head=_INDEX)
def attention_diagram(
    fig: Figure, attention: nn.MultiHeadAttention, *, sample: int = 0, head: int = 0
) -> dict[str, Axes]:
    """Draw one head of scaled dot-product attention as two matrix equations.

    Top row: ``Q`` times ``K^T`` gives the scores ``S`` (divided by the square root of
    the head width). Bottom row: the weights ``A``, the row-wise softmax of ``S``,
    times ``V`` give each token's weighted sum ``A V``. Every cell shows its number
    (:func:`attention_steps`, same arguments); rows are tokens. ``fig`` is an empty
    figure about 3.8 x 3.5 inches without constrained layout. Returns the axes by
    matrix name.

    Examples
    --------
    >>> import numpy as np, matplotlib as mpl, matplotlib.pyplot as plt
    >>> from sinpe import diagrams, plotting
    >>> from sinpe.lab import nn
    >>> config = nn.ModelConfig(d_model=4, n_heads=2)
    >>> layer = nn.MultiHeadAttention(config, np.random.default_rng(0))
    >>> _ = layer(np.ones((1, 3, 4)))
    >>> with mpl.rc_context():
    ...     plotting.style()
    ...     fig = plt.figure(figsize=(3.8, 3.5))
    ...     axes = diagrams.attention_diagram(fig, layer)
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
