"""Sinusoidal tables as real code bases compute them.

Implementations that all say "sinusoidal positional encoding" disagree on the
frequency spacing, the order of the columns, where positions start, and what
happens at odd widths. Loading weights trained with one convention into code
that uses another gives silently wrong numbers. This module reproduces each
convention exactly, behind one entry point, :func:`~sinpe.encode`, with the source of
every rule in :data:`~sinpe.CONVENTIONS`.

Spacings (``n = d_model // 2`` frequencies, ``k = 0 .. n - 1``):

* ``"paper"``: ``w_k = base ** (-2k / d_model) = base ** (-k / n)``;
* ``"n-1"``: ``w_k = base ** (-k / (n - 1))``, so the slowest pair reaches
  ``1 / base`` exactly ("differs slightly" from the paper, as fairseq says).

How close each convention is to the real code (``Convention.equals`` names the
function; ``tests/test_porting.py`` re-types each one in NumPy and asserts these
numbers): the largest ``|encode - source|`` at positions 0 .. 2047 (fairseq: rows
0 .. 2049; guided-diffusion: timesteps 0, 0.5, .., 999.5) and widths 8, 64 and 512
(and 9 and 65 where the source takes odd widths), with the source evaluated in
float64, and in its own float32 -- PyTorch's and TensorFlow's default dtype, and
Marian NMT's C++; Hugging Face's Marian computes in float64 and rounds once to
float32, so it is the only one ``dtype=np.float32`` reproduces bit for bit up to
that rounding. The float32 gap is the source's own rounding of the phase
``p * w`` (about ``p * 6e-8``), not an error of this module:

======================== ========= =========
convention               float64   float32
======================== ========= =========
``paper``                5e-13     5e-4
``tensor2tensor``        5e-13     5e-4
``whisper``              5e-13     5e-4
``fairseq``              5e-13     5e-4
``hf-marian``            5e-13     3e-8
``marian-nmt``           5e-13     5e-4
``guided-diffusion``     3e-13     3e-4
======================== ========= =========
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sinpe._precision import warn_if_unresolvable
from sinpe._trig import sincos
from sinpe._validation import (
    BASE,
    DTYPE,
    POSITIONS,
    Integer,
    Optional,
    Options,
    Real,
    Width,
    check_phases,
    constrained,
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
    layout : {"interleaved", "concat", "concat-cos-first"}
        Column order, by the names of :data:`sinpe.LAYOUTS`, or all cosines then
        all sines (guided-diffusion).
    odd_width : {"raise", "zero column", "sin gets ceil(d/2)"}
        What the source does when ``d_model`` is odd (or what we do instead of
        its crash or NaN).
    first_position : str
        Where the source's positions start.
    source : str
        Provenance: repository, file and function, and the issues that
        document the behaviour.
    equals : str
        The real function :func:`encode` reproduces, with the arguments that
        correspond to ``positions``, ``d_model`` and ``base``.
    float64_tolerance, float32_tolerance : float
        The largest ``|encode - equals|`` measured, with ``equals`` in float64
        and in its code base's float32 (the module docstring's table).
    """

    name: str
    spacing: str
    layout: str
    odd_width: str
    first_position: str
    source: str
    equals: str = ""
    float64_tolerance: float = 0.0
    float32_tolerance: float = 0.0


