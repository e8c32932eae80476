"""sinpe.axes (M-RoPE's bands) against transformers' released code, re-typed in tests/sources.py."""

from __future__ import annotations

import numpy as np
import pytest

from sinpe.axes import (
    FLUX_AXES_DIM,
    MROPE_AXES,
    apply_axial_rope,
    apply_mrope,
    axial_frequencies,
    mrope_axes,
)
from sinpe.rope import apply_rope
from tests import sources

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


MUTANTS = [
    (
        "axes.py",
        "apply_axial_rope",
        "rows[axis]",
        "rows[::-1][axis]",
        "each FLUX block turned by another axis's position",
    ),
]
