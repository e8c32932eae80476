r"""Every rope_type of ``sinpe.rope_scaling`` against transformers' released code (issue 39).

The sources, re-typed in NumPy below from ``transformers/modeling_rope_utils.py`` of the
PyPI wheels ``transformers-5.17.0-py3-none-any.whl`` (sha256 78ec1ce2...c03801) and
``transformers-4.57.1-py3-none-any.whl`` (sha256 b10d05da...0bd267); no git commit
could be fetched, so the release and the wheel's hash are what a reader can verify. The
formulas are the same in both releases; where they differ (v4's yarn falls back to
``max_position_embeddings`` for the original length, v4's longrope derives ``factor``
from a top-level ``original_max_position_embeddings``) the config reader follows each
(tests/test_configs.py). The sources compute in float32 (PyTorch); they are
re-typed in float64 and compared within 1e-12, and once in float32 within float32's
rounding, to show the gap is only that.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import sinpe
from sinpe.rope import llama3_frequencies
from sinpe.rope_scaling import (
    ROPE_TYPES,
    dynamic_frequencies,
    longrope_attention_factor,
    longrope_frequencies,
    proportional_frequencies,
    rope_init,
    yarn_attention_factor,
    yarn_frequencies,
)

# --- transformers 5.17.0, re-typed (torch -> numpy; the source's names) ----------------------


def hf_default(base, dim, dtype=np.float64):
    # inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
    return 1.0 / (dtype(base) ** (np.arange(0, dim, 2).astype(dtype) / dtype(dim)))


def hf_linear(base, dim, factor, dtype=np.float64):
    inv_freq = hf_default(base, dim, dtype)
    inv_freq /= dtype(factor)
    return inv_freq


def hf_proportional(base, head_dim, factor, rope_proportion, dtype=np.float64):
    rope_angles = int(rope_proportion * head_dim // 2)
    inv_freq_rotated = 1.0 / (
        dtype(base) ** (np.arange(0, 2 * rope_angles, 2).astype(dtype) / dtype(head_dim))
    )
    nope_angles = head_dim // 2 - rope_angles
    if nope_angles > 0:
        inv_freq = np.concatenate((inv_freq_rotated, np.zeros(nope_angles, dtype=dtype)))
    else:
        inv_freq = inv_freq_rotated
    inv_freq /= dtype(factor)
    return inv_freq


def hf_dynamic(base, dim, factor, max_position_embeddings, seq_len=None, dtype=np.float64):
    if seq_len is None:
        seq_len = max_position_embeddings
    else:
        seq_len = max(seq_len, max_position_embeddings)
    base = base * ((factor * seq_len / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))
    return hf_default(base, dim, dtype)


def hf_yarn(rope_parameters_dict, dim, max_position_embeddings, truncate=True, dtype=np.float64):
    base = rope_parameters_dict["rope_theta"]
    factor = rope_parameters_dict["factor"]
    attention_factor = rope_parameters_dict.get("attention_factor")
    mscale = rope_parameters_dict.get("mscale")
    mscale_all_dim = rope_parameters_dict.get("mscale_all_dim")
    original_max_position_embeddings = rope_parameters_dict["original_max_position_embeddings"]
    if factor is None:
        factor = max_position_embeddings / original_max_position_embeddings

    def get_mscale(scale, mscale=1):
        if scale <= 1:
            return 1.0
        return 0.1 * mscale * math.log(scale) + 1.0

    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(
                get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
            )
        else:
            attention_factor = get_mscale(factor)
    beta_fast = rope_parameters_dict.get("beta_fast") or 32
    beta_slow = rope_parameters_dict.get("beta_slow") or 1

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (
            2 * math.log(base)
        )

    def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings, truncate):
        low = find_correction_dim(low_rot, dim, base, max_position_embeddings)
        high = find_correction_dim(high_rot, dim, base, max_position_embeddings)
        if truncate:
            low = math.floor(low)
            high = math.ceil(high)
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min, max, dim):  # the source's names
        if min == max:
            max += 0.001
        linear_func = (np.arange(dim).astype(dtype) - dtype(min)) / dtype(max - min)
        return np.clip(linear_func, 0, 1)

    pos_freqs = dtype(base) ** (np.arange(0, dim, 2).astype(dtype) / dtype(dim))
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (dtype(factor) * pos_freqs)
    low, high = find_correction_range(
        beta_fast, beta_slow, dim, base, original_max_position_embeddings, truncate
    )
    inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2)
    inv_freq = (
        inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
        + inv_freq_extrapolation * inv_freq_extrapolation_factor
    )
    return inv_freq, attention_factor


def hf_longrope(rope_parameters_dict, dim, max_position_embeddings, seq_len=None, dtype=np.float64):
    base = rope_parameters_dict["rope_theta"]
    long_factor = rope_parameters_dict["long_factor"]
    short_factor = rope_parameters_dict["short_factor"]
    factor = rope_parameters_dict.get("factor")
    attention_factor = rope_parameters_dict.get("attention_factor")
    original_max_position_embeddings = rope_parameters_dict["original_max_position_embeddings"]
    if factor is None:
        factor = max_position_embeddings / original_max_position_embeddings
    if attention_factor is None:
        if factor <= 1.0:
            attention_factor = 1.0
        else:
            attention_factor = math.sqrt(
                1 + math.log(factor) / math.log(original_max_position_embeddings)
            )
    if seq_len and seq_len > original_max_position_embeddings:
        ext_factors = np.array(long_factor, dtype=dtype)
    else:
        ext_factors = np.array(short_factor, dtype=dtype)
    inv_freq_shape = np.arange(0, dim, 2).astype(dtype) / dtype(dim)
    inv_freq = 1.0 / (ext_factors * dtype(base) ** inv_freq_shape)
    return inv_freq, attention_factor


def hf_llama3(rope_parameters_dict, dim, dtype=np.float64):
    base = rope_parameters_dict["rope_theta"]
    inv_freq = hf_default(base, dim, dtype)
    factor = rope_parameters_dict["factor"]
    low_freq_factor = rope_parameters_dict["low_freq_factor"]
    high_freq_factor = rope_parameters_dict["high_freq_factor"]
    old_context_len = rope_parameters_dict["original_max_position_embeddings"]
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / inv_freq
    inv_freq_llama = np.where(wavelen > low_freq_wavelen, inv_freq / factor, inv_freq)
    with np.errstate(divide="ignore", invalid="ignore"):  # high == low: no blend band
        smooth_factor = (old_context_len / wavelen - low_freq_factor) / (
            high_freq_factor - low_freq_factor
        )
        smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + (
            smooth_factor * inv_freq_llama
        )
    is_medium_freq = ~(wavelen < high_freq_wavelen) * ~(wavelen > low_freq_wavelen)
    return np.where(is_medium_freq, smoothed_inv_freq, inv_freq_llama)


# --- the cases: the shipped models' settings, and edges ------------------------------------

DEEPSEEK_V3 = {
    "rope_type": "yarn", "rope_theta": 10000, "factor": 40, "beta_fast": 32, "beta_slow": 1,
    "mscale": 1.0, "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
}  # fmt: skip
DEEPSEEK_V2_LITE = {**DEEPSEEK_V3, "mscale": 0.707, "mscale_all_dim": 0.707}
GPT_OSS = {
    "rope_type": "yarn", "rope_theta": 150000, "factor": 32.0, "beta_fast": 32.0,
    "beta_slow": 1.0, "original_max_position_embeddings": 4096, "truncate": False,
}  # fmt: skip
PLAIN_YARN = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0,
              "original_max_position_embeddings": 4096}  # fmt: skip
YARN_SET_FACTOR = {**PLAIN_YARN, "attention_factor": 0.5, "beta_fast": 0, "beta_slow": None}
# beta_slow's pair index (44) beyond the pair count (32): clamped at dim - 1, not d / 2
SLOW_END = {"rope_type": "yarn", "rope_theta": 500.0, "factor": 4.0,
            "original_max_position_embeddings": 32768, "truncate": False}  # fmt: skip
LLAMA31 = {
    "rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
    "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
}  # fmt: skip
LLAMA32 = {**LLAMA31, "factor": 32.0}
NO_BLEND = {**LLAMA31, "factor": 16.0, "high_freq_factor": 1.0}


@pytest.mark.parametrize(
    ("parameters", "dim", "longest"),
    [
        (DEEPSEEK_V3, 64, 163840),
        (DEEPSEEK_V2_LITE, 64, 163840),
        (GPT_OSS, 64, 131072),
        (PLAIN_YARN, 128, 32768),
        (YARN_SET_FACTOR, 128, 32768),
        ({**GPT_OSS, "truncate": True}, 64, 131072),
        (SLOW_END, 64, 131072),
        ({**PLAIN_YARN, "mscale": 0.707}, 128, 32768),
    ],
    ids=[
        "deepseek-v3",
        "deepseek-v2-lite",
        "gpt-oss",
        "plain",
        "set-factor",
        "gpt-oss-truncated",
        "slow-end-beyond-the-pairs",
        "mscale-alone",
    ],
)
def test_yarn_matches_transformers(parameters, dim, longest):
    truncate = parameters.get("truncate", True)
    expected, attention = hf_yarn(parameters, dim, longest, truncate)
    theta, found = rope_init(parameters, dim, max_position_embeddings=longest)
    np.testing.assert_allclose(theta, expected, rtol=1e-12)
    assert found == pytest.approx(attention, rel=1e-15)
    single, _ = hf_yarn(parameters, dim, longest, truncate, dtype=np.float32)
    np.testing.assert_allclose(theta, single, rtol=2e-6)  # float32's rounding, no more


def test_truncate_changes_the_ramp_ends_only():
    """gpt-oss's truncate=false: the two ramp ends move, the plateaus stay."""
    loose, _ = rope_init(GPT_OSS, 64, max_position_embeddings=131072)
    tight, _ = rope_init({**GPT_OSS, "truncate": True}, 64, max_position_embeddings=131072)
    moved = np.flatnonzero(~np.isclose(loose, tight, rtol=1e-12))
    assert moved.size and np.isclose(loose[0], tight[0]) and np.isclose(loose[-1], tight[-1])


