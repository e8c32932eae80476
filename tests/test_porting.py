"""The options needed to port real code (issue 17, section 6), against the real code.

Every expected value here comes from the published source re-typed in NumPy (or
plain Python) in ``tests/sources.py`` -- tensor2tensor's ``get_timing_signal_1d``, fairseq's
``SinusoidalPositionalEmbedding``, guided-diffusion's ``timestep_embedding``,
GPT-NeoX's and GPT-J's partial rotary, Hugging Face Llama's ``rotate_half`` and
Llama 3's scaled ``inv_freq``, nerf-pytorch's ``Embedder`` -- or from hand
computation; never from ``sinpe``. The float32 transcriptions follow each
source's own dtypes step by step (PyTorch and TensorFlow default to float32; a
Python float times a float32 tensor is rounded to float32 first).
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from sources import (
    annotated_transformer,
    fairseq_get_embedding,
    fairseq_make_positions,
    fairseq_module,
    gptj_rotary,
    llama3_inv_freq,
    marian_init_weight,
    marian_nmt_embeddings,
    neox_rotary,
    nerf_embedder,
    t2t_timing_signal,
    timestep_embedding,
    whisper_sinusoids,
)

import sinpe
from sinpe import conventions
from sinpe.fourier import nerf_encoding
from sinpe.rope import apply_rope, scaled_frequencies

F32 = np.float32


# --- 1. tensor2tensor's min_timescale ------------------------------------------------


@pytest.mark.parametrize("channels", [1, 2, 3, 4, 7, 8, 33, 512])
@pytest.mark.parametrize(("min_timescale", "max_timescale"), [(1.0, 1e4), (2.0, 1e4), (0.5, 100.0)])
def test_min_timescale_matches_get_timing_signal_1d(channels, min_timescale, max_timescale):
    got = sinpe.encode(
        np.arange(3, 203),
        channels,
        "tensor2tensor",
        base=max_timescale,
        min_timescale=min_timescale,
    )
    expected = t2t_timing_signal(200, channels, min_timescale, max_timescale, start_index=3)
    assert got.shape == expected.shape == (200, channels)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_min_timescale_hand_values():
    # d = 4, n = 2, m = 2, M = 1e4: increment = ln(5000), inv_timescales = [2, 2/5000]
    expected = [math.sin(2.0), math.sin(4e-4), math.cos(2.0), math.cos(4e-4)]
    got = sinpe.encode(1, 4, "tensor2tensor", min_timescale=2.0)
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
    # d = 6, n = 3, m = 0.1, M = 10: w = 0.1 * (0.01)^(k/2) = [0.1, 0.01, 0.001]
    got = sinpe.encode(3.0, 6, "tensor2tensor", base=10.0, min_timescale=0.1)
    expected = [math.sin(0.3), math.sin(0.03), math.sin(0.003)]
    expected += [math.cos(0.3), math.cos(0.03), math.cos(0.003)]
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
    # d = 2 (n = 1): the max(n - 1, 1) guard; the one frequency is min_timescale
    np.testing.assert_allclose(
        sinpe.encode(1.5, 3, "tensor2tensor", min_timescale=3.0),
        [math.sin(4.5), math.cos(4.5), 0.0],
        rtol=1e-15,
    )


def test_min_timescale_one_is_the_default_bit_for_bit():
    default = sinpe.encode(np.arange(50), 64, "tensor2tensor")
    np.testing.assert_array_equal(
        sinpe.encode(np.arange(50), 64, "tensor2tensor", min_timescale=1.0), default
    )
    # and another value changes every frequency but the one of k = 0 scaled by m
    other = sinpe.encode(np.arange(50), 64, "tensor2tensor", min_timescale=1.5)
    assert np.abs(other - default).max() > 0.5


@pytest.mark.parametrize(
    "name", ["paper", "whisper", "fairseq", "hf-marian", "marian-nmt", "guided-diffusion"]
)
def test_min_timescale_is_refused_by_other_conventions(name):
    with pytest.raises(ValueError, match=rf"min_timescale.*{name}.*tensor2tensor"):
        sinpe.encode(1, 8, name, min_timescale=1.0)


@pytest.mark.parametrize(
    ("value", "error"),
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (math.nan, ValueError),
        (math.inf, ValueError),
        (True, TypeError),
        ("1", TypeError),
        (1e300, ValueError),
        (1e-300, ValueError),
    ],
)
def test_bad_min_timescale(value, error):
    with pytest.raises(error, match="min_timescale"):
        sinpe.encode(np.arange(3), 8, "tensor2tensor", min_timescale=value)


# --- 2. fairseq with padding_idx=None --------------------------------------------------


def test_fairseq_positions_with_none_count_with_zero_as_the_module_does():
    tokens = [[5, 6, 7, 1, 1], [0, 5, 6, 7, 1], [4, 0, 0, 9, 8]]
    np.testing.assert_array_equal(
        sinpe.fairseq_positions(tokens, padding_idx=None), fairseq_make_positions(tokens, 0)
    )
    # by hand: token 0 keeps 0, the others count 1, 2, ... skipping the zeros
    assert sinpe.fairseq_positions([[4, 0, 0, 9, 8]], padding_idx=None).tolist() == [
        [1, 0, 0, 2, 3]
    ]


@pytest.mark.parametrize("width", [4, 7, 16])
@pytest.mark.parametrize("padding_idx", [None, 0, 1, 3])
def test_fairseq_embedding_matches_the_module(width, padding_idx):
    tokens = np.array([[5, 6, 7, 1, 1, 0], [1, 0, 5, 6, 7, 3], [3, 3, 9, 9, 9, 9]])
    got = sinpe.fairseq_embedding(tokens, width, padding_idx=padding_idx)
    # fairseq computes in float32; its float64 transcription is what sinpe reproduces
    np.testing.assert_allclose(got, fairseq_module(tokens, width, padding_idx), atol=1e-12)


def test_fairseq_none_leaves_row_zero_as_sin_and_cos_of_zero():
    # get_embedding(..., padding_idx=None) zeroes nothing: row 0 is [sin 0, sin 0, cos 0, cos 0]
    np.testing.assert_array_equal(
        sinpe.encode([0, 1], 4, "fairseq", padding_idx=None)[0], [0.0, 0.0, 1.0, 1.0]
    )
    np.testing.assert_array_equal(sinpe.encode([0, 1], 4, "fairseq", padding_idx=1)[1], 0.0)
    emb = sinpe.fairseq_embedding([[0, 9, 9]], 4, padding_idx=None)
    np.testing.assert_array_equal(emb[0, 0], [0.0, 0.0, 1.0, 1.0])
    assert emb[0, 2, 0] == pytest.approx(math.sin(2.0), rel=1e-15)


@pytest.mark.parametrize("padding_idx", [-1, 1.0, "1", True])
def test_fairseq_bad_padding_idx(padding_idx):
    with pytest.raises((TypeError, ValueError), match="padding_idx"):
        sinpe.fairseq_positions([[5, 6]], padding_idx=padding_idx)
    with pytest.raises((TypeError, ValueError), match="padding_idx"):
        sinpe.encode([2, 3], 8, "fairseq", padding_idx=padding_idx)


# --- 5. widths where a code base is malformed ------------------------------------------


def test_guided_diffusion_width_one_raises_because_the_source_returns_no_column():
    # the source's own output at dim = 1 has no column at all
    assert timestep_embedding([0.0, 5.0], 1).shape == (2, 0)
    with pytest.raises(ValueError, match=r"\(N, 0\)"):
        sinpe.encode([0.0, 5.0], 1, "guided-diffusion")
    # dim = 3 is well formed there: [cos t, sin t, 0]
    np.testing.assert_allclose(
        sinpe.encode([0.0, 5.0], 3, "guided-diffusion"),
        timestep_embedding([0.0, 5.0], 3),
        atol=1e-15,
    )


def test_fairseq_width_one_is_its_zero_column():
    # fairseq's get_embedding run for real (PyTorch 2.13.0, CPU): half_dim = 0, so
    # log(10000) / (0 - 1) divides by -1 (no error), the (4, 0) block of sines and
    # cosines stays (4, 0) through .view(4, -1), and the odd-width pad adds the column.
    # get_embedding(4, 1, None) and get_embedding(4, 1, 1) both returned, in float32:
    real_run = [[0.0], [0.0], [0.0], [0.0]]
    np.testing.assert_array_equal(fairseq_get_embedding(4, 1), real_run)
    np.testing.assert_array_equal(fairseq_get_embedding(4, 1, padding_idx=1), real_run)
    for padding_idx in (1, None):
        out = sinpe.encode(np.arange(4), 1, "fairseq", padding_idx=padding_idx)
        assert out.shape == (4, 1)
        np.testing.assert_array_equal(out, real_run)
    np.testing.assert_array_equal(sinpe.fairseq_embedding([[5, 6, 1]], 1), [[[0.0]] * 3])
    # d = 2 and 3 (half_dim - 1 = 0) raised ZeroDivisionError: float division by zero
    for width in (2, 3):
        with pytest.raises(ZeroDivisionError):
            fairseq_get_embedding(4, width)
        with pytest.raises(ValueError, match="n - 1 = 0"):
            sinpe.encode(np.arange(4), width, "fairseq")


def test_tensor2tensor_width_one_is_its_zero_column():
    # t2t at channels = 1: no timescale, one zero column of padding
    np.testing.assert_array_equal(
        sinpe.encode(np.arange(4), 1, "tensor2tensor"), t2t_timing_signal(4, 1)
    )


# --- 7. the tolerance of each convention against its source -----------------------------

TEXT_POSITIONS = np.arange(2048)
TIMESTEPS = np.arange(2000) * 0.5  # 0, 0.5, ..., 999.5 (guided-diffusion's t may be fractional)


def _source_table(name, width, dtype):
    """The table of ``name``'s source at the measured positions, in ``dtype``."""
    n = TEXT_POSITIONS.size
    if name == "paper":
        return annotated_transformer(n, width, dtype)
    if name == "tensor2tensor":
        return t2t_timing_signal(n, width, dtype=dtype)
    if name == "whisper":
        return whisper_sinusoids(n, width, dtype=dtype)
    if name == "fairseq":  # rows 0 .. n + 1: padding row 1, real positions from 2
        return fairseq_get_embedding(n + 2, width, padding_idx=1, dtype=dtype)
    if name == "hf-marian":
        return marian_init_weight(n, width).astype(dtype)
    if name == "marian-nmt":
        return marian_nmt_embeddings(n, width, dtype=dtype)
    assert name == "guided-diffusion"
    return timestep_embedding(TIMESTEPS, width, dtype=dtype)


