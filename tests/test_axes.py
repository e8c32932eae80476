"""sinpe.axes (M-RoPE's bands) against transformers' released code, re-typed in tests/sources.py."""

from __future__ import annotations

import numpy as np
import pytest

from sinpe.axes import MROPE_AXES, apply_mrope, mrope_axes
from sinpe.rope import apply_rope
from tests import sources

HOSTILE_EXAMPLES = {
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
