"""Rotary position embedding (RoPE): the rotation of chapter 2, moved into attention.

Su et al. (2021) rotate each pair of entries of a query or key vector by an angle
proportional to its position, with the same frequencies as the sinusoidal
encoding: ``theta_i = base ** (-2 i / d)``. Then ``RoPE(q, m) . RoPE(k, n)``
depends on ``m - n`` only.

Two layouts pair the entries differently (../shared/notes/conventions.md):

* ``"interleaved"`` -- pairs ``(x_2i, x_2i+1)``: RoFormer, Meta's Llama, GPT-J;
* ``"half"`` -- pairs ``(x_i, x_(i + d/2))`` ("rotate_half"): Hugging Face Llama,
  GPT-NeoX.

With the per-head permutation ``P = [0, 2, 4, ..., 1, 3, 5, ...]``,
``half(P x) = P interleaved(x)``; converting checkpoints therefore permutes the
rows of the query and key projections (:func:`convert_qk_weight`). Mixing the
layouts up gives fluent garbage (transformers #25199). NumPy only.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sinpe._validation import check_real_array
from sinpe.core import frequencies, layout_permutation

__all__ = ["ROPE_LAYOUTS", "apply_rope", "convert_qk_weight", "rope_permutation"]

ROPE_LAYOUTS = ("interleaved", "half")


def _check_rope_layout(layout: object) -> str:
    if layout not in ROPE_LAYOUTS:
        raise ValueError(f"unknown RoPE layout {layout!r}; use 'interleaved' or 'half'")
    return str(layout)


def apply_rope(
    x: npt.ArrayLike,
    positions: npt.ArrayLike,
    base: float = 10000.0,
    *,
    layout: str = "interleaved",
) -> np.ndarray:
    """Rotate each pair of entries of ``x`` by ``position * theta_i``.

    Parameters
    ----------
    x : array_like of real, shape (..., d)
        Query or key vectors (one head's width ``d``, even).
    positions : array_like of real
        Broadcastable to ``x.shape[:-1]``, e.g. shape ``(T,)`` for ``x`` of shape
        ``(..., T, d)``.
    base : float, optional
        The constant of the frequencies (10000 in RoFormer and Llama 2).
    layout : {"interleaved", "half"}, optional
        How entries are paired (see the module docstring).

    Returns
    -------
    numpy.ndarray
        float64 array of the shape of ``x``; norms are preserved.

    Raises
    ------
    TypeError, ValueError
        For non-real or non-finite input, an odd last axis, positions that do
        not broadcast, or an unknown layout.

    Examples
    --------
    The golden vector of ../shared/notes/conventions.md (q = 1..8, p = 1):

    >>> import numpy as np
    >>> from sinpe.rope import apply_rope
    >>> apply_rope(np.arange(1.0, 9.0), 1).round(6).tolist()
    [-1.14264, 1.922076, 2.585679, 4.279517, 4.939751, 6.049699, 6.991997, 8.006996]
    """
    vectors = check_real_array(x, name="x")
    chosen = _check_rope_layout(layout)
    if vectors.ndim == 0 or vectors.shape[-1] % 2:
        raise ValueError(f"the last axis of x must be even, got shape {vectors.shape}")
    width = vectors.shape[-1]
    where = check_real_array(positions, name="positions")
    try:
        angles = np.broadcast_to(where, vectors.shape[:-1])[..., np.newaxis] * frequencies(
            width, base
        )  # (..., d/2)
    except ValueError as error:
        raise ValueError(
            f"positions of shape {where.shape} do not broadcast to {vectors.shape[:-1]}"
        ) from error
    cos, sin = np.cos(angles), np.sin(angles)
    if chosen == "interleaved":
        first, second = vectors[..., 0::2], vectors[..., 1::2]
    else:
        first, second = vectors[..., : width // 2], vectors[..., width // 2 :]
    rotated_first = first * cos - second * sin
    rotated_second = first * sin + second * cos
    out = np.empty_like(vectors)
    if chosen == "interleaved":
        out[..., 0::2], out[..., 1::2] = rotated_first, rotated_second
    else:
        out[..., : width // 2], out[..., width // 2 :] = rotated_first, rotated_second
    return out


def rope_permutation(head_width: int) -> np.ndarray:
    """``P = [0, 2, 4, ..., 1, 3, 5, ...]``, so ``apply_rope(x[P], p, layout="half")`` is
    ``apply_rope(x, p)[P]``.

    Examples
    --------
    >>> from sinpe.rope import rope_permutation
    >>> rope_permutation(6).tolist()
    [0, 2, 4, 1, 3, 5]
    """
    return layout_permutation(head_width, "interleaved", "concat")


def convert_qk_weight(weight: npt.ArrayLike, n_heads: int, source: str, target: str) -> np.ndarray:
    """Permute the rows of a query or key projection between RoPE layouts.

    ``weight`` has shape ``(n_heads * head_width, d_in)`` (or a bias of shape
    ``(n_heads * head_width,)``); within each head the rows are reordered so
    that a model using the ``target`` layout computes the same attention scores
    as the original with the ``source`` layout -- what Hugging Face's
    ``convert_llama_weights_to_hf.py`` does from Meta's interleaved layout.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.rope import convert_qk_weight
    >>> convert_qk_weight(np.arange(8.0), 2, "interleaved", "half").tolist()
    [0.0, 2.0, 1.0, 3.0, 4.0, 6.0, 5.0, 7.0]
    """
    rows = np.asarray(weight)
    _check_rope_layout(source)
    _check_rope_layout(target)
    if rows.ndim not in (1, 2) or rows.shape[0] % n_heads:
        raise ValueError(
            f"weight must have n_heads * head_width rows, got shape {rows.shape} "
            f"for n_heads={n_heads}"
        )
    head_width = rows.shape[0] // n_heads
    if source == target:
        return rows.copy()
    perm = rope_permutation(head_width)
    if source == "half":
        perm = np.argsort(perm)
    heads = rows.reshape(n_heads, head_width, *rows.shape[1:])
    return heads[:, perm].reshape(rows.shape)
