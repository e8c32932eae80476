r"""Positions on several axes: M-RoPE's time, height and width bands (Qwen2-VL), as released.

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

RoPE-Mixed (Heo et al., "Rotary Position Embedding for Vision Transformer", ECCV 2024)
lets a pair turn with both image axes at once: pair ``j`` of a head has a frequency
*vector* ``f_j = (f_x, f_y)`` and turns by ``t_x * f_x + t_y * f_y`` at the patch
``(t_x, t_y)``. naver-ai/rope-vit draws each head's vectors at a random angle, then
learns them (``models/vit_rope.py``, commit ce85c2e56c5ff3aadc10e1a849872081f7b86293;
``deit/models_v2_rope.py`` holds the same functions). :func:`mixed_frequencies` is its
``init_random_2d_freqs``, :func:`mixed_angles` the angle ``freqs_x + freqs_y`` of its
``compute_mixed_cis``, :func:`apply_mixed_rope` its ``apply_rotary_emb`` (the interleaved
pairs read as complex numbers, times ``freqs_cis``); ``tests/sources.py`` quotes all
three, and ``compute_axial_cis``, line for line. With ``rotate=False`` every vector
lies on an axis, the first half of the pairs on ``x``, the second on ``y``, and the
mixed rotation is the repository's ``compute_axial_cis``: :func:`apply_axial_rope` with
``axes_dim = [d/2, d/2]``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from sinpe._trig import sincos
from sinpe._validation import (
    BASE,
    FLAG,
    MAX_D_MODEL,
    POSITIONS,
    Condition,
    Instance,
    Integer,
    Optional,
    check_entries,
    check_float_array,
    check_integer_array,
    check_phases,
    check_real_array,
    constrained,
)
from sinpe.core import frequencies as _ladder
from sinpe.rope import apply_rope

__all__ = [
    "FLUX_AXES_DIM",
    "MROPE_AXES",
    "apply_axial_rope",
    "apply_mixed_rope",
    "apply_mrope",
    "axial_frequencies",
    "mixed_angles",
    "mixed_frequencies",
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


def _multiple_of_four(value: int) -> str:
    lower = max(4, value - value % 4)
    return (
        f"the pairs split into two halves, one per starting axis (init_random_2d_freqs "
        f"draws d_head // 4 magnitudes). Use {lower} or {lower + 4}"
    )


#: The width of one head of RoPE-Mixed: two halves of pairs, so a multiple of 4.
_HEAD = Integer(
    4,
    MAX_D_MODEL,
    hint="such as 64 (DeiT-S's head)",
    conditions=(
        Condition(
            "be a multiple of 4",
            lambda v: v % 4 == 0,
            _multiple_of_four,
            refused=(6,),
            accepted=(8,),
        ),
    ),
)
_GENERATOR: Instance[np.random.Generator] = Instance(
    np.random.Generator, shown="numpy.random.Generator", hint="rng=np.random.default_rng(0)"
)


@constrained(
    d_head=_HEAD,
    n_heads=Integer(hint="such as 6 (DeiT-S's heads)"),
    rng=Optional(_GENERATOR),
    base=BASE,
    rotate=FLAG,
)
def mixed_frequencies(
    d_head: int,
    n_heads: int,
    *,
    rng: np.random.Generator | None = None,
    base: float = 10.0,
    rotate: bool = True,
) -> np.ndarray:
    """RoPE-Mixed's starting frequency vectors: ``init_random_2d_freqs`` of naver-ai/rope-vit.

    Head ``h`` draws an angle ``phi_h`` uniform in ``[0, 2 pi)``. Its first ``d_head / 4``
    pairs get the vectors ``mag_k (cos phi_h, sin phi_h)``, its last ``d_head / 4`` the
    perpendicular ``mag_k (-sin phi_h, cos phi_h)``, with ``mag_k = base ** (-4 k /
    d_head)``. The release writes ``cos(pi/2 + phi)`` and ``sin(pi/2 + phi)`` for ``-sin
    phi`` and ``cos phi``: the same numbers but for rounding (``cos(pi/2)`` is about
    6e-17 in float64), and here ``rotate=False`` puts the second half exactly on the ``y``
    axis.

    Parameters
    ----------
    d_head : int
        One head's width, a multiple of 4 (``embed_dim // num_heads``).
    n_heads : int
        Heads to draw for (a model draws once per block: ``depth`` calls).
    rng : numpy.random.Generator, optional
        The source of the angles: ``rng.random(n_heads) * 2 * pi``, one draw per head
        in head order, as the release's ``torch.rand(1) * 2 * torch.pi`` in its loop.
        The distribution is the same; the numbers are not (torch draws float32 from its
        own global generator, ``torch.manual_seed``), and the model learns the vectors
        from there (``nn.Parameter``, ``requires_grad=True``). Needed unless
        ``rotate=False``.
    base : float, optional
        The release's ``theta``: ``rope_theta=10.0`` in its ``rope_mixed_*`` models
        (100.0 in its axial ones).
    rotate : bool, optional
        ``False``: every angle is 0, the axial frequencies (``rng`` unused).

    Returns
    -------
    numpy.ndarray
        float64, shape ``(n_heads, d_head // 2, 2)``: ``[h, j] = (f_x, f_y)`` of pair
        ``j`` of head ``h``; the release's ``freqs[a, h, j]`` is ``[h, j, a]``
        (``np.moveaxis(out, -1, 0)``).

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.axes import mixed_frequencies
    >>> mixed_frequencies(8, 1, base=100.0, rotate=False)[0].tolist()
    [[1.0, 0.0], [0.1, 0.0], [0.0, 1.0], [0.0, 0.1]]
    >>> f = mixed_frequencies(8, 2, rng=np.random.default_rng(0))
    >>> f.shape, bool(np.allclose(np.hypot(f[..., 0], f[..., 1]), [1.0, 10**-0.5] * 2))
    ((2, 4, 2), True)
    """
    if rotate and rng is None:
        raise ValueError(
            "rng is needed to draw each head's angle: pass rng=np.random.default_rng(0), "
            "or rotate=False for the axial frequencies"
        )
    check_entries((n_heads, d_head // 2, 2), what="the frequencies")
    magnitudes = _ladder(d_head // 2, base=base)  # base ** (-4 k / d_head), k < d_head / 4
    if rotate and rng is not None:
        angles = rng.random(n_heads) * 2 * np.pi
    else:
        angles = np.zeros(n_heads)
    sin, cos = sincos(angles)
    first = np.stack([np.outer(cos, magnitudes), np.outer(sin, magnitudes)], axis=-1)
    # 0.0 - sin, not -sin: a head at angle 0 gets +0.0, the vector on the y axis exactly
    second = np.stack([np.outer(0.0 - sin, magnitudes), np.outer(cos, magnitudes)], axis=-1)
    return np.concatenate([first, second], axis=1)


def _frequency_vectors(frequencies: npt.ArrayLike) -> np.ndarray:
    vectors = check_real_array(frequencies, name="frequencies")
    if vectors.ndim < 2 or vectors.shape[-1] != 2 or vectors.shape[-2] == 0:
        raise ValueError(
            f"frequencies must hold one (f_x, f_y) vector per pair: shape (..., pairs, 2), "
            f"got shape {vectors.shape}; pass e.g. mixed_frequencies(64, 6, rng=rng)"
        )
    return vectors


def _two_rows(rows: npt.ArrayLike) -> np.ndarray:
    positions = np.asarray(rows)  # checked by the POSITIONS rule: float64 already
    if positions.ndim == 0 or positions.shape[0] != 2:
        raise ValueError(
            f"positions must have one row per image axis (x, y): shape (2, ...), "
            f"got shape {positions.shape}"
        )
    return positions


@constrained(positions=POSITIONS)
def mixed_angles(positions: npt.ArrayLike, frequencies: npt.ArrayLike) -> np.ndarray:
    """The angle of every pair at every position: ``t_x * f_x + t_y * f_y`` (RoPE-Mixed).

    ``compute_mixed_cis``'s ``freqs_x + freqs_y``, for any shapes.

    Parameters
    ----------
    positions : array_like of real, shape (2, ...)
        The row ``t_x`` (column of the patch) and the row ``t_y`` (its row), as the
        release's ``init_t_xy``.
    frequencies : array_like of real, shape (..., P, 2)
        One vector ``(f_x, f_y)`` per pair, ``P`` pairs (:func:`mixed_frequencies`, one head or
        several).

    Returns
    -------
    numpy.ndarray
        float64 radians, shape ``frequencies.shape[:-2] + positions.shape[1:] +
        (P,)``; for ``(n_heads, P, 2)`` frequencies and ``(2, N)`` positions,
        ``(n_heads, N, P)``, the angles of the release's ``freqs_cis[i]`` (one block).

    Examples
    --------
    A pair whose vector points along the diagonal turns with ``t_x + t_y``; one along
    ``x`` ignores ``t_y``:

    >>> from sinpe.axes import mixed_angles
    >>> mixed_angles([[1.0, 2.0], [10.0, 20.0]], [[1.0, 1.0], [1.0, 0.0]]).tolist()
    [[11.0, 1.0], [22.0, 2.0]]
    """
    rows = _two_rows(positions)
    vectors = _frequency_vectors(frequencies)
    lead, pairs, spots = vectors.shape[:-2], vectors.shape[-2], rows.shape[1:]
    check_entries((*lead, *spots, pairs), what="the angles")
    f_x = vectors[..., 0].reshape(*lead, *([1] * len(spots)), pairs)
    f_y = vectors[..., 1].reshape(*lead, *([1] * len(spots)), pairs)
    with np.errstate(over="ignore", invalid="ignore"):
        angles = rows[0][..., np.newaxis] * f_x + rows[1][..., np.newaxis] * f_y
    check_phases(angles)
    return angles


@constrained(positions=POSITIONS)
def apply_mixed_rope(
    x: npt.ArrayLike, positions: npt.ArrayLike, frequencies: npt.ArrayLike
) -> np.ndarray:
    """Rotate ``x`` by RoPE-Mixed: pair ``j`` turns by ``t_x f_x + t_y f_y`` (:func:`mixed_angles`).

    Built from :func:`sinpe.rope.apply_rope` twice, with the ``f_x`` and then the ``f_y``
    of every pair: two turns of a pair add up to one turn by the sum of their angles.

    Parameters
    ----------
    x : array_like of real, shape (..., T, d)
        Query or key vectors of one head, paired in the interleaved layout (the
        release's ``reshape(*x.shape[:-1], -1, 2)``).
    positions : array_like of real, shape (2, ...)
        The rows ``t_x`` and ``t_y``, each broadcasting to ``x.shape[:-1]`` as in
        :func:`sinpe.rope.apply_rope`.
    frequencies : array_like of real, shape (d / 2, 2)
        One head's vectors, e.g. ``mixed_frequencies(d, n_heads, rng=rng)[h]``.

    Returns
    -------
    numpy.ndarray
        The shape and float dtype of ``x`` (float64 for other input).

    Examples
    --------
    With the vectors on the axes (``rotate=False``) it is the axial RoPE of a head cut
    in two blocks, one per axis:

    >>> import numpy as np
    >>> from sinpe.axes import apply_axial_rope, apply_mixed_rope, mixed_frequencies
    >>> x = np.arange(1.0, 9.0)
    >>> on_axes = mixed_frequencies(8, 1, base=100.0, rotate=False)[0]
    >>> mixed = apply_mixed_rope(x, [3.0, 5.0], on_axes)
    >>> bool(np.allclose(mixed, apply_axial_rope(x, [3.0, 5.0], [4, 4], base=100.0)))
    True
    """
    rows = _two_rows(positions)
    vectors = _frequency_vectors(frequencies)
    source = check_float_array(x, "x")
    if source.ndim == 0 or vectors.shape != (source.shape[-1] // 2, 2) or source.shape[-1] % 2:
        raise ValueError(
            f"frequencies must hold one (f_x, f_y) vector per pair of x: shape "
            f"(d / 2, 2) for x of shape (..., d), got {vectors.shape} for x of shape "
            f"{source.shape}"
        )
    mixed_angles(rows, vectors)  # the phases t_x f_x + t_y f_y must be finite
    turned = apply_rope(source, rows[0], frequencies=vectors[:, 0], layout="interleaved")
    return apply_rope(turned, rows[1], frequencies=vectors[:, 1], layout="interleaved")