#: Every convention :func:`encode` reproduces, by name (``"paper"``, ``"fairseq"``, ...).
CONVENTIONS: dict[str, Convention] = {
    convention.name: convention
    for convention in (
        Convention(
            name="paper",
            spacing="paper",
            layout="interleaved",
            odd_width="raise",
            first_position="0",
            source=(
                "Vaswani et al. 2017, 'Attention Is All You Need', section 3.5: "
                "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), "
                "PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)). Also the PyTorch "
                "tutorial and the Annotated Transformer (same numbers, computed as "
                "exp(arange(0, d, 2) * -(ln 10000 / d)))."
            ),
            equals=(
                "harvardnlp/annotated-transformer, the_annotated_transformer.py, "
                "PositionalEncoding(d_model, dropout, max_len).pe (the PyTorch tutorial's "
                "is the same code): div_term = exp(arange(0, d_model, 2) * -(log(10000) / "
                "d_model)), pe[:, 0::2] = sin(position * div_term), pe[:, 1::2] = cos(...)"
            ),
            float64_tolerance=5e-13,
            float32_tolerance=5e-4,
        ),
        Convention(
            name="tensor2tensor",
            spacing="n-1",
            layout="concat",
            odd_width="zero column",
            first_position="0 (start_index)",
            source=(
                "tensorflow/tensor2tensor, tensor2tensor/layers/common_attention.py, "
                "get_timing_signal_1d: log_timescale_increment = log(max/min) / "
                "max(num_timescales - 1, 1) (the max() guard is PR #1055, so d = 2 "
                "works), concat([sin, cos]), then pad one zero column when channels "
                "is odd (so channels = 1 is one zero column). min_timescale multiplies "
                "the frequencies: encode(..., min_timescale=m) reproduces it."
            ),
            equals=(
                "tensorflow/tensor2tensor, tensor2tensor/layers/common_attention.py, "
                "get_timing_signal_1d(length, channels=d_model, min_timescale, "
                "max_timescale=base, start_index)[0], at positions start_index + arange(length)"
            ),
            float64_tolerance=5e-13,
            float32_tolerance=5e-4,
        ),
        Convention(
            name="whisper",
            spacing="n-1",
            layout="concat",
            odd_width="raise",
            first_position="0",
            source=(
                "openai/whisper, whisper/model.py, sinusoids(length, channels, "
                "max_timescale=10000): asserts channels % 2 == 0 and divides by "
                "channels // 2 - 1, so d = 2 gives NaN there; here d = 2 raises "
                "ValueError instead."
            ),
            equals=(
                "openai/whisper, whisper/model.py, sinusoids(length, channels=d_model, "
                "max_timescale=base) (the audio encoder's positional_embedding buffer)"
            ),
            float64_tolerance=5e-13,
            float32_tolerance=5e-4,
        ),
        Convention(
            name="fairseq",
            spacing="n-1",
            layout="concat",
            odd_width="zero column",
            first_position="padding_idx + 1 (row padding_idx is all zeros)",
            source=(
                "facebookresearch/fairseq, fairseq/modules/"
                "sinusoidal_positional_embedding.py, get_embedding: the docstring says "
                "it 'differs slightly' from the paper; zero column for odd widths; "
                "d = 2 divides by zero (ZeroDivisionError) there, ValueError here. "
                "Positions come from fairseq/utils.py make_positions (cumulative sum "
                "of the non-padding mask, plus padding_idx), so left padding works "
                "(fairseq #1177, #1187). d = 1 gives a column of zeros there (half_dim = "
                "0: log(10000) / (0 - 1) divides by -1, the (N, 0) block of sines and "
                "cosines stays (N, 0) through .view(N, -1), then the odd-width zero "
                "column; run with PyTorch 2.13), as here. padding_idx=None: "
                "get_embedding zeroes no row, and the module counts positions with "
                "padding id 0 (self.padding_idx = padding_idx if not None else 0)."
            ),
            equals=(
                "facebookresearch/fairseq, fairseq/modules/sinusoidal_positional_embedding.py, "
                "SinusoidalPositionalEmbedding.get_embedding(num_embeddings, embedding_dim="
                "d_model, padding_idx)[positions], with 10000 for base; fairseq_embedding is "
                "SinusoidalPositionalEmbedding(d_model, padding_idx)(tokens)"
            ),
            float64_tolerance=5e-13,
            float32_tolerance=5e-4,
        ),
        Convention(
            name="hf-marian",
            spacing="paper",
            layout="concat",
            odd_width="sin gets ceil(d/2)",
            first_position="0 (past_key_values_length when decoding)",
            source=(
                "huggingface/transformers, models/marian/modeling_marian.py, "
                "MarianSinusoidalPositionalEmbedding._init_weight: angle "
                "pos / 10000^(2 (j // 2) / dim) for j = 0 .. dim-1, sines of the even "
                "j in the first ceil(dim/2) columns, cosines of the odd j after them "
                "(transformers PR #8226). Pegasus and RoFormer tables do the same. "
                "This is NOT the spacing of Marian NMT's own C++, which trained the "
                "OPUS-MT checkpoints: see 'marian-nmt'. Computed in float64 with NumPy "
                "there and stored as torch.FloatTensor: encode(..., dtype=np.float32) "
                "equals it to one float32 rounding."
            ),
            equals=(
                "huggingface/transformers, src/transformers/models/marian/modeling_marian.py, "
                "MarianSinusoidalPositionalEmbedding(num_positions, embedding_dim=d_model)"
                ".weight[positions] (10000 for base)"
            ),
            float64_tolerance=5e-13,
            float32_tolerance=3e-8,
        ),
        Convention(
            name="marian-nmt",
            spacing="n-1",
            layout="concat",
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
            equals=(
                "marian-nmt/marian, src/graph/node_initializers.cpp, "
                "sinusoidalPositionEmbeddings(start) on a {length, d_model} tensor, at "
                "positions start + arange(length) (10000 for base)"
            ),
            float64_tolerance=5e-13,
            float32_tolerance=5e-4,
        ),
        Convention(
            name="guided-diffusion",
            spacing="paper",
            layout="concat-cos-first",
            odd_width="zero column",
            first_position="real-valued timesteps",
            source=(
                "openai/guided-diffusion, guided_diffusion/nn.py, timestep_embedding("
                "timesteps, dim, max_period=10000): freqs = exp(-log(max_period) * "
                "arange(half) / half), cat([cos(args), sin(args)]), zero column when "
                "dim is odd; timesteps may be fractional. The same in DiT; diffusers "
                "exposes the order as flip_sin_to_cos. At dim = 1 it returns an (N, 0) "
                "table (half = 0 frequencies; the zero column is zeros_like of an empty "
                "slice, itself empty): encode raises a ValueError there rather than "
                "return a width-1 table the source never makes, or an (N, 0) one that "
                "breaks encode's shape + (d_model,) contract."
            ),
            equals=(
                "openai/guided-diffusion, guided_diffusion/nn.py, timestep_embedding("
                "timesteps=positions, dim=d_model, max_period=base)"
            ),
            float64_tolerance=3e-13,
            float32_tolerance=3e-4,
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


_PADDING_IDX = Integer(0, hint="such as 1 (fairseq's dictionaries), or None")

#: The width of any convention: an odd one is then refused or padded as its record says.
_ANY_WIDTH = Width(even=False)


def _t2t_frequencies(count: int, base: float, smallest: float) -> np.ndarray:
    """tensor2tensor's ``min_timescale * exp(-k log(base / min_timescale) / max(n - 1, 1))``.

    Computed as ``m * m ** (k / s) * base ** (-k / s)``, ``s = max(n - 1, 1)``:
    within 2 ulp of the exact value, the same bits on every machine.
    """
    steps = max(count - 1, 1)
    with np.errstate(over="ignore", under="ignore"):
        values = (
            smallest
            * _rational_powers(smallest, count, 1, steps)
            * _rational_powers(base, count, -1, steps)
        )
    if not np.all(np.isfinite(values) & (values > 0)):
        raise ValueError(
            f"min_timescale={smallest!r} with base (max_timescale) {base!r} gives "
            f"frequencies min_timescale**2 / base outside float64; tensor2tensor uses "
            f"min_timescale=1.0 and max_timescale=1e4"
        )
    return values


#: Conventions whose source has no width-1 table, and why (encode raises there).
_NO_WIDTH_ONE = {
    "guided-diffusion": (
        "guided-diffusion's timestep_embedding returns an (N, 0) table, not (N, 1): "
        "half = dim // 2 = 0 frequencies, and its odd-width zero column is "
        "zeros_like(embedding[:, :1]) of that empty table, itself (N, 0); use d_model >= 2"
    ),
}


#: A convention's name; "marian" names two.
_CONVENTION = Options(
    *CONVENTIONS,
    mistaken={
        "marian": "it is ambiguous: use 'hf-marian' (Hugging Face's "
        "MarianSinusoidalPositionalEmbedding, paper spacing) or 'marian-nmt' (Marian "
        "NMT's C++, which trained the OPUS-MT checkpoints: n-1 spacing)"
    },
)


@constrained(
    convention=_CONVENTION,
    padding_idx=Optional(_PADDING_IDX),
    min_timescale=Optional(Real(0.0, closed="neither", hint="e.g. 1.0")),
    base=BASE,
    dtype=DTYPE,
    positions=POSITIONS,
    d_model=_ANY_WIDTH,
)
def encode(
    positions: npt.ArrayLike,
    d_model: int,
    convention: str = "paper",
    *,
    base: float = 10000.0,
    padding_idx: int | None = 1,
    dtype: npt.DTypeLike = np.float64,
    min_timescale: float | None = None,
) -> np.ndarray:
    """Sinusoidal table rows for ``positions`` as a named code base computes them.

    Parameters
    ----------
    positions : array_like of real
        Positions as the convention counts them
        (``CONVENTIONS[name].first_position``). For ``"fairseq"`` these are rows
        of its table: row ``padding_idx`` is all zeros and real tokens start at
        ``padding_idx + 1`` (:func:`fairseq_embedding` builds them from tokens).
    d_model : int
        Width. Odd widths follow ``CONVENTIONS[name].odd_width``; a width too
        small for the ``"n-1"`` spacing raises.
    convention : str, optional
        A key of :data:`CONVENTIONS`. ``"marian"`` is ambiguous and raises a
        ValueError that names ``"hf-marian"`` and ``"marian-nmt"``.
    base : float, optional
        10000 in every source (t2t's max_timescale, guided-diffusion's
        max_period).
    padding_idx : int or None, optional
        Only for ``"fairseq"``: the all-zero padding row (1 in fairseq's
        dictionaries). None zeroes no row, as ``get_embedding(...,
        padding_idx=None)``.
    dtype : {numpy.float64, numpy.float32, numpy.float16}, optional
        Output dtype; values are computed in float64 and rounded once.
    min_timescale : float, optional
        Only for ``"tensor2tensor"`` (default 1.0; ``base`` is its
        ``max_timescale``). t2t computes ``w_k = m * (m / base) ** (k / max(n - 1, 1))``
        with ``m = min_timescale``: it *multiplies* by ``m``, so the timescales run
        from ``1/m`` to ``base / m**2``, not from ``m`` to ``base`` as its
        docstring says, unless ``m = 1``. Reproduced as written.

    Returns
    -------
    numpy.ndarray
        Shape ``np.shape(positions) + (d_model,)``.

    Raises
    ------
    TypeError, ValueError
        As :func:`sinpe.positional_encoding`, and for what a convention's source
        does not define (its record says why).

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
    rule = CONVENTIONS[convention]
    if min_timescale is not None and rule.name != "tensor2tensor":
        raise ValueError(
            f"min_timescale is tensor2tensor's (get_timing_signal_1d); the {rule.name!r} "
            f"convention has no such parameter: leave it out, or use "
            f"convention='tensor2tensor'"
        )
    if rule.name == "paper":
        return positional_encoding(positions, d_model, base=base, dtype=dtype)
    width = Width.paired(d_model) if rule.odd_width == "raise" else d_model
    if width == 1 and rule.name in _NO_WIDTH_ONE:
        raise ValueError(
            f"d_model = 1 with the {rule.name!r} convention: {_NO_WIDTH_ONE[rule.name]}"
        )
    out_dtype, where = np.dtype(dtype), np.asarray(positions)
    if rule.odd_width == "sin gets ceil(d/2)":
        sin_count, cos_count = (width + 1) // 2, width // 2
        sin_freq = _rational_powers(base, sin_count, -2, width)
    elif min_timescale is not None and min_timescale != 1.0:
        sin_count = cos_count = width // 2
        sin_freq = _t2t_frequencies(sin_count, base, min_timescale)
    else:
        sin_count = cos_count = width // 2
        sin_freq = _spaced_frequencies(sin_count, rule.spacing, base, rule.name)
    with np.errstate(over="ignore"):
        sin_phases = where[..., np.newaxis] * sin_freq
    check_phases(sin_phases)
    sines, all_cosines = sincos(sin_phases)  # the same bits on every machine
    cosines = all_cosines[..., :cos_count]
    blocks = [cosines, sines] if rule.layout == "concat-cos-first" else [sines, cosines]
    table = np.concatenate(blocks, axis=-1)
    if table.shape[-1] < width:  # "zero column"
        table = np.concatenate([table, np.zeros((*where.shape, 1))], axis=-1)
    if rule.name == "fairseq" and padding_idx is not None:
        table[where == padding_idx] = 0.0
    warn_if_unresolvable(where, out_dtype)
    return table.astype(out_dtype, copy=False)


@constrained(padding_idx=Optional(_PADDING_IDX))
def fairseq_positions(tokens: npt.ArrayLike, padding_idx: int | None = 1) -> np.ndarray:
    """fairseq's ``make_positions``: table rows for a (left- or right-) padded batch.

    Non-padding tokens are numbered ``padding_idx + 1, padding_idx + 2, ...``
    along the last axis, counting only non-padding tokens, so left padding
    shifts nothing; padding tokens get ``padding_idx``. ``padding_idx=None``
    does what ``SinusoidalPositionalEmbedding(dim, padding_idx=None)`` does:
    positions are counted with padding id 0 (``make_positions`` itself would
    fail on None).

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
    padding_idx = 0 if padding_idx is None else padding_idx
    mask = (ids != padding_idx).astype(np.int64)
    return np.cumsum(mask, axis=-1) * mask + padding_idx


@constrained(d_model=_ANY_WIDTH, base=BASE, padding_idx=Optional(_PADDING_IDX))
def fairseq_embedding(
    tokens: npt.ArrayLike, d_model: int, *, padding_idx: int | None = 1, base: float = 10000.0
) -> np.ndarray:
    """What fairseq's ``SinusoidalPositionalEmbedding`` returns for a token batch.

    :func:`fairseq_positions`, then :func:`encode` with ``"fairseq"``: padding
    tokens get all-zero rows. With ``padding_idx=None`` the table has no zeroed
    row, so tokens with id 0 get row 0, ``sin 0 = 0`` then ``cos 0 = 1`` (fairseq
    zeroes it when a batch longer than 1024 rebuilds the table: a quirk not
    reproduced here).

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
