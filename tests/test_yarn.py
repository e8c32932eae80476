r"""YaRN's two ramps against their sources (issue 28).

``sinpe.rope.scaled_frequencies(..., method="yarn", ramp=...)`` has two forms:

* ``ramp="released"`` (the default), the code the paper's authors released and
  Hugging Face copied. Re-typed in NumPy (jquesnelle/yarn's below, transformers' in
  ``tests/sources.py``: two independent copies that check each other) from

  - jquesnelle/yarn, ``scaled_rope/LlamaYaRNScaledRotaryEmbedding.py`` (long lines
    wrapped with ``\``)::

        def find_correction_dim(num_rotations, dim, base=10000, max_position_embeddings=2048):
            return (dim * math.log(max_position_embeddings/(num_rotations * 2 * math.pi))) \
                /(2 * math.log(base))
        def find_correction_range(low_rot, high_rot, dim, base=10000, max_position_embeddings=2048):
            low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
            high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
            return max(low, 0), min(high, dim-1)  # Clamp values just in case
        def linear_ramp_mask(min, max, dim):
            if min == max:
                max += 0.001  # Prevent singularity
            linear_func = (torch.arange(dim, dtype=torch.float32) - min) / (max - min)
            ramp_func = torch.clamp(linear_func, 0, 1)
        def get_mscale(scale=1):
            if scale <= 1:
                return 1.0
            return 0.1 * math.log(scale) + 1.0
        # LlamaYaRNScaledRotaryEmbedding.yarn (beta_fast=32, beta_slow=1, extrapolation_factor=1):
        pos_freqs = self.base ** (torch.arange(0, self.dim, 2).float().to(device) / self.dim)
        inv_freq_extrapolation = 1.0 / pos_freqs
        inv_freq_interpolation = 1.0 / (self.scale * pos_freqs)
        low, high = find_correction_range(self.beta_fast, self.beta_slow, self.dim, \
            self.base, self.original_max_position_embeddings)
        inv_freq_mask = (1 - linear_ramp_mask(low, high, self.dim // 2).float().to(device)) \
            * self.extrapolation_factor
        inv_freq = inv_freq_interpolation * (1 - inv_freq_mask) \
            + inv_freq_extrapolation * inv_freq_mask
        self.mscale = float(get_mscale(self.scale) * self.attn_factor)

  - huggingface/transformers, ``src/transformers/modeling_rope_utils.py``,
    ``_compute_yarn_parameters``::

        attention_factor = 0.1 * math.log(factor) + 1.0   # when not configured
        beta_fast = config.rope_scaling.get("beta_fast") or 32
        beta_slow = config.rope_scaling.get("beta_slow") or 1
        low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
        high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
        return max(low, 0), min(high, dim - 1)
        ...   # linear_ramp_factor as linear_ramp_mask above
        low, high = find_correction_range(beta_fast, beta_slow, dim, base, max_position_embeddings)
        inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2) \
            .float().to(device)
        inv_freq = (
            inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
            + inv_freq_extrapolation * inv_freq_extrapolation_factor
        )

* ``ramp="paper"``: Peng et al., "YaRN", arXiv:2309.00071, section 3.2
  (NTK-by-parts): ``r(d) = L / lambda_d`` with ``lambda_d = 2 pi b^(2d/|D|)``;
  ``gamma(r) = 0 if r < alpha, 1 if r > beta, (r - alpha) / (beta - alpha)
  otherwise``; ``h(theta_d) = (1 - gamma(r(d))) theta_d / s + gamma(r(d))
  theta_d``; alpha = 1, beta = 32 for Llama.

The sources compute in float32 (PyTorch); they are re-typed in float64, and once in
float32 to show the gap is float32's rounding. The paper's ramp is re-typed in
``tests/sources.py`` too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sources import hf_yarn_inv_freq, paper_frequencies

import sinpe
from sinpe.lab import context, nn
from sinpe.rope import SCALING_METHODS, scaled_frequencies, yarn_temperature

# --- the sources, re-typed ------------------------------------------------------------


def jquesnelle_inv_freq(
    dim, base, scale, original_max, beta_fast=32, beta_slow=1, dtype=np.float64
):
    """jquesnelle/yarn LlamaYaRNScaledRotaryEmbedding.yarn's inv_freq (float32 there)."""

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (
            2 * math.log(base)
        )

    def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings):
        low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
        high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_mask(min, max, dim):  # the source's names
        if min == max:
            max += 0.001
        linear_func = (np.arange(dim).astype(dtype) - dtype(min)) / dtype(max - min)
        return np.clip(linear_func, 0, 1)

    pos_freqs = dtype(base) ** (np.arange(0, dim, 2).astype(dtype) / dtype(dim))
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (dtype(scale) * pos_freqs)
    low, high = find_correction_range(beta_fast, beta_slow, dim, base, original_max)
    inv_freq_mask = 1 - linear_ramp_mask(low, high, dim // 2)
    return inv_freq_interpolation * (1 - inv_freq_mask) + inv_freq_extrapolation * inv_freq_mask


def jquesnelle_mscale(scale):
    """jquesnelle/yarn get_mscale, which multiplies cos and sin (so q . k by its square)."""
    if scale <= 1:
        return 1.0
    return 0.1 * math.log(scale) + 1.0


# (dim, base, original length, factor): the length lab's two; Llama's 4096 at 8 and 16;
# a Llama-3-like base; more settings at 2048. Then the released ramp's corners: low ==
# high (its 0.001 guard); a ramp ending past the last pair (high = 9 for 8 pairs); a
# context so short (L < 2 pi) that high < 0 and no pair is interpolated; one so long
# that low > high and every pair is; a base below 1.
SETTINGS = [
    (8, 10000.0, 16, 4.0),
    (8, 10000.0, 16, 2.0),
    (128, 10000.0, 4096, 8.0),
    (128, 10000.0, 4096, 16.0),
    (64, 500000.0, 8192, 4.0),
    (96, 10000.0, 2048, 32.0),
    (32, 100.0, 2048, 2.0),
    (4, 10000.0, 4, 3.0),
    (16, 10000.0, 100000, 4.0),
    (128, 10000.0, 3, 2.0),
    (8, 10000.0, 3 * 10**10, 2.0),
    (16, 0.5, 1000, 2.0),  # base < 1: the frequencies rise, and the bounds swap
]


@pytest.mark.parametrize(("dim", "base", "length", "factor"), SETTINGS)
def test_released_ramp_is_the_released_code(dim, base, length, factor):
    got = scaled_frequencies(dim, factor, method="yarn", base=base, original_length=length)
    source = jquesnelle_inv_freq(dim, base, factor, length)
    np.testing.assert_allclose(got, source, rtol=1e-14, atol=0)
    np.testing.assert_allclose(got, hf_yarn_inv_freq(dim, base, factor, length), rtol=1e-14)
    assert np.array_equal(
        got,
        scaled_frequencies(
            dim, factor, method="yarn", base=base, original_length=length, ramp="released"
        ),
    )
    # the source's own float32: the same up to float32's rounding
    single = jquesnelle_inv_freq(dim, base, factor, length, dtype=np.float32)
    np.testing.assert_allclose(got, single, rtol=2e-6)


@pytest.mark.parametrize(("dim", "base", "length", "factor"), SETTINGS)
def test_paper_ramp_is_the_paper(dim, base, length, factor):
    got = scaled_frequencies(
        dim, factor, method="yarn", base=base, original_length=length, ramp="paper"
    )
    np.testing.assert_allclose(got, paper_frequencies(dim, base, factor, length), rtol=1e-14)


@pytest.mark.parametrize(("alpha", "beta"), [(2.0, 16.0), (0.5, 64.0)])
def test_released_ramp_takes_other_bounds_as_beta_slow_and_beta_fast(alpha, beta):
    got = scaled_frequencies(64, 8.0, method="yarn", original_length=2048, alpha=alpha, beta=beta)
    source = jquesnelle_inv_freq(64, 10000.0, 8.0, 2048, beta_fast=beta, beta_slow=alpha)
    np.testing.assert_allclose(got, source, rtol=1e-14)
    paper = scaled_frequencies(
        64, 8.0, method="yarn", original_length=2048, alpha=alpha, beta=beta, ramp="paper"
    )
    np.testing.assert_allclose(paper, paper_frequencies(64, 10000.0, 8.0, 2048, alpha, beta))


def test_the_length_labs_stretches():
    # book chapter 8's lab: heads of width 8, base 10000, trained at 16, stretched 2x and 4x
    theta = sinpe.frequencies(8)
    for factor in (2.0, 4.0):
        source = jquesnelle_inv_freq(8, 10000.0, factor, 16)
        expected = [1.0, factor, factor, factor]  # pair 0 kept, the others interpolated
        np.testing.assert_allclose(theta / source, expected, rtol=1e-14)
        released = scaled_frequencies(8, factor, method="yarn", original_length=16)
        np.testing.assert_allclose(theta / released, expected, rtol=1e-14)
    assert released[0] == 1.0  # pair 0 still turns one radian per position
    # the paper's continuous ramp stretches pair 0 too: r = 16 / (2 pi) = 2.55 turns
    gamma = (16 / (2 * math.pi) - 1) / 31
    paper = scaled_frequencies(8, 4.0, method="yarn", original_length=16, ramp="paper")
    assert theta[0] / paper[0] == pytest.approx(1 / ((1 - gamma) / 4 + gamma), rel=1e-14)
    assert round(theta[0] / paper[0], 2) == 3.48
    np.testing.assert_allclose(theta[1:] / paper[1:], 4.0, rtol=1e-14)


def test_the_temperature_is_the_released_codes_mscale():
    # mscale multiplies cos and sin, so q . k by mscale**2: dividing by t is the same
    for factor in (1.0, 2.0, 4.0, 16.0, 40.0):
        assert yarn_temperature(factor) == pytest.approx(
            1 / jquesnelle_mscale(factor) ** 2, rel=1e-15
        )


def test_alpha_zero_ramps_to_the_last_index():
    # beta_slow = 0 divides by zero in the source; here its limit: high = dim - 1
    dim, length = 16, 64
    low = max(math.floor(dim * math.log(length / (32 * 2 * math.pi)) / (2 * math.log(1e4))), 0)
    index = np.arange(dim // 2)
    keep = 1 - np.clip((index - low) / (dim - 1 - low), 0, 1)
    theta = sinpe.frequencies(dim)
    got = scaled_frequencies(dim, 2.0, method="yarn", original_length=length, alpha=0.0)
    np.testing.assert_allclose(got, (1 - keep) * theta / 2 + keep * theta, rtol=1e-14)


@pytest.mark.parametrize("ramp", ["bogus", "Paper", ""])
def test_an_unknown_ramp_names_the_options(ramp):
    with pytest.raises(ValueError, match="'released', 'paper'"):
        scaled_frequencies(8, 2.0, method="yarn", ramp=ramp)
    with pytest.raises(TypeError, match="ramp must be a string, got 1"):
        scaled_frequencies(8, 2.0, method="yarn", ramp=1)


@pytest.mark.parametrize("method", [m for m in SCALING_METHODS if m != "yarn"])
@pytest.mark.parametrize("ramp", ["released", "paper"])
def test_a_ramp_with_another_method_raises(method, ramp):
    with pytest.raises(ValueError, match="YaRN"):
        scaled_frequencies(8, 2.0, method=method, ramp=ramp)
    with pytest.raises(ValueError, match="'released', 'paper'"):
        scaled_frequencies(8, 2.0, method=method, ramp="bogus")


def test_extend_context_passes_the_ramp_through():
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=10,
            d_model=32,
            n_heads=4,
            d_ff=64,
            n_layers=1,
            encoding="rope",
            max_len=16,
            seed=0,
        )
    )
    for ramp in (None, "released", "paper"):
        longer = context.extend_context(model, "yarn", 4.0, original_length=16, ramp=ramp)
        expected = scaled_frequencies(
            8, 4.0, method="yarn", original_length=16, ramp=ramp or "released"
        )
        attention = longer.layers[0].self_attn
        np.testing.assert_array_equal(attention.frequencies, expected)
        assert attention.temperature == yarn_temperature(4.0)
    default = context.extend_context(model, "yarn", 4.0, original_length=16)
    assert default.layers[0].self_attn.frequencies[0] == 1.0  # released: pair 0 kept
    with pytest.raises(ValueError, match="YaRN"):
        context.extend_context(model, "ntk", 4.0, original_length=16, ramp="paper")
    with pytest.raises(ValueError, match="'released', 'paper'"):
        context.extend_context(model, "yarn", 4.0, original_length=16, ramp="bogus")
    assert model.layers[0].self_attn.frequencies is None  # the original is untouched