def _sinpe_table(name, width):
    if name == "fairseq":
        return sinpe.encode(np.arange(TEXT_POSITIONS.size + 2), width, "fairseq")
    if name == "guided-diffusion":
        return sinpe.encode(TIMESTEPS, width, name)
    return sinpe.encode(TEXT_POSITIONS, width, name)


def _widths(name):
    odd = conventions.CONVENTIONS[name].odd_width != "raise"
    return (8, 64, 512, 9, 65) if odd else (8, 64, 512)


def measured_errors(name):
    """Largest |encode - source| over the measured range, in float64 and in float32."""
    errors = {}
    for dtype in (np.float64, F32):
        errors[dtype] = max(
            float(np.abs(_sinpe_table(name, w) - _source_table(name, w, dtype)).max())
            for w in _widths(name)
        )
    return errors[np.float64], errors[F32]


@pytest.mark.parametrize("name", list(conventions.CONVENTIONS))
def test_stated_tolerances_hold_and_are_tight(name):
    rule = conventions.CONVENTIONS[name]
    float64_error, float32_error = measured_errors(name)
    assert float64_error <= rule.float64_tolerance
    assert float32_error <= rule.float32_tolerance
    # tight: a stated tolerance is at most 10 times what is measured here
    assert rule.float64_tolerance <= 10 * max(float64_error, 1e-16)
    assert rule.float32_tolerance <= 10 * float32_error
    # the source and the function are named
    assert rule.equals and "/" in rule.equals


