"""The diagrams of sinpe.plotting draw what their captions say.

The opening pictures of chapters 2 and 4: the rotation of one pair
(``shift_rotation``), the encoder layer (``encoder_layer``) and one head of
attention (``attention_diagram``). Each test reads the drawn artists back and
compares them with what sinpe computes, or with an independent golden value.
"""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.colors import to_rgb

import sinpe
from sinpe import diagrams, plotting
from sinpe.lab import nn


@pytest.fixture
def ax():
    with matplotlib.rc_context():
        fig, axes = plotting.figure(width=3.0, height=3.0)
        yield axes
    plt.close(fig)


# ---------------------------------------------------------------------------
# The rotation of one pair (chapter 2)


def _markers(ax) -> np.ndarray:
    """The (x, y) of every marker-only line of ``ax``, stacked."""
    lines = [line for line in ax.lines if line.get_linestyle() == "None"]
    return np.vstack([line.get_xydata() for line in lines])


@pytest.mark.parametrize(
    ("position", "shift", "d_model", "pair"),
    [(1.0, 2.0, 16, 0), (1.0, 2.0, 16, 1), (7.5, -3.0, 8, 3)],
)
def test_rotation_points_are_the_encodings_pair_values(ax, position, shift, d_model, pair):
    turn = diagrams.shift_rotation(ax, position, shift, d_model, pair)
    table = sinpe.positional_encoding(np.array([position, position + shift]), d_model)
    expected = table[:, 2 * pair : 2 * pair + 2]  # (sin, cos): sine horizontal
    np.testing.assert_allclose(_markers(ax), expected, rtol=0, atol=1e-15)
    assert turn == pytest.approx(shift * sinpe.frequencies(d_model)[pair], rel=1e-15)
    labels = {text.get_text(): text.xy for text in ax.texts if text.get_text().startswith("$p")}
    np.testing.assert_allclose(labels["$p$"], expected[0])
    np.testing.assert_allclose(labels["$p + k$"], expected[1])
    assert f"{math.degrees(turn):.0f}°" in ax.get_title()


def test_rotation_golden_values_of_the_fastest_pair(ax):
    # Pair 0 turns at omega_0 = 1: its points are (sin p, cos p), from the math module.
    diagrams.shift_rotation(ax, 1.0, 2.0, 16, 0)
    golden = [[math.sin(1.0), math.cos(1.0)], [math.sin(3.0), math.cos(3.0)]]
    np.testing.assert_allclose(_markers(ax), golden, rtol=0, atol=1e-15)
    assert ax.get_xlabel().startswith(r"$\sin") and ax.get_ylabel().startswith(r"$\cos")


def test_rotation_arc_turns_clockwise_by_k_omega(ax):
    turn = diagrams.shift_rotation(ax, 0.5, 1.5, 8, 1)
    (arc,) = [
        line.get_xydata()
        for line in ax.lines
        if line.get_color() == plotting.COLORS[0] and line.get_linestyle() == "-"
    ]
    assert np.allclose(np.hypot(arc[:, 0], arc[:, 1]), 0.35)  # on one circle
    angles = np.unwrap(np.arctan2(arc[:, 1], arc[:, 0]))  # counterclockwise from x
    assert np.all(np.diff(angles) < 0)  # clockwise, as the position grows
    covered = angles[0] - angles[-1]
    assert 0.9 * turn < covered <= turn  # the drawn part stops short of the arrow head
    assert turn == pytest.approx(1.5 * 10000.0 ** (-2 / 8))


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ((1.0, 2.0, 16, 8), ValueError),  # pair out of range: 8 pairs, 0 to 7
        ((float("nan"), 2.0, 16, 0), ValueError),
        ((1.0, 2.0, 15, 0), ValueError),  # odd width
        ((1.0, "2", 16, 0), TypeError),
        ((1.0, 2.0, 16, 0.5), TypeError),
    ],
)
def test_rotation_refuses_bad_input(ax, arguments, error):
    with pytest.raises(error):
        diagrams.shift_rotation(ax, *arguments)


# ---------------------------------------------------------------------------
# The encoder layer (chapter 4)


