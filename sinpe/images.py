"""Positions beyond sequences: the 2-D sine-cosine embedding of image models.

Image transformers cut an image into a grid of patches. ViT (Dosovitskiy et al. 2021)
learns a 1-D position embedding, one row per patch in raster order (its section 3.1:
2-D-aware variants, compared in its appendix D.4, gave no significant gain). MAE (He
et al. 2022) instead gives each patch a fixed 2-D sine-cosine embedding: half of the
channels encode one grid coordinate with a 1-D sine-cosine embedding, the other half
the other coordinate. :func:`sincos_2d` builds that table as MAE's
reference code does (``facebookresearch/mae``, ``util/pos_embed.py``,
``get_2d_sincos_pos_embed``), each half a table of
:func:`sinpe.positional_encoding`, so the table is the same bits on every machine.

Used in: chapter 8.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sinpe._validation import (
    D_MODEL,
    DTYPE,
    FLAG,
    Integer,
    Options,
    check_entries,
    constrained,
    warn_if_unresolvable,
)
from sinpe.core import positional_encoding

__all__ = ["FIRST_HALVES", "sincos_2d"]

#: Which grid coordinate the first half of the channels encodes: ``"column"`` is
#: MAE's (its ``np.meshgrid(grid_w, grid_h)`` puts the column index first).
FIRST_HALVES = ("column", "row")


@constrained(
    height=Integer(hint="such as 14 (patches per column)"),
    width=Integer(hint="such as 14 (patches per row)"),
    d_model=D_MODEL,
    first_half=Options(*FIRST_HALVES),
    cls_token=FLAG,
    dtype=DTYPE,
)
def sincos_2d(
    height: int,
    width: int,
    d_model: int,
    *,
    base: float = 10000.0,
    first_half: str = "column",
    cls_token: bool = False,
    dtype: npt.DTypeLike = np.float64,
) -> np.ndarray:
    """The 2-D sine-cosine position embedding of a ``height x width`` grid of patches.

    With ``D = d_model / 2`` and ``w_i = base ** (-2 i / D)`` for
    ``i = 0, ..., D/2 - 1`` (MAE's ``omega = 1 / 10000**(arange(D/2) / (D/2))``),
    the patch in row ``r`` and column ``c`` gets, with MAE's default
    ``first_half="column"``::

        [sin(c w_0), ..., sin(c w_{D/2-1}), cos(c w_0), ..., cos(c w_{D/2-1}),
         sin(r w_0), ..., sin(r w_{D/2-1}), cos(r w_0), ..., cos(r w_{D/2-1})]

    Each half is the 1-D encoding of one coordinate in the ``"concat"`` layout
    (all sines, then all cosines): ``sinpe.positional_encoding(c, D,
    layout="concat")`` and the same of ``r``, bit for bit.

    Parameters
    ----------
    height, width : int
        Rows and columns of the grid of patches (14 x 14 for a 224-pixel image cut
        into 16-pixel patches); each at least 1.
    d_model : int
        Width of the embedding; a positive multiple of 4 (two halves, each made
        of (sin, cos) pairs).
    base : float, optional
        The constant of the frequencies; finite, > 0 and not 1. MAE uses 10000.
    first_half : {"column", "row"}, optional
        Which coordinate the first ``d_model / 2`` channels encode. ``"column"``
        (default) is what MAE's code computes: it calls the first half ``emb_h``
        but fills it from ``grid[0]``, which ``np.meshgrid(grid_w, grid_h)``
        makes the column index (the comment there reads "here w goes first").
        ``"row"`` puts the row coordinate first, as the variable names suggest.
    cls_token : bool, optional
        Prepend a row of zeros for the class token, as MAE's
        ``get_2d_sincos_pos_embed(..., cls_token=True)``.
    dtype : {numpy.float64, numpy.float32, numpy.float16}, optional
        Output dtype; the values are computed in float64 and rounded once.

    Returns
    -------
    numpy.ndarray
        Array of shape ``(height * width, d_model)`` (one more row first with
        ``cls_token``). Rows are in row-major (raster) order: the patch in row
        ``r`` and column ``c`` is row ``r * width + c``, as MAE's
        ``grid.reshape([2, 1, grid_size, grid_size])`` flattens its grid.

    Raises
    ------
    TypeError
        If ``height``, ``width`` or ``d_model`` is not an integer, ``base`` not a
        real number, ``cls_token`` not a bool, or ``dtype`` not float16/32/64.
    ValueError
        If ``height`` or ``width`` is below 1, ``d_model`` is not a positive
        multiple of 4, ``base`` is not finite, <= 0 or 1, ``first_half`` is not
        ``"column"`` or ``"row"``, or the table would be too large.

    Warns
    -----
    PrecisionWarning
        When ``dtype`` cannot resolve the largest coordinate (beyond 2048 for
        float16).

    Notes
    -----
    MAE builds only square grids (``grid_size``); for ``height != width`` this
    function keeps the same layout. ViT itself learns its position embeddings;
    the fixed 2-D sine-cosine table is MAE's (and MoCo v3's) choice.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.images import sincos_2d
    >>> table = sincos_2d(2, 3, 8)
    >>> table.shape
    (6, 8)
    >>> table[0].tolist()  # patch (0, 0): sines 0, cosines 1, in both halves
    [0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0]
    >>> np.round(table[1], 4).tolist()  # row 0, column 1: the first half moves
    [0.8415, 0.01, 0.5403, 1.0, 0.0, 0.0, 1.0, 1.0]
    >>> np.round(sincos_2d(2, 3, 8, first_half="row")[1], 4).tolist()
    [0.0, 0.0, 1.0, 1.0, 0.8415, 0.01, 0.5403, 1.0]
    >>> sincos_2d(2, 2, 4, cls_token=True)[0].tolist()
    [0.0, 0.0, 0.0, 0.0]
    >>> sincos_2d(2, 2, 6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: d_model must be a multiple of 4, got 6: ...; pass e.g. 4 or 8
    """
    rows, cols, total = height, width, d_model
    if total % 4:
        raise ValueError(
            f"d_model must be a multiple of 4, got {total}: each half is made of "
            f"(sin, cos) pairs; pass e.g. {max(4, total - total % 4)} or {total - total % 4 + 4}"
        )
    order, with_cls, out_dtype = first_half, cls_token, dtype
    check_entries((rows * cols + with_cls, total), what="the embedding")
    half = total // 2
    # Each half is the 1-D table of one coordinate in the concat layout (all sines, then
    # all cosines), so the same bits as sinpe.positional_encoding on every machine.
    by_row = positional_encoding(np.arange(rows), half, base=base, layout="concat")
    by_col = positional_encoding(np.arange(cols), half, base=base, layout="concat")
    row_part = np.repeat(by_row, cols, axis=0)  # row r * width + c: coordinate r
    col_part = np.tile(by_col, (rows, 1))  # ... and coordinate c
    first, second = (col_part, row_part) if order == "column" else (row_part, col_part)
    table = np.zeros((with_cls + rows * cols, total), dtype=np.float64)
    table[with_cls:, :half] = first
    table[with_cls:, half:] = second
    warn_if_unresolvable(np.array([rows - 1.0, cols - 1.0]), out_dtype)
    return table.astype(out_dtype, copy=False)