@pytest.mark.parametrize(
    ("parameters", "dim"),
    [(LLAMA31, 128), (LLAMA32, 64), (NO_BLEND, 128), ({**LLAMA31, "rope_theta": 1e4}, 96)],
)
def test_llama3_matches_transformers(parameters, dim):
    theta, attention = rope_init(parameters, dim)
    np.testing.assert_allclose(theta, hf_llama3(parameters, dim), rtol=1e-12)
    np.testing.assert_allclose(theta, hf_llama3(parameters, dim, np.float32), rtol=2e-6)
    assert attention == 1.0


def test_llama3_reuses_the_rope_module():
    """One source of truth: rope_init's llama3 is sinpe.rope.llama3_frequencies."""
    theta, _ = rope_init(LLAMA31, 128)
    np.testing.assert_array_equal(theta, llama3_frequencies(128))


PHI35_SHORT = [1.0 + 0.05 * i for i in range(48)]
PHI35_LONG = [1.0 + 0.6 * i for i in range(48)]
LONGROPE = {
    "rope_type": "longrope", "rope_theta": 10000.0, "short_factor": PHI35_SHORT,
    "long_factor": PHI35_LONG, "original_max_position_embeddings": 4096,
}  # fmt: skip


@pytest.mark.parametrize("seq_len", [None, 4096, 4097, 131072])
@pytest.mark.parametrize("factor", [None, 16.0])
def test_longrope_matches_transformers(seq_len, factor):
    parameters = LONGROPE if factor is None else {**LONGROPE, "factor": factor}
    expected, attention = hf_longrope(parameters, 96, 131072, seq_len)
    theta, found = rope_init(parameters, 96, max_position_embeddings=131072, seq_len=seq_len)
    np.testing.assert_allclose(theta, expected, rtol=1e-12)
    assert found == pytest.approx(attention, rel=1e-15)


