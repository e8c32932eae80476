"""RoPE as released models compute it: every ``rope_type`` of Hugging Face transformers.

A model's ``config.json`` names a ``rope_type`` (or the older ``type``) and its
parameters; transformers' ``src/transformers/modeling_rope_utils.py`` turns them into
the ``inv_freq`` vector and an attention factor (``ROPE_INIT_FUNCTIONS``). This module
computes each type as the released code does (v4.57.1 and v5.17.0, which agree on the
formulas), in float64 where the released code computes in float32:

* ``"default"`` -- ``base ** (-2 i / d)`` (:func:`sinpe.frequencies`);
* ``"linear"`` -- every frequency divided by ``factor`` (Position Interpolation);
* ``"dynamic"`` -- NTK-aware: the base grows with the sequence length beyond
  ``max_position_embeddings`` (:func:`dynamic_frequencies`);
* ``"yarn"`` -- NTK-by-parts with a linear ramp in the pair index and an attention
  factor from ``mscale`` / ``mscale_all_dim`` (:func:`yarn_frequencies`,
  :func:`yarn_attention_factor`); ``truncate=False`` (gpt-oss) keeps the ramp's
  bounds fractional;
* ``"longrope"`` -- one factor per pair, short or long by the sequence length
  (:func:`longrope_frequencies`, :func:`longrope_attention_factor`);
* ``"llama3"`` -- Llama 3.1's blend (:func:`sinpe.rope.llama3_frequencies`);
* ``"proportional"`` (new in v5, Gemma 4) -- the first ``partial_rotary_factor`` of the
  pairs turn with exponents over the *whole* head width, the rest get frequency 0
  (:func:`proportional_frequencies`).

:func:`rope_init` takes a standardized ``rope_parameters`` dictionary (one layer type's)
and dispatches, as ``ROPE_INIT_FUNCTIONS[rope_type](config)`` does.

Where other released code differs, the function says so. Meta's reference
``apply_scaling`` (llama-models, ``models/llama3/model.py``) computes ``"llama3"`` as
transformers does (both band edges in the blend) with its constants fixed (8, 1, 4,
8192); its Llama 4 version takes ``scale_factor`` and ``high_freq_factor`` and asserts
that the blend band is not empty, while a config may set ``low_freq_factor =
high_freq_factor``: transformers then keeps or divides every pair (no pair sits on the
edge) and so does :func:`rope_init`. ggml's YaRN (``ggml_rope_yarn_corr_dims``)
floors and ceils the correction dimensions as ``truncate=True`` does, and llama.cpp
stores Llama 3.1's blend as per-pair divisors (``rope_freqs.weight``). NumPy only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from sinpe._validation import (
    BASE,
    D_MODEL,
    FLAG,
    Integer,
    Options,
    Real,
    check_float_array,
    constrained,
)
from sinpe.core import frequencies
from sinpe.rope import _correction_dim, llama3_frequencies, scaled_frequencies

__all__ = [
    "ROPE_TYPES",
    "dynamic_frequencies",
    "longrope_attention_factor",
    "longrope_frequencies",
    "proportional_frequencies",
    "rope_init",
    "yarn_attention_factor",
    "yarn_frequencies",
]

#: The rope types transformers registers (v4.57.1's ``ROPE_INIT_FUNCTIONS``, plus v5's
#: ``"proportional"``; v5 computes ``"default"`` per model, with the same formula).
ROPE_TYPES = ("default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional")

_FACTOR = Real(1.0, hint="e.g. 8.0 (how many times longer the context is)")
_LENGTH = Integer(hint="such as 4096 (the trained context length)")
_SEQ_LEN = Integer(hint="such as 8192 (the current sequence length)")
_BETA = Real(0.0, closed="neither", hint="e.g. 32.0 (beta_fast) or 1.0 (beta_slow)")
_MSCALE = Real(0.0, hint="e.g. 1.0 (DeepSeek's mscale)")
_PROPORTION = Real(0.0, 1.0, hint="e.g. 0.25 (the rotated share of the head)")


@constrained(
    d_model=D_MODEL,
    factor=_FACTOR,
    base=BASE,
    max_position_embeddings=_LENGTH,
    seq_len=_SEQ_LEN,
)
def dynamic_frequencies(
    d_model: int,
    factor: float,
    *,
    base: float = 10000.0,
    max_position_embeddings: int = 2048,
    seq_len: int = 1,
) -> np.ndarray:
    """Dynamic NTK scaling (``"dynamic"``): the base stretched for ``seq_len`` tokens.

    ``base * (factor * L / L0 - (factor - 1)) ** (d / (d - 2))`` with ``L = max(seq_len,
    L0)``, ``L0 = max_position_embeddings``: at or below ``L0`` (the default, as at
    model init) the frequencies are plain; beyond, NTK-aware at the grown factor
    (transformers, ``_compute_dynamic_ntk_parameters``).

    Examples
    --------
    >>> from sinpe.rope_scaling import dynamic_frequencies
    >>> dynamic_frequencies(4, 2.0, base=100.0).tolist()     # seq_len <= L0: plain
    [1.0, 0.1]
    >>> grown = dynamic_frequencies(4, 2.0, base=100.0, max_position_embeddings=8, seq_len=16)
    >>> grown.round(4).tolist()   # base 100 * 3 ** 2 = 900
    [1.0, 0.0333]
    """
    if d_model == 2:  # one pair, frequency 1 whatever the base (transformers divides by 0)
        return frequencies(d_model, base=base)
    length = max(seq_len, max_position_embeddings)
    grown = factor * length / max_position_embeddings - (factor - 1)
    return frequencies(d_model, base=base * grown ** (d_model / (d_model - 2)))


@constrained(
    d_model=D_MODEL,
    factor=_FACTOR,
    base=BASE,
    original_length=_LENGTH,
    beta_fast=_BETA,
    beta_slow=_BETA,
    truncate=FLAG,
)
def yarn_frequencies(
    d_model: int,
    factor: float,
    *,
    base: float = 10000.0,
    original_length: int = 4096,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    truncate: bool = True,
) -> np.ndarray:
    """YaRN's ``inv_freq`` (``"yarn"``), as transformers' ``_compute_yarn_parameters``.

    Pairs from ``low`` (turning ``beta_fast`` times within ``original_length``) to
    ``high`` (turning ``beta_slow`` times) blend linearly in the pair index from kept to
    divided by ``factor``; ``truncate`` (the default) floors ``low`` and ceils ``high``
    first, as :func:`sinpe.rope.scaled_frequencies` (``ramp="released"``) does; gpt-oss
    sets ``truncate: false``. ggml floors and ceils too (``ggml_rope_yarn_corr_dims``):
    a llama.cpp port of a ``truncate: false`` model differs in the ramp's two end pairs.
    transformers' ``or`` defaults (``beta_fast or 32``) are the caller's:
    :func:`rope_init` applies them.

    Examples
    --------
    >>> import sinpe
    >>> from sinpe.rope_scaling import yarn_frequencies
    >>> theta = sinpe.frequencies(64, base=150000.0)
    >>> kept = theta / yarn_frequencies(64, 32.0, base=150000.0, truncate=False)
    >>> kept[:2].round(3).tolist(), kept[-1].item()
    ([1.0, 1.0], 32.0)
    """
    if truncate:
        return scaled_frequencies(
            d_model,
            factor,
            method="yarn",
            base=base,
            original_length=original_length,
            alpha=beta_slow,
            beta=beta_fast,
        )
    low = max(_correction_dim(beta_fast, d_model, base, original_length), 0.0)
    high = min(_correction_dim(beta_slow, d_model, base, original_length), d_model - 1.0)
    if low == high:
        high += 0.001  # the released code's guard
    ramp = np.clip((np.arange(d_model // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    theta = frequencies(d_model, base=base)
    return theta / factor * ramp + theta * (1.0 - ramp)


def _get_mscale(factor: float, mscale: float = 1.0) -> float:
    """The released ``get_mscale``: ``0.1 mscale ln(factor) + 1``, 1 at factor <= 1."""
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0


@constrained(factor=Real(0.0, closed="neither", hint="e.g. 40.0"))
def yarn_attention_factor(
    factor: float, *, mscale: float | None = None, mscale_all_dim: float | None = None
) -> float:
    """YaRN's attention factor, multiplying cos and sin, when the config sets none.

    ``get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)`` when both are
    set and non-zero (DeepSeek V3: 1.0 and 1.0 give 1), else ``0.1 ln(factor) + 1``
    (:func:`sinpe.rope.yarn_temperature` is the reciprocal of its square).

    Examples
    --------
    >>> from sinpe.rope_scaling import yarn_attention_factor
    >>> round(yarn_attention_factor(32.0), 6)
    1.346574
    >>> yarn_attention_factor(40.0, mscale=1.0, mscale_all_dim=1.0)
    1.0
    """
    for name, value in (("mscale", mscale), ("mscale_all_dim", mscale_all_dim)):
        if value is not None:
            _MSCALE(value, name)
    if mscale and mscale_all_dim:
        return _get_mscale(factor, mscale) / _get_mscale(factor, mscale_all_dim)
    return _get_mscale(factor)


@constrained(d_model=D_MODEL, base=BASE)
def longrope_frequencies(
    d_model: int, ext_factors: Sequence[float], *, base: float = 10000.0
) -> np.ndarray:
    """LongRoPE's ``inv_freq`` (``"longrope"``): ``1 / (ext_i * base ** (2 i / d))``.

    ``ext_factors`` is the config's ``short_factor`` (up to the original length) or
    ``long_factor`` (beyond), one positive number per pair (``d_model // 2``).

    Examples
    --------
    >>> from sinpe.rope_scaling import longrope_frequencies
    >>> longrope_frequencies(4, [1.0, 2.0], base=100.0).tolist()
    [1.0, 0.05]
    """
    ext = check_float_array(ext_factors, name="ext_factors")
    if ext.shape != (d_model // 2,):
        raise ValueError(
            f"ext_factors must hold one factor per pair ({d_model // 2} for d_model="
            f"{d_model}), got shape {ext.shape}"
        )
    if not (np.isfinite(ext).all() and (ext > 0).all()):
        raise ValueError("ext_factors must be finite and positive (LongRoPE's divisors)")
    return frequencies(d_model, base=base) / ext


@constrained(
    factor=Real(0.0, closed="neither", hint="e.g. 32.0"),
    original_length=Integer(2, hint="such as 4096 (the trained context length)"),
)
def longrope_attention_factor(factor: float, original_length: int) -> float:
    """LongRoPE's attention factor: ``sqrt(1 + ln(factor) / ln(original_length))``.

    1 at ``factor <= 1``. Phi-3.5-mini (131072 / 4096 = 32): 1.190.

    Examples
    --------
    >>> from sinpe.rope_scaling import longrope_attention_factor
    >>> round(longrope_attention_factor(32.0, 4096), 4)
    1.1902
    """
    if factor <= 1.0:
        return 1.0
    return math.sqrt(1 + math.log(factor) / math.log(original_length))


@constrained(head_dim=D_MODEL, base=BASE, partial_rotary_factor=_PROPORTION, factor=_FACTOR)
def proportional_frequencies(
    head_dim: int,
    *,
    base: float = 10000.0,
    partial_rotary_factor: float = 1.0,
    factor: float = 1.0,
) -> np.ndarray:
    """Proportional RoPE (``"proportional"``, transformers v5, Gemma 4's full layers).

    ``head_dim // 2`` frequencies: the first ``int(partial_rotary_factor * head_dim //
    2)`` are ``base ** (-2 i / head_dim)`` -- exponents over the whole head, not over the
    rotated part as ``partial_rotary_factor`` means elsewhere -- and the rest are 0 (those
    pairs do not turn); all divided by ``factor``.

    Examples
    --------
    >>> from sinpe.rope_scaling import proportional_frequencies
    >>> proportional_frequencies(8, base=100.0, partial_rotary_factor=0.5).tolist()
    [1.0, 0.31622776601683794, 0.0, 0.0]
    """
    turning = int(partial_rotary_factor * head_dim // 2)
    theta = np.zeros(head_dim // 2)
    theta[:turning] = frequencies(head_dim, base=base)[:turning]
    return theta / factor


_ROPE_TYPE = Options(*ROPE_TYPES)


def rope_init(
    parameters: Mapping,
    head_dim: int,
    *,
    max_position_embeddings: int | None = None,
    seq_len: int | None = None,
) -> tuple[np.ndarray, float]:
    """``(inv_freq, attention_factor)`` of one layer type's standardized ``rope_parameters``.

    As ``ROPE_INIT_FUNCTIONS[rope_type](config, seq_len=seq_len)`` of transformers:
    ``parameters`` holds ``rope_type`` (one of :data:`ROPE_TYPES`), ``rope_theta``, the
    type's keys and optionally ``partial_rotary_factor``; the rotated width is ``int(
    head_dim * partial_rotary_factor)`` (except ``"proportional"``). ``seq_len`` picks
    LongRoPE's long factors (beyond ``original_max_position_embeddings``) and grows
    dynamic scaling. A missing key raises ``KeyError`` naming it, as transformers does.

    Examples
    --------
    >>> from sinpe.rope_scaling import rope_init
    >>> inv_freq, attention = rope_init(
    ...     {"rope_type": "linear", "rope_theta": 100.0, "factor": 2.0}, 4)
    >>> inv_freq.tolist(), attention
    ([0.5, 0.05], 1.0)
    """
    if not isinstance(parameters, Mapping):
        raise TypeError(f"parameters must be a dict (rope_parameters), got {parameters!r}")
    rope_type = _ROPE_TYPE(parameters.get("rope_type", "default"), "rope_type")
    base = BASE(parameters.get("rope_theta", 10000.0), "rope_theta")
    head = D_MODEL(head_dim, "head_dim")
    share = _PROPORTION(parameters.get("partial_rotary_factor", 1.0), "partial_rotary_factor")
    if rope_type == "proportional":
        factor = _FACTOR(parameters.get("factor", 1.0), "factor")
        theta = proportional_frequencies(
            head, base=base, partial_rotary_factor=share, factor=factor
        )
        return theta, 1.0
    rotated = D_MODEL(int(head * share), "the rotated width int(head_dim * partial_rotary_factor)")
    if rope_type == "default":
        return frequencies(rotated, base=base), 1.0
    if rope_type == "longrope":
        return _longrope(parameters, rotated, base, max_position_embeddings, seq_len)
    factor = _required(parameters, "factor", _FACTOR)
    if rope_type == "linear":
        return frequencies(rotated, base=base) / factor, 1.0
    if rope_type == "dynamic":
        longest = _LENGTH(max_position_embeddings, "max_position_embeddings")
        theta = dynamic_frequencies(
            rotated, factor, base=base, max_position_embeddings=longest, seq_len=seq_len or 1
        )
        return theta, 1.0
    original = _required(parameters, "original_max_position_embeddings", _LENGTH)
    if rope_type == "llama3":
        low = _required(parameters, "low_freq_factor", Real(0.0, closed="neither"))
        high = _required(parameters, "high_freq_factor", Real(low))
        if high == low:  # no blend band: each pair kept or divided
            theta = frequencies(rotated, base=base)
            return np.where(2 * math.pi / theta > original / low, theta / factor, theta), 1.0
        theta = llama3_frequencies(
            rotated,
            factor,
            base=base,
            low_freq_factor=low,
            high_freq_factor=high,
            original_length=original,
        )
        return theta, 1.0
    return _yarn(parameters, rotated, factor, base, original)


def _required(parameters: Mapping, key: str, rule: Callable[..., Any] | None = None) -> Any:
    """``parameters[key]``, checked by ``rule`` if given; missing, transformers' KeyError."""
    if key not in parameters:
        raise KeyError(
            f"rope_parameters of rope_type {parameters.get('rope_type', 'default')!r} needs "
            f"{key!r} (transformers raises KeyError: missing required keys)"
        )
    return parameters[key] if rule is None else rule(parameters[key], key)


