"""Positions on several axes: M-RoPE's time, height and width bands (Qwen2-VL), as released.

A vision-language model such as Qwen2-VL gives every token three positions, one per
axis (time, height, width; a text token has the same number on all three), and splits
the pairs of each head among the axes: ``mrope_section = [16, 24, 24]`` in its
``config.json`` says that the first 16 pairs turn with the time position, the next 24
with the height and the last 24 with the width. transformers' ``Qwen2VLRotaryEmbedding``
computes one ``cos`` and ``sin`` table per axis (``emb = cat(freqs, freqs)``: the concat
layout) and ``apply_multimodal_rotary_pos_emb`` picks, for each chunk of
``mrope_section * 2`` entries, the table of axis ``chunk % 3``
(``src/transformers/models/qwen2_vl/modeling_qwen2_vl.py``, huggingface/transformers
commit 00b676f8f0489b88652a31d70751cc540dd06305). :func:`mrope_axes` is that choice
per pair; :func:`apply_mrope` the rotation, built from :func:`sinpe.rope.apply_rope`
one axis at a time (a pair of another axis gets angle 0, which is exactly no turn).

FLUX.1 splits a head the other way (black-forest-labs/flux, ``src/flux/modules/layers.py``
``EmbedND`` and ``src/flux/math.py`` ``rope`` / ``apply_rope``, commit
802fb4713906133fcbd0d8dc5351620ca4773036; diffusers calls ``axes_dim``
``axes_dims_rope``): the head's entries are cut into one contiguous block per axis
(:data:`FLUX_AXES_DIM`), and each block is a RoPE of its own width, with its own
ladder ``theta ** (-2 j / axes_dim[i])`` from 1 down, and interleaved pairs
(:func:`axial_frequencies`, :func:`apply_axial_rope`). M-RoPE's three bands share one
ladder over the whole head, so its time axis gets only the fastest pairs; every FLUX
axis gets fast and slow pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from sinpe._validation import BASE, POSITIONS, check_float_array, check_integer_array, constrained
from sinpe.core import frequencies as _ladder
from sinpe.rope import apply_rope

__all__ = [
    "FLUX_AXES_DIM",
    "MROPE_AXES",
    "apply_axial_rope",
    "apply_mrope",
    "axial_frequencies",
    "mrope_axes",
]

#: The axes of M-RoPE, in the order of ``mrope_section`` and of the position rows.
MROPE_AXES = ("time", "height", "width")


def _section(mrope_section: Sequence[int]) -> np.ndarray:
    section = check_integer_array(
        mrope_section, "mrope_section", ndim=1, minimum=1, hint="[16, 24, 24]"
    )
    if section.size != len(MROPE_AXES):
        raise ValueError(
            f"mrope_section must give {len(MROPE_AXES)} counts of pairs (time, height, "
            f"width), got {section.size}; pass e.g. [16, 24, 24]"
        )
    return section


def mrope_axes(mrope_section: Sequence[int]) -> np.ndarray:
    """The axis of each pair (0 time, 1 height, 2 width), as transformers picks it.

    ``apply_multimodal_rotary_pos_emb`` splits the head's ``2 * sum(mrope_section)``
    entries into the chunks ``mrope_section * 2`` and takes chunk ``i`` from axis
    ``i % 3``: pair ``j`` (entries ``j`` and ``j + d/2``) gets the same axis in both
    halves.

    Parameters
    ----------
    mrope_section : sequence of 3 positive int
        Pairs per axis, as the config's ``rope_scaling["mrope_section"]``.

    Returns
    -------
    numpy.ndarray of int, shape (sum(mrope_section),)
        The axis of each pair, an index into :data:`MROPE_AXES`.

    Examples
    --------
    >>> from sinpe.axes import mrope_axes
    >>> mrope_axes([1, 2, 1]).tolist()
    [0, 1, 1, 2]
    """
    section = _section(mrope_section)
    entries = np.repeat(np.tile(np.arange(len(MROPE_AXES)), 2), np.tile(section, 2))
    pairs = int(section.sum())
    if not np.array_equal(entries[:pairs], entries[pairs:]):  # pragma: no cover - by construction
        raise AssertionError("the two halves of the head got different axes")
    return entries[:pairs]


@constrained(positions=POSITIONS, base=BASE)
def apply_mrope(
    x: npt.ArrayLike,
    positions: npt.ArrayLike,
    mrope_section: Sequence[int],
    *,
    base: float = 10000.0,
) -> np.ndarray:
    """Rotate ``x`` by M-RoPE: pair ``j`` turns by ``positions[axis_j] * theta_j``.

    Parameters
    ----------
    x : array_like of real, shape (..., T, d)
        Query or key vectors of one head, ``d = 2 * sum(mrope_section)``, paired in the
        concat layout (entries ``j`` and ``j + d/2``) as transformers does.
    positions : array_like of real, shape (3, ...)
        One row of positions per axis (time, height, width), each broadcasting to
        ``x.shape[:-1]`` as in :func:`sinpe.rope.apply_rope` (transformers'
        ``position_ids`` of shape ``(3, B, T)``).
    mrope_section : sequence of 3 positive int
        Pairs per axis (:func:`mrope_axes`).
    base : float, optional
        The constant of the frequencies ``base ** (-2 j / d)`` over the whole head.

    Returns
    -------
    numpy.ndarray
        The shape and float dtype of ``x`` (float64 for other input).

    Examples
    --------
    A text token has the same position on all three axes: M-RoPE is then plain RoPE.

    >>> import numpy as np
    >>> from sinpe.axes import apply_mrope
    >>> from sinpe.rope import apply_rope
    >>> x = np.arange(1.0, 9.0)
    >>> bool(np.allclose(apply_mrope(x, [3, 3, 3], [1, 2, 1]), apply_rope(x, 3, layout="concat")))
    True
    """
    axes = mrope_axes(mrope_section)
    vectors = check_float_array(x, "x")
    if vectors.ndim == 0 or vectors.shape[-1] != 2 * axes.size:
        raise ValueError(
            f"the last axis of x must be 2 * sum(mrope_section) = {2 * axes.size}, "
            f"got shape {vectors.shape}"
        )
    rows = check_float_array(positions, "positions")
    if rows.ndim == 0 or rows.shape[0] != len(MROPE_AXES):
        raise ValueError(
            f"positions must have one row per axis (time, height, width): shape (3, ...), "
            f"got shape {rows.shape}"
        )
    theta = _ladder(2 * axes.size, base=base)
    out = vectors
    for axis in range(len(MROPE_AXES)):
        out = apply_rope(
            out, rows[axis], layout="concat", frequencies=np.where(axes == axis, theta, 0.0)
        )
    return out


#: FLUX.1's split of a head of 128 among its position axes (``axes_dim = [16, 56, 56]``,
#: ``theta = 10_000`` in every model of black-forest-labs/flux's ``src/flux/util.py``).
FLUX_AXES_DIM = (16, 56, 56)


def _axes_dim(axes_dim: Sequence[int]) -> np.ndarray:
    widths = check_integer_array(axes_dim, "axes_dim", ndim=1, minimum=2, hint="[16, 56, 56]")
    if (widths % 2).any():
        raise ValueError(
            f"axes_dim must hold even widths (each axis turns pairs), got {widths.tolist()}"
        )
    return widths


@constrained(base=BASE)
def axial_frequencies(axes_dim: Sequence[int], *, base: float = 10000.0) -> np.ndarray:
    """The frequency of each pair of FLUX's ``EmbedND``: one ladder per axis, over its width.

    ``concat([base ** (-2 j / axes_dim[i]) for j < axes_dim[i] / 2] for each axis i)``,
    as ``rope(ids[..., i], axes_dim[i], theta)`` computes ``omega``.

    Examples
    --------
    >>> from sinpe.axes import axial_frequencies
    >>> axial_frequencies([2, 4], base=100.0).tolist()
    [1.0, 1.0, 0.1]
    """
    widths = _axes_dim(axes_dim)
    return np.concatenate([_ladder(int(width), base=base) for width in widths])


@constrained(positions=POSITIONS, base=BASE)
def apply_axial_rope(
    x: npt.ArrayLike,
    positions: npt.ArrayLike,
    axes_dim: Sequence[int],
    *,
    base: float = 10000.0,
) -> np.ndarray:
    """Rotate ``x`` as FLUX does: block ``i`` of the head turns with the position on axis ``i``.

    Parameters
    ----------
    x : array_like of real, shape (..., T, d)
        Query or key vectors of one head, ``d = sum(axes_dim)``, paired in the
        interleaved layout within each block (``apply_rope``'s ``reshape(..., -1, 1, 2)``).
    positions : array_like of real, shape (len(axes_dim), ...)
        One row of positions per axis (FLUX's ``ids[..., i]``), each broadcasting to
        ``x.shape[:-1]``.
    axes_dim : sequence of even int
        The width of each axis's block (:data:`FLUX_AXES_DIM`).
    base : float, optional
        FLUX's ``theta``.

    Returns
    -------
    numpy.ndarray
        The shape and float dtype of ``x`` (float64 for other input).

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.axes import apply_axial_rope
    >>> apply_axial_rope([1.0, 0.0, 1.0, 0.0], [0.0, np.pi], [2, 2]).round(6).tolist()
    [1.0, 0.0, -1.0, 0.0]
    """
    widths = _axes_dim(axes_dim)
    vectors = check_float_array(x, "x")
    if vectors.ndim == 0 or vectors.shape[-1] != int(widths.sum()):
        raise ValueError(
            f"the last axis of x must be sum(axes_dim) = {int(widths.sum())}, "
            f"got shape {vectors.shape}"
        )
    rows = np.asarray(positions)
    if rows.ndim == 0 or rows.shape[0] != widths.size:
        raise ValueError(
            f"positions must have one row per axis: shape ({widths.size}, ...), "
            f"got shape {rows.shape}"
        )
    ends = np.cumsum(widths)
    blocks = [
        apply_rope(
            vectors[..., end - width : end],
            rows[axis],
            frequencies=_ladder(int(width), base=base),
            layout="interleaved",
        )
        for axis, (width, end) in enumerate(zip(widths, ends, strict=True))
    ]
    return np.concatenate(blocks, axis=-1)
