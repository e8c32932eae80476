"""The published code, re-typed in NumPy (or plain Python); never from ``sinpe``.

One copy of each source for every test module that checks ``sinpe`` against it
(test_porting, test_tensors, test_yarn, ...). A function follows its source step by
step in ``dtype``: float64 by default, the transcription ``sinpe`` reproduces; a
test passes ``dtype=np.float32`` for the table the framework itself computes
(PyTorch and TensorFlow default to float32; a Python float times a float32 tensor
is rounded to float32 first). Each docstring's first line names the repository and
the function it copies.
"""

from __future__ import annotations

import math

import numpy as np

F32 = np.float32


def t2t_timing_signal(
    length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0, dtype=np.float64
):
    """tensorflow/tensor2tensor, layers/common_attention.py, get_timing_signal_1d (no batch axis).

    position = tf.to_float(tf.range(length) + start_index)
    log_timescale_increment = math.log(max / min) / tf.maximum(tf.to_float(n) - 1, 1)
    inv_timescales = min_timescale * tf.exp(tf.to_float(tf.range(n)) * -increment)
    signal = tf.concat([tf.sin(scaled_time), tf.cos(scaled_time)], axis=1), padded.
    """
    position = (np.arange(length) + start_index).astype(dtype)
    num_timescales = channels // 2
    increment = dtype(math.log(float(max_timescale) / float(min_timescale))) / dtype(
        max(num_timescales - 1, 1)
    )
    inv_timescales = dtype(min_timescale) * np.exp(
        np.arange(num_timescales).astype(dtype) * -increment
    )
    scaled_time = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)
    return np.pad(signal, [[0, 0], [0, channels % 2]])


def annotated_transformer(max_len, d_model, dtype=np.float64):
    """harvardnlp/annotated-transformer, PositionalEncoding (float32 there).

    The PyTorch tutorial's PositionalEncoding is the same code.
    """
    position = np.arange(max_len)[:, None].astype(dtype)
    div_term = np.exp(
        np.arange(0, d_model, 2).astype(dtype) * dtype(-(math.log(10000.0) / d_model))
    )
    pe = np.zeros((max_len, d_model), dtype=dtype)
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def whisper_sinusoids(length, channels, max_timescale=10000, dtype=np.float64):
    """openai/whisper, whisper/model.py, sinusoids (torch.exp of a float32 tensor there)."""
    assert channels % 2 == 0
    log_timescale_increment = np.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = np.exp(
        dtype(-log_timescale_increment) * np.arange(channels // 2).astype(dtype)
    )
    scaled_time = np.arange(length).astype(dtype)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


def fairseq_get_embedding(num_embeddings, embedding_dim, padding_idx=None, dtype=np.float64):
    """facebookresearch/fairseq, SinusoidalPositionalEmbedding.get_embedding (float32 there).

    fairseq/modules/sinusoidal_positional_embedding.py.
    """
    half_dim = embedding_dim // 2
    emb = math.log(10000) / (half_dim - 1)
    emb = np.exp(np.arange(half_dim).astype(dtype) * dtype(-emb))
    emb = np.arange(num_embeddings).astype(dtype)[:, None] * emb[None, :]
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=1).reshape(num_embeddings, -1)
    if embedding_dim % 2 == 1:
        emb = np.concatenate([emb, np.zeros((num_embeddings, 1), dtype=dtype)], axis=1)
    if padding_idx is not None:
        emb[padding_idx, :] = 0
    return emb


def fairseq_make_positions(tokens, padding_idx):
    """facebookresearch/fairseq, fairseq/utils.py, make_positions."""
    mask = (np.asarray(tokens) != padding_idx).astype(np.int32)
    return (np.cumsum(mask, axis=1) * mask).astype(np.int64) + padding_idx