def test_module_docstring_states_every_tolerance():
    doc = conventions.__doc__
    for name, rule in conventions.CONVENTIONS.items():
        row = re.search(rf"^``{re.escape(name)}``.*$", doc, flags=re.MULTILINE)
        assert row, f"no row for {name} in the conventions table of the module docstring"
        stated = [float(x) for x in re.findall(r"\d+(?:\.\d+)?e-\d+", row.group(0))]
        assert stated == [rule.float64_tolerance, rule.float32_tolerance]


def test_paper_concat_layout_equals_hf_marian_not_tensor2tensor():
    # the wording of core.positional_encoding(layout="concat")
    concat = sinpe.positional_encoding(np.arange(512), 512, layout="concat")
    np.testing.assert_allclose(concat, marian_init_weight(512, 512), rtol=0, atol=1e-12)
    gap = np.abs(concat - t2t_timing_signal(512, 512)).max()
    assert 0.5 < gap < 1.0  # n - 1 spacing: 0.71 over the first 512 positions at d = 512


# --- 3. apply_rope: partial rotary, dtype, shapes, custom frequencies -------------------


@pytest.mark.parametrize(("head", "rotary"), [(8, 2), (8, 4), (16, 6), (16, 16), (64, 16)])
def test_partial_rotary_matches_gpt_neox(head, rotary):
    rng = np.random.default_rng(head + rotary)
    x = rng.normal(size=(2, 3, 5, head))  # (B, H, T, d)
    positions = np.array([0.0, 1.0, 7.0, 100.0, 2047.0])
    got = apply_rope(x, positions, layout="concat", rotary_dim=rotary)
    np.testing.assert_allclose(got, neox_rotary(x, positions, rotary), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got[..., rotary:], x[..., rotary:])  # passed through


