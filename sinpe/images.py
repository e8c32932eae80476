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
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sinpe._precision import warn_if_unresolvable
from sinpe._validation import (
    BASE,
    D_MODEL,
    DTYPE,
    FLAG,
    Integer,
    Options,
    check_entries,
    constrained,
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
    base=BASE,
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

    Each half is ``sinpe.positional_encoding(c, D, layout="concat")`` (and the
    same of ``r``), bit for bit. Rows are in raster order, patch ``(r, c)`` in
    row ``r * width + c``, as MAE flattens its grid. MAE builds only square
    grids; other grids keep the same layout.

    Parameters
    ----------
    height, width : int
        Rows and columns of the grid of patches (14 x 14 for a 224-pixel image
        cut into 16-pixel patches).
    d_model : int
        A positive multiple of 4 (two halves, each made of (sin, cos) pairs).
    base : float, optional
    first_half : {"column", "row"}, optional
        Which coordinate the first ``d_model / 2`` channels encode. ``"column"``
        is what MAE's code computes: it calls the first half ``emb_h`` but fills
        it from ``grid[0]``, which ``np.meshgrid(grid_w, grid_h)`` makes the
        column index ("here w goes first"). ``"row"`` follows the names.
    cls_token : bool, optional
        Prepend a row of zeros for the class token, as MAE's
        ``get_2d_sincos_pos_embed(..., cls_token=True)``.
    dtype : {numpy.float64, numpy.float32, numpy.float16}, optional
        Computed in float64 and rounded once; a PrecisionWarning when it cannot
        resolve the largest coordinate.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.images import sincos_2d
    >>> table = sincos_2d(2, 3, 8)
    >>> table.shape
    (6, 8)
    >>> np.round(table[1], 4).tolist()  # row 0, column 1: the first half moves
    [0.8415, 0.01, 0.5403, 1.0, 0.0, 0.0, 1.0, 1.0]
    >>> np.round(sincos_2d(2, 3, 8, first_half="row")[1], 4).tolist()
    [0.0, 0.0, 1.0, 1.0, 0.8415, 0.01, 0.5403, 1.0]
    """
    if d_model % 4:
        raise ValueError(
            f"d_model must be a multiple of 4, got {d_model}: each half is made of (sin, cos) "
            f"pairs; pass e.g. {max(4, d_model - d_model % 4)} or {d_model - d_model % 4 + 4}"
        )
    out_dtype = np.dtype(dtype)
    check_entries((height * width + cls_token, d_model), what="the embedding")
    half = d_model // 2
    # Each half is the 1-D table of one coordinate in the concat layout (all sines, then
    # all cosines), so the same bits as sinpe.positional_encoding on every machine.
    by_row = positional_encoding(np.arange(height), half, base=base, layout="concat")
    by_col = positional_encoding(np.arange(width), half, base=base, layout="concat")
    row_part = np.repeat(by_row, width, axis=0)  # row r * width + c: coordinate r
    col_part = np.tile(by_col, (height, 1))  # ... and coordinate c
    first, second = (col_part, row_part) if first_half == "column" else (row_part, col_part)
    table = np.zeros((cls_token + height * width, d_model), dtype=np.float64)
    table[cls_token:, :half] = first
    table[cls_token:, half:] = second
    warn_if_unresolvable(np.array([height - 1.0, width - 1.0]), out_dtype)
    return table.astype(out_dtype, copy=False)
