"""Check any sinusoidal table: is it a valid encoding, and whose convention is it?

:func:`inspect_table` takes a table someone computed -- rows for positions
``0, 1, ..., n - 1`` unless ``positions`` says otherwise -- and tests the
properties every sinusoidal table must have (values in [-1, 1]; unit
(sin, cos) pairs so that ``|PE(p)|^2 = d/2``; ``PE(p + 1)`` a fixed linear
function of ``PE(p)``; dot products that depend on the offset only), then names
the conventions of :data:`sinpe.CONVENTIONS` it matches. :data:`BUGGY_TABLES`
holds the bugs collected from real code, with their sources, for the checker
to catch (:func:`buggy_table` builds each). Used in: chapter 6. NumPy only.

The table is read in blocks of rows, never copied whole: a float32 table of
10**6 x 1024 (4 GiB) that follows a convention is checked in about 3 s on 2 cores,
in one read (see the Notes of :func:`inspect_table`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import as_strided

from sinpe._validation import (
    PrecisionWarning,
    check_choice,
    check_d_model,
    check_entries,
    check_finite_entries,
    check_real,
    check_real_array,
)
from sinpe.conventions import CONVENTIONS, _spaced_frequencies, encode
from sinpe.core import _rational_powers, frequencies, positional_encoding
from sinpe.geometry import linear_map_residual

__all__ = ["BUGGY_TABLES", "BuggyTable", "TableReport", "buggy_table", "inspect_table"]

#: Entries of one block of rows (2**18 float64 = 2 MiB; a few such buffers are live).
_BLOCK_ENTRIES = 2**18
#: Offsets k of the test "PE(p).PE(p + k) depends on the offset only".
_OFFSETS = 7
#: Rows compared with every convention before the full pass (plus evenly spread ones).
_SAMPLE_ROWS = 64
#: Columns whose rounded values are hashed to find repeated rows.
_KEY_COLUMNS = 16
#: Up to this size the shift map is fitted by least squares on the whole table.
_DIRECT_ENTRIES, _DIRECT_WORK = 2**22, 2**28
#: Disjoint row blocks fitted on their own to bound the shift-map residual from below.
_BOUND_BLOCKS = 4
_EPS = float(np.finfo(np.float64).eps)


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


def _pair_layouts(width: int) -> dict[str, tuple[slice, slice, slice]]:
    """Where the (sin, cos) pairs of each layout are: (first, second, left-over columns).

    At an odd width one column is left over: a zero column after the pairs
    (tensor2tensor, fairseq) or an extra sine before the cosines (Hugging Face's
    Marian), so both placements of the cosines are tried, in this order.
    """
    half, even = width // 2, width - width % 2
    layouts = {
        "interleaved": (slice(0, even, 2), slice(1, even, 2), slice(even, width)),
        "concat": (slice(0, half), slice(half, 2 * half), slice(2 * half, width)),
    }
    if width % 2:
        layouts["concat, sines first"] = (
            slice(0, half),
            slice(half + 1, width),
            slice(half, half + 1),
        )
    return layouts


@dataclass(frozen=True, eq=False)
class _Layout:
    """A convention's table as :func:`sinpe.encode` lays it out (checked against it)."""

    frequencies: np.ndarray  # of the sine columns; the cosines use the first ``cosines``
    cosines: int
    sines_at: slice
    cosines_at: slice
    zeros_at: slice
    padding: int | None  # fairseq's all-zero row

    def key(self) -> tuple:
        spans = (self.sines_at, self.cosines_at, self.zeros_at)
        return (
            self.frequencies.tobytes(),
            self.cosines,
            tuple((s.start, s.stop, s.step) for s in spans),
            self.padding,
        )

    def evaluate(self, where: np.ndarray, width: int) -> np.ndarray:
        """The rows at ``where`` from sines and cosines of the phases, as encode does."""
        phases = where[:, np.newaxis] * self.frequencies
        out = np.zeros((where.size, width))
        out[:, self.sines_at] = np.sin(phases)
        out[:, self.cosines_at] = np.cos(phases[:, : self.cosines])
        if self.padding is not None:
            out[where == self.padding] = 0.0
        return out


def _layout_of(name: str, options: dict, width: int) -> _Layout | None:
    """The layout of ``encode(positions, width, name, **options)``; None when it raises."""
    rule = CONVENTIONS[name]
    try:
        if name == "paper":
            half = width // 2
            concat = options.get("layout") == "concat"
            return _Layout(
                frequencies(width),
                half,
                slice(0, half) if concat else slice(0, width, 2),
                slice(half, width) if concat else slice(1, width, 2),
                slice(width, width),
                None,
            )
        if rule.odd_width == "raise" and width % 2:
            return None
        if rule.odd_width == "sin gets ceil(d/2)":
            sines, cosines = (width + 1) // 2, width // 2
            freq = _rational_powers(10000.0, sines, -2, width)
        else:
            sines = cosines = width // 2
            freq = _spaced_frequencies(sines, rule.spacing, 10000.0, name)
    except ValueError:
        return None
    if rule.layout not in ("concat", "concat-cos-first"):
        return None
    first, second = (cosines, sines) if rule.layout == "concat-cos-first" else (sines, cosines)
    spans = slice(0, first), slice(first, first + second)
    sines_at, cosines_at = spans[::-1] if rule.layout == "concat-cos-first" else spans
    padding = options.get("padding_idx") if name == "fairseq" else None
    return _Layout(freq, cosines, sines_at, cosines_at, slice(sines + cosines, width), padding)


@dataclass(eq=False)
class _Candidate:
    """A convention the table may follow: alive until a row differs from its table."""

    label: str
    name: str
    options: dict
    layout: _Layout | None
    alive: bool = True

    def expected(self, where: np.ndarray, width: int) -> np.ndarray:
        return encode(where, width, self.name, **self.options)


def _as_table(table: npt.ArrayLike) -> np.ndarray:
    """The table as an array of its own float dtype (no copy), else as float64.

    float16/32/64 arrays are kept as they are and read block by block (their
    finiteness is checked on each block, and the first NaN or infinity reported
    by ``check_finite_entries``). Everything else goes through
    ``check_real_array``, which converts to float64 and checks it.
    """
    array = np.asarray(table)
    if array.dtype in (np.float16, np.float32, np.float64):
        return array
    return check_real_array(array, name="table")