@pytest.mark.parametrize(("head", "rotary"), [(8, 4), (32, 8), (256, 64)])
def test_partial_rotary_matches_gpt_j(head, rotary):
    rng = np.random.default_rng(rotary)
    x = rng.normal(size=(4, 2, head))  # (T, H, d) transposed to (H, T, d) below
    positions = np.arange(4) * 3.0
    got = apply_rope(x.transpose(1, 0, 2), positions, layout="interleaved", rotary_dim=rotary)
    expected = gptj_rotary(x.transpose(1, 0, 2), positions, rotary)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_partial_rotary_hand_value():
    # d = 4, rotary_dim = 2: the one frequency is base^0 = 1; entries 2, 3 unchanged
    got = apply_rope(np.array([1.0, 2.0, 3.0, 4.0]), 0.5, rotary_dim=2)
    c, s = math.cos(0.5), math.sin(0.5)
    np.testing.assert_allclose(got, [c - 2 * s, s + 2 * c, 3.0, 4.0], rtol=1e-15)


@pytest.mark.parametrize(
    ("rotary_dim", "error"),
    [
        (0, ValueError),
        (3, ValueError),
        (10, ValueError),
        (-2, ValueError),
        (4.0, TypeError),
        (True, TypeError),
        ("4", TypeError),
    ],
)
def test_bad_rotary_dim(rotary_dim, error):
    with pytest.raises(error, match="rotary_dim"):
        apply_rope(np.ones((3, 8)), np.arange(3), rotary_dim=rotary_dim)


def test_partial_rotary_frequencies_have_the_rotated_width():
    with pytest.raises(ValueError, match=r"shape \(2,\) for rotary_dim of width 4"):
        apply_rope(np.ones(8), 1.0, rotary_dim=4, frequencies=[1.0, 0.1, 0.01, 0.001])
    got = apply_rope(
        np.array([1.0, 0.0, 1.0, 0.0, 5.0, 6.0]), 2.0, rotary_dim=4, frequencies=[0.25, 0.5]
    )
    np.testing.assert_allclose(
        got, [math.cos(0.5), math.sin(0.5), math.cos(1.0), math.sin(1.0), 5.0, 6.0], rtol=1e-15
    )


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [
        (np.float16, np.float16),
        (np.float32, np.float32),
        (np.float64, np.float64),
        (np.int64, np.float64),
        (np.int32, np.float64),
    ],
)
def test_dtype_is_kept(dtype, expected):
    x = (np.arange(8) % 3).astype(dtype)
    got = apply_rope(x, 3)
    assert got.dtype == expected
    # computed in float64 and rounded once: equal to the float64 rotation, rounded
    exact = apply_rope(x.astype(np.float64), 3)
    np.testing.assert_array_equal(got, exact.astype(expected))
    eps = float(np.finfo(expected).eps)
    # and that float64 rotation is the definition (hand rotation of each pair)
    theta = [10000.0 ** (-2 * i / 8) for i in range(4)]
    by_hand = []
    for i, w in enumerate(theta):
        a, b = float(x[2 * i]), float(x[2 * i + 1])
        by_hand += [
            a * math.cos(3 * w) - b * math.sin(3 * w),
            a * math.sin(3 * w) + b * math.cos(3 * w),
        ]
    np.testing.assert_allclose(exact, by_hand, rtol=0, atol=1e-14)
    np.testing.assert_allclose(got.astype(np.float64), by_hand, rtol=eps, atol=eps)


