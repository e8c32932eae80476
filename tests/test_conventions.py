"""Named conventions against golden values and transcriptions of their sources."""

from __future__ import annotations

import math

import golden
import numpy as np
import pytest

import sinpe


def marian_reference(n_pos: int, dim: int) -> np.ndarray:
    """transformers MarianSinusoidalPositionalEmbedding._init_weight, transcribed."""
    position_enc = [
        [pos / math.pow(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)
    ]
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out = np.zeros((n_pos, dim))
    for pos in range(n_pos):
        out[pos, :sentinel] = [math.sin(a) for a in position_enc[pos][0::2]]
        out[pos, sentinel:] = [math.cos(a) for a in position_enc[pos][1::2]]
    return out


def guided_diffusion_reference(timesteps, dim: int, max_period: float = 10000.0):
    """guided_diffusion.nn.timestep_embedding, transcribed with math (float64)."""
    half = dim // 2
    freqs = [math.exp(-math.log(max_period) * k / half) for k in range(half)]
    rows = []
    for t in timesteps:
        args = [t * f for f in freqs]
        row = [math.cos(a) for a in args] + [math.sin(a) for a in args]
        rows.append(row + [0.0] * (dim % 2))
    return np.array(rows)


def tensor2tensor_reference(length: int, channels: int, start_index: int = 0):
    """tensor2tensor get_timing_signal_1d (min 1, max 1e4), transcribed."""
    num_timescales = channels // 2
    increment = math.log(1.0e4 / 1.0) / max(num_timescales - 1, 1)
    inv = [math.exp(k * -increment) for k in range(num_timescales)]
    rows = []
    for pos in range(start_index, start_index + length):
        row = [math.sin(pos * v) for v in inv] + [math.cos(pos * v) for v in inv]
        rows.append(row + [0.0] * (channels % 2))
    return np.array(rows)


@pytest.mark.parametrize("name", ["tensor2tensor", "whisper", "fairseq", "marian-nmt"])
def test_n_minus_1_spacing_golden(name):
    # fairseq's row 1 is its padding row when padding_idx = 1; use padding_idx = 0 here.
    kwargs = {"padding_idx": 0} if name == "fairseq" else {}
    np.testing.assert_allclose(
        sinpe.encode(1, 8, name, **kwargs), golden.N_MINUS_1_CONCAT, atol=5e-11, rtol=0
    )


@pytest.mark.parametrize("name", ["paper", "hf-marian"])
def test_paper_frequencies(name):
    got = sinpe.encode(1, 8, name)
    if name == "paper":
        got = sinpe.convert_layout(got, "interleaved", "concat")
    np.testing.assert_allclose(got, golden.PAPER_CONCAT, atol=5e-11, rtol=0)


@pytest.mark.parametrize("dim", [6, 7, 9, 16])
def test_marian_matches_transformers(dim):
    np.testing.assert_allclose(
        sinpe.encode(np.arange(40), dim, "hf-marian"), marian_reference(40, dim), atol=1e-12
    )


@pytest.mark.parametrize("dim", [2, 3, 5, 8, 33])
def test_tensor2tensor_matches_source(dim):
    np.testing.assert_allclose(
        sinpe.encode(np.arange(5, 45), dim, "tensor2tensor"),
        tensor2tensor_reference(40, dim, start_index=5),
        atol=1e-11,
    )


@pytest.mark.parametrize("dim", [4, 7, 10])
def test_guided_diffusion_matches_source(dim):
    timesteps = [0.0, 0.5, 3.25, 999.0]
    np.testing.assert_allclose(
        sinpe.encode(timesteps, dim, "guided-diffusion"),
        guided_diffusion_reference(timesteps, dim),
        atol=1e-12,
    )


def test_fairseq_positions_left_and_right_padding():
    tokens = [[5, 6, 7, 1, 1], [1, 1, 5, 6, 7]]
    np.testing.assert_array_equal(
        sinpe.fairseq_positions(tokens, padding_idx=1), [[2, 3, 4, 1, 1], [1, 1, 2, 3, 4]]
    )


def test_fairseq_embedding_zero_padding_and_first_row_encodes_two():
    emb = sinpe.fairseq_embedding([[5, 6, 7, 1, 1], [1, 1, 5, 6, 7]], 8, padding_idx=1)
    np.testing.assert_array_equal(emb[0, 3:], 0.0)
    np.testing.assert_array_equal(emb[1, :2], 0.0)
    np.testing.assert_array_equal(emb[0, :3], emb[1, 2:])
    # The first real token uses time 2: sin(2 * w_0) = sin(2).
    assert emb[0, 0, 0] == pytest.approx(math.sin(2.0), rel=1e-15)


def test_fairseq_odd_width_appends_zero_column():
    emb = sinpe.encode(np.arange(2, 6), 9, "fairseq")
    np.testing.assert_array_equal(emb[:, -1], 0.0)
    np.testing.assert_array_equal(emb[:, :8], sinpe.encode(np.arange(2, 6), 8, "fairseq"))


@pytest.mark.parametrize(
    ("name", "d"), [("whisper", 2), ("fairseq", 2), ("fairseq", 3), ("whisper", 7), ("paper", 7)]
)
def test_sources_that_crash_or_nan_raise_here(name, d):
    with pytest.raises(ValueError, match="d_model"):
        sinpe.encode(np.arange(4), d, name)


def test_unknown_convention():
    with pytest.raises(ValueError, match=r"convention must be one of 'paper'.*got 'hf'"):
        sinpe.encode(1, 8, "hf")


def test_every_convention_has_provenance():
    for name, rule in sinpe.CONVENTIONS.items():
        assert rule.name == name
        assert len(rule.source) > 60
        sinpe.encode(np.arange(3), 8, name)  # every convention handles the common case


def marian_nmt_reference(length: int, dim: int, start: int = 0) -> np.ndarray:
    """A transcription of Marian NMT's C++ sinusoidalPositionEmbeddings, in float32."""
    table = np.zeros((length, dim), dtype=np.float32)
    num_timescales = np.float32(dim / 2)
    increment = np.float32(math.log(10000.0)) / (num_timescales - np.float32(1.0))
    for p in range(start, start + length):
        for i in range(int(num_timescales)):
            v = np.float32(p) * np.float32(math.exp(i * -float(increment)))
            table[p - start, i] = math.sin(v)
            table[p - start, int(num_timescales) + i] = math.cos(v)
    return table


@pytest.mark.parametrize("dim", [8, 64, 512])
def test_marian_nmt_matches_the_cpp_rule_within_float32(dim):
    got = sinpe.encode(np.arange(50), dim, "marian-nmt")
    np.testing.assert_allclose(got, marian_nmt_reference(50, dim), atol=5e-5, rtol=0)
    # and it is a different table from Hugging Face's port (paper spacing)
    assert np.abs(got - sinpe.encode(np.arange(50), dim, "hf-marian")).max() > 0.01


def test_ambiguous_or_unhashable_convention_names_say_what_to_pass():
    with pytest.raises(ValueError, match=r"'hf-marian'.*'marian-nmt'"):
        sinpe.encode(1, 8, "marian")
    with pytest.raises(TypeError, match="convention must be a string"):
        sinpe.encode(1, 8, ["paper"])