def _block_rows(rows: int, width: int) -> int:
    """Rows per block: a multiple of 8 (for the offset test), about 2 MiB of float64."""
    return max(8, min(rows, _BLOCK_ENTRIES // width) // 8 * 8)


def _blocks(rows: int, width: int, extra: int):
    """(start, stop, stop of the block with ``extra`` rows of look-ahead) for the pass."""
    step = _block_rows(rows, width)
    for start in range(0, rows, step):
        stop = min(start + step, rows)
        yield start, stop, min(stop + extra, rows)


def _read(values: np.ndarray, start: int, stop: int, buffer: np.ndarray) -> np.ndarray:
    """Rows ``start:stop`` of ``values``, converted to the dtype of ``buffer``, in it."""
    block = buffer[: stop - start]
    np.copyto(block, values[start:stop])
    return block


def _mix(bits: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each row of ``bits`` (uint64), the same for equal rows."""
    with np.errstate(over="ignore"):  # arithmetic modulo 2**64
        mixed = bits * weights
        mixed ^= mixed >> np.uint64(29)
        hashed = mixed.sum(axis=1, dtype=np.uint64)
    hashed ^= hashed >> np.uint64(32)
    return hashed


def _rounded_bits(block: np.ndarray, decimals: int) -> np.ndarray:
    """``np.round(block, decimals)`` as uint64 bit patterns, with -0.0 read as 0.0."""
    rounded = np.round(block, decimals)
    rounded += 0.0
    return rounded.view(np.uint64)


def _distinct_rows(values: np.ndarray, keys: np.ndarray, width: int) -> int:
    """How many rows differ after rounding to 6 decimals, given a hash of some columns.

    Rows with a unique ``keys`` entry differ from all others. The rows that share
    a key are hashed again on all columns, and each group that still shares both
    hashes is compared, entry by entry, with its first row; a group whose rows
    are not all equal (a collision of both hashes) is counted exactly with
    ``np.unique``. The count is exact; the work is O(n log n) plus O(d) per tied row.
    """
    rows = keys.size
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    tie = ordered[1:] == ordered[:-1]
    if not tie.any():
        return rows
    tied_mask = np.zeros(rows, dtype=bool)
    tied_mask[1:] |= tie
    tied_mask[:-1] |= tie
    tied = order[tied_mask]  # grouped by key, in table order within a group
    group = np.cumsum(np.r_[True, ordered[tied_mask][1:] != ordered[tied_mask][:-1]])
    weights = np.random.default_rng(0x51CE).integers(1, 2**63, width, dtype=np.uint64) | 1
    full = np.empty(tied.size, dtype=np.uint64)
    step = max(1, _BLOCK_ENTRIES // width)
    for start in range(0, tied.size, step):
        block = values[tied[start : start + step]].astype(np.float64)
        full[start : start + step] = _mix(_rounded_bits(block, 6), weights)
    # subgroups: same key and same full hash
    pairs = np.stack([group.astype(np.uint64), full], axis=1)
    _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    leader = tied[first][inverse]
    mismatch = np.zeros(first.size, dtype=bool)
    for start in range(0, tied.size, step):
        here = slice(start, start + step)
        mine = np.round(values[tied[here]].astype(np.float64), 6)
        theirs = np.round(values[leader[here]].astype(np.float64), 6)
        differ = (mine != theirs).any(axis=1)
        mismatch[inverse[here][differ]] = True
    distinct = rows - tied.size + first.size
    for subgroup in np.flatnonzero(mismatch):  # both hashes collided: count exactly
        members = tied[inverse == subgroup]
        rounded = np.round(values[members].astype(np.float64), 6)
        distinct += np.unique(rounded, axis=0).shape[0] - 1
    return distinct


def _refine_columns(classes: np.ndarray, block: np.ndarray) -> bool:
    """Split the classes of equal columns by the rows of ``block`` (rounded to 3 decimals).

    ``classes[j]`` labels column ``j``; columns share a label while their rounded
    values agree on every row read so far. Returns whether a class still has
    several columns (if not, no later row can change the partition).
    """
    sizes = np.bincount(classes)
    shared = np.flatnonzero(sizes[classes] > 1)
    if shared.size == 0:
        return False
    rounded = np.round(block[:, shared].astype(np.float64), 3)
    _, first = np.unique(classes[shared], return_index=True)
    where_first = np.empty(sizes.size, dtype=np.intp)
    where_first[classes[shared][first]] = first
    same = (rounded == rounded[:, where_first[classes[shared]]]).all(axis=0)
    if same.all():
        return True
    label = int(classes.max()) + 1
    for old in np.unique(classes[shared][~same]):
        members = np.flatnonzero(classes[shared] == old)
        _, inverse = np.unique(rounded[:, members], axis=1, return_inverse=True)
        classes[shared[members]] = label + inverse.reshape(-1)
        label += int(inverse.max()) + 1
    return bool((np.bincount(classes) > 1).any())


def _offset_dots(block: np.ndarray, rows: int, count: int, low: np.ndarray, high: np.ndarray):
    """Fold ``PE(p).PE(p + k)``, k = 1..count, into the extremes ``low``, ``high``.

    ``p`` runs over the first ``rows`` rows of ``block``. Rows go in groups of 8
    whose dot products with the next ``8 + count`` rows are one small matrix
    product each (the band of the Gram matrix, never the matrix).
    """
    total, width = block.shape
    grouped = min(rows, total - count) // 8 * 8 if total > count else 0
    if grouped:
        heads = block[:grouped].reshape(grouped // 8, 8, width)
        step, across = block.strides
        window = as_strided(
            block, (grouped // 8, width, 8 + count), (8 * step, across, step), writeable=False
        )
        gram = np.matmul(heads, window)  # (groups, 8, 8 + count)
        index = np.arange(8)
        for k in range(1, count + 1):
            dots = gram[:, index, index + k]
            low[k - 1] = min(low[k - 1], dots.min())
            high[k - 1] = max(high[k - 1], dots.max())
    for k in range(1, count + 1):
        last = min(rows, total - k)
        if last > grouped:
            dots = np.einsum("ij,ij->i", block[grouped:last], block[grouped + k : last + k])
            low[k - 1] = min(low[k - 1], dots.min())
            high[k - 1] = max(high[k - 1], dots.max())


def _candidates(values: np.ndarray, where: np.ndarray, tolerance: float) -> list[_Candidate]:
    """Every convention whose table can be built at this width, tested on a sample of rows.

    The sample is the first rows, rows spread over the table and the row of the
    largest position (so that encode raises and warns as on the whole table).
    """
    rows, width = values.shape
    picks = np.unique(
        np.r_[
            np.arange(min(rows, _SAMPLE_ROWS)),
            np.linspace(0, rows - 1, _SAMPLE_ROWS).round().astype(np.intp),
            np.argmax(np.abs(where)),
        ]
    )
    sample = values[picks].astype(np.float64)
    found = {name: (name, {}) for name in CONVENTIONS}
    found["fairseq"] = ("fairseq", {"padding_idx": 1})
    candidates = []
    for label, (name, options) in found.items():
        candidate = _Candidate(label, name, options, _layout_of(name, options, width))
        try:
            expected = candidate.expected(where[picks], width)
        except ValueError:
            continue
        candidate.alive = bool(np.allclose(sample, expected, atol=tolerance, rtol=0))
        layout = candidate.layout
        if layout is not None and not np.allclose(
            layout.evaluate(where[picks], width), expected, atol=1e-12, rtol=0
        ):
            candidate.layout = None  # encode changed: compare with encode itself
        candidates.append(candidate)
    return candidates


class _Generator:
    """The rows of one layout at consecutive positions, by angle addition.

    Row ``a + j`` of a block starting at position ``a`` is built from the sines and
    cosines of ``a w`` (once per block) and of ``j w`` (once): ``sin(a w + j w) =
    sin(a w) cos(j w) + cos(a w) sin(j w)``, in the table's own precision (float32
    for float16/32 tables). Where sines and cosines interleave, a pair is one
    complex number and a row one complex product, as in :func:`sinpe.table`.
    The result is within ``margin`` of encode's ``sin(fl(p w))``.
    """

    def __init__(self, layout: _Layout, width: int, block_rows: int, largest: float, work):
        self.layout, self.work = layout, np.dtype(work)
        fine = np.arange(block_rows, dtype=np.float64)[:, np.newaxis] * layout.frequencies
        fastest = float(np.max(layout.frequencies, initial=0.0))
        # phase roundings: a w, j w and encode's p w (each within eps/2 relative),
        # then 8 ULPs each for sin/cos (libm or SIMD), the products and the sum;
        # in float32, a few float32 roundings of the factors, product and difference
        self.margin = _EPS * (2 * (largest + block_rows) * fastest + 64)
        if self.work == np.float32:
            self.margin += 8 * float(np.finfo(np.float32).eps)
        self.complex = (layout.sines_at, layout.cosines_at) == (
            slice(0, width, 2),
            slice(1, width, 2),
        ) and layout.cosines == layout.frequencies.size
        if self.complex:  # (sin, cos)(a + j) = i e^{-i a w} e^{-i j w}
            pairs = np.complex64 if self.work == np.float32 else np.complex128
            self.fine = (np.cos(fine) - 1j * np.sin(fine)).astype(pairs)
            self.scratch = np.empty_like(self.fine)
        else:
            self.fine_sin, self.fine_cos = np.sin(fine).astype(work), np.cos(fine).astype(work)
            self.scratch = np.empty_like(self.fine_sin)
            self.other = np.empty_like(self.fine_sin)

    def worst(self, block: np.ndarray, start: float, where: np.ndarray) -> float:
        """max |block - expected| over a block of rows (C-contiguous, in ``work``)."""
        layout, rows = self.layout, block.shape[0]
        anchor = start * layout.frequencies
        sin_a, cos_a = np.sin(anchor), np.cos(anchor)
        if self.complex:
            expected = np.multiply(
                self.fine[:rows],
                (sin_a + 1j * cos_a).astype(self.fine.dtype),
                out=self.scratch[:rows],
            )
            np.subtract(block.view(self.fine.dtype), expected, out=expected)
            return _extreme(expected.view(self.work))
        sin_a, cos_a = sin_a.astype(self.work), cos_a.astype(self.work)
        fine_sin, fine_cos = self.fine_sin[:rows], self.fine_cos[:rows]
        padded = np.flatnonzero(where == layout.padding) if layout.padding is not None else []
        expected = np.multiply(fine_cos, sin_a, out=self.scratch[:rows])
        expected += np.multiply(fine_sin, cos_a, out=self.other[:rows])
        expected[padded] = 0.0
        worst = _extreme(np.subtract(block[:, layout.sines_at], expected, out=expected))
        count = layout.cosines
        expected = np.multiply(fine_cos[:, :count], cos_a[:count], out=self.scratch[:rows, :count])
        expected -= np.multiply(fine_sin[:, :count], sin_a[:count], out=self.other[:rows, :count])
        expected[padded] = 0.0
        difference = np.subtract(block[:, layout.cosines_at], expected, out=expected)
        worst = max(worst, _extreme(difference))
        return max(worst, _extreme(block[:, layout.zeros_at]))


def _extreme(values: np.ndarray) -> float:
    """max |values| (0 for an empty array)."""
    if not values.size:
        return 0.0
    return max(float(values.max()), -float(values.min()))


def _clean(layout: _Layout, width: int) -> bool:
    """Whether every row of the layout's exact table is a rotation of the previous one.

    True when each sine has its cosine (same frequency) and there is no padding
    row; the pairs are then those of one of :func:`_pair_layouts`, the rest zero.
    """
    if layout.padding is not None or not layout.cosines == layout.frequencies.size > 0:
        return False
    spans = [(layout.sines_at, layout.cosines_at), (layout.cosines_at, layout.sines_at)]
    return any(
        (first, second) in spans and rest == layout.zeros_at
        for first, second, rest in _pair_layouts(width).values()
    )


class _Matcher:
    """Compares every block with the conventions still alive after the sample.

    Consecutive positions: each distinct layout is generated once per block by a
    :class:`_Generator`; a block within its margin of the tolerance is compared
    with encode itself. Other positions: with encode, block by block. Also keeps,
    per layout, the largest deviation from the exact table seen (``deviation``).
    """

    def __init__(self, candidates, where, width, tolerance, block_rows, work):
        self.width, self.tolerance = width, tolerance
        self.candidates = [c for c in candidates if c.alive]
        self.groups = []  # [generator, members, deviation]
        self.exact = []  # [candidate, deviation]
        consecutive = bool(np.array_equal(np.diff(where), np.ones(where.size - 1)))
        largest = float(np.max(np.abs(where)))
        generators = {}
        for candidate in self.candidates:
            layout = candidate.layout
            if layout is None or not consecutive:
                self.exact.append([candidate, 0.0])
                continue
            key = layout.key()
            if key not in generators:
                generator = _Generator(layout, width, block_rows, largest, work)
                generators[key] = generator
                self.groups.append([generator, [], 0.0])
            next(g for g in self.groups if g[0] is generators[key])[1].append(candidate)
        # |encode - exact table|: the rounding of p w and of sin/cos (core.positional_encoding)
        fastest = max(
            (
                float(np.max(c.layout.frequencies, initial=0.0))
                for c in self.candidates
                if c.layout is not None
            ),
            default=1.0,
        )
        self.rounding = 2 * _EPS * (2 + largest * fastest)

    def block(self, block: np.ndarray, where: np.ndarray) -> None:
        """Compare one block of rows (in the generators' precision) with the candidates."""
        tolerance = self.tolerance
        for group in self.groups:
            generator, members, _ = group
            if not members[0].alive:
                continue
            worst = generator.worst(block, float(where[0]), where)
            if tolerance - generator.margin < worst <= tolerance + generator.margin:
                worst = self._exact(members[0], block, where)  # too close to call
            elif worst <= tolerance:
                worst += generator.margin
            group[2] = max(group[2], worst)
            if worst > tolerance:
                for candidate in members:
                    candidate.alive = False
        for entry in self.exact:
            if entry[0].alive:
                worst = self._exact(entry[0], block, where)
                entry[1] = max(entry[1], worst)
                entry[0].alive = worst <= tolerance

    def _exact(self, candidate: _Candidate, block: np.ndarray, where: np.ndarray) -> float:
        """max |block - encode(...)|, as ``np.allclose(block, expected, atol, rtol=0)`` sees it."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrecisionWarning)  # already raised on the sample
            expected = candidate.expected(where, self.width)
        return _extreme(block.astype(np.float64) - expected)

    def certified(self) -> float | None:
        """The smallest deviation from the exact table of a clean convention that matched."""
        found = [
            deviation
            for generator, members, deviation in self.groups
            if members[0].alive and _clean(generator.layout, self.width)
        ]
        found += [
            deviation
            for candidate, deviation in self.exact
            if candidate.alive
            and candidate.layout is not None
            and _clean(candidate.layout, self.width)
        ]
        return min(found) + self.rounding if found else None


def _settled(deviation: float, tolerance: float, width: int) -> bool:
    """Whether a table within ``deviation`` of a clean convention passes the other tests.

    With ``PE = E + D``, ``E`` the exact rotating table and ``|D| <= delta`` entrywise:
    a pair's ``x^2 + y^2`` is within ``2 sqrt(2) delta + 2 delta^2`` of 1; the map
    that rotates each pair of ``E`` leaves an RMS residual of at most
    ``(1 + sqrt(2)) delta``; and ``PE(p).PE(p + k)`` is within ``sqrt(2) d delta +
    d delta^2`` of the constant ``E(p).E(p + k)``. Each bound (with the rounding
    of the float64 sums) must clear its threshold.
    """
    delta = deviation
    rounding = 4 * width * width * _EPS * (1 + delta) ** 2
    return (
        2 * np.sqrt(2) * delta + 2 * delta**2 + 8 * _EPS <= 1e-3 + 1e-5
        and (1 + np.sqrt(2)) * delta + 8 * _EPS <= tolerance
        and 2 * (np.sqrt(2) * width * delta + width * delta**2 + rounding) <= tolerance * width
    )


@dataclass
class _Pass:
    """What the read(s) of the table found (see :func:`_scan`)."""

    col_min: np.ndarray | None = None
    col_max: np.ndarray | None = None
    classes: np.ndarray | None = None
    keys: np.ndarray | None = None
    norm_min: float = np.inf
    norm_max: float = -np.inf
    alive_layouts: list[str] = field(default_factory=list)
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    sums: dict = field(default_factory=dict)  # for the shift-map bound


def _work_dtype(values: np.ndarray) -> np.dtype:
    """Precision of the first read: the table's own (float16 is read as float32)."""
    return np.dtype(np.float64 if values.dtype == np.float64 else np.float32)


def _scan_basic(values: np.ndarray, where: np.ndarray, matcher: _Matcher | None) -> _Pass:
    """The first read, in the table's precision: extremes, row keys, equal columns, matching."""
    rows, width = values.shape
    work = _work_dtype(values)
    found = _Pass(np.full(width, np.inf), np.full(width, -np.inf), np.zeros(width, np.intp))
    found.keys = np.empty(rows, dtype=np.uint64)
    key_columns = np.unique(np.linspace(0, width - 1, min(width, _KEY_COLUMNS)).round())
    key_columns = key_columns.astype(np.intp)
    weights = np.random.default_rng(0x5EED).integers(1, 2**63, key_columns.size, dtype=np.uint64)
    weights |= np.uint64(1)
    refining = width > 1
    step = _block_rows(rows, width)
    direct = values.dtype == work and values.flags.c_contiguous
    buffer = None if direct else np.empty((step, width), dtype=work)
    for start in range(0, rows, step):
        stop = min(start + step, rows)
        block = values[start:stop] if direct else _read(values, start, stop, buffer)
        low, high = block.min(axis=0), block.max(axis=0)
        if not (np.isfinite(low).all() and np.isfinite(high).all()):
            check_finite_entries(values, name="table")  # raises, naming the first one
        np.minimum(found.col_min, low, out=found.col_min)
        np.maximum(found.col_max, high, out=found.col_max)
        bits = _rounded_bits(block[:, key_columns].astype(np.float64), 6)
        found.keys[start:stop] = _mix(bits, weights)
        if refining:
            refining = _refine_columns(found.classes, block)
        if matcher is not None:
            matcher.block(block, where[start:stop])
    return found


def _scan_full(values: np.ndarray, found: _Pass, shift_sums: bool) -> None:
    """The second read, in float64: pairs, norms, shift-map sums, offset dot products."""
    rows, width = values.shape
    count = min(rows, _OFFSETS + 1) - 1
    layouts = _pair_layouts(width) if width >= 2 else {}
    alive = dict.fromkeys(layouts, True)
    unit = 1e-3 + 1e-5  # np.allclose(squares, 1.0, atol=1e-3): |x - 1| <= atol + rtol
    found.low, found.high = np.full(count, np.inf), np.full(count, -np.inf)
    squares_sum, lag_sum = np.zeros(width), np.zeros(width)
    cross = {name: np.zeros(width // 2) for name in layouts}
    scores: dict[str, list[tuple[float, int]]] = {name: [] for name in layouts}
    rotations: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    step = _block_rows(rows, width)
    buffer = np.empty((step + count, width))
    squares = np.empty((step, width))
    for start, stop, ahead in _blocks(rows, width, count):
        block = _read(values, start, ahead, buffer)
        own = block[: stop - start]
        sq = np.multiply(own, own, out=squares[: stop - start])
        norms = sq.sum(axis=1)
        found.norm_min = min(found.norm_min, float(norms.min()))
        found.norm_max = max(found.norm_max, float(norms.max()))
        for name, (first, second, _) in layouts.items():
            if alive[name]:
                pairs = sq[:, first] + sq[:, second]
                alive[name] = bool(pairs.max() - 1.0 <= unit and 1.0 - pairs.min() <= unit)
        if shift_sums:
            squares_sum += sq.sum(axis=0)
            if start == 0:
                found.sums["first"] = sq[0].copy()
            if stop == rows:
                found.sums["last"] = sq[-1].copy()
            lagged = min(stop, rows - 1) - start
            now, after = block[:lagged], block[1 : lagged + 1]
            lag = np.einsum("ij,ij->j", now, after)
            lag_sum += lag
            before = sq[:lagged].sum(axis=0)
            sums = (before, before - sq[0] + block[lagged] ** 2, lag)
            for name, (first, second, _) in layouts.items():
                if alive[name] and lagged:
                    turn = np.einsum("ij,ij->j", after[:, second], now[:, first])
                    turn -= np.einsum("ij,ij->j", after[:, first], now[:, second])
                    cross[name] += turn
                    score = _rotation_score(layouts[name], sums, turn, rotations, name)
                    scores[name].append((score, (start + stop) // 2))
        _offset_dots(block, stop - start, count, found.low, found.high)
    found.alive_layouts = [name for name in layouts if alive[name]]
    suspects = {name: [row for _, row in sorted(scores[name], reverse=True)] for name in layouts}
    found.sums.update(squares=squares_sum, lag=lag_sum, cross=cross, suspects=suspects)


def _rotation_score(
    layout: tuple[slice, slice, slice], sums: tuple, turn: np.ndarray, rotations: dict, name: str
) -> float:
    """Squared residual, over one block, of the pairwise rotation fitted on the first block.

    ``sums`` holds the block's column sums of ``x_p^2``, ``x_{p+1}^2`` and
    ``x_p x_{p+1}``; ``turn`` its pairwise ``Im sum z_{p+1} conj(z_p)``. Blocks
    where the table stops turning as it did at first score high: the lower bound
    of the shift-map residual looks there first.
    """
    first, second, rest = layout
    before, after, lag = sums
    turned = (lag[first] + lag[second]) + 1j * turn
    norm_before, norm_after = before[first] + before[second], after[first] + after[second]
    if name not in rotations:
        with np.errstate(divide="ignore", invalid="ignore"):
            rotations[name] = (
                np.where(norm_before > 0, turned / norm_before, 0.0),
                np.where(before[rest] > 0, lag[rest] / before[rest], 0.0),
            )
    pair, single = rotations[name]
    error = norm_after - 2 * (np.conj(pair) * turned).real + np.abs(pair) ** 2 * norm_before
    error_rest = after[rest] - 2 * single * lag[rest] + single**2 * before[rest]
    return float(np.sum(error) + np.sum(error_rest))


def _shift_bound(sums: dict, layout: str, rows: int, width: int) -> float | None:
    """An upper bound on the RMS residual of the best linear map PE(p) -> PE(p + 1).

    Fitting each (sin, cos) pair of ``layout`` on its own by a rotation-scaling
    ``z(p + 1) = c z(p)`` (``z = first + i second``) and each left-over column
    by a scalar is one particular linear map, so its residual bounds the best
    one's from above. Exact for a sinusoidal table, whose pairs rotate.
    Returns None when the rounding of the sums could hide the answer.
    """
    first, second, rest = _pair_layouts(width)[layout]
    squares, lag = sums["squares"], sums["lag"]
    before = squares - sums["last"]  # sum over p < n - 1 of x_p^2
    after = squares - sums["first"]  # sum over p >= 1
    real = lag[first] + lag[second]
    imag = sums["cross"][layout]
    norm_before = before[first] + before[second]
    norm_after = after[first] + after[second]
    fitted = np.where(norm_before > 0, (real**2 + imag**2) / norm_before, 0.0)
    left = np.where(before[rest] > 0, lag[rest] ** 2 / before[rest], 0.0)
    error = np.sum(norm_after - fitted) + np.sum(after[rest] - left)
    # the sums ran over n terms: each within n eps of its value (naive summation)
    slack = 8 * rows * _EPS * (np.sum(after) + np.sum(before))
    if not np.isfinite(error + slack):
        return None
    return float(np.sqrt(max(error + slack, 0.0) / ((rows - 1) * width)))


def _lower_bound(values: np.ndarray, tolerance: float, suspects: list[int]) -> float:
    """A lower bound on the RMS residual of the best linear map, from a few row windows.

    The best map for the whole table is one candidate for each of some disjoint
    windows of ``8 d + 8`` consecutive pairs, so their residuals, each window
    fitted on its own, add up to at most the table's. A window's residual is
    bounded from below by ``|R_22|^2`` of a QR factorisation of ``[X Y]`` (its
    first ``d`` directions span at least the columns of ``X``). Windows are
    centred on the ``suspects`` (rows where the pairs stop rotating as they did
    at first), else spread evenly; stops once the bound exceeds ``tolerance``.
    """
    rows, width = values.shape
    length = min(8 * width + 8, rows - 1)
    pairs = (rows - 1) * width
    starts = [min(max(row - length // 2, 0), rows - 1 - length) for row in suspects]
    starts += list(np.linspace(0, rows - 1 - length, _BOUND_BLOCKS).round().astype(int))
    chosen: list[int] = []
    total = 0.0
    for start in starts:
        if len(chosen) == _BOUND_BLOCKS or total > tolerance**2 * pairs:
            break
        if any(abs(start - other) < length for other in chosen):
            continue  # windows must not share a pair (p, p + 1)
        chosen.append(start)
        window = np.empty((length, 2 * width))
        window[:, :width] = values[start : start + length]
        window[:, width:] = values[start + 1 : start + length + 1]
        factor = np.linalg.qr(window, mode="r")
        del window
        total += float(np.sum(factor[width:, width:] ** 2))
    return float(np.sqrt(total / pairs))


def _pairs_of_rows(values: np.ndarray, columns: np.ndarray, rows_per_block: int):
    """Blocks ``(X, Y)`` of float64 rows ``PE(p)`` and ``PE(p + 1)``, restricted to ``columns``."""
    rows = values.shape[0]
    for start in range(0, rows - 1, rows_per_block):
        stop = min(start + rows_per_block, rows - 1)
        block = values[start : stop + 1, columns].astype(np.float64)
        yield block[:-1], block[1:]


def _qr_residual(values: np.ndarray, columns: np.ndarray) -> float:
    """RMS residual of the least-squares map PE(p) -> PE(p + 1), exactly as lstsq.

    The R factor of ``[X Y]`` is updated block by block (a QR of the previous R
    stacked on the next rows: O(n d^2) time, O(d^2) memory). Since
    ``[X Y] = Q R`` with orthonormal ``Q``, ``|X A - Y| = |R_X A - R_Y|`` for
    every ``A``, so least squares on the 2d x 2d factor (same singular values,
    same cut-off as ``np.linalg.lstsq`` on the whole table) gives the residual.
    """
    rows, width = values.shape
    kept = columns.size
    factor = np.zeros((0, 2 * kept))
    for now, after in _pairs_of_rows(values, columns, max(2 * kept, _block_rows(rows, kept))):
        stacked = np.concatenate([factor, np.concatenate([now, after], axis=1)])
        factor = np.linalg.qr(stacked, mode="r")
    inputs, targets = factor[:, :kept], factor[:, kept:]
    cut = _EPS * max(rows - 1, width)
    solution = np.linalg.lstsq(inputs, targets, rcond=cut)[0]
    error = float(np.sum((inputs @ solution - targets) ** 2))
    return float(np.sqrt(error / ((rows - 1) * width)))


def _direct(rows: int, width: int) -> bool:
    """Whether the shift map is fitted by least squares on the whole table (small tables)."""
    return rows * width <= _DIRECT_ENTRIES and rows * width * min(rows, width) <= _DIRECT_WORK


def _shift_residual(values: np.ndarray, tolerance: float, found: _Pass) -> tuple[float, bool]:
    """(residual, is_lower_bound) of the best linear map PE(p) -> PE(p + 1).

    Small tables: least squares on the whole table, as ``linear_map_residual``.
    Otherwise the pairwise bound settles every table whose pairs rotate (all
    valid ones) in O(d) after the pass. The others get a lower bound from a few
    row windows (reported as "at least" when it exceeds the tolerance), else the
    exact residual from a blockwise QR, O(n d^2). (Normal equations would be
    cheaper but cannot be trusted: the slow pairs make ``X^T X`` singular in
    float64.) Columns that are zero on every row are left out: they change no
    residual.
    """
    rows, width = values.shape
    if _direct(rows, width):
        as64 = np.asarray(values, dtype=np.float64)
        return linear_map_residual(as64[:-1], as64[1:]), False
    if found.alive_layouts:
        bound = _shift_bound(found.sums, found.alive_layouts[0], rows, width)
        if bound is not None and bound <= tolerance:
            return bound, False
    suspects = (
        found.sums.get("suspects", {}).get(found.alive_layouts[0], [])
        if found.alive_layouts
        else []
    )
    lower = _lower_bound(values, tolerance, suspects) if rows - 1 > 2 * width + 8 else 0.0
    if lower > tolerance:
        return lower, True
    columns = np.flatnonzero((found.col_min != 0) | (found.col_max != 0))
    if columns.size == 0:
        return 0.0, False
    return _qr_residual(values, columns), False


def inspect_table(
    table: npt.ArrayLike, positions: npt.ArrayLike | None = None, *, tolerance: float = 1e-3
) -> TableReport:
    """Validate a sinusoidal table and name the conventions it matches.

    Parameters
    ----------
    table : array_like of real, shape (n, d)
        The table to check (n >= 3 rows), in any float dtype. float16/32/64
        arrays are read in place, never copied whole.
    positions : array_like of real, shape (n,), optional
        The positions of the rows; ``0 .. n - 1`` by default. The shift test
        needs consecutive integer positions and is skipped otherwise.
    tolerance : float, optional
        Absolute tolerance, loose enough for float16 tables.

    Returns
    -------
    TableReport
        ``matches`` lists the names of :data:`sinpe.CONVENTIONS` whose table
        equals this one, every entry within ``tolerance`` (the paper's table in
        the concat layout is ``"hf-marian"``: the two are equal, so it is named
        once); ``problems`` says in words what is wrong.

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a 2-D real array with at least 3 rows, or contains
        NaN or infinities (reported as a ValueError naming the first one).

    Notes
    -----
    The table is read in blocks of rows (about 2 MiB each), never copied whole.
    The conventions are compared on a sample of rows, then the ones left on
    every row, their tables generated by angle addition (with
    :func:`sinpe.encode` deciding wherever the two could disagree within the
    tolerance, and whenever the positions are not consecutive). Values, repeated
    rows (hashed; tied rows compared entry by entry) and equal columns are
    checked in the same read. When the table is within ``delta`` of a
    convention whose rows rotate (every one but fairseq's, with its zero
    padding row, and Hugging Face Marian's at odd widths), the pair, shift-map
    and offset tests follow from ``delta`` and are settled without computing
    them. So a float32 or float64 table of any convention costs O(n d) time
    and O(n + d) memory besides the table: about 3 s for a float32 table of
    10**6 x 1024 on 2 cores (``benchmarks/inspect_table.py``).

    Any other table is read a second time, in float64: the offset dot products
    as a band of the Gram matrix, O(n d). The shift-map residual is a
    least-squares fit when ``n d min(n, d) <= 2**28``; above, a rotation fitted
    to each (sin, cos) pair bounds it from above, which settles every table
    whose pairs rotate. A table that fails that bound gets a lower bound from a
    few windows of rows, reported as "at least", or, if that does not settle
    it, the exact residual from a blockwise QR: O(n d^2) time and O(d^2)
    memory (minutes at 10**6 x 1024).

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> from sinpe.checks import inspect_table
    >>> inspect_table(sinpe.positional_encoding(np.arange(50), 16)).matches
    ['paper']
    >>> bug = np.sin(np.arange(50)[:, None] / 10000 ** (2 * (np.arange(16) // 2) // 16))
    >>> inspect_table(bug).valid
    False
    >>> big = sinpe.table(100_000, 64, dtype=np.float32)   # checked in blocks, no float64 copy
    >>> report = inspect_table(big)
    >>> report.valid, report.matches
    (True, ['paper'])
    """
    tolerance = check_real(tolerance, "tolerance", minimum=0.0, hint="e.g. 1e-3")
    values = _as_table(table)
    if values.ndim != 2 or values.shape[0] < 3 or values.shape[1] < 1:
        raise ValueError(f"table must have shape (n >= 3, d >= 1), got {values.shape}")
    rows, width = values.shape
    where = np.arange(rows, dtype=float) if positions is None else check_real_array(positions)
    if where.shape != (rows,):
        raise ValueError(f"positions must have shape ({rows},), got {where.shape}")
    report = TableReport((rows, width))
    tolerance = float(tolerance)
    shift = bool(np.allclose(np.diff(where), 1.0))
    with np.errstate(all="ignore"):  # huge entries overflow to inf, reported as such
        _inspect(values, where, tolerance, shift, report)
    return report


def _inspect(
    values: np.ndarray, where: np.ndarray, tolerance: float, shift: bool, report: TableReport
) -> None:
    """The tests of :func:`inspect_table`, in the order of its report."""
    rows, width = values.shape
    candidates = _candidates(values, where, tolerance)
    block_rows = _block_rows(rows, width)
    matcher = _Matcher(candidates, where, width, tolerance, block_rows, _work_dtype(values))
    found = _scan_basic(values, where, matcher)
    deviation = matcher.certified()
    settled = deviation is not None and _settled(deviation, tolerance, width)
    if not settled:
        _scan_full(values, found, shift and not _direct(rows, width))

    largest = max(float(found.col_max.max()), -float(found.col_min.min()))
    if largest > 1 + tolerance:
        report.problems.append(f"values leave [-1, 1] (largest {largest:.3g})")
    if not settled and not found.alive_layouts:
        report.problems.append("no pairing of the columns gives unit (sin, cos) pairs")
        half = width / 2
        spread = tolerance * width + 1e-5 * half  # np.allclose(norms, d / 2, atol=tol d)
        if not (found.norm_max - half <= spread and half - found.norm_min <= spread):
            report.problems.append(
                f"|PE(p)|^2 is not d/2 = {width / 2:g} (ranges {found.norm_min:.3g} .. "
                f"{found.norm_max:.3g})"
            )
    distinct_rows = _distinct_rows(values, found.keys, width)
    if distinct_rows < rows:
        report.problems.append(
            f"only {distinct_rows} of {rows} rows are distinct: different positions share "
            f"an encoding (as when every token gets position 0)"
        )
    # Columns that vary over the rows must differ (nearly constant slow columns may tie).
    varying = found.col_max - found.col_min > 10 * tolerance
    distinct = np.unique(found.classes[varying]).size
    if distinct < varying.sum():
        report.problems.append(
            f"only {distinct} of {varying.sum()} varying columns are distinct: pairs share "
            f"a frequency (as when an integer division zeroes the exponent)"
        )
    if shift and not settled:
        residual, at_least = _shift_residual(values, tolerance, found)
        if residual > tolerance:
            report.problems.append(
                f"PE(p + 1) is not a fixed linear map of PE(p) (RMS residual "
                f"{'at least ' if at_least else ''}{residual:.3g})"
            )
    for offset in range(1, 0 if settled else found.low.size + 1):
        # the offset-th diagonal of the Gram matrix, without the n x n matrix: O(n d)
        spread = found.high[offset - 1] - found.low[offset - 1]
        if spread > tolerance * width:
            report.problems.append(
                f"PE(p).PE(p + {offset}) depends on p, not only on the offset (spread {spread:.3g})"
            )
            break
    report.matches = [candidate.label for candidate in candidates if candidate.alive]


# ---------------------------------------------------------------------------
# The bug gallery: tables with the bugs seen in real code (chapter 6, the tests)


@dataclass(frozen=True)
class BuggyTable:
    """A sinusoidal table with one bug seen in real code, and where it was seen.

    Attributes
    ----------
    name : str
        The key in :data:`BUGGY_TABLES`.
    bug : str
        The bug in words, with the expression that goes wrong.
    source : str
        Where it was reported (repository and issue or pull request).
    build : callable
        ``build(positions, d_model)``: the buggy table for float positions of
        shape ``(n,)``, shape ``(n, d_model)``.
    symbolic : str or None
        The key of the same bug in :data:`sinpe.symbolic.WRONG_ENCODINGS`, where
        the proofs of chapter 2 are shown to reject it.
    """

    name: str
    bug: str
    source: str
    build: Callable[[np.ndarray, int], np.ndarray]
    symbolic: str | None = None


def _interleave(sines: np.ndarray, cosines: np.ndarray) -> np.ndarray:
    table = np.empty((sines.shape[0], 2 * sines.shape[1]))
    table[:, 0::2], table[:, 1::2] = sines, cosines
    return table


def _phases(positions: np.ndarray, d_model: int, exponent: np.ndarray) -> np.ndarray:
    return positions[:, np.newaxis] / 10000.0**exponent  # (n, d/2)


def _even(d_model: int) -> np.ndarray:
    return np.arange(0, d_model, 2)


_GALLERY = (
    BuggyTable(
        "integer division 2*i//d",
        "the exponent 2i // d is 0 for every pair, so all pairs share frequency 1",
        "Kyubyong/transformer, pull request 81",
        lambda p, d: _interleave(
            np.sin(_phases(p, d, _even(d) // d)), np.cos(_phases(p, d, _even(d) // d))
        ),
        symbolic="integer division 2*i//d",
    ),
    BuggyTable(
        "/div_term instead of *",
        "positions divided by div_term = 10000**(-2i/d) instead of multiplied by it",
        "harvardnlp/annotated-transformer, issue 131",
        lambda p, d: _interleave(
            np.sin(_phases(p, d, -_even(d) / d)), np.cos(_phases(p, d, -_even(d) / d))
        ),
    ),
    BuggyTable(
        "sines only",
        "sin in every column, the cosines never written",
        "a wrong exponent on the cos term, in tutorials (chapter 2's counterexample)",
        lambda p, d: np.repeat(np.sin(_phases(p, d, _even(d) / d)), 2, axis=1),
        symbolic="sine only",
    ),
    BuggyTable(
        "wrong exponent on cos",
        "cos(p / 10000**((2i + 1) / d)): the cosine of a pair at another frequency",
        "tutorials that index the cos term by its own column 2i + 1",
        lambda p, d: _interleave(
            np.sin(_phases(p, d, _even(d) / d)), np.cos(_phases(p, d, (_even(d) + 1) / d))
        ),
    ),
    BuggyTable(
        "cosine at double frequency",
        "cos(2 p w_i) beside sin(p w_i): the cosine turns twice as fast",
        "a slip of the same kind (chapter 2 shows no fixed linear map exists)",
        lambda p, d: _interleave(
            np.sin(_phases(p, d, _even(d) / d)), np.cos(2 * _phases(p, d, _even(d) / d))
        ),
        symbolic="cosine at double frequency",
    ),
    BuggyTable(
        "every token at position 0",
        "batch-first and sequence-first confused: the table is sliced by batch, not by "
        "position, so every token gets the row of position 0",
        "pytorch/tutorials, issue 1547; AkiRusProd/numpy-transformer, issue 1",
        lambda p, d: np.tile(positional_encoding(0, d), (p.shape[0], 1)),
    ),
    BuggyTable(
        "fp16 phases",
        "the phases p * w_i rounded to float16, and sin and cos taken in float16",
        "EleutherAI/gpt-neox, issue 1003; vllm, pull request 54620",
        lambda p, d: _interleave(
            np.sin(_phases(p, d, _even(d) / d).astype(np.float16)),
            np.cos(_phases(p, d, _even(d) / d).astype(np.float16)),
        ),
    ),
    BuggyTable(
        "swapped layout (cos, sin)",
        "pairs stored as (cos, sin): a valid rotation, but no code base's table",
        "tensor2tensor, pull request 177 (reverted); flashinfer, pull request 3819",
        lambda p, d: _interleave(
            np.cos(_phases(p, d, _even(d) / d)), np.sin(_phases(p, d, _even(d) / d))
        ),
        symbolic="swapped layout (cos, sin)",
    ),
    BuggyTable(
        "precedence / d_model // 2",
        "2i / d_model // 2 floors the exponent to 0, so all pairs share frequency 1",
        "zju3dv/LoFTR, issue 41",
        lambda p, d: _interleave(
            np.sin(_phases(p, d, _even(d) / d // 2)), np.cos(_phases(p, d, _even(d) / d // 2))
        ),
    ),
    BuggyTable(
        "table overwritten by init",
        "a fixed table registered as a parameter and re-initialised with N(0, 0.02) noise",
        "huggingface/transformers, issue 29807",
        lambda p, d: np.random.default_rng(0).normal(0.0, 0.02, (p.shape[0], d)),
    ),
)

#: The bugs collected from real code, by name; :func:`buggy_table` builds each.
BUGGY_TABLES: dict[str, BuggyTable] = {bug.name: bug for bug in _GALLERY}


def buggy_table(name: str, positions: npt.ArrayLike, d_model: int) -> np.ndarray:
    """The table of ``positions`` with the bug :data:`BUGGY_TABLES` ``[name]``.

    Parameters
    ----------
    name : str
        A key of :data:`BUGGY_TABLES`, e.g. ``"integer division 2*i//d"``.
    positions : array_like of real, shape (n,)
        The positions of the rows.
    d_model : int
        The width, even.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d_model)``, float64 (the ``"fp16 phases"`` table holds the
        float16 sines and cosines of float16 phases, as the buggy code computes them).

    Raises
    ------
    TypeError, ValueError
        For an unknown ``name``, positions that are not a 1-D array of finite
        reals, or a width that is not a positive even integer.

    Examples
    --------
    >>> import numpy as np
    >>> table = buggy_table("integer division 2*i//d", np.arange(3), 4)
    >>> bool(np.allclose(table[:, 0::2], np.sin(np.arange(3))[:, None]))  # frequency 1 twice
    True
    """
    check_choice(name, "name", tuple(BUGGY_TABLES))
    where = check_real_array(positions, name="positions")
    if where.ndim != 1:
        raise ValueError(f"positions must be a 1-D array, got shape {where.shape}")
    width = check_d_model(d_model)
    check_entries((where.shape[0], width), what="the table")
    with np.errstate(over="ignore", invalid="ignore"):
        table = BUGGY_TABLES[name].build(where, width)
    if not np.isfinite(table).all():
        raise ValueError(
            f"the {name!r} table overflows at these positions (its phases are infinite "
            f"in {'float16' if name == 'fp16 phases' else 'float64'}); pass smaller positions"
        )
    return table