def test_float16_overflow_is_refused():
    # a rotation by 45 degrees turns (60000, 60000) into (0, 84853): beyond float16
    x = np.array([60000.0, 60000.0], dtype=np.float16)
    with pytest.raises(ValueError, match="float16"):
        apply_rope(x, math.pi / 4)


def test_batch_positions_broadcast_as_b_1_t():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 4, 6, 8))  # (B, H, T, d)
    position_ids = np.array([np.arange(6), np.arange(6) + 10, np.arange(6)[::-1] * 2.0])
    got = apply_rope(x, position_ids)
    # the loop over the batch: every head of batch element b uses position_ids[b]
    for b in range(3):
        for h in range(4):
            np.testing.assert_array_equal(got[b, h], apply_rope(x[b, h], position_ids[b]))
    # one entry by hand: batch 1, head 2, row 3 is at position 13; its first pair turns by 13
    a, c = x[1, 2, 3, 0], x[1, 2, 3, 1]
    np.testing.assert_allclose(
        got[1, 2, 3, :2],
        [a * math.cos(13.0) - c * math.sin(13.0), a * math.sin(13.0) + c * math.cos(13.0)],
        rtol=0,
        atol=1e-14,
    )
    # the same as the explicit (B, 1, T) and (B, H, T) shapes
    np.testing.assert_array_equal(apply_rope(x, position_ids[:, None, :]), got)
    np.testing.assert_array_equal(
        apply_rope(x, np.broadcast_to(position_ids[:, None, :], (3, 4, 6))), got
    )
    # (T,) positions: the same for every batch element and head
    single = apply_rope(x, np.arange(6))
    for b in range(3):
        np.testing.assert_array_equal(single[b], apply_rope(x[b], np.arange(6)))


def test_batch_positions_are_read_as_batch_even_when_b_equals_h():
    x = np.ones((2, 2, 3, 4))
    position_ids = np.array([[0.0, 1.0, 2.0], [5.0, 6.0, 7.0]])
    got = apply_rope(x, position_ids)
    np.testing.assert_array_equal(got[0, 1], apply_rope(x[0, 1], position_ids[0]))  # batch 0
    np.testing.assert_array_equal(got[1, 0], apply_rope(x[1, 0], position_ids[1]))


@pytest.mark.parametrize(
    ("x_shape", "positions_shape", "hint"),
    [
        ((2, 3, 5, 8), (4,), r"\(T,\) = \(5,\)"),
        ((2, 3, 5, 8), (3, 5), r"\(B, T\) = \(2, 5\)"),
        ((2, 3, 5, 8), (2, 3, 4), r"x.shape\[:-1\] = \(2, 3, 5\)"),
        ((5, 8), (4,), r"\(T,\) = \(5,\)"),
        ((8,), (2,), "single vector"),
    ],
)
def test_positions_of_the_wrong_shape_say_what_to_pass(x_shape, positions_shape, hint):
    with pytest.raises(ValueError, match=hint) as caught:
        apply_rope(np.ones(x_shape), np.zeros(positions_shape))
    assert str(positions_shape) in str(caught.value)
    assert str(x_shape) in str(caught.value)