@pytest.mark.parametrize("seq_len", [None, 100, 2048, 4096, 50000])
def test_dynamic_matches_transformers(seq_len):
    parameters = {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 4.0}
    theta, _ = rope_init(parameters, 128, max_position_embeddings=2048, seq_len=seq_len)
    np.testing.assert_allclose(theta, hf_dynamic(10000.0, 128, 4.0, 2048, seq_len), rtol=1e-12)


@pytest.mark.parametrize("share", [1.0, 0.25, 0.5, 0.0])
@pytest.mark.parametrize("factor", [1.0, 2.0])
def test_proportional_matches_transformers(share, factor):
    parameters = {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": share}
    theta, _ = rope_init({**parameters, "factor": factor}, 256)
    np.testing.assert_allclose(theta, hf_proportional(1e6, 256, factor, share), rtol=1e-12)


@pytest.mark.parametrize("share", [1.0, 0.4, 0.5])
def test_default_and_linear_with_partial_rotation(share):
    """phi-2: 0.4 of 80 = 32 dims rotated, exponents over the rotated width."""
    dim = int(80 * share)
    theta, _ = rope_init({"rope_theta": 1e4, "partial_rotary_factor": share}, 80)
    np.testing.assert_allclose(theta, hf_default(1e4, dim), rtol=1e-12)
    theta, _ = rope_init({"rope_type": "linear", "rope_theta": 1e4, "factor": 4.0,
                          "partial_rotary_factor": share}, 80)  # fmt: skip
    np.testing.assert_allclose(theta, hf_linear(1e4, dim, 4.0), rtol=1e-12)


def test_every_registered_type_is_computed():
    """ROPE_INIT_FUNCTIONS of v5.17.0 (linear, dynamic, yarn, longrope, llama3,
    proportional) and v4.57.1's default: no type left out, none invented."""
    source = Path(__file__).read_text()
    assert set(ROPE_TYPES) == {"default", "linear", "dynamic", "yarn", "longrope", "llama3",
                               "proportional"}  # fmt: skip
    assert all(f"hf_{name}" in source for name in ROPE_TYPES if name != "default")


def test_dynamic_at_one_pair_turns_at_one():
    """d = 2: transformers' exponent d / (d - 2) divides by zero; the one pair's
    frequency is 1 at any base, so sinpe returns it."""
    assert dynamic_frequencies(2, 4.0, max_position_embeddings=8, seq_len=64).tolist() == [1.0]


def test_attention_factors_closed_forms():
    assert yarn_attention_factor(32.0) == pytest.approx(0.1 * math.log(32) + 1, rel=1e-15)
    assert yarn_attention_factor(40.0, mscale=1.0, mscale_all_dim=1.0) == 1.0
    assert yarn_attention_factor(1.0) == 1.0
    # one of the two set: transformers falls back to 0.1 ln(factor) + 1, mscale unused
    assert yarn_attention_factor(40.0, mscale=0.707) == pytest.approx(0.1 * math.log(40) + 1)
    assert yarn_attention_factor(40.0, mscale_all_dim=2.0) == pytest.approx(0.1 * math.log(40) + 1)
    assert sinpe.rope.yarn_temperature(32.0) == pytest.approx(yarn_attention_factor(32.0) ** -2)
    assert longrope_attention_factor(32.0, 4096) == pytest.approx(
        math.sqrt(1 + math.log(32) / math.log(4096))
    )
    assert longrope_attention_factor(1.0, 4096) == 1.0


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: rope_init({"rope_type": "linear"}, 64), KeyError, "'factor'"),
        (lambda: rope_init({"rope_type": "nope"}, 64), ValueError, "rope_type must be one of"),
        (lambda: rope_init({"rope_type": "yarn", "factor": 2.0}, 64), KeyError,
         "original_max_position_embeddings"),
        (lambda: rope_init({"rope_type": "llama3", "factor": 8.0,
                            "original_max_position_embeddings": 8192}, 64), KeyError,
         "low_freq_factor"),
        (lambda: rope_init({"rope_type": "dynamic", "factor": 2.0}, 64), TypeError,
         "max_position_embeddings"),
        (lambda: rope_init([], 64), TypeError, "parameters must be a dict"),
        (lambda: rope_init({"rope_theta": 1.0}, 64), ValueError, "rope_theta"),
        (lambda: rope_init({"partial_rotary_factor": 0.01}, 64), ValueError, "rotated width"),
        (lambda: longrope_frequencies(8, [1.0, 2.0]), ValueError, "one factor per pair"),
        (lambda: longrope_frequencies(4, [1.0, -2.0]), ValueError, "finite and positive"),
        (lambda: longrope_attention_factor(2.0, 1), ValueError, "original_length"),
        (lambda: yarn_frequencies(64, 0.5), ValueError, "factor"),
        (lambda: yarn_attention_factor(2.0, mscale=-1.0), ValueError, "mscale"),
        (lambda: proportional_frequencies(64, partial_rotary_factor=1.5), ValueError,
         "partial_rotary_factor"),
    ],
)  # fmt: skip
def test_bad_parameters_get_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


