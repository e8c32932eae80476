"""Sinusoidal tables as real code bases compute them.

Implementations that all say "sinusoidal positional encoding" disagree on the
frequency spacing, the order of the columns, where positions start, and what
happens at odd widths. Loading weights trained with one convention into code
that uses another gives silently wrong numbers. This module reproduces each
convention exactly, behind one entry point, :func:`encode`, with the source of
every rule in :data:`CONVENTIONS`.

Spacings (``n = d_model // 2`` frequencies, ``k = 0 .. n - 1``):

* ``"paper"``: ``w_k = base ** (-2k / d_model) = base ** (-k / n)``;
* ``"n-1"``: ``w_k = base ** (-k / (n - 1))``, so the slowest pair reaches
  ``1 / base`` exactly ("differs slightly" from the paper, as fairseq says).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sinpe._validation import (
    check_base,
    check_count,
    check_d_model,
    check_dtype,
    check_phases,
    check_real_array,
    warn_if_unresolvable,
)
from sinpe.core import _rational_powers, positional_encoding

__all__ = ["CONVENTIONS", "Convention", "encode", "fairseq_embedding", "fairseq_positions"]


@dataclass(frozen=True)
class Convention:
    """How one code base lays out its sinusoidal table.

    Attributes
    ----------
    name : str
        Key in :data:`CONVENTIONS`.
    spacing : {"paper", "n-1"}
        Frequency spacing (see the module docstring).
    columns : {"interleaved", "sin|cos", "cos|sin"}
        Column order: the paper's pairs, or all sines then all cosines, or
        all cosines then all sines.
    odd_width : {"raise", "zero column", "sin gets ceil(d/2)"}
        What the source does when ``d_model`` is odd (or what we do instead of
        its crash or NaN).
    first_position : str
        Where the source's positions start.
    source : str
        Provenance: repository, file and function, and the issues that
        document the behaviour.
    """

    name: str
    spacing: str
    columns: str
    odd_width: str
    first_position: str
    source: str


CONVENTIONS: dict[str, Convention] = {
    convention.name: convention
    for convention in (
        Convention(
            name="paper",
            spacing="paper",
            columns="interleaved",
            odd_width="raise",
            first_position="0",
            source=(
                "Vaswani et al. 2017, 'Attention Is All You Need', section 3.5: "
                "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), "
                "PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)). Also the PyTorch "
                "tutorial and the Annotated Transformer (same numbers, computed as "
                "exp(arange(0, d, 2) * -(ln 10000 / d)))."
            ),
        ),
        Convention(
            name="tensor2tensor",
            spacing="n-1",
            columns="sin|cos",
            odd_width="zero column",
            first_position="0 (start_index)",
            source=(
                "tensorflow/tensor2tensor, tensor2tensor/layers/common_attention.py, "
                "get_timing_signal_1d: log_timescale_increment = log(max/min) / "
                "max(num_timescales - 1, 1) (the max() guard is PR #1055, so d = 2 "
                "works), concat([sin, cos]), then pad one zero column when channels "
                "is odd."
            ),
        ),
        Convention(
            name="whisper",
            spacing="n-1",
            columns="sin|cos",
            odd_width="raise",
            first_position="0",
            source=(
                "openai/whisper, whisper/model.py, sinusoids(length, channels, "
                "max_timescale=10000): asserts channels % 2 == 0 and divides by "
                "channels // 2 - 1, so d = 2 gives NaN there; here d = 2 raises "
                "ValueError instead."
            ),
        ),
        Convention(
            name="fairseq",
            spacing="n-1",
            columns="sin|cos",
            odd_width="zero column",
            first_position="padding_idx + 1 (row padding_idx is all zeros)",
            source=(
                "facebookresearch/fairseq, fairseq/modules/"
                "sinusoidal_positional_embedding.py, get_embedding: the docstring says "
                "it 'differs slightly' from the paper; zero column for odd widths; "
                "d = 2 divides by zero (ZeroDivisionError) there, ValueError here. "
                "Positions come from fairseq/utils.py make_positions (cumulative sum "
                "of the non-padding mask, plus padding_idx), so left padding works "
                "(fairseq #1177, #1187)."
            ),
        ),
        Convention(
            name="hf-marian",
            spacing="paper",
            columns="sin|cos",
            odd_width="sin gets ceil(d/2)",
            first_position="0 (past_key_values_length when decoding)",
            source=(
                "huggingface/transformers, models/marian/modeling_marian.py, "
                "MarianSinusoidalPositionalEmbedding._init_weight: angle "
                "pos / 10000^(2 (j // 2) / dim) for j = 0 .. dim-1, sines of the even "
                "j in the first ceil(dim/2) columns, cosines of the odd j after them "
                "(transformers PR #8226). Pegasus and RoFormer tables do the same. "
                "This is NOT the spacing of Marian NMT's own C++, which trained the "
                "OPUS-MT checkpoints: see 'marian-nmt'."
            ),
        ),
        Convention(
            name="marian-nmt",
            spacing="n-1",
            columns="sin|cos",
            odd_width="raise",
            first_position="0 (start when decoding)",
            source=(
                "marian-nmt/marian, src/graph/node_initializers.cpp, "
                "sinusoidalPositionEmbeddings(start): numTimescales = dimEmb / 2, "
                "logTimescaleIncrement = log(10000) / (numTimescales - 1), "
                "v = p * exp(i * -logTimescaleIncrement), sin(v) in column i and cos(v) "
                "in column numTimescales + i: the n-1 spacing of tensor2tensor, in "
                "float32 there (float64 here, equal within float32 rounding). Odd "
                "widths overlap columns there and raise here."
            ),
        ),
        Convention(
            name="guided-diffusion",
            spacing="paper",
            columns="cos|sin",
            odd_width="zero column",
            first_position="real-valued timesteps",
            source=(
                "openai/guided-diffusion, guided_diffusion/nn.py, timestep_embedding("
                "timesteps, dim, max_period=10000): freqs = exp(-log(max_period) * "
                "arange(half) / half), cat([cos(args), sin(args)]), zero column when "
                "dim is odd; timesteps may be fractional. The same in DiT; diffusers "
                "exposes the order as flip_sin_to_cos."
            ),
        ),
    )
}


def _spaced_frequencies(count: int, spacing: str, base: float, convention: str) -> np.ndarray:
    """``count`` frequencies with the given spacing, float64."""
    if spacing == "paper":
        return _rational_powers(base, count, -1, count)
    if count == 1 and convention != "tensor2tensor":
        # whisper returns NaN and fairseq raises ZeroDivisionError here; t2t guards
        # the division with max(n - 1, 1) (PR #1055).
        raise ValueError(
            f"the {convention!r} convention divides by n - 1 = 0 at d_model = 2 or 3 "
            f"(n = 1 frequency), which its source turns into NaN or a crash; "
            f"use d_model >= 4, or the 'tensor2tensor' convention"
        )
    return _rational_powers(base, count, -1, max(count - 1, 1))


def encode(
    positions: npt.ArrayLike,
    d_model: int,
    convention: str = "paper",
    *,
    base: float = 10000.0,
    padding_idx: int = 1,
    dtype: npt.DTypeLike = np.float64,
) -> np.ndarray:
    """Sinusoidal table rows for ``positions`` as a named code base computes them.

    Parameters
    ----------
    positions : array_like of real
        Positions as the convention counts them (see
        ``CONVENTIONS[name].first_position``). For ``"fairseq"`` these are
        rows of its table: row ``padding_idx`` is all zeros and real tokens
        start at ``padding_idx + 1``; :func:`fairseq_embedding` builds them from
        a token batch.
    d_model : int
        Width. Odd widths follow ``CONVENTIONS[name].odd_width``.
    convention : str, optional
        A key of :data:`CONVENTIONS`: ``"paper"`` (default), ``"tensor2tensor"``,
        ``"whisper"``, ``"fairseq"``, ``"hf-marian"``, ``"marian-nmt"``,
        ``"guided-diffusion"``. The old name ``"marian"`` is ambiguous and
        raises a ValueError that names both.
    base : float, optional
        10000 in every source (t2t's max_timescale, guided-diffusion's
        max_period).
    padding_idx : int, optional
        Only for ``"fairseq"``: the padding row (1 in fairseq's dictionaries).
    dtype : {numpy.float64, numpy.float32, numpy.float16}, optional
        Output dtype; values are computed in float64 and rounded once.

    Returns
    -------
    numpy.ndarray
        Shape ``np.shape(positions) + (d_model,)``.

    Raises
    ------
    ValueError
        For an unknown convention, an odd width where the source raises, a
        width too small for the ``"n-1"`` spacing, and as
        :func:`sinpe.positional_encoding`.
    TypeError
        As :func:`sinpe.positional_encoding`.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> sinpe.encode(1, 4, "tensor2tensor").round(4).tolist()   # w = [1, 1/10000]
    [0.8415, 0.0001, 0.5403, 1.0]
    >>> sinpe.encode(1, 4, "guided-diffusion").round(4).tolist()  # w = [1, 1/100], cos first
    [0.5403, 1.0, 0.8415, 0.01]
    >>> sinpe.encode([1, 2], 5, "fairseq").round(4).tolist()  # row 1 = padding_idx
    [[0.0, 0.0, 0.0, 0.0, 0.0], [0.9093, 0.0002, -0.4161, 1.0, 0.0]]
    """
    if not isinstance(convention, str):
        raise TypeError(
            f"convention must be a name (str), got {convention!r}; use one of "
            f"{', '.join(repr(name) for name in CONVENTIONS)}"
        )
    if convention == "marian":
        raise ValueError(
            "convention 'marian' is ambiguous: use 'hf-marian' (Hugging Face's "
            "MarianSinusoidalPositionalEmbedding, paper spacing) or 'marian-nmt' (Marian "
            "NMT's C++, which trained the OPUS-MT checkpoints: n-1 spacing)"
        )
    if convention not in CONVENTIONS:
        raise ValueError(
            f"unknown convention {convention!r}; use one of "
            f"{', '.join(repr(name) for name in CONVENTIONS)}"
        )
    rule = CONVENTIONS[convention]
    if rule.name == "paper":
        return positional_encoding(positions, d_model, base=base, dtype=dtype)
    width = check_d_model(d_model, even=rule.odd_width == "raise")
    constant = check_base(base)
    out_dtype = check_dtype(dtype)
    where = check_real_array(positions, name="positions")
    if rule.odd_width == "sin gets ceil(d/2)":
        sin_count, cos_count = (width + 1) // 2, width // 2
        sin_freq = _rational_powers(constant, sin_count, -2, width)
    else:
        sin_count = cos_count = width // 2
        sin_freq = _spaced_frequencies(sin_count, rule.spacing, constant, rule.name)
    with np.errstate(over="ignore"):
        sin_phases = where[..., np.newaxis] * sin_freq
    check_phases(sin_phases)
    sines = np.sin(sin_phases)
    cosines = np.cos(sin_phases[..., :cos_count])
    blocks = [cosines, sines] if rule.columns == "cos|sin" else [sines, cosines]
    table = np.concatenate(blocks, axis=-1)
    if table.shape[-1] < width:  # "zero column"
        table = np.concatenate([table, np.zeros((*where.shape, 1))], axis=-1)
    if rule.name == "fairseq":
        table[where == padding_idx] = 0.0
    warn_if_unresolvable(where, out_dtype)
    return table.astype(out_dtype, copy=False)


def fairseq_positions(tokens: npt.ArrayLike, padding_idx: int = 1) -> np.ndarray:
    """fairseq's ``make_positions``: table rows for a (left- or right-) padded batch.

    Non-padding tokens are numbered ``padding_idx + 1, padding_idx + 2, ...``
    along the last axis, counting only non-padding tokens, so left padding
    shifts nothing; padding tokens get ``padding_idx``.

    Parameters
    ----------
    tokens : array_like of int, shape (..., seq)
        Token ids.
    padding_idx : int, optional
        The padding id (1 in fairseq's dictionaries).

    Returns
    -------
    numpy.ndarray
        int64 array of the same shape.

    Raises
    ------
    TypeError
        If ``tokens`` are not integers.
    ValueError
        If ``tokens`` is a scalar.

    Examples
    --------
    >>> import sinpe
    >>> sinpe.fairseq_positions([[5, 6, 7, 1, 1], [1, 1, 5, 6, 7]], padding_idx=1)
    array([[2, 3, 4, 1, 1],
           [1, 1, 2, 3, 4]])
    """
    ids = np.asarray(tokens)
    if ids.dtype == np.bool_ or ids.dtype.kind not in "iu":
        raise TypeError(f"tokens must be integer ids, got dtype {ids.dtype}")
    if ids.ndim == 0:
        raise ValueError("tokens must have a sequence axis, got a scalar")
    padding_idx = check_count(
        padding_idx, "padding_idx", minimum=0, hint="such as 1 (fairseq's dictionaries)"
    )
    mask = (ids != padding_idx).astype(np.int64)
    return np.cumsum(mask, axis=-1) * mask + padding_idx


def fairseq_embedding(
    tokens: npt.ArrayLike, d_model: int, *, padding_idx: int = 1, base: float = 10000.0
) -> np.ndarray:
    """What fairseq's ``SinusoidalPositionalEmbedding`` returns for a token batch.

    Parameters
    ----------
    tokens : array_like of int, shape (..., seq)
        Token ids, padded on either side with ``padding_idx``.
    d_model : int
        Embedding width (odd widths get a zero column, as in fairseq).
    padding_idx : int, optional
        The padding id.
    base : float, optional
        10000 in fairseq.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``np.shape(tokens) + (d_model,)``; padding
        tokens get all-zero rows.

    Raises
    ------
    TypeError, ValueError
        As :func:`fairseq_positions` and :func:`encode`.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> left = sinpe.fairseq_embedding([[1, 9, 9]], 4)
    >>> right = sinpe.fairseq_embedding([[9, 9, 1]], 4)
    >>> bool(np.array_equal(left[0, 1:], right[0, :2]))   # same rows, shifted
    True
    """
    rows = fairseq_positions(tokens, padding_idx)
    return encode(rows, d_model, "fairseq", base=base, padding_idx=padding_idx)