def _run_steps(layer: nn.EncoderLayer, steps: list[str], x: np.ndarray) -> np.ndarray:
    """Compute the layer's output by following the drawn steps, in order.

    A residual arrow starts where the last "add" left off (or at the input) and
    ends at the next "add": each "add" adds the saved input of its branch.
    """
    norms = iter((layer.norm1, layer.norm2))
    state = saved = x
    for step in steps:
        if step.startswith("multi-head attention"):
            state = layer.self_attn.forward(state)
        elif step.startswith("feed-forward"):
            state = layer.linear1.forward(state)
            state = nn.relu(state) if layer.activation == "relu" else nn.gelu(state)
            state = layer.linear2.forward(state)
        elif step.startswith("add"):
            state = saved + state
        if step.endswith("norm"):
            state = next(norms).forward(state)
        if step.startswith("add"):
            saved = state
        elif not layer.residual:
            saved = None
    return state


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_layer_steps_compute_what_the_layer_computes(norm_first, residual, activation):
    layer = nn.EncoderLayer.of(
        nn.ModelConfig(
            d_model=8,
            n_heads=2,
            d_ff=16,
            norm_first=norm_first,
            residual=residual,
            activation=activation,
        ),
        np.random.default_rng(1),
    )
    x = np.random.default_rng(2).normal(size=(2, 5, 8))
    steps = diagrams.encoder_layer_steps(layer)
    np.testing.assert_allclose(_run_steps(layer, steps, x), layer.forward(x), atol=1e-12)


def test_layer_steps_of_the_paper_and_their_sizes():
    layer = nn.EncoderLayer(
        nn.ModelConfig(d_model=32, n_heads=4, d_ff=64), np.random.default_rng(0)
    )
    assert diagrams.encoder_layer_steps(layer) == [
        "multi-head attention, 4 heads",
        "add & norm",
        "feed-forward 32 → 64 → 32, ReLU",
        "add & norm",
    ]
    pre = nn.EncoderLayer.of(
        nn.ModelConfig(d_model=8, n_heads=1, d_ff=24, norm_first=True, activation="gelu"),
        np.random.default_rng(0),
    )
    assert diagrams.encoder_layer_steps(pre) == [
        "norm",
        "multi-head attention, 1 head",
        "add",
        "norm",
        "feed-forward 8 → 24 → 8, GELU",
        "add",
    ]


@pytest.mark.parametrize("norm_first", [False, True])
def test_layer_diagram_draws_the_boxes_bottom_to_top(ax, norm_first):
    layer = nn.EncoderLayer.of(
        nn.ModelConfig(d_model=8, n_heads=2, d_ff=16, norm_first=norm_first),
        np.random.default_rng(0),
    )
    labels = diagrams.encoder_layer(ax, layer)
    assert labels == [
        "token embedding",
        "+ positional encoding PE(p)",
        *diagrams.encoder_layer_steps(layer),
    ]
    drawn = [text for text in ax.texts if text.get_text() in labels]
    assert [text.get_text() for text in drawn] == labels
    heights = [text.get_position()[1] for text in drawn]
    assert heights == sorted(heights)  # data flow upwards
    boxes = [patch for patch in ax.patches if patch.get_facecolor()[3] > 0]
    assert len(boxes) == len(labels)
    colours = [to_rgb(box.get_facecolor()[:3]) for box in boxes]
    assert colours.count(to_rgb(plotting.COLORS[1])) == 1  # the encoding stands out
    assert colours[1] == to_rgb(plotting.COLORS[1])
    # one residual arrow per block, each ending at an "add" box
    arrows = [line for line in ax.lines if len(line.get_xdata()) == 3]
    assert len(arrows) == 2


def test_layer_diagram_refuses_what_is_not_a_layer(ax):
    with pytest.raises(TypeError, match="layer must be"):
        diagrams.encoder_layer(
            ax,
            nn.MultiHeadAttention(nn.ModelConfig(d_model=4, n_heads=2), np.random.default_rng(0)),
        )


# ---------------------------------------------------------------------------
# One head of attention (chapter 4)