MUTANTS = [
    (
        "rope_scaling.py",
        "yarn_frequencies",
        "theta / factor * ramp + theta * (1.0 - ramp)",
        "theta / factor * (1.0 - ramp) + theta * ramp",
        "yarn_frequencies (truncate=False): the ramp reversed",
    ),
    (
        "rope_scaling.py",
        "yarn_frequencies",
        "d_model - 1.0",
        "d_model / 2",
        "yarn_frequencies: the ramp clamped to the pair count, not dim - 1",
    ),
    (
        "rope_scaling.py",
        "yarn_attention_factor",
        "mscale and mscale_all_dim",
        "mscale or mscale_all_dim",
        "yarn_attention_factor: the mscale ratio with one of the two unset",
    ),
    (
        "rope_scaling.py",
        "longrope_attention_factor",
        "math.sqrt(1 + math.log(factor) / math.log(original_length))",
        "1 + math.log(factor) / math.log(original_length)",
        "longrope_attention_factor: the square root dropped",
    ),
    (
        "rope_scaling.py",
        "proportional_frequencies",
        "frequencies(head_dim, base=base)[:turning]",
        "frequencies(2 * turning, base=base)",
        "proportional_frequencies: exponents over the rotated part, not the head",
    ),
    (
        "rope_scaling.py",
        "_longrope",
        "seq_len > original",
        "seq_len >= original",
        "rope_init (longrope): the long factors at the original length itself",
    ),
    (
        "rope_scaling.py",
        "_yarn",
        "parameters.get('beta_fast') or 32.0",
        "parameters.get('beta_fast', 32.0)",
        "rope_init (yarn): beta_fast 0 taken as 0, not transformers' `or 32`",
    ),
]


@pytest.mark.parametrize("betas", [(1e308, 1.0), (32.0, 5e-324), (1e308, 1e300)])
def test_yarn_without_truncation_takes_extreme_accepted_betas(betas):
    """beta_fast = 1e308 passes its rule; the ramp's end is then far below pair 0, computed
    in logs (``length / (turns 2 pi)`` underflows to 0, whose log the released formula
    cannot take), never a bare 'math domain error'."""
    beta_fast, beta_slow = betas
    theta = sinpe.frequencies(64)
    scaled = yarn_frequencies(64, 4.0, beta_fast=beta_fast, beta_slow=beta_slow, truncate=False)
    assert np.isfinite(scaled).all()
    assert (scaled <= theta).all() and (scaled >= theta / 4.0 * (1 - 1e-15)).all()