def test_empty_head_is_refused():
    with pytest.raises(ValueError, match="last axis"):
        apply_rope(np.ones((3, 0)), np.arange(3))


def test_scaled_frequencies_plug_in():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(4, 8, 16))
    positions = np.arange(8) * 37.0
    # Position Interpolation divides every frequency by s: the same as dividing positions
    pi = scaled_frequencies(16, 4.0, method="interpolation")
    np.testing.assert_allclose(
        apply_rope(x, positions, frequencies=pi), apply_rope(x, positions / 4.0), atol=1e-12
    )
    # Llama 3's scaled inv_freq (re-typed from transformers) in the concat layout, against
    # Hugging Face's rotate_half written out
    inv_freq = llama3_inv_freq(16)
    got = apply_rope(x, positions, layout="half", frequencies=inv_freq)
    emb = np.concatenate([positions[:, None] * inv_freq] * 2, axis=-1)
    rotated = np.concatenate([-x[..., 8:], x[..., :8]], axis=-1)
    np.testing.assert_allclose(got, x * np.cos(emb) + rotated * np.sin(emb), atol=1e-12)
    # partial rotary with Llama 3 frequencies of the rotated width, against GPT-NeoX's code
    inv_freq = llama3_inv_freq(8)
    part = apply_rope(x, positions, rotary_dim=8, frequencies=inv_freq, layout="concat")
    np.testing.assert_allclose(
        part, neox_rotary(x, positions, 8, inv_freq=inv_freq), rtol=0, atol=1e-12
    )


# --- 4. nerf_encoding: nerf-pytorch's Embedder options ------------------------------------


@pytest.mark.parametrize("multires", [1, 2, 4, 10])
@pytest.mark.parametrize("include_input", [True, False])
@pytest.mark.parametrize("log_sampling", [True, False])
def test_official_convention_matches_embedder(multires, include_input, log_sampling):
    x = np.random.default_rng(multires).uniform(-1.5, 1.5, size=(7, 3))
    got = nerf_encoding(
        x,
        multires,
        convention="official",
        include_input=include_input,
        log_sampling=log_sampling,
    )
    expected = nerf_embedder(x, multires, include_input, log_sampling)
    assert got.shape == expected.shape == (7, 3 * (2 * multires + include_input))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_linear_sampling_hand_values():
    # L = 3: linspace(1, 4, 3) = [1, 2.5, 4]; L = 4: linspace(1, 8, 4) = [1, 10/3, 17/3, 8]
    x = 0.3
    got = nerf_encoding([x], 3, convention="official", include_input=False, log_sampling=False)
    expected = [f(w * x) for w in (1.0, 2.5, 4.0) for f in (math.sin, math.cos)]
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    got = nerf_encoding([x], 4, log_sampling=False)  # paper: with pi, no input
    expected = [f(w * math.pi * x) for w in (1, 10 / 3, 17 / 3, 8) for f in (math.sin, math.cos)]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_defaults_are_unchanged_and_include_input_applies_to_the_paper_form():
    x = np.array([[0.3, -0.7]])
    paper = nerf_encoding(x, 3)
    expected = [
        f(2**level * math.pi * p) for p in x[0] for level in range(3) for f in (math.sin, math.cos)
    ]
    np.testing.assert_allclose(paper[0], expected, atol=1e-15)
    with_input = nerf_encoding(x, 3, include_input=True)
    np.testing.assert_array_equal(with_input[0, :2], x[0])
    np.testing.assert_array_equal(with_input[0, 2:], paper[0])
    official = nerf_encoding(x, 3, convention="official")
    np.testing.assert_array_equal(
        official, nerf_encoding(x, 3, convention="official", include_input=True)
    )
    np.testing.assert_allclose(official, nerf_embedder(x, 3), atol=1e-15)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"include_input": 1}, "include_input"),
        ({"include_input": "False"}, "include_input"),
        ({"log_sampling": None}, "log_sampling"),
        ({"log_sampling": 0}, "log_sampling"),
    ],
)
def test_nerf_flags_must_be_booleans(kwargs, name):
    with pytest.raises(TypeError, match=name):
        nerf_encoding([0.1, 0.2], 2, **kwargs)
