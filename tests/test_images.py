"""The 2-D sine-cosine embedding of image models (sinpe.images, issue 20).

Oracles, none of them sinpe.images itself:

* MAE's NumPy reference code, re-typed below from ``facebookresearch/mae``,
  ``util/pos_embed.py`` (with ``np.sin`` / ``np.cos``): equal to 1e-12;
* closed forms (patch (0, 0), one step along an axis);
* the deterministic scalar sine of ``sinpe._trig`` on Python floats: bit for bit;
* the 1-D encoding of each axis, ``sinpe.positional_encoding(..., layout="concat")``
  at half the width: bit for bit.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import sinpe
from sinpe import PrecisionWarning
from sinpe._trig import sincos_scalar
from sinpe.images import sincos_2d

# --- MAE's reference, re-typed (facebookresearch/mae, util/pos_embed.py) -------------
# np.float (gone from NumPy) written as np.float64; otherwise line for line.


def mae_get_1d_sincos_pos_embed_from_grid(embed_dim, pos):
    assert embed_dim % 2 == 0
    omega = np.arange(embed_dim // 2, dtype=np.float64)
    omega /= embed_dim / 2.0
    omega = 1.0 / 10000**omega  # (D/2,)
    pos = pos.reshape(-1)  # (M,)
    out = np.einsum("m,d->md", pos, omega)  # (M, D/2), outer product
    emb_sin = np.sin(out)  # (M, D/2)
    emb_cos = np.cos(out)  # (M, D/2)
    return np.concatenate([emb_sin, emb_cos], axis=1)  # (M, D)


def mae_get_2d_sincos_pos_embed_from_grid(embed_dim, grid):
    assert embed_dim % 2 == 0
    # use half of dimensions to encode grid_h
    emb_h = mae_get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[0])  # (H*W, D/2)
    emb_w = mae_get_1d_sincos_pos_embed_from_grid(embed_dim // 2, grid[1])  # (H*W, D/2)
    return np.concatenate([emb_h, emb_w], axis=1)  # (H*W, D)


def mae_get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=False):
    grid_h = np.arange(grid_size, dtype=np.float32)
    grid_w = np.arange(grid_size, dtype=np.float32)
    grid = np.meshgrid(grid_w, grid_h)  # here w goes first
    grid = np.stack(grid, axis=0)
    grid = grid.reshape([2, 1, grid_size, grid_size])
    pos_embed = mae_get_2d_sincos_pos_embed_from_grid(embed_dim, grid)
    if cls_token:
        pos_embed = np.concatenate([np.zeros([1, embed_dim]), pos_embed], axis=0)
    return pos_embed


@pytest.mark.parametrize(("grid_size", "embed_dim"), [(1, 4), (3, 8), (14, 64), (16, 768)])
@pytest.mark.parametrize("cls_token", [False, True])
def test_equals_maes_reference_code(grid_size, embed_dim, cls_token):
    expected = mae_get_2d_sincos_pos_embed(embed_dim, grid_size, cls_token=cls_token)
    table = sincos_2d(grid_size, grid_size, embed_dim, cls_token=cls_token)
    assert table.shape == expected.shape
    np.testing.assert_allclose(table, expected, rtol=0, atol=1e-12)


def test_maes_first_half_encodes_the_column():
    # MAE's quirk: grid[0] is the column index, so the first half changes along a row
    reference = mae_get_2d_sincos_pos_embed(8, 3)
    half = 4
    assert np.array_equal(reference[0, half:], reference[1, half:])  # (0,0) vs (0,1)
    assert not np.array_equal(reference[0, :half], reference[1, :half])
    table = sincos_2d(3, 3, 8)
    assert np.array_equal(table[0, half:], table[1, half:])
    swapped = sincos_2d(3, 3, 8, first_half="row")
    assert np.array_equal(swapped, np.concatenate([table[:, half:], table[:, :half]], axis=1))


def test_patch_zero_is_zeros_then_ones_in_both_halves():
    table = sincos_2d(4, 5, 16)
    quarter = [0.0] * 4 + [1.0] * 4
    assert table[0].tolist() == quarter + quarter


def test_one_step_along_a_row_is_the_closed_form():
    # row 0, column 1: the first half is [sin(w_i), cos(w_i)] with w_i = 10000**(-i/2),
    # i = 0, 1 (D = 4); the second half stays at patch (0, 0)'s values
    table = sincos_2d(2, 3, 8)
    omega = [1.0, 0.01]
    expected = [math.sin(w) for w in omega] + [math.cos(w) for w in omega] + [0, 0, 1, 1]
    np.testing.assert_allclose(table[1], expected, rtol=0, atol=1e-15)
    # row 1, column 0 (index 3): now the second half moves
    expected = [0, 0, 1, 1] + [math.sin(w) for w in omega] + [math.cos(w) for w in omega]
    np.testing.assert_allclose(table[3], expected, rtol=0, atol=1e-15)


def test_rows_are_in_raster_order_for_a_rectangular_grid():
    height, width, d = 3, 5, 8
    table = sincos_2d(height, width, d)
    assert table.shape == (height * width, d)
    for r in range(height):
        for c in range(width):
            row = table[r * width + c]
            assert np.array_equal(row[:4], sinpe.positional_encoding(c, 4, layout="concat"))
            assert np.array_equal(row[4:], sinpe.positional_encoding(r, 4, layout="concat"))


@pytest.mark.parametrize(("height", "width", "d", "base"), [(14, 14, 64, 1e4), (7, 3, 24, 500.0)])
def test_each_half_is_the_1d_encoding_of_its_axis_bit_for_bit(height, width, d, base):
    # omega_i = base**(-i / (D/2)) = base**(-2i / D): the paper's ladder at width D = d/2
    table = sincos_2d(height, width, d, base=base)
    cols = np.tile(np.arange(width), height)
    rows = np.repeat(np.arange(height), width)
    one_d = sinpe.positional_encoding(cols, d // 2, base=base, layout="concat")
    assert np.array_equal(table[:, : d // 2], one_d)
    one_d = sinpe.positional_encoding(rows, d // 2, base=base, layout="concat")
    assert np.array_equal(table[:, d // 2 :], one_d)


def test_equals_the_scalar_deterministic_sine_bit_for_bit():
    # each phase is one float64 product c * w_i; sincos_scalar is the same algorithm
    # on Python floats, so the table has exactly these bits on every machine
    height, width, d = 4, 6, 32
    omega = sinpe.frequencies(d // 2).tolist()
    table = sincos_2d(height, width, d).tolist()
    for r in range(height):
        for c in range(width):
            expected = []
            for coordinate in (float(c), float(r)):
                pairs = [sincos_scalar(coordinate * w) for w in omega]
                expected += [s for s, _ in pairs] + [co for _, co in pairs]
            assert table[r * width + c] == expected, (r, c)


def test_dtype_is_the_float64_table_rounded_once():
    exact = sincos_2d(5, 5, 32)
    assert np.array_equal(sincos_2d(5, 5, 32, dtype=np.float32), exact.astype(np.float32))
    assert sincos_2d(5, 5, 32, dtype=np.float16).dtype == np.float16


def test_float16_warns_when_coordinates_are_unresolvable():
    with pytest.warns(PrecisionWarning):
        sincos_2d(3000, 1, 4, dtype=np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sincos_2d(3000, 1, 4)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (dict(height=0, width=2, d_model=8), ValueError, "height must be at least 1"),
        (dict(height=2, width=-1, d_model=8), ValueError, "width must be at least 1"),
        (dict(height=2.0, width=2, d_model=8), TypeError, "height must be an integer"),
        (dict(height=2, width=True, d_model=8), TypeError, "width must be an integer"),
        (dict(height=2, width=2, d_model=6), ValueError, "multiple of 4"),
        (dict(height=2, width=2, d_model=7), ValueError, "d_model must be even"),
        (dict(height=2, width=2, d_model="8"), TypeError, "d_model must be an integer"),
        (dict(height=2, width=2, d_model=8, base=1.0), ValueError, "base must not be 1"),
        (dict(height=2, width=2, d_model=8, base="1e4"), TypeError, "base must be a real"),
        (dict(height=2, width=2, d_model=8, first_half="x"), ValueError, "first_half"),
        (dict(height=2, width=2, d_model=8, cls_token=1), TypeError, "cls_token"),
        (dict(height=2, width=2, d_model=8, dtype=np.int32), TypeError, "dtype"),
        (dict(height=2**20, width=2**20, d_model=8), ValueError, "too large|allowed"),
    ],
)
def test_bad_inputs_raise_with_a_clear_message(kwargs, error, message):
    with pytest.raises(error, match=message):
        sincos_2d(**kwargs)


def test_is_reachable_from_the_package_namespace():
    assert sinpe.images.sincos_2d is sincos_2d
