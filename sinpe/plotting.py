"""The one figure style of the book.

Every figure of the book is drawn through this module, so they share fonts,
sizes and colours: the Okabe-Ito palette for lines (safe for the common forms
of colour blindness) and ``cividis`` for colour maps (perceptually uniform,
colour-blind safe, and monotone in lightness, so it still reads in greyscale).

Matplotlib is imported here only; the core of :mod:`sinpe` needs NumPy alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

try:
    import matplotlib as mpl
    import matplotlib.pyplot as plt
except ModuleNotFoundError:
    raise ModuleNotFoundError(
        "sinpe.plotting needs matplotlib: pip install 'sinpe[plot]'"
    ) from None

__all__ = ["COLORS", "SEQUENTIAL", "figure", "heatmap", "style", "unit_circle"]

#: Okabe & Ito (2008) colours, distinguishable with protanopia and deuteranopia.
COLORS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")

#: Colour map for every heatmap: perceptually uniform and readable in greyscale.
SEQUENTIAL = "cividis"

_RC = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "figure.figsize": (7.0, 3.6),
    "font.size": 10.5,
    "axes.titlesize": 11.5,
    "axes.labelsize": 10.5,
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
    """Apply the book's Matplotlib settings (idempotent)."""
    mpl.rcParams.update(_RC)


def figure(nrows: int = 1, ncols: int = 1, *, width: float = 7.0, height: float = 3.6, **kwargs):
    """A styled figure with ``nrows x ncols`` axes (matplotlib's order), in constrained layout.

    Returns ``(fig, axes)`` as :func:`matplotlib.pyplot.subplots` does.
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
    """Draw ``values`` (rows bottom to top) with the book's colour map and a labelled colour bar."""
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
    """Draw the unit circle with labelled axes, equal aspect, for 'clock hand' plots."""
    angles = np.linspace(0.0, 2.0 * np.pi, 361)
    ax.plot(np.cos(angles), np.sin(angles), color="0.75", linewidth=1.0)
    ax.set_aspect("equal")
    ax.set_xlim(-1.25, 1.25)
    ax.set_ylim(-1.25, 1.25)
    ax.set_xlabel(horizontal)
    ax.set_ylabel(vertical)
