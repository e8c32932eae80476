"""Check any sinusoidal table: is it a valid encoding, and whose convention is it?

:func:`inspect_table` takes a table someone computed -- rows for positions
``0, 1, ..., n - 1`` unless ``positions`` says otherwise -- and tests the
properties every sinusoidal table must have (values in [-1, 1]; unit
(sin, cos) pairs so that ``|PE(p)|^2 = d/2``; ``PE(p + 1)`` a fixed linear
function of ``PE(p)``; dot products that depend on the offset only), then names
the conventions of :data:`sinpe.CONVENTIONS` it matches. NumPy only.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sinpe._validation import check_real_array
from sinpe.analysis import linear_map_residual
from sinpe.conventions import CONVENTIONS, encode
from sinpe.core import positional_encoding

__all__ = ["TableReport", "inspect_table"]


@dataclass
class TableReport:
    """What :func:`inspect_table` found. ``valid`` is True when ``problems`` is empty."""

    shape: tuple[int, int]
    matches: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        verdict = "valid sinusoidal table" if self.valid else "NOT a valid sinusoidal table"
        lines = [f"{self.shape[0]} x {self.shape[1]}: {verdict}"]
        lines += [f"  problem: {problem}" for problem in self.problems]
        lines.append(
            f"  matches: {', '.join(self.matches) if self.matches else 'no known convention'}"
        )
        return "\n".join(lines)


def _pairing(table: np.ndarray) -> str | None:
    """The layout whose (sin, cos) pairs all have unit length, if any.

    At an odd width one column is left over: a zero column after the pairs
    (tensor2tensor, fairseq) or an extra sine before the cosines (Hugging Face's
    Marian), so both placements of the cosines are tried.
    """
    width = table.shape[1]
    half, even = width // 2, width - width % 2
    layouts = {
        "interleaved": table[:, 0:even:2] ** 2 + table[:, 1:even:2] ** 2,
        "concat": table[:, :half] ** 2 + table[:, half : 2 * half] ** 2,
    }
    if width % 2:
        layouts["concat, sines first"] = table[:, :half] ** 2 + table[:, half + 1 :] ** 2
    for name, squares in layouts.items():
        if np.allclose(squares, 1.0, atol=1e-3):
            return name.split(",")[0]
    return None


def inspect_table(
    table: npt.ArrayLike, positions: npt.ArrayLike | None = None, *, tolerance: float = 1e-3
) -> TableReport:
    """Validate a sinusoidal table and name the conventions it matches.

    Parameters
    ----------
    table : array_like of real, shape (n, d)
        The table to check (n >= 3 rows), in any float dtype.
    positions : array_like of real, shape (n,), optional
        The positions of the rows; ``0 .. n - 1`` by default. The shift test
        needs consecutive integer positions and is skipped otherwise.
    tolerance : float, optional
        Absolute tolerance, loose enough for float16 tables.

    Returns
    -------
    TableReport
        ``matches`` lists the names of :data:`sinpe.CONVENTIONS` (plus
        ``"paper (concat layout)"``) whose table equals this one; ``problems``
        says in words what is wrong.

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a 2-D real array with at least 3 rows, or contains
        NaN or infinities (reported as a ValueError naming the first one).

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> from sinpe.checks import inspect_table
    >>> inspect_table(sinpe.positional_encoding(np.arange(50), 16)).matches
    ['paper']
    >>> bug = np.sin(np.arange(50)[:, None] / 10000 ** (2 * (np.arange(16) // 2) // 16))
    >>> inspect_table(bug).valid
    False
    """
    if (
        isinstance(tolerance, (bool, np.bool_))
        or not isinstance(tolerance, numbers.Real)
        or not np.isfinite(tolerance)
        or tolerance < 0
    ):
        raise ValueError(f"tolerance must be a finite number >= 0, got {tolerance!r}; e.g. 1e-3")
    values = check_real_array(table, name="table")
    if values.ndim != 2 or values.shape[0] < 3:
        raise ValueError(f"table must have shape (n >= 3, d), got {values.shape}")
    rows, width = values.shape
    where = np.arange(rows, dtype=float) if positions is None else check_real_array(positions)
    if where.shape != (rows,):
        raise ValueError(f"positions must have shape ({rows},), got {where.shape}")
    report = TableReport((rows, width))

    if np.max(np.abs(values)) > 1 + tolerance:
        report.problems.append(f"values leave [-1, 1] (largest {np.max(np.abs(values)):.3g})")
    layout = _pairing(values) if width >= 2 else None
    if layout is None:
        report.problems.append("no pairing of the columns gives unit (sin, cos) pairs")
        norms = np.sum(values**2, axis=1)
        if not np.allclose(norms, width / 2, atol=tolerance * width):
            report.problems.append(
                f"|PE(p)|^2 is not d/2 = {width / 2:g} (ranges {norms.min():.3g} .. "
                f"{norms.max():.3g})"
            )
    distinct_rows = np.unique(np.round(values, 6), axis=0).shape[0]
    if distinct_rows < rows:
        report.problems.append(
            f"only {distinct_rows} of {rows} rows are distinct: different positions share "
            f"an encoding (as when every token gets position 0)"
        )
    # Columns that vary over the rows must differ (nearly constant slow columns may tie).
    varying = values[:, np.ptp(values, axis=0) > 10 * tolerance]
    distinct = np.unique(np.round(varying, 3), axis=1).shape[1]
    if distinct < varying.shape[1]:
        report.problems.append(
            f"only {distinct} of {varying.shape[1]} varying columns are distinct: pairs share "
            f"a frequency (as when an integer division zeroes the exponent)"
        )
    if np.allclose(np.diff(where), 1.0):
        residual = linear_map_residual(values[:-1], values[1:])
        if residual > tolerance:
            report.problems.append(
                f"PE(p + 1) is not a fixed linear map of PE(p) (RMS residual {residual:.3g})"
            )
    for offset in range(1, min(rows, 8)):
        # the offset-th diagonal of the Gram matrix, without the n x n matrix: O(n d)
        diagonal = np.einsum("ij,ij->i", values[:-offset], values[offset:])
        if np.ptp(diagonal) > tolerance * width:
            report.problems.append(
                f"PE(p).PE(p + {offset}) depends on p, not only on the offset "
                f"(spread {np.ptp(diagonal):.3g})"
            )
            break

    candidates = {name: (name, {}) for name in CONVENTIONS}
    candidates["fairseq"] = ("fairseq", {"padding_idx": 1})
    for label, (name, options) in candidates.items():
        try:
            expected = encode(where, width, name, **options)
        except ValueError:
            continue
        if np.allclose(values, expected, atol=tolerance, rtol=0):
            report.matches.append(label)
    if width % 2 == 0:
        concat = positional_encoding(where, width, layout="concat")
        if np.allclose(values, concat, atol=tolerance, rtol=0):
            report.matches.append("paper (concat layout)")
    return report
