"""One test per one-line bug that an adversarial audit showed the suite let through.

Each compares with an independent oracle (mpmath, a closed form or a hand value),
never with sinpe itself.
"""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

import sinpe
from sinpe.rope import apply_rope


def rope_reference(x, position, base, layout):
    """RoFormer's rotation in mpmath: pair i turned by position * base ** (-2i/d)."""
    width = len(x)
    out = [mpmath.mpf(0)] * width
    with mpmath.workdps(40):
        for i in range(width // 2):
            angle = position * mpmath.power(base, mpmath.mpf(-2 * i) / width)
            a, b = (2 * i, 2 * i + 1) if layout == "interleaved" else (i, i + width // 2)
            c, s = mpmath.cos(angle), mpmath.sin(angle)
            out[a] = x[a] * c - x[b] * s
            out[b] = x[a] * s + x[b] * c
    return np.array([float(v) for v in out])


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize("base", [100.0, 500000.0])
def test_apply_rope_uses_its_base(base, layout):
    x = np.arange(1.0, 9.0)
    got = apply_rope(x, 3, base=base, layout=layout)
    np.testing.assert_allclose(got, rope_reference(x, 3, base, layout), atol=1e-13)
    assert np.abs(got - apply_rope(x, 3, layout=layout)).max() > 1e-3


@pytest.mark.parametrize(
    "convention", ["tensor2tensor", "whisper", "hf-marian", "marian-nmt", "fairseq"]
)
def test_encode_honours_dtype_for_every_convention(convention):
    wide = sinpe.encode(np.arange(2, 40), 16, convention)
    narrow = sinpe.encode(np.arange(2, 40), 16, convention, dtype=np.float32)
    assert narrow.dtype == np.float32
    np.testing.assert_array_equal(narrow, wide.astype(np.float32))


def test_table_float16_keeps_sines_before_cosines():
    table = sinpe.table(5, 4, dtype=np.float16)
    # hand values at position 1: sin 1, cos 1, sin 0.01, cos 0.01
    expected = np.array([0.8414709848, 0.5403023059, 0.0099998333, 0.99995], np.float16)
    np.testing.assert_array_equal(table[1], expected)


def test_table_warns_when_its_last_position_is_unresolvable():
    with pytest.warns(sinpe.PrecisionWarning):
        sinpe.table(20, 8, start=2040, dtype=np.float16)  # ends at 2059 > 2048
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sinpe.table(8, 8, start=2040, dtype=np.float16)  # ends at 2047


def test_odd_width_message_offers_real_widths():
    with pytest.raises(ValueError, match=r"Use 2, or a named convention"):
        sinpe.positional_encoding(1, 1)
    with pytest.raises(ValueError, match=r"Use 6 or 8"):
        sinpe.positional_encoding(1, 7)


# ---------------------------------------------------------------------------------
# Hostile calls that returned NaN or inf, or failed with the wrong message


from sinpe import alibi, fourier, geometry, numerics, rope  # noqa: E402
from sinpe.lab import nn  # noqa: E402


@pytest.mark.parametrize(
    "call",
    [
        lambda: sinpe.component(1e300, 7, 8, base=1e-300),
        lambda: geometry.dot_product_by_offset([1e300], 8, base=1e-300),
        lambda: geometry.distance_by_offset([1e300], 8, base=1e-300),
        lambda: fourier.gaussian_features([1e300, 1.0], np.full((3, 2), 1e300)),
    ],
)
def test_overflowing_phases_raise_instead_of_nan(call):
    with pytest.raises(ValueError, match="overflows float64"):
        call()


def test_nerf_encoding_refuses_frequencies_beyond_float64():
    with pytest.raises(
        ValueError, match="n_frequencies must be at least 1 and at most 1000, got 2000"
    ):
        fourier.nerf_encoding([1.0], 2000)
    assert np.isfinite(fourier.nerf_encoding([1.0], 1000)).all()


def test_bfloat16_positions_beyond_its_range_raise_like_float32():
    for precision in ("float32", "bfloat16"):
        with pytest.raises(ValueError, match="cannot represent position"):
            numerics.computed_in([1e39], 8, precision)


def test_float16_sum_that_overflows_raises():
    with pytest.raises(ValueError, match="overflows float16"):
        sinpe.add_positional_encoding(np.full((2, 3, 8), 6e4, np.float16))
    ok = sinpe.add_positional_encoding(np.full((2, 3, 8), 6e4, np.float16), scale=False)
    assert np.isfinite(ok).all()


@pytest.mark.parametrize(
    ("prediction", "target", "error"),
    [
        ([np.nan], [0.0], ValueError),
        (None, None, TypeError),
        ([0.0, 1.0], [0.0], ValueError),  # used to broadcast silently
        ([], [], ValueError),
        (["a"], ["b"], TypeError),
    ],
)
def test_psnr_rejects_what_is_not_two_images(prediction, target, error):
    with pytest.raises(error):
        fourier.psnr(prediction, target)


def test_psnr_hand_values():
    assert fourier.psnr([0.0, 1.0], [0.1, 0.9]) == pytest.approx(20.0, abs=1e-12)
    assert fourier.psnr([0.5], [0.5]) == float("inf")


@pytest.mark.parametrize(
    ("convention", "expected"), [("hf-marian", "hf-marian"), ("tensor2tensor", "tensor2tensor")]
)
def test_inspect_table_reads_odd_width_tables(convention, expected):
    from sinpe.checkpoint.tables import inspect_table

    report = inspect_table(sinpe.encode(np.arange(40), 9, convention))
    assert report.valid and expected in report.matches
    shifted = inspect_table(sinpe.encode(np.arange(2, 40), 9, "fairseq"))  # used to crash
    assert shifted.valid


def test_inspect_table_needs_no_n_by_n_matrix():
    from sinpe.checkpoint.tables import inspect_table

    # 30 000 rows: the old Gram matrix alone took 7.2 GB
    report = inspect_table(sinpe.table(30_000, 8))
    assert report.valid and report.matches == ["paper"]
    broken = sinpe.table(30_000, 8)
    broken[20_000:, 2:4] = broken[20_000:, 2:4][:, ::-1]  # swap one pair late in the table
    assert not inspect_table(broken).valid


@pytest.mark.parametrize(
    ("call", "error", "names"),
    [
        (
            lambda r: rope.convert_qk_weight(np.ones((8, 4)), 0, "concat", "concat"),
            ValueError,
            "n_heads",
        ),
        (
            lambda r: rope.convert_qk_weight(np.ones((8, 4)), -2, "concat", "concat"),
            ValueError,
            "n_heads",
        ),
        (
            lambda r: rope.convert_qk_weight(np.ones((2, 8, 4)), 2, "concat", "concat"),
            ValueError,
            "2-D projection",
        ),
        (lambda r: nn.Linear(0, 3, r), ValueError, "d_in"),
        (lambda r: nn.Linear(-1, 3, r), ValueError, "d_in"),
        (lambda r: nn.Linear(2, 2.5, r), TypeError, "d_out"),
        (
            lambda r: nn.MultiHeadAttention(nn.ModelConfig(d_model=8, n_heads=0), r),
            ValueError,
            "n_heads",
        ),
        (
            lambda r: nn.MultiHeadAttention(
                nn.ModelConfig(d_model=12, n_heads=4, encoding="rope"), r
            ),
            ValueError,
            "heads of even width",
        ),
        (lambda r: alibi.alibi_slopes(10**9), ValueError, "at most 65536"),
        (lambda r: alibi.alibi_slopes(2.0), TypeError, "n_heads"),
        (lambda r: sinpe.fairseq_positions([[1, 2]], padding_idx=1.5), TypeError, "padding_idx"),
    ],
)
def test_bad_sizes_get_a_clear_error_naming_the_argument(call, error, names):
    with pytest.raises(error, match=names):
        call(np.random.default_rng(0))
