"""The shared figure style: colours, colour map, labelled colour bars."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
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


def _tilting_line(name="demo", **options):
    from matplotlib.animation import FuncAnimation

    with matplotlib.rc_context():
        fig, ax = plotting.figure(width=2.0, height=1.0)
        (line,) = ax.plot([0, 1], [0, 0], color=plotting.COLORS[0])
        moving = FuncAnimation(fig, lambda t: line.set_ydata([0, t]), frames=[0.0, 0.5, 1.0])
        html = plotting.animation_html(moving, name=name, alt='a "line" <tilting>', **options)
    plt.close(fig)
    return html


def test_animation_html_is_reproducible_offline_and_accessible():
    import base64
    import io
    import re

    from PIL import Image

    first, second = _tilting_line(), _tilting_line()
    assert first == second  # the random player id is gone: a cell stores the same bytes
    assert "_anim_imgdemo" in first and "animdemo.play_animation()" in first
    assert re.search(r"_anim_img[0-9a-f]{32}", first) is None
    assert 'alt="a &quot;line&quot; &lt;tilting>"' in first and 'width="700"' in first
    assert "font-awesome" not in first and "https://" not in first  # nothing fetched
    assert "prefers-reduced-motion" in first
    assert 'class="anim-slider" aria-label="frame"' in first  # axe: a labelled control
    frames = re.findall(r"data:image/png;base64,([\w+/=\\\n]+)", first)
    assert len(frames) == 3
    for data in frames:
        image = Image.open(io.BytesIO(base64.b64decode(data.replace("\\\n", ""))))
        assert image.mode == "P" and len(image.getcolors()) <= 64
        assert image.width == 400  # 2 inches at savefig.dpi 200: sharp on 2x screens
    still = _tilting_line(autoplay=False, colors=8, width=300)
    assert "IntersectionObserver" in first and "IntersectionObserver" not in still
    assert 'width="300"' in still


def test_the_players_buttons_are_drawn_without_font_awesome():
    # Issue 41: in a notebook front end (no Font Awesome stylesheet) the player's
    # <i class="fa ..."> icons were blank buttons. Each is an inline SVG now, and each
    # button still has its name for a screen reader.
    import re

    html = _tilting_line()
    buttons = re.findall(r"<button [^>]*>(.*?)</button>", html, re.S)
    assert len(buttons) == 9
    assert 'class="fa' not in html
    for inside in buttons:
        assert re.fullmatch(
            r'\s*<svg [^>]*aria-hidden="true"[^>]*>(<(rect|polygon) [^>]+/>)+</svg>', inside
        )
    assert len(set(buttons)) == 9  # nine different drawings
    assert re.findall(r'<button [^>]*aria-label="([^"]+)"', html)[4] == "Pause"
    with pytest.raises(ValueError, match="no drawing for the player's icon 'fa-rocket'"):
        plotting._drawn_buttons('<i class="fa fa-rocket"></i>')


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"name": "two words"}, ValueError, "name must be a short identifier"),
        ({"alt": "  "}, ValueError, "alt must describe"),
        ({"colors": 1}, ValueError, "colors must be at least 2 and at most 256, got 1"),
        ({"colors": 300}, ValueError, "colors must be at least 2 and at most 256, got 300"),
        ({"width": 0}, ValueError, "width"),
        ({"width": 7.5}, TypeError, "width"),
        ({"autoplay": "yes"}, TypeError, "autoplay"),
    ],
)
def test_animation_html_refuses_bad_options(options, error, match):
    # The options are checked before the animation is touched (none is needed here).
    arguments = {"name": "demo", "alt": "nothing"} | options
    with pytest.raises(error, match=match):
        plotting.animation_html(object(), **arguments)


def _size(variant: dict) -> tuple[int, int]:
    import base64
    import io

    from PIL import Image

    with Image.open(io.BytesIO(base64.b64decode(variant["data"]))) as image:
        return image.size


def test_a_wide_figure_gets_a_phone_variant_with_its_panels_stacked():
    fig, axes = plotting.figure(ncols=2, width=7.0, height=3.0, sharey=True)
    for ax in axes:
        ax.plot([0, 1], [0, 1])
    plotting.heatmap(axes[1], np.eye(2), extent=(0, 1, 0, 1), colorbar_label="value")
    specs = [ax.get_subplotspec() for ax in axes]
    phone = plotting.narrow_png(fig)
    # about 360 CSS px wide, as a 2x PNG, and about twice as tall as wide: stacked
    pixels = _size(phone)
    assert 330 <= phone["width"] <= 400 and pixels[0] // 2 == phone["width"]
    assert phone["height"] > 1.5 * phone["width"]
    assert phone["font_pt"] == plotting.MIN_FONT_SIZE
    # the figure itself is left as it was: size, places, the shared axis's hidden labels
    assert fig.get_size_inches().tolist() == [7.0, 3.0]
    assert [ax.get_subplotspec() for ax in axes] == specs
    assert axes[1].yaxis.get_tick_params()["labelleft"] is False
    plt.close(fig)


def test_a_narrow_figure_has_no_phone_variant_and_a_diagram_draws_its_own():
    fig, _ = plotting.figure(width=4.4, height=3.0)
    assert plotting.narrow_png(fig) is None  # a phone shows it whole, text >= 9 CSS px
    plt.close(fig)

    def folded():
        other, axes = plotting.figure(2, 1, width=3.0, height=4.0)
        axes[0].text(0.5, 0.5, "tiny", fontsize=7)
        return other

    fig, _ = plotting.figure(width=7.0, height=2.0, narrow=folded)
    before = len(plt.get_fignums())
    phone = plotting.narrow_png(fig)
    assert phone["font_pt"] == 7.0 and phone["height"] > phone["width"]
    assert len(plt.get_fignums()) == before  # the variant's figure is closed again
    plt.close(fig)


def test_the_inline_hook_records_the_variant_and_the_smallest_font():
    fig, axes = plotting.figure(ncols=3)
    axes[0].set_title("small", fontsize=8)
    data, metadata = plotting._with_narrow(("png", {"width": 700, "height": 360}), fig)
    assert data == "png" and metadata["width"] == 700
    assert metadata[plotting.FONT_KEY] == 8.0
    assert metadata[plotting.NARROW_KEY]["font_pt"] == 8.0
    assert plotting._with_narrow(None, fig) is None  # an empty figure draws nothing
    plt.close(fig)


def test_a_figure_legend_too_wide_for_a_phone_goes_into_one_column():
    fig, axes = plotting.figure(ncols=2, height=3.0)
    for number in range(4):
        axes[0].plot([0, 1], [number, number], label=f"a rather long label {number}")
    legend = fig.legend(loc="outside lower center", ncols=4)
    phone = plotting.narrow_png(fig)
    assert phone["width"] < 400  # one column: not widened by the legend
    assert fig.legends == [legend] and legend._ncols == 4  # the figure is left as it was
    plt.close(fig)


@pytest.mark.parametrize("row_zero_on_top", [False, True])
def test_heatmap_draws_a_known_diagonal_on_the_diagonal(row_zero_on_top):
    # values[t, t - 1] = 1: the previous-token band of Fig. 8.1, below the diagonal.
    # Each bright cell must appear at data coordinates (key s, query t), whichever way
    # the y axis runs; the transposed cell (s = t + 1) must stay dark.
    size = 6
    values = np.eye(size, k=-1)
    fig, ax = plotting.figure(width=4.0, height=4.0)
    plotting.heatmap(
        ax, values, extent=(-0.5, size - 0.5, -0.5, size - 0.5), colorbar_label="score"
    )
    if row_zero_on_top:
        ax.invert_yaxis()
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float).mean(axis=-1)
    height = pixels.shape[0]

    def brightness(key: int, query: int) -> float:
        x, y = ax.transData.transform((key, query))
        return float(pixels[round(height - y), round(x)])

    band = [brightness(t - 1, t) for t in range(1, size)]
    mirror = [brightness(t, t - 1) for t in range(1, size)]
    anti = [brightness(t - 1, size - t) for t in range(1, size) if size - t != t]
    assert min(band) > max(mirror) + 100
    assert min(band) > max(anti) + 100
    # And on the screen: query 0 on top after invert_yaxis, at the bottom without it.
    first, last = (height - ax.transData.transform((0, t))[1] for t in (0, size - 1))
    assert (first < last) == row_zero_on_top
    plt.close(fig)


def test_heatmap_refuses_an_extent_with_top_and_bottom_swapped():
    # Fig. 8.1 was drawn upside down this way: origin "lower" with bottom > top.
    fig, ax = plotting.figure()
    with pytest.raises(ValueError, match=r"bottom < top.*invert_yaxis"):
        plotting.heatmap(ax, np.eye(3), extent=(-0.5, 2.5, 2.5, -0.5), colorbar_label="v")
    plt.close(fig)


def _seven_heatmaps(shared_bar):
    """Fig. 6.4's layout: seven heatmaps in a 3 x 3 grid and their one colour bar."""
    fig, axes = plotting.figure(ncols=3, nrows=3, height=7.5)
    for ax in axes.flat[:7]:
        image = ax.imshow(np.eye(8), aspect="auto", vmin=-1, vmax=1)
        ax.set(title="tensor2tensor", xlabel="dimension", ylabel="position")
    if shared_bar == "beside":  # Fig. 6.4 as it was
        for ax in axes.flat[7:]:
            ax.set_visible(False)
        bar = fig.colorbar(image, ax=axes, label="value", shrink=0.8)
    else:
        axes.flat[8].remove()
        bar = plotting.colorbar_in(axes.flat[7], image, label="value", ticks=[-1, 0, 1])
    return fig, axes.flat[:7], bar


def _overlaps(fig, panels, bar) -> list[str]:
    """The titles and labels of ``panels`` that the colour bar (with its text) covers."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    covered = bar.ax.get_tightbbox(renderer)
    return [
        text.get_text()
        for ax in panels
        for text in (ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels())
        if text.get_text() and text.get_window_extent(renderer).overlaps(covered)
    ]


@pytest.mark.parametrize("shared_bar", ["in a cell", "beside"])
def test_a_shared_colour_bar_covers_no_label_wide_or_on_a_phone(shared_bar, monkeypatch):
    fig, panels, bar = _seven_heatmaps(shared_bar)
    wide = _overlaps(fig, panels, bar)
    phone = []
    drawn = plotting._png
    monkeypatch.setattr(  # look at the phone variant as narrow_png lays it out
        plotting,
        "_png",
        lambda narrowed: phone.extend(_overlaps(narrowed, panels, bar)) or drawn(narrowed),
    )
    variant = plotting.narrow_png(fig)
    assert variant["width"] < 400
    if shared_bar == "beside":  # the old layout: the check sees the bar over labels
        assert phone
    else:
        assert wide == [] and phone == []
        assert bar.ax.get_tightbbox().width < fig.bbox.width / 2  # within its cell
    plt.close(fig)
