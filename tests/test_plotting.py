"""The shared figure style: colours, colour map, labelled colour bars."""

from __future__ import annotations

import matplotlib
import numpy as np

matplotlib.use("Agg")

from matplotlib.colors import to_rgb

from sinpe import plotting


def test_palette_is_okabe_ito_and_distinct():
    assert plotting.COLORS[:3] == ("#0072B2", "#E69F00", "#009E73")
    assert len({to_rgb(colour) for colour in plotting.COLORS}) == len(plotting.COLORS)


def test_colour_map_is_monotone_in_lightness():
    cmap = matplotlib.colormaps[plotting.SEQUENTIAL]
    rgb = cmap(np.linspace(0, 1, 64))[:, :3]
    luminance = rgb @ [0.2126, 0.7152, 0.0722]
    assert np.all(np.diff(luminance) > 0)  # readable in greyscale


def test_heatmap_has_a_labelled_colour_bar():
    fig, ax = plotting.figure()
    plotting.heatmap(ax, np.eye(3), extent=(0, 3, 0, 3), colorbar_label="value")
    bars = [axes for axes in fig.axes if axes is not ax]
    assert len(bars) == 1 and bars[0].get_ylabel() == "value"
    assert ax.images[0].get_cmap().name == plotting.SEQUENTIAL
    matplotlib.pyplot.close(fig)


def test_figure_shapes_and_style():
    fig, axes = plotting.figure(ncols=3)
    assert len(axes) == 3
    assert matplotlib.rcParams["image.cmap"] == plotting.SEQUENTIAL
    matplotlib.pyplot.close(fig)


def test_figure_takes_rows_then_columns_like_matplotlib():
    fig, axes = plotting.figure(2, 3)
    assert axes.shape == (2, 3)  # plt.subplots(2, 3): two rows of three
    matplotlib.pyplot.close(fig)
