"""Rotary position embedding (RoPE): the rotation of chapter 2, moved into attention.

Su et al. (2021) rotate each pair of entries of a query or key vector by an angle
proportional to its position, with the frequencies of the sinusoidal encoding,
``theta_i = base ** (-2 i / d)``; then ``RoPE(q, m) . RoPE(k, n)`` depends on the
positions only through ``m - n`` (and on ``q`` and ``k``). The two layouts are those of
a sinusoidal table (:data:`sinpe.LAYOUTS`):

* ``"interleaved"`` -- pairs ``(x_2i, x_2i+1)``: RoFormer, Meta's Llama, GPT-J;
* ``"concat"`` (alias ``"half"``) -- pairs ``(x_i, x_(i + d/2))`` (Hugging Face's
  ``rotate_half``): Hugging Face Llama, GPT-NeoX.

With ``P = [0, 2, 4, ..., 1, 3, 5, ...]``, ``concat(P x) = P interleaved(x)``, so
converting checkpoints permutes the query and key rows (:func:`convert_qk_weight`), as
Hugging Face's ``convert_llama_weights_to_hf.py`` does; mixing the layouts up gives a
model that loads and runs but writes gibberish, as users reported after conversions
(https://github.com/karpathy/llama2.c/pull/286, "starts degenerating and printing
gibberish after ~20 or more tokens"; https://github.com/jzhang38/TinyLlama/issues/24;
https://github.com/ggml-org/llama.cpp/issues/2376). Context extension rescales the
frequencies (:func:`scaled_frequencies`, :func:`llama3_frequencies`,
:func:`yarn_temperature`). NumPy only.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sinpe._schemes import AttentionScheme
from sinpe._trig import sincos
from sinpe._validation import (
    BASE,
    D_MODEL,
    POSITIONS,
    Condition,
    Integer,
    Optional,
    Options,
    Real,
    check_finite_entries,
    check_float_array,
    check_phases,
    check_real_array,
    constrained,
)
from sinpe.core import frequencies, layout_permutation

__all__ = [
    "ROPE_LAYOUTS",
    "SCALING_METHODS",
    "apply_rope",
    "convert_qk_weight",
    "llama3_frequencies",
    "rope_permutation",
    "scaled_frequencies",
    "yarn_temperature",
]

#: The RoPE layouts, which are the table layouts of :data:`sinpe.LAYOUTS`.
ROPE_LAYOUTS = ("interleaved", "concat")
#: Other spellings accepted for a RoPE layout (``"half"``: Hugging Face's rotate_half).
LAYOUT_ALIASES = {"half": "concat"}
#: Context-extension rules understood by :func:`scaled_frequencies`.
SCALING_METHODS = ("interpolation", "ntk", "yarn", "llama3")
#: YaRN's ramps (:func:`scaled_frequencies`): the released code's, and the paper's.
YARN_RAMPS = ("released", "paper")


#: How many times longer the context is.
_FACTOR = Real(1.0, hint="e.g. 8.0 (how many times longer the context is)")
#: A RoPE layout, returned by its canonical name (``"half"`` is ``"concat"``).
_LAYOUT = Options(*ROPE_LAYOUTS, aliases=LAYOUT_ALIASES)
#: A factor of Llama 3's blend, or a bound of YaRN's ramp (in turns).
_POSITIVE = Real(0.0, closed="neither", hint="e.g. 1.0")


#: How many entries of a head turn: whole pairs, at least one.
_ROTARY_DIM = Integer(
    2,
    hint="even, such as the head width (every entry) or a quarter of it (GPT-NeoX)",
    conditions=(
        Condition(
            "be even",
            lambda v: v % 2 == 0,
            lambda v: f"entries are rotated in pairs; use {v - 1} or {v + 1}",
            refused=(3,),
        ),
    ),
)


@constrained(
    d_model=D_MODEL,
    base=BASE,
    factor=_FACTOR,
    method=Options(*SCALING_METHODS),
    original_length=Integer(hint="such as 4096"),
    alpha=Real(0.0, hint="e.g. 1.0 (YaRN's)"),
    beta=_POSITIVE,
    ramp=Optional(Options(*YARN_RAMPS)),
)
def scaled_frequencies(
    d_model: int,
    factor: float,
    *,
    method: str,
    base: float = 10000.0,
    original_length: int = 2048,
    alpha: float = 1.0,
    beta: float = 32.0,
    ramp: str | None = None,
) -> np.ndarray:
    """RoPE frequencies rescaled to cover a context ``factor`` times longer.

    Parameters
    ----------
    d_model : int
        Head width; positive and even.
    factor : float
        The scale ``s >= 1``: new context length / trained context length.
    method : {"interpolation", "ntk", "yarn", "llama3"}
        ``"interpolation"`` (Position Interpolation, Chen et al. 2023): every
        frequency divided by ``s``. ``"ntk"`` (NTK-aware scaling, bloc97 2023): the
        base becomes ``base * s ** (d / (d - 2))``, so the fastest pair keeps its
        frequency and the slowest is divided by ``s``. ``"yarn"`` (NTK-by-parts, Peng
        et al. 2024, section 3.2): pairs turning more than ``beta`` times within
        ``original_length`` keep their frequency, pairs turning less than ``alpha``
        times are divided by ``s``, a linear ramp blends the two in between; YaRN also
        scales the logits (:func:`yarn_temperature`). ``"llama3"`` (Llama 3.1's banded
        rule): :func:`llama3_frequencies` with Llama 3.1's factors 1 and 4.
    base : float, optional
    original_length : int, optional
        The trained context length (``"yarn"`` and ``"llama3"`` only; 2048 for Llama 1).
    alpha, beta : float, optional
        YaRN's ramp bounds in turns within ``original_length`` (the released code's
        ``beta_slow`` and ``beta_fast``).
    ramp : {"released", "paper"}, optional
        YaRN only; default ``"released"``: as jquesnelle/yarn and Hugging Face
        (``_compute_yarn_parameters``), linear in the pair *index* between the bounds
        rounded out to whole pairs. ``"paper"``: eqs. 17-20, linear in ``r =
        original_length / wavelength``. The middle pairs differ (a stretch of up to 3.4
        at d = 128, L = 4096, s = 8), and so can pair 0 at a short ``original_length``.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(d_model // 2,)``: the ``frequencies`` of :func:`apply_rope`.

    Raises
    ------
    TypeError, ValueError
        For a bad argument, a ``ramp`` without ``"yarn"``, or an NTK base beyond float64.

    Examples
    --------
    >>> from sinpe.rope import scaled_frequencies
    >>> scaled_frequencies(4, 2.0, method="interpolation", base=100.0).tolist()
    [0.5, 0.05]
    >>> scaled_frequencies(4, 2.0, method="ntk", base=100.0).round(6).tolist()  # C' = 400
    [1.0, 0.05]

    YaRN at the length lab's setting (d = 8, L = 16, s = 4): pair 0's stretch
    under each ramp.

    >>> import sinpe
    >>> theta = sinpe.frequencies(8)
    >>> for ramp in ("released", "paper"):
    ...     scaled = scaled_frequencies(8, 4.0, method="yarn", original_length=16, ramp=ramp)
    ...     print(ramp, (theta / scaled).round(2).tolist())
    released [1.0, 4.0, 4.0, 4.0]
    paper [3.48, 4.0, 4.0, 4.0]
    """
    form = ramp or "released"
    if ramp is not None and method != "yarn":
        raise ValueError(
            f"ramp={ramp!r} is YaRN's option, but method={method!r} has no ramp; "
            f"leave ramp out, or use method='yarn'"
        )
    if method == "interpolation":
        return frequencies(d_model, base=base) / factor
    if method == "llama3":
        return llama3_frequencies(d_model, factor, base=base, original_length=original_length)
    if method == "ntk":
        if d_model == 2:
            return frequencies(d_model, base=base)  # one pair, frequency 1: nothing to stretch
        try:
            stretched = base * factor ** (d_model / (d_model - 2))
        except OverflowError:
            stretched = math.inf
        if not math.isfinite(stretched):
            raise ValueError(
                f"factor={factor!r} is too large for NTK scaling: the new base "
                f"{base:g} * factor ** ({d_model} / {d_model - 2}) overflows float64; "
                f"pass a factor of at most the context length ratio, such as 8.0"
            )
        return frequencies(d_model, base=stretched)
    if not alpha < beta:
        raise ValueError(f"YaRN needs 0 <= alpha < beta, got {alpha!r}, {beta!r}")
    theta = frequencies(d_model, base=base)
    if form == "paper":
        ratio = original_length * theta / (2 * np.pi)  # r = L / wavelength
        gamma = np.clip((ratio - alpha) / (beta - alpha), 0.0, 1.0)  # eq. 18
    else:
        gamma = _released_gamma(d_model, base, original_length, alpha, beta)
    return (1.0 - gamma) * theta / factor + gamma * theta


@constrained(
    d_model=D_MODEL,
    base=BASE,
    factor=_FACTOR,
    original_length=Integer(hint="such as 8192"),
    low_freq_factor=_POSITIVE,
    high_freq_factor=_POSITIVE,
)
def llama3_frequencies(
    d_model: int,
    factor: float = 8.0,
    *,
    base: float = 500000.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    original_length: int = 8192,
) -> np.ndarray:
    """RoPE frequencies as Llama 3.1 rescales them (Hugging Face's rope_type ``"llama3"``).

    Pairs whose wavelength ``2 pi / theta_i`` is below ``original_length /
    high_freq_factor`` keep their frequency, those above ``original_length /
    low_freq_factor`` are divided by ``factor``; in between the two blend linearly in
    ``original_length / wavelength`` (``transformers``, ``_compute_llama3_parameters``).
    The defaults are Llama 3.1's; ``0 < low_freq_factor < high_freq_factor``. Returns
    the float64 ``inv_freq``, shape ``(d_model // 2,)``; raises as
    :func:`scaled_frequencies`.

    Examples
    --------
    >>> import sinpe
    >>> from sinpe.rope import llama3_frequencies
    >>> theta = sinpe.frequencies(128, base=500000.0)
    >>> stretch = theta / llama3_frequencies(128)
    >>> stretch[:3].tolist(), stretch[-1].item()   # fast pairs kept, slow ones / 8
    ([1.0, 1.0, 1.0], 8.0)
    """
    if not low_freq_factor < high_freq_factor:
        raise ValueError(
            f"Llama 3 needs 0 < low_freq_factor < high_freq_factor (finite), got "
            f"{low_freq_factor!r}, {high_freq_factor!r}; Llama 3.1 uses 1.0 and 4.0"
        )
    theta = frequencies(d_model, base=base)
    wavelength = 2 * math.pi / theta
    kept = np.where(wavelength > original_length / low_freq_factor, theta / factor, theta)
    medium = (wavelength >= original_length / high_freq_factor) & (
        wavelength <= original_length / low_freq_factor
    )
    # The blend of the medium pairs only (transformers computes it for every pair and
    # keeps these; elsewhere it can overflow, for a base far below 1).
    blend = (original_length / wavelength[medium] - low_freq_factor) / (
        high_freq_factor - low_freq_factor
    )
    kept[medium] = (1 - blend) * kept[medium] / factor + blend * kept[medium]
    return kept


def _correction_dim(turns: float, width: int, base: float, length: int) -> float:
    """The released ``find_correction_dim``: the pair index turning ``turns`` times."""
    if turns == 0:
        return math.copysign(math.inf, math.log(base))
    ratio = length / (turns * 2 * math.pi)
    if ratio == 0 or math.isinf(ratio):  # absurd bounds beyond float64: the same, in logs
        logged = math.log(length) - math.log(turns) - math.log(2 * math.pi)
    else:
        logged = math.log(ratio)
    return width * logged / (2 * math.log(base))


def _released_gamma(width: int, base: float, length: int, alpha: float, beta: float) -> np.ndarray:
    """Each pair's weight on its own frequency in the released YaRN (``1 - linear_ramp_mask``).

    ``alpha = 0`` (a division by zero there) takes the limit, an infinite ``high``.
    """
    fast = _correction_dim(beta, width, base, length)  # finite: beta > 0
    slow = _correction_dim(alpha, width, base, length)
    low = float(max(math.floor(fast), 0))
    high = float(min(math.ceil(slow), width - 1)) if math.isfinite(slow) else min(slow, width - 1)
    if low == high:
        high += 0.001  # the released code's guard against a zero-width ramp
    index_ramp = np.clip((np.arange(width // 2, dtype=np.float64) - low) / (high - low), 0, 1)
    return 1.0 - index_ramp


@constrained(factor=_FACTOR)
def yarn_temperature(factor: float) -> float:
    """YaRN's attention scale ``t = 1 / (0.1 ln s + 1) ** 2``: logits are divided by it.

    Peng et al. (2024), eq. 22; Hugging Face multiplies the rotated queries and keys
    each by ``0.1 ln s + 1``. ``t`` is 1 at ``s = 1`` and below 1 beyond (sharper).

    Examples
    --------
    >>> from sinpe.rope import yarn_temperature
    >>> round(yarn_temperature(16.0), 6)   # (0.1 ln 16 + 1)^-2
    0.612974
    """
    return 1.0 / (0.1 * math.log(factor) + 1.0) ** 2


_ladder = frequencies  # the module-level function; apply_rope's keyword shadows it


def _rope_positions(where: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Checked positions broadcast to ``shape[:-1]`` (see :func:`apply_rope`), else a ValueError."""
    lead = shape[:-1]
    given = where.shape
    if len(shape) == 4 and where.ndim == 2:
        # (B, T), Hugging Face's position_ids: one row per batch element, every head
        where = where[:, np.newaxis, :]
    try:
        return np.broadcast_to(where, lead)
    except ValueError:
        pass
    if not lead:
        advice = "x is a single vector: pass one position (a scalar)"
    else:
        options = [f"a scalar, shape (T,) = ({lead[-1]},) (the same for every row)"]
        if len(shape) == 4:
            options.append(
                f"(B, T) = ({lead[0]}, {lead[-1]}) (Hugging Face's position_ids, "
                f"the same for every head)"
            )
        options.append(f"a shape that broadcasts to x.shape[:-1] = {lead}, e.g. {lead}")
        advice = "pass " + ", or ".join(options)
    raise ValueError(
        f"positions of shape {given} do not fit x of shape {shape} (T = the axis "
        f"before the last): {advice}"
    ) from None


@constrained(layout=_LAYOUT, positions=POSITIONS, base=BASE, rotary_dim=Optional(_ROTARY_DIM))
def apply_rope(
    x: npt.ArrayLike,
    positions: npt.ArrayLike,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
    frequencies: npt.ArrayLike | None = None,
    rotary_dim: int | None = None,
) -> np.ndarray:
    """Rotate each pair of entries of ``x`` by ``position * theta_i``.

    Parameters
    ----------
    x : array_like of real, shape (..., T, d)
        Query or key vectors, one head's width ``d`` (even), e.g. ``(B, H, T, d)``.
    positions : array_like of real
        A scalar, ``(T,)``, ``(B, T)`` for 4-D ``x`` (Hugging Face's ``position_ids``,
        read as ``(B, 1, T)``; per-head positions need ``(1, H, T)`` or ``(B, H, T)``),
        or any shape that broadcasts to ``x.shape[:-1]``.
    base : float, optional
        The constant of the frequencies (10000 in RoFormer and Llama 2).
    layout : {"interleaved", "concat"}, optional
        How entries are paired (module docstring); ``"half"`` means ``"concat"``.
        With ``rotary_dim``, pairs are within the rotated entries.
    frequencies : array_like of real, shape (rotary_dim / 2,), optional
        Custom ``theta_i`` (from :func:`scaled_frequencies`, or a checkpoint's
        ``inv_freq``); ``base`` is then unused.
    rotary_dim : int, optional
        Rotate only the first ``rotary_dim`` entries of each head (GPT-J's
        ``rotary_dim``, GPT-NeoX's ``d * rotary_pct``), with the frequencies of a head
        that wide; even, ``2 <= rotary_dim <= d``; default ``d``.

    Returns
    -------
    numpy.ndarray
        The shape of ``x``, in its dtype if float16/32/64 (else float64). Computed in
        float64 and rounded once, so more accurate than rotating in float16 or float32.

    Raises
    ------
    TypeError, ValueError
        For non-finite input, an odd or empty last axis, positions that do not fit
        (the message lists the shapes above), a bad option, or a result beyond the dtype.

    Examples
    --------
    The golden vector of RoFormer's rotation for q = 1..8 at p = 1 (checked
    against mpmath in the tests):

    >>> import numpy as np
    >>> from sinpe.rope import apply_rope
    >>> apply_rope(np.arange(1.0, 9.0), 1).round(6).tolist()
    [-1.14264, 1.922076, 2.585679, 4.279517, 4.939751, 6.049699, 6.991997, 8.006996]

    Partial rotary (GPT-NeoX): only the first 4 of 8 entries turn, the dtype is kept:

    >>> out = apply_rope(np.ones(8, dtype=np.float32), 1, rotary_dim=4, layout="concat")
    >>> out.dtype, out[4:].tolist()
    (dtype('float32'), [1.0, 1.0, 1.0, 1.0])
    """
    source = check_float_array(x, "x")
    vectors = source.astype(np.float64)
    if vectors.ndim == 0 or vectors.shape[-1] % 2:
        raise ValueError(f"the last axis of x must be even, got shape {vectors.shape}")
    if vectors.shape[-1] == 0:
        raise ValueError(
            f"the last axis of x must hold one head's entries (even, at least 2), "
            f"got shape {vectors.shape}"
        )
    head_width = vectors.shape[-1]
    width = head_width if rotary_dim is None else rotary_dim
    if width > head_width:
        raise ValueError(f"rotary_dim must be at most the head width {head_width}, got {width}")
    where = _rope_positions(np.asarray(positions), vectors.shape)
    if frequencies is None:
        theta = _ladder(width, base=base)
    else:
        theta = check_real_array(frequencies, name="frequencies")
        if theta.shape != (width // 2,):
            wanted = "rotary_dim" if rotary_dim is not None else "x"
            raise ValueError(
                f"frequencies must have shape ({width // 2},) for {wanted} of width {width}, "
                f"got {theta.shape}"
            )
    with np.errstate(over="ignore", invalid="ignore"):
        angles = where[..., np.newaxis] * theta
    check_phases(angles)
    vectors, passed = vectors[..., :width], vectors[..., width:]  # NeoX's q_rot, q_pass
    sin, cos = sincos(angles)  # the same bits on every machine (sinpe._trig)
    if layout == "interleaved":
        first, second = vectors[..., 0::2], vectors[..., 1::2]
    else:
        first, second = vectors[..., : width // 2], vectors[..., width // 2 :]
    rotated_first = first * cos - second * sin
    rotated_second = first * sin + second * cos
    out = np.empty_like(vectors)
    if layout == "interleaved":
        out[..., 0::2], out[..., 1::2] = rotated_first, rotated_second
    else:
        out[..., : width // 2], out[..., width // 2 :] = rotated_first, rotated_second
    if width < head_width:
        out = np.concatenate([out, passed], axis=-1)
    if source.dtype == np.float64:
        return out
    with np.errstate(over="ignore"):
        rounded = out.astype(source.dtype)
    if not np.isfinite(rounded).all():
        raise ValueError(
            f"the rotated vectors exceed the range of {source.dtype} (a rotation can "
            f"grow an entry by up to sqrt(2)); pass x as float32 or float64"
        )
    return rounded


def rope_permutation(head_width: int) -> np.ndarray:
    """``P = [0, 2, 4, ..., 1, 3, 5, ...]``: ``apply_rope(x[P], p, layout="concat")`` is
    ``apply_rope(x, p)[P]``.

    ``head_width`` is positive and even; ``np.argsort(P)`` maps concat back to interleaved.

    Examples
    --------
    >>> from sinpe.rope import rope_permutation
    >>> rope_permutation(6).tolist()
    [0, 2, 4, 1, 3, 5]
    """
    return layout_permutation(head_width, "interleaved", "concat")


@constrained(n_heads=Integer(hint="such as 32 (the model's heads)"), source=_LAYOUT, target=_LAYOUT)
def convert_qk_weight(weight: npt.ArrayLike, n_heads: int, source: str, target: str) -> np.ndarray:
    """Permute the rows of a query or key projection between RoPE layouts.

    Within each head the rows are reordered so that a model with the ``target`` layout
    computes the attention scores of the original with the ``source`` layout (as
    Hugging Face's ``convert_llama_weights_to_hf.py`` does from Meta's interleaved one).

    Parameters
    ----------
    weight : array_like of real, shape (n_heads * head_width, d_in) or (n_heads * head_width,)
        One layer's query or key projection, or its bias.
    n_heads : int
        Number of heads (of keys and values for a grouped-query key projection).
    source, target : {"interleaved", "concat"}
        The layouts trained with and wanted; ``"half"`` means ``"concat"``.

    Returns
    -------
    numpy.ndarray
        A new array of the same shape and dtype (a copy even when ``source == target``).

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.rope import convert_qk_weight
    >>> convert_qk_weight(np.arange(8.0), 2, "interleaved", "concat").tolist()
    [0.0, 2.0, 1.0, 3.0, 4.0, 6.0, 5.0, 7.0]
    """
    rows = check_finite_entries(np.asarray(weight), name="weight")
    if rows.ndim not in (1, 2):
        raise ValueError(
            f"weight must be a 2-D projection (n_heads * head_width, d_in) or a 1-D bias, "
            f"got shape {rows.shape}; convert one layer's q or k weight at a time"
        )
    if rows.shape[0] % n_heads:
        raise ValueError(
            f"weight must have n_heads * head_width rows, got shape {rows.shape} "
            f"for n_heads={n_heads}"
        )
    head_width = rows.shape[0] // n_heads
    if head_width % 2:
        raise ValueError(
            f"weight has {rows.shape[0]} rows for n_heads={n_heads}: a head width of "
            f"{head_width}, but RoPE rotates pairs, so it must be even; check n_heads"
        )
    if source == target:
        return rows.copy()
    perm = rope_permutation(head_width)
    if source == "concat":
        perm = np.argsort(perm)
    heads = rows.reshape(n_heads, head_width, *rows.shape[1:])
    return heads[:, perm].reshape(rows.shape)


#: What ``encoding="rope"`` of :class:`sinpe.lab.nn.TokenModel` does in every attention
#: layer: queries and keys rotated by their positions (found by ``sinpe._schemes``).
ATTENTION = AttentionScheme("RoPE", year=2021, rotate=apply_rope)