def fairseq_module(tokens, embedding_dim, padding_idx, init_size=1024):
    """facebookresearch/fairseq, SinusoidalPositionalEmbedding.forward, in float64.

    SinusoidalPositionalEmbedding(embedding_dim, padding_idx, init_size).forward(tokens).
    """
    module_padding_idx = padding_idx if padding_idx is not None else 0  # its __init__
    weights = fairseq_get_embedding(init_size, embedding_dim, padding_idx)
    seq_len = np.shape(tokens)[1]
    if module_padding_idx + 1 + seq_len > init_size:  # rebuilt with self.padding_idx
        weights = fairseq_get_embedding(
            module_padding_idx + 1 + seq_len, embedding_dim, module_padding_idx
        )
    positions = fairseq_make_positions(tokens, module_padding_idx)
    return weights[positions]


def marian_init_weight(n_pos, dim, dtype=np.float64):
    """huggingface/transformers, MarianSinusoidalPositionalEmbedding._init_weight.

    Computed in float64, then rounded to ``dtype`` (torch.FloatTensor: float32 there).
    """
    position_enc = np.array(
        [[pos / np.power(10000, 2 * (j // 2) / dim) for j in range(dim)] for pos in range(n_pos)]
    )
    out = np.empty((n_pos, dim))
    sentinel = dim // 2 if dim % 2 == 0 else (dim // 2) + 1
    out[:, 0:sentinel] = np.sin(position_enc[:, 0::2])
    out[:, sentinel:] = np.cos(position_enc[:, 1::2])
    return out.astype(dtype)  # torch.FloatTensor(...) rounds this to float32


def marian_nmt_embeddings(length, dim_emb, start=0, dtype=np.float64):
    """marian-nmt/marian, src/graph/node_initializers.cpp, sinusoidalPositionEmbeddings.

    C++ in float32 there.
    """
    num_timescales = dtype(dim_emb) / dtype(2)
    increment = dtype(math.log(10000.0)) / (num_timescales - dtype(1))
    out = np.zeros((length, dim_emb), dtype=dtype)
    i = np.arange(int(num_timescales))
    p = np.arange(start, start + length).astype(dtype)[:, None]
    v = p * np.exp(i.astype(dtype) * -increment)[None, :]
    out[:, : int(num_timescales)] = np.sin(v)
    out[:, int(num_timescales) : 2 * int(num_timescales)] = np.cos(v)
    return out


def timestep_embedding(timesteps, dim, max_period=10000, dtype=np.float64):
    """openai/guided-diffusion, guided_diffusion/nn.py, timestep_embedding (float32 there)."""
    half = dim // 2
    freqs = np.exp(dtype(-math.log(max_period)) * np.arange(half).astype(dtype) / dtype(half))
    args = np.asarray(timesteps).astype(dtype)[:, None] * freqs[None]
    embedding = np.concatenate([np.cos(args), np.sin(args)], axis=-1)
    if dim % 2:
        embedding = np.concatenate([embedding, np.zeros_like(embedding[:, :1])], axis=-1)
    return embedding


def neox_rotary(x, positions, rotary_ndims, base=10000.0, inv_freq=None):
    """EleutherAI/gpt-neox, RotaryEmbedding and apply_rotary_pos_emb (partial rotary).

    RotaryEmbedding(dim=rotary_ndims) on q[..., :rotary_ndims]:

    inv_freq = 1 / base ** (arange(0, dim, 2) / dim) (or a given one); emb =
    cat(freqs, freqs); q_rot * cos + rotate_half(q_rot) * sin; cat(q_rot, q_pass).
    """
    q_rot, q_pass = x[..., :rotary_ndims], x[..., rotary_ndims:]
    if inv_freq is None:
        inv_freq = 1.0 / base ** (np.arange(0, rotary_ndims, 2) / rotary_ndims)
    freqs = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq[None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    half = rotary_ndims // 2
    rotated = np.concatenate([-q_rot[..., half:], q_rot[..., :half]], axis=-1)  # rotate_half
    return np.concatenate([q_rot * cos + rotated * sin, q_pass], axis=-1)


def gptj_rotary(x, positions, rotary_dim, base=10000.0):
    """kingoflolz/mesh-transformer-jax (GPT-J), rotate_every_two and apply_rotary_pos_emb.

    rotate_every_two on k[..., :rotary_dim] with sin/cos repeated per pair.
    """
    k_rot, k_pass = x[..., :rotary_dim], x[..., rotary_dim:]
    inv_freq = 1.0 / (base ** (np.arange(0, rotary_dim, 2) / rotary_dim))
    sinusoid = np.asarray(positions, dtype=np.float64)[:, None] * inv_freq[None, :]
    sin = np.repeat(np.sin(sinusoid), 2, axis=-1)
    cos = np.repeat(np.cos(sinusoid), 2, axis=-1)
    every_two = np.stack([-k_rot[..., 1::2], k_rot[..., ::2]], axis=-1).reshape(k_rot.shape)
    return np.concatenate([k_rot * cos + every_two * sin, k_pass], axis=-1)


def llama3_inv_freq(
    dim, base=500000.0, factor=8.0, low=1.0, high=4.0, original=8192, dtype=np.float64
):
    """huggingface/transformers, modeling_rope_utils._compute_llama3_parameters' inv_freq.

    rope_type "llama3"; computed in float64, then rounded to ``dtype``.
    """
    inv_freq = 1.0 / (base ** (np.arange(0, dim, 2) / dim))
    low_wavelen, high_wavelen = original / low, original / high
    wavelen = 2 * math.pi / inv_freq
    scaled = np.where(wavelen > low_wavelen, inv_freq / factor, inv_freq)
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < high_wavelen) & ~(wavelen > low_wavelen)
    return np.where(medium, smoothed, scaled).astype(dtype)


def nerf_embedder(x, multires, include_input=True, log_sampling=True, dtype=np.float64):
    """yenchenlin/nerf-pytorch, run_nerf_helpers.py, Embedder.embed.

    Embedder(**get_embedder's kwargs).embed(x).
    """
    max_freq, n_freqs = multires - 1, multires
    if log_sampling:
        freq_bands = 2.0 ** np.linspace(0.0, max_freq, num=n_freqs)
    else:
        freq_bands = np.linspace(2.0**0.0, 2.0**max_freq, num=n_freqs)
    x = np.asarray(x, dtype=dtype)
    fns = [x] if include_input else []
    for freq in freq_bands.astype(dtype):
        for p_fn in (np.sin, np.cos):
            fns.append(p_fn(x * freq))
    return np.concatenate(fns, axis=-1)


def rope_inv_freq(dim, base=10000.0):
    """huggingface/transformers, modeling_rope_utils._compute_default_rope_parameters.

    1.0 / (base ** (torch.arange(0, dim, 2).float() / dim)), in float32 as there.
    """
    return (1.0 / (F32(base) ** (np.arange(0, dim, 2).astype(F32) / F32(dim)))).astype(F32)


def ntk_inv_freq(dim, factor, base=10000.0):
    """bloc97's NTK-aware scaled RoPE (its published notebook), the scaled base.

    base = base * factor ** (dim / (dim - 2)), then the default inv_freq.
    """
    return rope_inv_freq(dim, base * factor ** (dim / (dim - 2)))


def alibi_get_slopes(n):
    """ofirpress/attention_with_linear_biases, get_slopes (plain Python)."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + alibi_get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )


# test_yarn.py re-types jquesnelle/yarn's inv_freq on its own, with the same helpers:
# the two transcriptions check each other, so that near-copy is kept on purpose.
def hf_yarn_inv_freq(
    dim, base, factor, max_position_embeddings, beta_fast=32, beta_slow=1, dtype=np.float64
):
    """huggingface/transformers, modeling_rope_utils._compute_yarn_parameters' inv_freq.

    Computed in float64, then rounded to ``dtype``.
    """

    def find_correction_dim(num_rotations, dim, base, max_position_embeddings):
        return (dim * math.log(max_position_embeddings / (num_rotations * 2 * math.pi))) / (
            2 * math.log(base)
        )

    def find_correction_range(low_rot, high_rot, dim, base, max_position_embeddings):
        low = math.floor(find_correction_dim(low_rot, dim, base, max_position_embeddings))
        high = math.ceil(find_correction_dim(high_rot, dim, base, max_position_embeddings))
        return max(low, 0), min(high, dim - 1)

    def linear_ramp_factor(min, max, dim):  # the source's names
        if min == max:
            max += 0.001
        return np.clip((np.arange(dim, dtype=np.float64) - min) / (max - min), 0, 1)

    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    inv_freq_extrapolation = 1.0 / pos_freqs
    inv_freq_interpolation = 1.0 / (factor * pos_freqs)
    low, high = find_correction_range(beta_fast, beta_slow, dim, base, max_position_embeddings)
    inv_freq_extrapolation_factor = 1 - linear_ramp_factor(low, high, dim // 2)
    return (
        inv_freq_interpolation * (1 - inv_freq_extrapolation_factor)
        + inv_freq_extrapolation * inv_freq_extrapolation_factor
    ).astype(dtype)


def paper_frequencies(dim, base, s, length, alpha=1.0, beta=32.0, dtype=np.float64):
    """Peng et al., "YaRN" (arXiv:2309.00071), section 3.2, eqs. 17-20 (no code: the paper).

    h(theta_d) with r(d) = L / lambda_d and the ramp gamma, in Python floats, then ``dtype``.
    """
    out = []
    for d in range(dim // 2):
        theta = base ** (-2 * d / dim)
        wavelength = 2 * math.pi * base ** (2 * d / dim)
        r = length / wavelength
        if r < alpha:
            gamma = 0.0
        elif r > beta:
            gamma = 1.0
        else:
            gamma = (r - alpha) / (beta - alpha)
        out.append((1 - gamma) * theta / s + gamma * theta)
    return np.array(out).astype(dtype)


def qwen2vl_mrope(x, position_ids, mrope_section, base=10000.0):
    """huggingface/transformers, models/qwen2_vl/modeling_qwen2_vl.py (commit 00b676f8),
    Qwen2VLRotaryEmbedding.forward, then apply_multimodal_rotary_pos_emb, for one head.

    freqs = (inv_freq_expanded @ position_ids_expanded).transpose(2, 3)  # (3, bs, T, d/2)
    emb = torch.cat((freqs, freqs), dim=-1); cos = emb.cos(); sin = emb.sin()
    mrope_section = mrope_section * 2
    cos = torch.cat([m[i % 3] for i, m in enumerate(cos.split(mrope_section, dim=-1))], dim=-1)
    q_embed = (q * cos) + (rotate_half(q) * sin)
    ``x`` is (T, d), ``position_ids`` (3, T).
    """
    dim = x.shape[-1]
    inv_freq = rope_inv_freq(dim, base)
    freqs = np.asarray(position_ids, dtype=np.float64)[:, :, None] * inv_freq[None, None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)
    section = list(mrope_section) * 2
    cuts = np.cumsum(section)[:-1]
    cos = np.concatenate([m[i % 3] for i, m in enumerate(np.split(cos, cuts, axis=-1))], axis=-1)
    sin = np.concatenate([m[i % 3] for i, m in enumerate(np.split(sin, cuts, axis=-1))], axis=-1)
    half = dim // 2
    rotated_half = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated_half * sin


def su_base_gap(m, b, d=128):
    """Su Jianlin, kexue.fm/archives/10122 (2024-05-29), the reference code's ``f``.

    Men et al. release no code for their bound; Su's post checks it with this JAX
    function, re-typed in NumPy (``jnp`` as ``np``, no ``jit``):

    i = jnp.arange(d / 2)
    return jnp.cos(m[:, None] * b ** (-2 * i[None] / d)).sum(axis=1)
    """
    m = np.asarray(m, dtype=np.float64)
    i = np.arange(d / 2)
    return np.cos(m[:, None] * b ** (-2 * i[None] / d)).sum(axis=1)


def deepseek_v3_scores(
    q_states,
    compressed_kv,
    kv_b_weight,
    position_ids,
    num_heads,
    qk_nope_head_dim,
    qk_rope_head_dim,
    v_head_dim,
    rope_theta=10000.0,
    rope_interleave=True,
    eps=1e-6,
):
    """huggingface/transformers, models/deepseek_v3/modeling_deepseek_v3.py (commit
    00b676f8), DeepseekV3Attention.forward up to eager_attention_forward's
    ``torch.matmul(query, key_states.transpose(2, 3))`` (before ``* scaling``), for a
    batch of one, with ``q_states`` after ``q_b_proj`` and ``compressed_kv`` after
    ``kv_a_proj_with_mqa``; ``kv_a_layernorm`` with its initial weight of ones.

    q_pass, q_rot = torch.split(q_states, [qk_nope_head_dim, qk_rope_head_dim], dim=-1)
    k_pass, k_rot = torch.split(compressed_kv, [kv_lora_rank, qk_rope_head_dim], dim=-1)
    k_pass = kv_b_proj(kv_a_layernorm(k_pass)).view(key_shape).transpose(1, 2)
    k_pass, value_states = torch.split(k_pass, [qk_nope_head_dim, v_head_dim], dim=-1)
    q_rot, k_rot = apply_rotary_pos_emb_interleave(q_rot, k_rot, cos, sin)
    k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
    query_states = torch.cat((q_pass, q_rot), dim=-1)
    key_states = torch.cat((k_pass, k_rot), dim=-1)
    """
    q_states = np.asarray(q_states, dtype=np.float64)
    compressed_kv = np.asarray(compressed_kv, dtype=np.float64)
    length = q_states.shape[0]
    qk_head_dim = qk_nope_head_dim + qk_rope_head_dim
    kv_lora_rank = compressed_kv.shape[-1] - qk_rope_head_dim
    q = q_states.reshape(length, num_heads, qk_head_dim).transpose(1, 0, 2)
    q_pass, q_rot = q[..., :qk_nope_head_dim], q[..., qk_nope_head_dim:]
    k_pass, k_rot = compressed_kv[:, :kv_lora_rank], compressed_kv[:, kv_lora_rank:]
    variance = (k_pass**2).mean(-1, keepdims=True)  # DeepseekV3RMSNorm
    normed = k_pass / np.sqrt(variance + eps)
    kv = (normed @ np.asarray(kv_b_weight, dtype=np.float64).T).reshape(
        length, num_heads, qk_nope_head_dim + v_head_dim
    )
    k_pass = kv.transpose(1, 0, 2)[..., :qk_nope_head_dim]
    k_rot = k_rot.reshape(1, length, qk_rope_head_dim)
    # DeepseekV3RotaryEmbedding.forward: emb = cat(freqs, freqs)
    freqs = (
        np.asarray(position_ids, dtype=np.float64)[:, None]
        * rope_inv_freq(qk_rope_head_dim, rope_theta)[None, :]
    )
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb), np.sin(emb)

    def rotate_half(x):
        half = x.shape[-1] // 2
        return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)

    def interleave(x):  # x.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
        h, s, d = x.shape
        return x.reshape(h, s, d // 2, 2).transpose(0, 1, 3, 2).reshape(h, s, d)

    if rope_interleave:
        q_rot, k_rot = interleave(q_rot), interleave(k_rot)
    q_rot = q_rot * cos + rotate_half(q_rot) * sin
    k_rot = k_rot * cos + rotate_half(k_rot) * sin
    k_rot = np.broadcast_to(k_rot, (num_heads, length, qk_rope_head_dim))
    query = np.concatenate([q_pass, q_rot], axis=-1)
    key = np.concatenate([k_pass, k_rot], axis=-1)
    return query @ key.transpose(0, 2, 1)


def flux_embed_nd(ids, axes_dim, theta=10_000):
    """black-forest-labs/flux, src/flux/modules/layers.py EmbedND.forward with
    src/flux/math.py rope (commit 802fb471), for ids of shape (T, n_axes).

    scale = torch.arange(0, dim, 2, dtype=pos.dtype) / dim; omega = 1.0 / (theta**scale)
    out = torch.einsum("...n,d->...nd", pos, omega)
    out = torch.stack([cos(out), -sin(out), sin(out), cos(out)], dim=-1)  # -> 2 x 2
    emb = torch.cat([rope(ids[..., i], axes_dim[i], theta) for i in range(n_axes)], dim=-3)
    Returns (T, sum(axes_dim) / 2, 2, 2).
    """
    ids = np.asarray(ids, dtype=np.float64)
    blocks = []
    for i, dim in enumerate(axes_dim):
        scale = np.arange(0, dim, 2, dtype=np.float64) / dim
        omega = 1.0 / (theta**scale)
        out = np.einsum("...n,d->...nd", ids[..., i], omega)
        out = np.stack([np.cos(out), -np.sin(out), np.sin(out), np.cos(out)], axis=-1)
        blocks.append(out.reshape(*out.shape[:-1], 2, 2))
    return np.concatenate(blocks, axis=-3)


def flux_apply_rope(x, freqs_cis):
    """black-forest-labs/flux, src/flux/math.py apply_rope (commit 802fb471), one tensor.

    xq_ = xq.float().reshape(*xq.shape[:-1], -1, 1, 2)
    xq_out = freqs_cis[..., 0] * xq_[..., 0] + freqs_cis[..., 1] * xq_[..., 1]
    """
    x = np.asarray(x, dtype=np.float64)
    x_ = x.reshape(*x.shape[:-1], -1, 1, 2)
    out = freqs_cis[..., 0] * x_[..., 0] + freqs_cis[..., 1] * x_[..., 1]
    return out.reshape(*x.shape)


# naver-ai/rope-vit, models/vit_rope.py (commit ce85c2e56c5ff3aadc10e1a849872081f7b86293;
# deit/models_v2_rope.py has the same four functions), re-typed line for line with NumPy
# for PyTorch (torch is not in the venv): torch.rand(1) -> rng.random(1), torch.polar(1, a)
# -> exp(1j a), view/permute -> reshape/transpose, float64 throughout.


def ropevit_init_random_2d_freqs(dim, num_heads, rng, theta=10.0, rotate=True):
    """naver-ai/rope-vit, models/vit_rope.py, init_random_2d_freqs.

    freqs_x = []
    freqs_y = []
    mag = 1 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    for i in range(num_heads):
        angles = torch.rand(1) * 2 * torch.pi if rotate else torch.zeros(1)
        fx = torch.cat([mag * torch.cos(angles), mag * torch.cos(torch.pi/2 + angles)], dim=-1)
        fy = torch.cat([mag * torch.sin(angles), mag * torch.sin(torch.pi/2 + angles)], dim=-1)
        freqs_x.append(fx)
        freqs_y.append(fy)
    freqs_x = torch.stack(freqs_x, dim=0)
    freqs_y = torch.stack(freqs_y, dim=0)
    freqs = torch.stack([freqs_x, freqs_y], dim=0)
    return freqs
    """
    freqs_x = []
    freqs_y = []
    mag = 1 / (theta ** (np.arange(0, dim, 4)[: (dim // 4)].astype(np.float64) / dim))
    for _ in range(num_heads):
        angles = rng.random(1) * 2 * np.pi if rotate else np.zeros(1)
        fx = np.concatenate([mag * np.cos(angles), mag * np.cos(np.pi / 2 + angles)], axis=-1)
        fy = np.concatenate([mag * np.sin(angles), mag * np.sin(np.pi / 2 + angles)], axis=-1)
        freqs_x.append(fx)
        freqs_y.append(fy)
    freqs_x = np.stack(freqs_x, axis=0)
    freqs_y = np.stack(freqs_y, axis=0)
    freqs = np.stack([freqs_x, freqs_y], axis=0)
    return freqs


def ropevit_compute_mixed_cis(freqs, t_x, t_y, num_heads):
    """naver-ai/rope-vit, models/vit_rope.py, compute_mixed_cis (``freqs`` of shape
    (2, depth, num_heads * dim / 2), as rope_vit_models stacks and views it).

    N = t_x.shape[0]
    depth = freqs.shape[1]
    # No float 16 for this range
    with torch.cuda.amp.autocast(enabled=False):
        freqs_x = (t_x.unsqueeze(-1) @ freqs[0].unsqueeze(-2)) \\
            .view(depth, N, num_heads, -1).permute(0, 2, 1, 3)
        freqs_y = (t_y.unsqueeze(-1) @ freqs[1].unsqueeze(-2)) \\
            .view(depth, N, num_heads, -1).permute(0, 2, 1, 3)
        freqs_cis = torch.polar(torch.ones_like(freqs_x), freqs_x + freqs_y)
    return freqs_cis
    """
    n = t_x.shape[0]
    depth = freqs.shape[1]
    freqs_x = (
        (t_x[:, None] @ freqs[0][:, None, :]).reshape(depth, n, num_heads, -1).transpose(0, 2, 1, 3)
    )
    freqs_y = (
        (t_y[:, None] @ freqs[1][:, None, :]).reshape(depth, n, num_heads, -1).transpose(0, 2, 1, 3)
    )
    return np.exp(1j * (freqs_x + freqs_y))


def ropevit_init_t_xy(end_x, end_y):
    """naver-ai/rope-vit, models/vit_rope.py, init_t_xy.

    t = torch.arange(end_x * end_y, dtype=torch.float32)
    t_x = (t % end_x).float()
    t_y = torch.div(t, end_x, rounding_mode='floor').float()
    return t_x, t_y
    """
    t = np.arange(end_x * end_y, dtype=np.float64)
    t_x = t % end_x
    t_y = np.floor_divide(t, end_x)
    return t_x, t_y


def ropevit_compute_axial_cis(dim, end_x, end_y, theta=100.0):
    """naver-ai/rope-vit, models/vit_rope.py, compute_axial_cis.

    freqs_x = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    freqs_y = 1.0 / (theta ** (torch.arange(0, dim, 4)[: (dim // 4)].float() / dim))
    t_x, t_y = init_t_xy(end_x, end_y)
    freqs_x = torch.outer(t_x, freqs_x)
    freqs_y = torch.outer(t_y, freqs_y)
    freqs_cis_x = torch.polar(torch.ones_like(freqs_x), freqs_x)
    freqs_cis_y = torch.polar(torch.ones_like(freqs_y), freqs_y)
    return torch.cat([freqs_cis_x, freqs_cis_y], dim=-1)
    """
    freqs_x = 1.0 / (theta ** (np.arange(0, dim, 4)[: (dim // 4)].astype(np.float64) / dim))
    freqs_y = 1.0 / (theta ** (np.arange(0, dim, 4)[: (dim // 4)].astype(np.float64) / dim))
    t_x, t_y = ropevit_init_t_xy(end_x, end_y)
    freqs_x = np.outer(t_x, freqs_x)
    freqs_y = np.outer(t_y, freqs_y)
    freqs_cis_x = np.exp(1j * freqs_x)
    freqs_cis_y = np.exp(1j * freqs_y)
    return np.concatenate([freqs_cis_x, freqs_cis_y], axis=-1)


def ropevit_apply_rotary_emb(x, freqs_cis):
    """naver-ai/rope-vit, models/vit_rope.py, apply_rotary_emb, one tensor (xq).

    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    ``x`` is (..., N, dim) and ``freqs_cis`` (N, dim / 2), broadcast over the leading axes.
    """
    x = np.asarray(x, dtype=np.float64)
    pairs = x.reshape(*x.shape[:-1], -1, 2)
    x_ = pairs[..., 0] + 1j * pairs[..., 1]
    out = x_ * freqs_cis
    return np.stack([out.real, out.imag], axis=-1).reshape(x.shape)
