"""Every bad input raises the documented error, with a message that names it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import sinpe


@pytest.mark.parametrize(
    ("d_model", "error", "words"),
    [
        (7, ValueError, "must be even, got 7"),
        (0, ValueError, "must be at least 1 and at most 2\\*\\*24, got 0"),
        (-4, ValueError, "must be at least 1 and at most 2\\*\\*24, got -4"),
        (8.0, TypeError, "must be an integer, got 8.0"),
        (True, TypeError, "must be an integer, got True"),
        ("512", TypeError, "must be an integer"),
    ],
)
def test_bad_width(d_model, error, words):
    for call in (
        lambda: sinpe.positional_encoding(1, d_model),
        lambda: sinpe.frequencies(d_model),
        lambda: sinpe.shift_matrix(1, d_model),
    ):
        with pytest.raises(error, match=words):
            call()


@pytest.mark.parametrize(
    ("base", "error", "words"),
    [
        (0.0, ValueError, r"finite number >= 2\*\*-1022, got 0.0"),
        (-10.0, ValueError, "got -10.0"),
        (1.0, ValueError, "must not be 1"),
        (float("inf"), ValueError, "got inf"),
        (float("nan"), ValueError, "got nan"),
        ("10000", TypeError, "must be a real number"),
        (1j, TypeError, "must be a real number"),
    ],
)
def test_bad_base(base, error, words):
    with pytest.raises(error, match=words):
        sinpe.positional_encoding(1, 8, base=base)


@pytest.mark.parametrize(
    ("positions", "error", "words"),
    [
        ([0.0, np.nan], ValueError, r"must be finite, got .*nan.* at index \(1,\)"),
        ([[1.0], [np.inf]], ValueError, r"at index \(1, 0\)"),
        (["a", "b"], TypeError, "real numbers"),
        ([True, False], TypeError, "dtype bool"),
        ([1 + 2j], TypeError, "complex128"),
        ([None], TypeError, "object"),
        ([2**60], ValueError, "beyond 2\\*\\*53"),
        ([-(2**60)], ValueError, "beyond 2\\*\\*53"),
    ],
)
def test_bad_positions(positions, error, words):
    with pytest.raises(error, match=words):
        sinpe.positional_encoding(positions, 8)


@pytest.mark.parametrize("dtype", [np.int32, np.complex128, np.longdouble, bool, "object"])
def test_unsupported_dtype(dtype):
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        sinpe.positional_encoding(1, 8, dtype=dtype)


def test_not_a_dtype():
    with pytest.raises(TypeError, match=r"dtype must be a NumPy dtype, got 3\.5"):
        sinpe.positional_encoding(1, 8, dtype=3.5)


@pytest.mark.parametrize(
    ("layout", "error", "words"),
    [
        ("concatenated", ValueError, "must be one of 'interleaved', 'concat', got 'concatenated'"),
        ("half", ValueError, "must be one of 'interleaved', 'concat', got 'half'"),
        (None, TypeError, "must be a string, got None"),
        (0, TypeError, "must be a string, got 0"),
    ],
)
def test_unknown_layout(layout, error, words):
    with pytest.raises(error, match=f"layout {words}"):
        sinpe.positional_encoding(1, 8, layout=layout)
    with pytest.raises(error, match=f"layout {words}"):
        sinpe.shift_matrix(1, 8, layout=layout)
    with pytest.raises(error, match=f"target {words}"):
        sinpe.convert_layout(np.zeros(8), "interleaved", layout)


def test_bad_shift():
    with pytest.raises(ValueError, match="k must be a finite number"):
        sinpe.shift_matrix(np.inf, 8)
    with pytest.raises(TypeError, match="k must be a real number"):
        sinpe.shift_matrix("1", 8)


def test_bad_embeddings():
    with pytest.raises(TypeError, match="floating array, got dtype int64"):
        sinpe.add_positional_encoding(np.zeros((3, 8), dtype=np.int64))
    with pytest.raises(ValueError, match=r"shape \(..., seq, d_model\), got shape \(8,\)"):
        sinpe.add_positional_encoding(np.zeros(8))
    with pytest.raises(ValueError, match="must be even, got 7"):
        sinpe.add_positional_encoding(np.zeros((3, 7)))
    with pytest.raises(ValueError, match="NaN or infinite"):
        sinpe.add_positional_encoding(np.full((3, 8), np.nan))
    with pytest.raises(ValueError, match="start must be a finite number"):
        sinpe.add_positional_encoding(np.zeros((3, 8)), start=np.nan)
    with pytest.raises(TypeError, match="start must be a real number"):
        sinpe.add_positional_encoding(np.zeros((3, 8)), start="0")


def test_bad_component_index():
    with pytest.raises(ValueError, match=r"index 0 is out of range .* counted from 1"):
        sinpe.component(1.0, 0, 8, first_index=1)
    with pytest.raises(ValueError, match="first_index must be at least 0 and at most 1"):
        sinpe.component(1.0, 0, 8, first_index=2)


def test_bad_tokens():
    with pytest.raises(TypeError, match="integer ids"):
        sinpe.fairseq_positions([[1.5, 2.0]])
    with pytest.raises(ValueError, match="sequence axis"):
        sinpe.fairseq_positions(3)


def test_bad_convert_table():
    with pytest.raises(ValueError, match="must be even, got 5"):
        sinpe.convert_layout(np.zeros((2, 5)), "concat", "interleaved")


@pytest.mark.parametrize("position", [1e15, 2**53, -(2**53), 1e300])
def test_positions_float64_cannot_resolve_warn(position):
    # the fastest pair's phase p * 1 is rounded to float64: at 2**53 the sine can be
    # off by 0.45 (hand bound: eps * (2 + ln 1e4) * p = 2.5 at p = 1e15)
    with pytest.warns(sinpe.PrecisionWarning, match="float64 cannot resolve"):
        table = sinpe.positional_encoding([position], 4)
    assert np.isfinite(table).all()
    with pytest.warns(sinpe.PrecisionWarning, match="float64 cannot resolve"):
        sinpe.table(2, 4, start=float(position) if abs(position) < 2**53 else 2.0**52)


def test_positions_float64_resolves_do_not_warn():
    # eps * (2 + ln 1e4) * 1e8 = 2.5e-7 < 1e-6: no warning, and the documented bound holds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sinpe.positional_encoding([1e8, -1e8], 64)
        sinpe.table(3, 8, start=1e8)


def test_table_start_beyond_2_53_raises_instead_of_rounding():
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        sinpe.table(2, 8, start=2**53 + 1)
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        sinpe.table(4, 8, start=2**53 - 2)


@pytest.mark.parametrize("convention", ["paper", "tensor2tensor", "hf-marian", "marian-nmt"])
def test_overflowing_phase_raises_instead_of_nan(convention):
    with pytest.raises(ValueError, match="overflows float64"):
        sinpe.encode([1.0, 1e300], 4, convention, base=1e-300)
    with pytest.raises(ValueError, match="overflows float64"):
        sinpe.shift_matrix(1e300, 4, base=1e-300)


def test_frequencies_outside_float64_raise():
    with pytest.raises(ValueError, match="outside float64"):
        sinpe.frequencies(200, base=5e-324)  # the smallest subnormal base


@pytest.mark.parametrize(
    "call",
    [
        lambda: sinpe.positional_encoding(np.array([2.0**60]), 8),
        lambda: sinpe.table(3, 8, start=2.0**60),
        lambda: sinpe.positional_encoding(np.arange(3000), 8, dtype=np.float16),
        lambda: sinpe.encode(np.arange(3000), 8, convention="tensor2tensor", dtype=np.float16),
        lambda: sinpe.images.sincos_2d(3000, 2, 8, dtype=np.float16),
    ],
    ids=["imprecise", "imprecise-table", "float16", "float16-encode", "float16-2d"],
)
def test_a_precision_warning_points_at_the_callers_line(call):
    """Not at a line of sinpe (the public function, or the wrapper that checks its
    arguments): the user's own line, where the positions were chosen."""
    with pytest.warns(sinpe.PrecisionWarning) as record:
        call()
    assert {warning.filename for warning in record} == {__file__}


def test_an_instance_rule_names_the_type_not_the_value():
    """A wrong model's message says what it is, without printing it (an array's repr)."""
    from sinpe._validation import Instance

    rule = Instance(np.random.Generator, shown="numpy.random.Generator", hint="e.g. rng")
    generator = np.random.default_rng(0)
    assert rule(generator, "rng") is generator
    with pytest.raises(TypeError) as error:
        rule(np.zeros((100, 100)), "rng")
    assert str(error.value) == "rng must be a numpy.random.Generator, got ndarray; pass e.g. rng"


def test_a_pair_rule_names_the_entry_that_is_wrong():
    from sinpe._validation import Pair, Real

    rule = Pair(Real(0.0, 1.0, closed="left"), hint="(beta1, beta2) such as (0.9, 0.999)")
    assert rule([0.5, np.float64(0.25)], "betas") == (0.5, 0.25)
    with pytest.raises(TypeError, match=r"^betas must be a pair, got 0.9; pass \(beta1"):
        rule(0.9, "betas")
    with pytest.raises(ValueError, match=r"^betas\[1\] must be a finite number >= 0 and < 1"):
        rule((0.9, 1.0), "betas")