def _yarn(
    parameters: Mapping, rotated: int, factor: float, base: float, original: int
) -> tuple[np.ndarray, float]:
    theta = yarn_frequencies(
        rotated,
        factor,
        base=base,
        original_length=original,
        beta_fast=parameters.get("beta_fast") or 32.0,  # the released `or` defaults
        beta_slow=parameters.get("beta_slow") or 1.0,
        truncate=parameters.get("truncate", True),
    )
    attention = parameters.get("attention_factor")
    if attention is None:
        attention = yarn_attention_factor(
            factor, mscale=parameters.get("mscale"), mscale_all_dim=parameters.get("mscale_all_dim")
        )
    return theta, float(attention)


def _longrope(
    parameters: Mapping, rotated: int, base: float, longest: object, seq_len: int | None
) -> tuple[np.ndarray, float]:
    original = _required(parameters, "original_max_position_embeddings", _LENGTH)
    factor = parameters.get("factor")
    if factor is None:
        factor = _LENGTH(longest, "max_position_embeddings") / original
    long = seq_len is not None and seq_len > original
    ext = _required(parameters, "long_factor" if long else "short_factor")
    theta = longrope_frequencies(rotated, ext, base=base)
    attention = parameters.get("attention_factor")
    if attention is None:
        attention = longrope_attention_factor(float(factor), original)
    return theta, float(attention)
