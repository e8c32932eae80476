"""sinpe.axes against the released code, re-typed in tests/sources.py.

M-RoPE's bands against transformers, FLUX's blocks against black-forest-labs/flux, and
RoPE-Mixed against naver-ai/rope-vit's ``models/vit_rope.py`` (commit
ce85c2e56c5ff3aadc10e1a849872081f7b86293). torch is not in the venv: the rope-vit
functions are re-typed with NumPy line for line, ``torch.rand(1)`` drawn as
``rng.random(1)`` and the rest in float64 (the release computes in float32).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sinpe import symbolic
from sinpe.axes import (
    FLUX_AXES_DIM,
    MROPE_AXES,
    apply_axial_rope,
    apply_mixed_rope,
    apply_mrope,
    axial_frequencies,
    mixed_angles,
    mixed_frequencies,
    mrope_axes,
)
from sinpe.rope import apply_rope
from tests import sources

# mixed_frequencies needs a random generator, not a literal: its case is in test_hostile.py.
HOSTILE_EXAMPLES = {
    "sinpe.axes.axial_frequencies": {"axes_dim": [2, 4]},
    "sinpe.axes.apply_axial_rope": {
        "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "positions": [1.0, 2.0],
        "axes_dim": [2, 4],
    },
    "sinpe.axes.mrope_axes": {"mrope_section": [1, 2, 1]},
    "sinpe.axes.apply_mrope": {
        "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        "positions": [1.0, 2.0, 3.0],
        "mrope_section": [1, 2, 1],
    },
    "sinpe.axes.mixed_angles": {
        "positions": [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]],
        "frequencies": [[1.0, 0.5], [-0.5, 1.0]],
    },
    "sinpe.axes.apply_mixed_rope": {
        "x": [1.0, 2.0, 3.0, 4.0],
        "positions": [2.0, 3.0],
        "frequencies": [[1.0, 0.5], [-0.5, 1.0]],
    },
}


def test_the_axes_of_qwen2_vl_are_three_bands():
    axes = mrope_axes([16, 24, 24])
    assert axes.shape == (64,)
    assert axes[:16].tolist() == [0] * 16 and axes[16:40].tolist() == [1] * 24
    assert axes[40:].tolist() == [2] * 24
    assert len(MROPE_AXES) == 3


@pytest.mark.parametrize("section", [[16, 24, 24], [1, 2, 1], [2, 1, 3]])
def test_apply_mrope_is_the_released_rotation(section):
    rng = np.random.default_rng(0)
    width = 2 * sum(section)
    x = rng.normal(size=(5, width))
    positions = rng.integers(0, 40, size=(3, 5))
    ours = apply_mrope(x, positions, section, base=10000.0)
    theirs = sources.qwen2vl_mrope(x, positions, section)
    # transformers' inv_freq is float32: a relative error of 1e-7 in theta, times 40
    np.testing.assert_allclose(ours, theirs, atol=1e-4)
    assert not np.allclose(ours, sources.qwen2vl_mrope(x, positions[::-1], section), atol=1e-3)


def test_equal_positions_give_plain_rope():
    x = np.random.default_rng(1).normal(size=(4, 16))
    same = np.tile(np.arange(4.0), (3, 1))
    np.testing.assert_allclose(
        apply_mrope(x, same, [2, 3, 3]),
        apply_rope(x, np.arange(4.0), layout="concat"),
        rtol=0,
        atol=1e-12,
    )


def test_a_shift_along_one_axis_turns_only_that_axis_pairs():
    section = [2, 3, 3]
    axes = mrope_axes(section)
    x = np.random.default_rng(2).normal(size=16)
    before = apply_mrope(x, [4.0, 5.0, 6.0], section)
    after = apply_mrope(x, [4.0, 5.0 + 7.0, 6.0], section)  # height moves by 7
    moved = np.concatenate([axes == 1, axes == 1])
    assert np.array_equal(before[~moved], after[~moved])
    assert not np.allclose(before[moved], after[moved])


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: mrope_axes([16, 24]), ValueError),
        (lambda: mrope_axes([16, 0, 24]), ValueError),
        (lambda: mrope_axes([1.5, 2, 1]), TypeError),
        (lambda: apply_mrope(np.ones(6), [1, 2, 3], [1, 2, 1]), ValueError),
        (lambda: apply_mrope(np.ones(8), [1, 2], [1, 2, 1]), ValueError),
    ],
)
def test_bad_input_is_refused_clearly(call, error):
    with pytest.raises(error, match=r"mrope_section|last axis|positions"):
        call()


def test_flux_axial_rope_is_the_released_embed_nd():
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 64, size=(7, 3)).astype(float)  # (T, axes): time, height, width
    x = rng.normal(size=(7, sum(FLUX_AXES_DIM)))
    theirs = sources.flux_apply_rope(x, sources.flux_embed_nd(ids, FLUX_AXES_DIM))
    ours = apply_axial_rope(x, ids.T, FLUX_AXES_DIM)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    wrong = sources.flux_apply_rope(x, sources.flux_embed_nd(ids[:, ::-1], FLUX_AXES_DIM))
    assert not np.allclose(ours, wrong)


def test_every_flux_axis_gets_its_own_full_ladder():
    theta = axial_frequencies(FLUX_AXES_DIM)
    starts = np.cumsum([0, *FLUX_AXES_DIM[:-1]]) // 2
    assert theta[starts].tolist() == [1.0, 1.0, 1.0]  # each axis starts at the fastest
    assert theta.size == 64
    # a shift along one axis turns only that axis's block of entries
    x = np.random.default_rng(4).normal(size=128)
    here = apply_axial_rope(x, [0.0, 3.0, 4.0], FLUX_AXES_DIM)
    there = apply_axial_rope(x, [0.0, 3.0, 9.0], FLUX_AXES_DIM)
    changed = np.flatnonzero(~np.isclose(here, there, rtol=0, atol=0))
    assert changed.min() >= 16 + 56 and changed.size == 56


def test_bad_axes_are_refused():
    with pytest.raises(ValueError, match="even widths"):
        axial_frequencies([3, 4])
    with pytest.raises(ValueError, match="sum\\(axes_dim\\)"):
        apply_axial_rope(np.ones(5), [1.0, 2.0], [2, 4])
    with pytest.raises(ValueError, match="one row per axis"):
        apply_axial_rope(np.ones(6), [1.0, 2.0, 3.0], [2, 4])


# RoPE-Mixed (naver-ai/rope-vit)


@pytest.mark.parametrize("dim, heads", [(64, 6), (16, 3), (4, 1)])
@pytest.mark.parametrize("rotate", [True, False])
def test_mixed_frequencies_are_the_released_init(dim, heads, rotate):
    theirs = sources.ropevit_init_random_2d_freqs(
        dim, heads, np.random.default_rng(5), theta=10.0, rotate=rotate
    )
    ours = mixed_frequencies(dim, heads, rng=np.random.default_rng(5), rotate=rotate)
    assert ours.shape == (heads, dim // 2, 2)
    # the same draws; cos(pi/2 + phi) for -sin(phi) differs by rounding only
    np.testing.assert_allclose(np.moveaxis(ours, -1, 0), theirs, rtol=0, atol=1e-15)
    if rotate:
        other = mixed_frequencies(dim, heads, rng=np.random.default_rng(6))
        assert not np.allclose(ours, other)


def test_each_head_turns_two_perpendicular_halves():
    f = mixed_frequencies(32, 4, rng=np.random.default_rng(0))
    first, second = f[:, :8], f[:, 8:]
    np.testing.assert_allclose((first * second).sum(-1), 0.0, atol=1e-15)  # perpendicular
    np.testing.assert_allclose(
        np.hypot(*np.moveaxis(first, -1, 0)), np.hypot(*np.moveaxis(second, -1, 0))
    )
    direction = np.arctan2(first[:, 0, 1], first[:, 0, 0])
    assert np.ptp(direction) > 0.1  # the heads are turned differently
    # every pair of a head points the same way (one angle per head)
    np.testing.assert_allclose(
        np.arctan2(first[..., 1], first[..., 0]),
        np.broadcast_to(direction[:, None], first.shape[:2]),
    )


def _ropevit_model_freqs(dim, heads, depth, rng):
    """rope_vit_models.__init__: one init per block, then
    ``torch.stack(freqs, dim=1).view(2, len(self.blocks), -1)``."""
    blocks = [sources.ropevit_init_random_2d_freqs(dim, heads, rng) for _ in range(depth)]
    return np.stack(blocks, axis=1).reshape(2, depth, -1)


def test_mixed_rope_is_the_released_rotation():
    dim, heads, depth, end_x, end_y = 16, 3, 2, 4, 3
    freqs = _ropevit_model_freqs(dim, heads, depth, np.random.default_rng(1))
    t_x, t_y = sources.ropevit_init_t_xy(end_x, end_y)
    cis = sources.ropevit_compute_mixed_cis(freqs, t_x, t_y, heads)  # (depth, H, N, dim/2)
    assert cis.shape == (depth, heads, end_x * end_y, dim // 2)
    ours = mixed_frequencies(dim, depth * heads, rng=np.random.default_rng(1))
    ours = ours.reshape(depth, heads, dim // 2, 2)
    x = np.random.default_rng(2).normal(size=(heads, end_x * end_y, dim))  # one block's q
    for block in range(depth):
        angles = mixed_angles([t_x, t_y], ours[block])  # (H, N, dim/2)
        np.testing.assert_allclose(np.exp(1j * angles), cis[block], rtol=0, atol=1e-13)
        theirs = sources.ropevit_apply_rotary_emb(x, cis[block])
        for head in range(heads):
            turned = apply_mixed_rope(x[head], [t_x, t_y], ours[block, head])
            np.testing.assert_allclose(turned, theirs[head], rtol=0, atol=1e-12)
    # t_x and t_y swapped is another rotation: the test can see the axes
    swapped = apply_mixed_rope(x[0], [t_y, t_x], ours[0, 0])
    assert not np.allclose(swapped, sources.ropevit_apply_rotary_emb(x, cis[0])[0])


def test_axial_is_mixed_with_every_vector_on_an_axis():
    dim, end_x, end_y = 16, 5, 3
    on_axes = mixed_frequencies(dim, 1, base=100.0, rotate=False)[0]
    assert ((on_axes == 0).sum(-1) == 1).all()  # one component exactly zero per pair
    assert (on_axes[: dim // 4, 1] == 0).all() and (on_axes[dim // 4 :, 0] == 0).all()
    t_x, t_y = sources.ropevit_init_t_xy(end_x, end_y)
    x = np.random.default_rng(3).normal(size=(end_x * end_y, dim))
    mixed = apply_mixed_rope(x, [t_x, t_y], on_axes)
    axial = apply_axial_rope(x, [t_x, t_y], [dim // 2, dim // 2], base=100.0)
    np.testing.assert_allclose(mixed, axial, rtol=0, atol=1e-12)
    theirs = sources.ropevit_apply_rotary_emb(
        x, sources.ropevit_compute_axial_cis(dim, end_x, end_y, theta=100.0)
    )
    np.testing.assert_allclose(axial, theirs, rtol=0, atol=1e-12)
    # a turned head is not axial
    turned = mixed_frequencies(dim, 1, rng=np.random.default_rng(0), base=100.0)[0]
    assert not np.allclose(apply_mixed_rope(x, [t_x, t_y], turned), axial)


_COORD = st.floats(-50.0, 50.0, allow_nan=False)


@settings(max_examples=40, deadline=None, database=None)
@given(
    start=st.tuples(_COORD, _COORD),
    other=st.tuples(_COORD, _COORD),
    shift=st.tuples(_COORD, _COORD),
    seed=st.integers(0, 2**32 - 1),
)
def test_a_shift_turns_each_pair_by_its_offset_alone(start, other, shift, seed):
    rng = np.random.default_rng(seed)
    f = mixed_frequencies(8, 1, rng=rng)[0]
    here = np.array([start, other]).T  # two patches, (2, 2): rows t_x, t_y
    moved = here + np.array(shift)[:, None]
    turn = mixed_angles(moved, f) - mixed_angles(here, f)
    np.testing.assert_allclose(turn, np.tile(f @ np.array(shift), (2, 1)), rtol=0, atol=1e-10)
    # so the score of a query and a key depends on their offset only
    q, k = rng.normal(size=(2, 8))
    before = apply_mixed_rope(q, here[:, 0], f) @ apply_mixed_rope(k, here[:, 1], f)
    after = apply_mixed_rope(q, moved[:, 0], f) @ apply_mixed_rope(k, moved[:, 1], f)
    assert np.isclose(before, after, rtol=0, atol=1e-10)


def test_a_diagonal_step_is_seen_by_every_mixed_pair():
    axial = mixed_frequencies(16, 1, rotate=False)[0]
    mixed = mixed_frequencies(16, 1, rng=np.random.default_rng(0))[0]
    right, diagonal = [[1.0], [0.0]], [[1.0], [1.0]]
    for f, blind in ((axial, 4), (mixed, 0)):
        # pairs whose turn is the same for a step right and a diagonal step: blind to y
        same = np.isclose(mixed_angles(right, f), mixed_angles(diagonal, f), rtol=0, atol=0)
        assert same.sum() == blind
    # each mixed pair is blind along one direction only: perpendicular to its vector
    across = np.array([-mixed[0, 1], mixed[0, 0]])[:, None]
    assert np.isclose(mixed_angles(across, mixed)[0, 0], 0.0, atol=1e-15)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: mixed_frequencies(6, 2, rotate=False), ValueError, "multiple of 4"),
        (lambda: mixed_frequencies(64, 0, rotate=False), ValueError, "n_heads"),
        (lambda: mixed_frequencies(64, 6), ValueError, "rng=np.random.default_rng"),
        (lambda: mixed_frequencies(64, 6, rng=42), TypeError, "numpy.random.Generator"),
        (lambda: mixed_angles([1.0, 2.0, 3.0], [[1.0, 0.0]]), ValueError, "one row per image"),
        (lambda: mixed_angles([1.0, 2.0], [1.0, 0.0]), ValueError, r"\(f_x, f_y\)"),
        (lambda: mixed_angles([1.0, 2.0], [[1.0, 0.0, 0.0]]), ValueError, r"\(f_x, f_y\)"),
        (lambda: mixed_angles([1e300, 2.0], [[1e300, 0.0]]), ValueError, "overflows"),
        (
            lambda: apply_mixed_rope(np.ones(6), [1.0, 2.0], [[1.0, 0.0]] * 2),
            ValueError,
            "per pair of x",
        ),
        (
            lambda: apply_mixed_rope(np.ones(5), [1.0, 2.0], [[1.0, 0.0]] * 2),
            ValueError,
            "per pair of x",
        ),
        (
            lambda: apply_mixed_rope(np.ones(4), [np.nan, 2.0], [[1.0, 0.0]] * 2),
            ValueError,
            "finite",
        ),
    ],
)
def test_bad_mixed_input_is_refused_clearly(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_sympy_checks_the_mixed_shift_and_refuses_wrong_angles():
    identity = symbolic.verify_mixed_shift()
    assert identity.name == "mixed shift" and len(identity.statements) == 3
    # the y position read with f_x: still linear, but not the turn s (u . f)
    with pytest.raises(symbolic.IdentityError, match="does not turn the pair"):
        symbolic.verify_mixed_shift(lambda t, f: t[0] * f[0] + t[1] * f[0])
    # a distance from the origin: a shift turns by an amount that depends on where
    with pytest.raises(symbolic.IdentityError):
        symbolic.verify_mixed_shift(lambda t, f: (t[0] * f[0]) ** 2 + t[1] * f[1])
    with pytest.raises(ValueError, match="two expressions"):
        symbolic.mixed_angle((1, 2, 3), (1, 2))


MUTANTS = [
    (
        "axes.py",
        "apply_axial_rope",
        "rows[axis]",
        "rows[::-1][axis]",
        "each FLUX block turned by another axis's position",
    ),
    (
        "axes.py",
        "mixed_angles",
        "rows[0][..., np.newaxis] * f_x + rows[1][..., np.newaxis] * f_y",
        "rows[0][..., np.newaxis] * f_x + rows[1][..., np.newaxis] * f_x",
        "RoPE-Mixed's y position turned with the x frequency",
    ),
    (
        "axes.py",
        "mixed_frequencies",
        "np.outer(0.0 - sin, magnitudes)",
        "np.outer(sin, magnitudes)",
        "the second half of a head's vectors not perpendicular to the first",
    ),
]