@pytest.fixture
def attention():
    layer = nn.MultiHeadAttention(nn.ModelConfig(d_model=4, n_heads=1), np.random.default_rng(3))
    layer(np.random.default_rng(4).normal(size=(2, 3, 4)))
    return layer


def test_attention_steps_are_the_layers_computation(attention):
    steps = diagrams.attention_steps(attention, sample=1)
    scores = steps["Q"] @ steps["K^T"] / math.sqrt(4)  # one head: Dh = 4
    np.testing.assert_allclose(steps["S"], scores, atol=1e-12)
    np.testing.assert_allclose(steps["A"], nn.softmax(scores, axis=-1), atol=1e-12)
    np.testing.assert_allclose(steps["A"].sum(axis=1), 1.0)
    # with one head, the layer's output is AV through the output projection
    projection = attention.out_proj.params
    output = steps["AV"] @ projection["weight"].T + projection["bias"]
    x = attention.cache.x
    np.testing.assert_allclose(output, attention.forward(x)[1], atol=1e-12)


def test_attention_diagram_shows_the_steps_numbers(attention):
    with matplotlib.rc_context():
        plotting.style()
        fig = plt.figure(figsize=(3.8, 3.3))
        axes = diagrams.attention_diagram(fig, attention, sample=1)
    steps = diagrams.attention_steps(attention, sample=1)
    assert set(axes) == set(steps)
    for name, values in steps.items():
        np.testing.assert_array_equal(axes[name].images[0].get_array(), values)
        digits = 2 if name == "A" else 1
        shown = [text.get_text() for text in axes[name].texts]
        assert shown == [f"{value:.{digits}f}" for value in values.ravel()]
    # the matrices fit the figure (nothing cut off at a phone's width)
    for name, ax in axes.items():
        x0, y0, x1, y1 = ax.get_position().extents
        assert 0 <= x0 and x1 <= 1 and 0 <= y0 and y1 <= 1, name
    plt.close(fig)


def test_attention_steps_refuse_bad_input(attention):
    fresh = nn.MultiHeadAttention(nn.ModelConfig(d_model=4, n_heads=2), np.random.default_rng(0))
    with pytest.raises(ValueError, match="not run forward"):
        diagrams.attention_steps(fresh)
    with pytest.raises(ValueError, match="head"):
        diagrams.attention_steps(attention, head=1)
    with pytest.raises(ValueError, match="sample"):
        diagrams.attention_steps(attention, sample=2)
    with pytest.raises(TypeError, match="attention must be"):
        diagrams.attention_steps(
            nn.EncoderLayer(nn.ModelConfig(d_model=4, n_heads=1, d_ff=8), np.random.default_rng(0))
        )


# ---------------------------------------------------------------------------
# The pieces every block diagram is made of (chapters 1 and 4)


def test_a_box_is_centred_where_asked_with_its_label_in_the_middle(ax):
    ax.set(xlim=(0, 10), ylim=(0, 10))
    diagrams.box(ax, (3.0, 7.0), "PE(p)", fill=plotting.COLORS[1], width=2.0, height=1.0)
    (patch,) = ax.patches
    assert (patch.get_x(), patch.get_y()) == (2.0, 6.5)
    assert (patch.get_width(), patch.get_height()) == (2.0, 1.0)
    assert patch.get_facecolor()[:3] == pytest.approx(to_rgb(plotting.COLORS[1]))
    (label,) = ax.texts
    assert label.get_text() == "PE(p)" and label.get_position() == (3.0, 7.0)
    assert (label.get_ha(), label.get_va()) == ("center", "center")
    assert label.get_fontsize() >= plotting.MIN_FONT_SIZE


def test_an_arrow_points_from_its_tail_to_its_head(ax):
    ax.set(xlim=(0, 10), ylim=(0, 10))
    diagrams.arrow(ax, (1.0, 2.0), (4.0, 6.0))
    (drawn,) = ax.texts  # an annotation with no text, and its arrow
    assert drawn.xy == (4.0, 6.0) and drawn.xyann == (1.0, 2.0)
    assert drawn.arrowprops["arrowstyle"] == "-|>"
