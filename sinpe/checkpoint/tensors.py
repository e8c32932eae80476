"""What the position tensors of a checkpoint are, and what is wrong with them.

:func:`inspect_tensor` takes one tensor and says what it is:

* a 2-D additive table (``embed_positions.weight``, ``wpe.weight``, ...): the
  conventions of :data:`sinpe.CONVENTIONS` it follows (checked on every row by
  :func:`sinpe.checkpoint.tables.inspect_table`), its base, layout and first position
  (fairseq's zero padding row), how far it is from the exact table in units of
  its dtype's ULP and in which precision it was computed, the bug of the
  gallery (:data:`sinpe.checkpoint.tables.BUGGY_TABLES`) it shows, or why it is not
  sinusoidal (a learned table);
* a RoPE ``inv_freq`` vector: its base and scaling -- plain, Position
  Interpolation, NTK-aware, YaRN (either ramp of :func:`sinpe.rope.scaled_frequencies`)
  or Llama 3.1's (:func:`sinpe.rope.llama3_frequencies`) -- with the factor;
* ALiBi slopes: the head count they belong to (:func:`sinpe.alibi.alibi_slopes`),
  or the known slip they show.

:func:`position_tensors` picks the tensors of a file whose name says "position".
The command ``sinpe inspect`` (:mod:`sinpe.checkpoint.cli`) runs both on a file. NumPy only.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from sinpe._precision import PrecisionWarning
from sinpe.alibi import MAX_HEADS, alibi_slopes
from sinpe.checkpoint.files import CheckpointError, StoredTensor
from sinpe.checkpoint.findings import Encoding, Scaling, ladder, rope_summary
from sinpe.checkpoint.models import _encodes, position_names
from sinpe.checkpoint.tables import (
    BUGGY_TABLES,
    _Layout,
    _layout_of,
    _Options,
    _release,
    buggy_table,
    inspect_table,
)
from sinpe.conventions import CONVENTIONS, encode
from sinpe.core import frequencies
from sinpe.rope import llama3_frequencies, scaled_frequencies

#: What a check found, JSON-ready (the ``--json`` output): read back by key.
Details: TypeAlias = dict[str, Any]
#: (kind, verdict, summary, details) of one tensor.
Verdict: TypeAlias = tuple[str, str, str, Details]

__all__ = ["Finding", "inspect_tensor", "position_tensors", "tensor_encoding"]


#: Rows read for the sample checks: the first ones, evenly spread ones, the last ones.
_SAMPLE_ROWS = 64
#: Context lengths tried for YaRN and Llama 3.1 (powers of two from 16 to 2**20).
_LENGTHS = tuple(2**k for k in range(4, 21))
#: Bases an NTK-scaled ladder is traced back to.
_ROUND_BASES = (10000.0, 500000.0, 1000000.0, 100000.0)
#: Fitted bases at or below this are not reported: every pair turns at nearly one
#: frequency (the integer-division bugs of the gallery give base 1).
_SMALLEST_BASE = 2.0
#: The precisions a table may have been computed in, widest first.
_PRECISIONS = ("float64", "float32", "float16")


@dataclass
class Finding:
    """What :func:`inspect_tensor` found about one tensor.

    Attributes
    ----------
    name : str
        The tensor's key in the file.
    shape : tuple of int
    dtype : str
        As stored (``"float32"``, ``"bfloat16"``, ...).
    kind : {"table", "rope", "alibi"}
        An additive table, a RoPE ``inv_freq`` vector, or ALiBi slopes.
    verdict : {"ok", "bug", "unknown"}
        A known convention within its dtype's rounding; a known bug; neither.
    summary : str
        One line.
    details : dict
        Everything found, as JSON-ready values (the ``--json`` output).
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    kind: str
    verdict: str
    summary: str
    details: Details = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        """0 for a known convention, 1 otherwise (the command's exit status)."""
        return 0 if self.verdict == "ok" else 1

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "shape": list(self.shape),
            "dtype": self.dtype,
            "kind": self.kind,
            "verdict": self.verdict,
            "summary": self.summary,
            **self.details,
        }


def position_tensors(tensors: dict[str, StoredTensor]) -> list[str]:
    """The names :data:`~sinpe.checkpoint.models.POSITION_NAME` matches, of a floating dtype.

    ``tensors`` comes from :func:`sinpe.checkpoint.files.open_tensors`; the names keep the
    file's order. Integer tensors (``position_ids`` buffers) hold indices, not
    encodings, and are left out, as are single numbers (fairseq's
    ``embed_positions._float_tensor``).

    Examples
    --------
    >>> from sinpe.checkpoint.files import StoredTensor
    >>> names = ["wpe.weight", "wte.weight", "embeddings.position_ids", "rotary_emb.inv_freq"]
    >>> dtypes = ["float32", "float32", "int64", "float32"]
    >>> stored = {n: StoredTensor(n, (4,), t, lambda: None) for n, t in zip(names, dtypes)}
    >>> position_tensors(stored)
    ['wpe.weight', 'rotary_emb.inv_freq']
    """
    if not isinstance(tensors, dict):
        raise TypeError(
            f"tensors must be a dict from sinpe.checkpoint.files.open_tensors, got {tensors!r}"
        )
    return [name for name in position_names(tensors) if _encodes(tensors[name])]


def inspect_tensor(stored: StoredTensor) -> Finding:
    """Read one tensor of :func:`~sinpe.checkpoint.files.open_tensors`: which encoding is it?

    Axes of length 1 are dropped first: ``(1, n, d)`` is a table, ``(n, 1, 1)``
    and ``(1, n)`` are vectors. A tensor that cannot be inspected (integers,
    NaN, another shape, a table of fewer than 3 rows) raises
    :class:`sinpe.checkpoint.files.CheckpointError`.

    Notes
    -----
    A table's conventions at base 10000 are checked on every row, in blocks, by
    :func:`sinpe.checkpoint.tables.inspect_table` (tolerance 1e-3; half a bfloat16 ULP at 1
    for bfloat16). When none matches, the base, fairseq's padding row and the
    first position are fitted on the first 64 rows, and a fitted convention is
    checked on every row. The distance in ULPs (of the dtype at the largest
    entries, so a table rounded once is within 0.5), the precision it was
    computed in and the gallery's bugs are measured on up to 384 rows. Vectors
    are compared entry by entry, within a few roundings of their dtype.
    """
    if not isinstance(stored, StoredTensor):
        raise TypeError(
            f"stored must be a StoredTensor (from sinpe.checkpoint.files.open_tensors), "
            f"got {stored!r}"
        )
    if not stored.floating:
        guess = " (position ids?)" if stored.dtype.startswith(("int", "uint")) else ""
        raise CheckpointError(
            f"{stored.name} holds {stored.dtype} values{guess}, not real floating-point "
            f"numbers: not an encoding"
        )
    shape = stored.shape
    squeezed = (tuple(n for n in shape if n != 1) or (1,)) if 1 in shape else shape
    if len(squeezed) not in (1, 2):
        raise CheckpointError(
            f"{stored.name} has shape {shape}: neither a table (positions, d_model) "
            f"nor a vector (inv_freq, slopes)"
        )
    values = stored.read().reshape(squeezed)
    if len(squeezed) == 2:
        kind, verdict, summary, details = _inspect_table(values, stored.dtype)
    else:
        with np.errstate(all="ignore"):  # finiteness is checked, and extremes are reported
            kind, verdict, summary, details = _inspect_vector(stored.name, values, stored.dtype)
    return Finding(stored.name, shape, stored.dtype, kind, verdict, summary, details)


# --- additive tables --------------------------------------------------------------------


def _rows(values: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """``values[picks]`` in float64, a few rows at a time (mapped pages let go between)."""
    sample = np.empty((picks.size, values.shape[1]))
    for start in range(0, picks.size, 16):
        sample[start : start + 16] = values[picks[start : start + 16]]
        _release(values)
    return sample


def _sample_rows(rows: int) -> np.ndarray:
    return np.unique(
        np.r_[
            np.arange(min(rows, _SAMPLE_ROWS)),
            np.linspace(0, rows - 1, 4 * _SAMPLE_ROWS).round().astype(np.intp),
            np.arange(max(rows - _SAMPLE_ROWS, 0), rows),
        ]
    )


@dataclass(frozen=True)
class _Match:
    """A convention the table follows: name, base, options of encode, first position."""

    name: str
    base: float = 10000.0
    padding_idx: int | None = None
    start: int = 0

    def table(self, rows: np.ndarray, width: int) -> np.ndarray:
        where = rows + self.start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrecisionWarning)
            if self.name == "fairseq":
                return encode(where, width, "fairseq", base=self.base, padding_idx=self.padding_idx)
            return encode(where, width, self.name, base=self.base)


def _inspect_table(values: np.ndarray, dtype: str) -> Verdict:
    rows, width = values.shape
    if rows < 3:
        raise CheckpointError(
            f"a table needs at least 3 rows (positions), got shape {values.shape}"
        )
    tolerance = _table_tolerance(dtype)
    try:
        report = inspect_table(values, tolerance=tolerance)
    except ValueError as error:  # NaN or infinities, named
        raise CheckpointError(f"the table cannot be inspected: {error}") from None
    picks = _sample_rows(rows)
    sample = _rows(values, picks)
    details: dict = {"rows": rows, "d_model": width}
    matches = [
        _Match(label, padding_idx=1 if label == "fairseq" else None) for label in report.matches
    ]
    if matches:
        return _known_table(matches, sample, picks, dtype, details)
    for name in BUGGY_TABLES:
        if name == "table overwritten by init" or width % 2:
            continue
        try:
            with np.errstate(all="ignore"):
                expected = buggy_table(name, picks.astype(np.float64), width)
        except ValueError:  # its phases overflow at these positions (float16)
            continue
        if np.allclose(sample, expected, atol=2 * tolerance, rtol=0):
            bug = BUGGY_TABLES[name]
            details.update(bug=name, explanation=bug.bug, reported=bug.source)
            return "table", "bug", f"a known bug: {name} ({bug.bug}; {bug.source})", details
    matches = _fitted_matches(values, sample, picks, tolerance)
    if matches:
        return _known_table(matches, sample, picks, dtype, details)
    loose = _fitted_matches(values, sample, picks, tolerance, loose=True)
    if loose:
        return _known_table(loose, sample, picks, dtype, details, computed="float16")
    spread = float(np.std(sample))
    reason = report.problems[0] if report.problems else "no convention matches it"
    if abs(float(np.mean(sample))) < 0.005 and 0.015 < spread < 0.025:
        name = "table overwritten by init"
        bug = BUGGY_TABLES[name]
        details.update(bug=name, explanation=bug.bug, reported=bug.source, reason=reason)
        summary = (
            f"not sinusoidal: entries look like N(0, 0.02) noise -- an untrained learned "
            f"table, or a fixed table re-initialised ({bug.source})"
        )
        return "table", "bug", summary, details
    details["reason"] = reason
    if report.valid:
        summary = f"a sinusoidal table of no known convention ({reason})"
    else:
        summary = f"not sinusoidal (learned?): {reason}"
    return "table", "unknown", summary, details


def _table_tolerance(dtype: str) -> float:
    """inspect_table's default, or half a bfloat16 ULP at 1 for bfloat16 tables."""
    return 2.0**-8 if dtype == "bfloat16" else 1e-3


def _fitted_matches(
    values: np.ndarray,
    sample: np.ndarray,
    picks: np.ndarray,
    tolerance: float,
    *,
    loose: bool = False,
) -> list[_Match]:
    """Conventions at another base, padding row or first position, fitted on the first rows.

    A match is checked on every row; ``loose``: on the sample, within what
    float16 phases allow (:func:`_phase_bound`). Round bases (3 significant
    digits) are preferred.
    """
    rows, width = values.shape
    head = np.asarray(values[: min(rows, _SAMPLE_ROWS)], dtype=np.float64)
    zero = np.flatnonzero(~head.any(axis=1))
    found = []
    for name in CONVENTIONS:
        padding = int(zero[0]) if name == "fairseq" and zero.size == 1 else None
        options: _Options = {"padding_idx": padding} if name == "fairseq" else {}
        layout = _layout_of(name, options, width)
        if layout is None or (zero.size and name != "fairseq"):
            continue
        fitted = _fit_base_and_start(head, layout)
        if fitted is None:
            continue
        base, start = fitted
        if name == "fairseq" and start:
            continue
        for candidate_base in dict.fromkeys((_round(base), float(f"{base:.2g}"), base)):
            match = _Match(name, candidate_base, padding, start)
            if _fits(values, sample, picks, match, tolerance, loose):
                found.append(match)
                break
    round_ones = [m for m in found if m.base == _round(m.base)]
    return round_ones or found


def _fits(
    values: np.ndarray,
    sample: np.ndarray,
    picks: np.ndarray,
    match: _Match,
    tolerance: float,
    loose: bool,
) -> bool:
    width = values.shape[1]
    try:
        expected = match.table(picks.astype(np.float64), width)
    except ValueError:
        return False
    error = np.abs(sample - expected)
    if loose:
        bound = _phase_bound(match, picks, width)
        return bound is not None and bool((error <= bound + tolerance).all())
    return bool((error <= tolerance).all()) and _everywhere(values, match, tolerance)


def _phases(match: _Match, picks: np.ndarray, width: int) -> np.ndarray | None:
    """|phase| of every entry of the sample rows (0 in zero columns); None without a layout."""
    options: _Options = {"padding_idx": match.padding_idx} if match.name == "fairseq" else {}
    layout = _layout_of(match.name, options, width)
    if layout is None:
        return None
    ladder = layout.frequencies ** (math.log(match.base) / math.log(10000.0))
    phase = np.abs(picks.astype(np.float64) + match.start)[:, np.newaxis] * ladder
    out = np.zeros((picks.size, width))
    out[:, layout.sines_at] = phase
    out[:, layout.cosines_at] = phase[:, : layout.cosines]
    return out


def _phase_bound(match: _Match, picks: np.ndarray, width: int) -> np.ndarray | None:
    """How far sines of float16 phases may be: phase and frequency rounded, and the sine."""
    phase = _phases(match, picks, width)
    return None if phase is None else phase * 2.0**-10 + 2.0**-10


def _fit_base_and_start(head: np.ndarray, layout: _Layout) -> tuple[float, int] | None:
    """The base (from the pairs' turning speed) and first position (from row 0's phases)."""
    count = layout.cosines
    if count < 2:
        return None
    sines = head[:, layout.sines_at][:, :count]
    cosines = head[:, layout.cosines_at]
    turns = cosines + 1j * sines
    live = np.abs(turns).min(axis=1) > 0.5
    steps = [
        turns[r + 1] * np.conj(turns[r]) for r in range(len(head) - 1) if live[r] and live[r + 1]
    ]
    if not steps:
        return None
    speed = np.median(np.angle(np.array(steps)), axis=0)
    reference = layout.frequencies[:count]
    usable = (reference < 1) & (speed > 1e-7) & (speed < 2.5)
    if usable.sum() < 1:
        return None
    log_ref = np.log(reference[usable])
    exponent = float(np.sum(np.log(speed[usable]) * log_ref) / np.sum(log_ref * log_ref))
    base = _power(10000.0, exponent)
    if not (math.isfinite(base) and base > _SMALLEST_BASE):
        return None
    ladder = reference**exponent
    first = np.flatnonzero(live)[0]
    slow = ladder < 1e-2
    start = 0
    if slow.any():
        phases = np.angle(turns[first, slow]) / ladder[slow]
        start = round(float(np.median(phases))) - int(first)
    return base, start


def _round(base: float) -> float:
    """The base with 3 significant digits (500000.0, not 499999.97)."""
    return float(f"{base:.3g}")


def _power(value: float, exponent: float) -> float:
    """``value ** exponent`` as a float, infinite where it overflows (never OverflowError)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return float(np.power(np.float64(value), np.float64(exponent)))


def _everywhere(values: np.ndarray, match: _Match, tolerance: float) -> bool:
    """Whether every row is within the tolerance of the convention (read in blocks)."""
    rows, width = values.shape
    step = max(1, 2**18 // width)
    for begin in range(0, rows, step):
        stop = min(begin + step, rows)
        block = np.asarray(values[begin:stop], dtype=np.float64)
        _release(values)
        expected = match.table(np.arange(begin, stop, dtype=np.float64), width)
        if not np.allclose(block, expected, atol=tolerance, rtol=0):
            return False
    return True


def _known_table(
    matches: list[_Match],
    sample: np.ndarray,
    picks: np.ndarray,
    dtype: str,
    details: Details,
    computed: str | None = None,
) -> Verdict:
    width = details["d_model"]
    first = matches[0]
    exact = first.table(picks.astype(np.float64), width)
    error = np.abs(sample - exact)
    ulps = error / _ulp(exact, dtype)
    if computed is None:
        computed = _computed_in(first, sample, picks, width, exact, dtype)
    rule = CONVENTIONS[first.name]
    names = [m.name for m in matches]
    position = _first_position(first, sample, picks)
    details.update(
        conventions=names,
        base=first.base,
        spacing=rule.spacing,
        layout=rule.layout,
        first_position=position,
        max_error=float(error.max()),
        max_ulp=float(ulps.max()),
        computed_in=computed,
    )
    same = " (the same table)" if len(names) > 1 else ""
    summary = (
        f"{', '.join(names)}{same}: base {first.base:g}, {rule.spacing} spacing, "
        f"{rule.layout} layout; {position}; within {ulps.max():.3g} ULP of {dtype} "
        f"of the exact table (computed in {computed})"
    )
    if computed in ("float16", "below float16"):
        bug = BUGGY_TABLES["fp16 phases"]
        details.update(bug="fp16 phases", explanation=bug.bug, reported=bug.source)
        return "table", "bug", f"a known bug: fp16 phases ({bug.source}); {summary}", details
    return "table", "ok", summary, details


def _first_position(match: _Match, sample: np.ndarray, picks: np.ndarray) -> str:
    if match.name == "fairseq" and match.padding_idx is not None:
        pad = match.padding_idx
        return f"row {pad} is the zero padding row, tokens start at row {pad + 1} (padding_idx + 1)"
    if match.start:
        return f"row 0 is position {match.start}"
    return "row 0 is position 0"


def _ulp(exact: np.ndarray, dtype: str) -> np.ndarray:
    """The dtype's ULP at each exact value, and at least its ULP in [0.5, 1).

    The unit of a table's largest entries: a correctly rounded table is within 0.5
    of it everywhere, and an error near a zero of the sine is not magnified.
    """
    magnitude = np.maximum(np.abs(exact), 0.5)
    if dtype == "bfloat16":
        return 2.0 ** (np.floor(np.log2(magnitude)) - 7)
    kind = np.dtype(dtype) if dtype in _PRECISIONS else np.dtype(np.float64)
    return np.spacing(magnitude.astype(kind)).astype(np.float64)


def _computed_in(
    match: _Match, sample: np.ndarray, picks: np.ndarray, width: int, exact: np.ndarray, dtype: str
) -> str:
    """The precision the phases were computed in, from how the error grows with the phase.

    A phase rounded in precision ``P`` moves an entry by up to ``|phase| eps_P``
    beyond the stored dtype's half ULP: the narrowest ``P`` whose ``eps_P``
    covers the largest ``error / (|phase| + 1)`` is named.
    """
    phase = _phases(match, picks, width)
    if phase is None:
        return "unknown"
    excess = np.maximum(np.abs(sample - exact) - 0.5 * _ulp(exact, dtype), 0.0)
    ratio = float((excess / (phase + 1.0)).max())
    for precision, unit in (("float64", 1e-14), ("float32", 2.0**-21), ("float16", 2.0**-8)):
        if ratio <= unit:
            return precision
    return "below float16"


# --- vectors: RoPE inv_freq and ALiBi slopes ----------------------------------------------


def _inspect_vector(name: str, values: np.ndarray, dtype: str) -> Verdict:
    vector = np.asarray(values, dtype=np.float64)
    if vector.size == 0:
        raise CheckpointError(f"{name} is empty: no frequencies, no slopes")
    if not np.isfinite(vector).all():
        first = int(np.flatnonzero(~np.isfinite(vector))[0])
        raise CheckpointError(f"{name} has a non-finite entry at index {first}: {vector[first]}")
    tolerance = _relative_tolerance(dtype)
    lowered = name.lower()
    if "alibi" in lowered or "slope" in lowered:
        return _inspect_slopes(vector, tolerance)
    if any(word in lowered for word in ("freq", "rotary", "rope")):
        return _inspect_inv_freq(vector, tolerance)
    slopes = _inspect_slopes(vector, tolerance)
    if slopes[1] == "ok":
        return slopes
    rope = _inspect_inv_freq(vector, tolerance)
    if rope[1] != "unknown" or slopes[1] != "unknown":
        return rope if rope[1] != "unknown" else slopes
    reason = f"{rope[2]}; {slopes[2]}"
    return _unknown("vector", "neither RoPE inv_freq nor ALiBi slopes", reason, {})


def _unknown(kind: str, what: str, reason: str, details: Details) -> Verdict:
    """An "unknown" verdict: the summary is ``what`` and the ``reason``, kept in ``details``."""
    details["reason"] = reason
    return kind, "unknown", f"{what}: {reason}", details


def _relative_tolerance(dtype: str) -> float:
    """How far a stored vector may be from the exact one: a few roundings of its dtype."""
    if dtype == "bfloat16":
        return 2.0**-7
    if dtype == "float16":
        return 2.0**-9
    return 1e-6  # float32, and float64 vectors computed in float32 (torch's default)


def _close(values: np.ndarray, expected: np.ndarray, tolerance: float) -> bool:
    return values.shape == expected.shape and bool(
        np.allclose(values, expected, rtol=tolerance, atol=0)
    )


def _inspect_inv_freq(theta: np.ndarray, tolerance: float) -> Verdict:
    pairs = theta.size
    width = 2 * pairs
    details: dict = {"rotary_dim": width}
    if (theta <= 0).any() or pairs < 2:
        reason = "frequencies must be positive" if pairs >= 2 else "one pair fixes no base"
        return _unknown("rope", "not a RoPE inv_freq vector", reason, details)
    factor = 1.0 / theta[0]
    index = np.arange(pairs)
    fitted = _power(
        math.e, -pairs * float(np.sum(index * np.log(theta * factor)) / np.sum(index**2))
    )
    bases = (_round(fitted), fitted) if math.isfinite(fitted) and fitted > 1 else ()
    fits = (b for b in bases if _close(theta * factor, frequencies(width, base=b), tolerance))
    base = next(fits, None)
    if base is not None:
        if _close(np.array([factor]), np.array([1.0]), tolerance):
            details.update(scaling="plain", base=base, factor=1.0)
            ntk = _as_ntk(theta, width, base, tolerance)
            if ntk:
                details.update(ntk)
                summary = (
                    f"RoPE, NTK-aware scaling: base {ntk['original_base']:g} x factor "
                    f"{ntk['factor']:g} ** ({width} / {width - 2}) = {base:g}"
                )
                return "rope", "ok", summary, details
            return "rope", "ok", f"RoPE, plain: base {base:g}, rotary_dim {width}", details
        factor = _round(factor)
        details.update(scaling="linear", base=base, factor=factor)
        summary = (
            f"RoPE, linear interpolation (Position Interpolation): base {base:g}, factor {factor:g}"
        )
        return "rope", "ok", summary, details
    if theta[0] <= 1.0 + tolerance:
        found = _as_ramp(theta, width, tolerance)
        if found:
            details.update(found)
            label = {"yarn": f"YaRN ({found.get('ramp')} ramp)", "llama3": "Llama 3.1"}[
                found["scaling"]
            ]
            summary = (
                f"RoPE, {label}: base {found['base']:g}, factor {found['factor']:g}, "
                f"original length {found['original_length']}"
            )
            return "rope", "ok", summary, details
    reason = (
        f"the frequencies {theta[0]:.6g}, {theta[1]:.6g}, ... follow no known scaling "
        f"(plain RoPE's are base ** (-2i / {width}), starting at 1)"
    )
    return _unknown("rope", "not a known RoPE inv_freq", reason, details)


def _as_ntk(theta: np.ndarray, width: int, base: float, tolerance: float) -> Details | None:
    """A plain ladder whose base is an NTK-scaled round one: base = b0 * s ** (d / (d - 2))."""
    if width <= 2 or base in _ROUND_BASES:
        return None
    for original in _ROUND_BASES:
        if base <= original:
            continue
        factor = (base / original) ** ((width - 2) / width)
        nice = round(factor * 2) / 2
        if nice > 1 and abs(factor - nice) <= 1e-3 * nice:
            expected = scaled_frequencies(width, nice, method="ntk", base=original)
            if _close(theta, expected, tolerance):
                return {"scaling": "ntk", "original_base": original, "factor": nice}
    return None


def _as_ramp(theta: np.ndarray, width: int, tolerance: float) -> Details | None:
    """YaRN (either ramp) or Llama 3.1: base from the first or last pairs, factor from the last."""
    pairs = width // 2
    bases = [_round(_power(theta[0] / theta[1], pairs))]
    if pairs > 2:
        bases.append(_round(_power(theta[-2] / theta[-1], pairs)))
    for base in dict.fromkeys(b for b in bases if math.isfinite(b) and b > _SMALLEST_BASE):
        factor = _round(float(frequencies(width, base=base)[-1] / theta[-1]))
        if factor > 1:
            found = _ramp_of(theta, width, base, factor, tolerance)
            if found:
                return found
    return None


def _ramp_of(
    theta: np.ndarray, width: int, base: float, factor: float, tolerance: float
) -> Details | None:
    for length in _LENGTHS:
        found = {"base": base, "factor": factor, "original_length": length}
        for ramp in ("released", "paper"):
            expected = scaled_frequencies(
                width, factor, method="yarn", base=base, original_length=length, ramp=ramp
            )
            if _close(theta, expected, tolerance):
                return {"scaling": "yarn", "ramp": ramp, **found}
        expected = llama3_frequencies(width, factor, base=base, original_length=length)
        if _close(theta, expected, tolerance):
            return {"scaling": "llama3", **found}
    return None


def _inspect_slopes(slopes: np.ndarray, tolerance: float) -> Verdict:
    heads = slopes.size
    details: dict = {"heads": heads}
    if heads > MAX_HEADS:
        reason = f"{heads} values: more than {MAX_HEADS} heads"
        return _unknown("alibi", "not ALiBi slopes", reason, details)
    expected = alibi_slopes(heads)
    if _close(slopes, expected, tolerance):
        return "alibi", "ok", f"ALiBi slopes of {heads} heads", details
    index = np.arange(heads)
    slips = {
        "first slope 1 (2^(-8h/n) instead of 2^(-8(h+1)/n), off by one head)": 2.0
        ** (-8.0 * index / heads),
        "the power-of-two formula 2^(-8(h+1)/n) at a head count that is not a power of "
        "two (ALiBi interleaves the slopes of 2c heads)": 2.0 ** (-8.0 * (index + 1) / heads),
        "ALiBi's slopes sorted (ALiBi's are not monotone unless n is a power of two)": np.sort(
            expected
        )[::-1],
    }
    for slip, wrong in slips.items():
        if _close(slopes, wrong, tolerance):
            details.update(bug=slip)
            summary = f"ALiBi slopes of {heads} heads with a known slip: {slip}"
            return "alibi", "bug", summary, details
    reason = f"slope 0 is {slopes[0]:.6g}, ALiBi's for {heads} heads is {expected[0]:.6g}"
    return _unknown("alibi", "not ALiBi's slopes", reason, details)


# --- a tensor as an Encoding, checked against what the config declares -----------------------


def tensor_encoding(stored: StoredTensor, declared: Sequence[Encoding] = ()) -> Encoding:
    """One position tensor as an :class:`~sinpe.checkpoint.findings.Encoding`, checked
    against the encodings its model's config or GGUF metadata ``declared``.

    A stored ``inv_freq`` (or Meta's ``rope.freqs``) must equal the declared RoPE's
    frequencies within float32's rounding and be stored in float32 or wider; GGUF's
    ``rope_freqs.weight`` (Llama 3.1's per-pair divisors) is decoded back to its factor
    and original context, and must be Llama 3.1's formula for the keys the file states;
    ``rope_factors_long/short.weight`` are LongRoPE's factors; a table the model declares
    learned is learned. A tensor that cannot be inspected raises
    :class:`~sinpe.checkpoint.files.CheckpointError`.
    """
    name = stored.name
    rope = next((e for e in declared if e.kind == "rope"), None)
    if name.startswith(("rope_freqs.", "rope_factors_long.", "rope_factors_short.")):
        return _gguf_factors(stored, rope)
    finding = inspect_tensor(stored)
    found = Encoding(
        name,
        _KIND_OF.get(finding.kind, "unknown"),
        summary=finding.summary,
        details={"tensor": finding.as_dict()},
    )
    details = finding.details
    if finding.kind == "table":
        _table_encoding(found, finding, declared)
    elif finding.kind == "rope":
        found.base = details.get("base")
        found.rotary_dim = details.get("rotary_dim")
        scaling = details.get("scaling")
        if scaling and scaling != "plain":
            found.scaling = Scaling(scaling, details.get("factor"), details.get("original_length"))
        if finding.verdict != "ok":
            found.kind = "unknown"
            found.problems.append(finding.summary)
    elif finding.verdict != "ok":
        found.problems.append(finding.summary)
        if finding.verdict == "unknown":
            found.kind = "unknown"
    if rope is not None and _is_inv_freq(name) and finding.kind in ("rope", "vector"):
        found.kind = "rope"
        found.problems[:] = []
        _check_inv_freq(found, stored, rope)
    return found


_KIND_OF = {"table": "sinusoidal", "rope": "rope", "alibi": "alibi"}


def _is_inv_freq(name: str) -> bool:
    return name.lower().endswith(("inv_freq", "rope.freqs"))


def _table_encoding(found: Encoding, finding: Finding, declared: Sequence[Encoding]) -> None:
    details = finding.details
    learned = any(e.kind == "learned" for e in declared)
    found.context = details.get("rows")
    if finding.verdict == "ok":
        found.base = details.get("base")
        return
    untrained = details.get("bug") == "table overwritten by init"
    if (finding.verdict == "unknown" or untrained) and learned:
        found.kind = "learned"
        if untrained:
            found.notes.append("its entries look like N(0, 0.02) noise: an untrained table?")
        found.summary = f"a learned table of {found.context} positions (as the model declares)"
        return
    if finding.verdict == "unknown":
        found.kind = "unknown"
    found.problems.append(finding.summary)


def _check_inv_freq(found: Encoding, stored: StoredTensor, rope: Encoding) -> None:
    expected = rope.details.get("inv_freq")
    values = np.asarray(stored.read(), dtype=np.float64).reshape(-1)
    found.base, found.scaling, found.rotary_dim = rope.base, rope.scaling, rope.rotary_dim
    found.pairing, found.head_dim = rope.pairing, rope.head_dim
    if stored.dtype in ("bfloat16", "float16"):
        found.problems.append(
            f"{stored.name} is stored in {stored.dtype}: RoPE frequencies need float32 "
            f"(a rounded inv_freq turns every position by a slightly wrong angle; recompute it "
            f"from the config in float32)"
        )
    if expected is None or values.shape != expected.shape:
        found.problems.append(
            f"{stored.name} holds {values.size} frequencies; the config implies "
            f"{'none' if expected is None else expected.size}"
        )
        return
    tolerance = 2.0**-7 if stored.dtype in ("bfloat16", "float16") else 1e-5
    worst = float(np.max(np.abs(values - expected) / expected))
    found.details["max_relative_error"] = worst
    if worst > tolerance:
        index = int(np.argmax(np.abs(values - expected) / expected))
        found.problems.append(
            f"{stored.name} disagrees with the config's base {rope.base:g} and scaling "
            f"{'none' if rope.scaling is None else rope.scaling.type}: pair {index} is "
            f"{values[index]:.6g}, the config implies {expected[index]:.6g} "
            f"(the stored vector reads as: {found.summary})"
        )
    else:
        found.summary = (
            f"the stored inv_freq equals the config's frequencies (within {worst:.2g}, relative)"
        )


def _gguf_factors(stored: StoredTensor, rope: Encoding | None) -> Encoding:
    values = np.asarray(stored.read(), dtype=np.float64).reshape(-1)
    found = Encoding(stored.name, "rope", details={"factors": values.size})
    if not (np.isfinite(values).all() and (values > 0).all()):
        raise CheckpointError(f"{stored.name} holds a factor that is not finite and positive")
    if stored.name.startswith("rope_factors_"):
        which = "long" if "long" in stored.name else "short"
        found.summary = (
            f"LongRoPE {which} factors: {values.size} per-pair divisors, "
            f"{values.min():.4g} to {values.max():.4g}"
        )
        found.scaling = Scaling("longrope")
        if rope is not None:
            found.base, found.rotary_dim, found.pairing = rope.base, rope.rotary_dim, rope.pairing
            if rope.scaling is None:  # the file's RoPE is LongRoPE: say so in its entry
                rope.scaling = found.scaling
                rope.summary = rope_summary(rope)
                rope.notes.append(f"scaling from {stored.name}: LongRoPE's per-pair factors")
            if rope.rotary_dim and values.size != rope.rotary_dim // 2:
                found.problems.append(
                    f"{stored.name} has {values.size} factors; rope.dimension_count "
                    f"{rope.rotary_dim} has {rope.rotary_dim // 2} pairs"
                )
        return found
    if rope is None or rope.base is None or not rope.rotary_dim:
        found.kind = "unknown"
        found.problems.append(f"{stored.name}: no rope.freq_base and dimension count to decode it")
        return found
    found.base, found.rotary_dim, found.pairing = rope.base, rope.rotary_dim, rope.pairing
    found.head_dim = rope.head_dim
    decoded = _decode_llama3(values, rope.rotary_dim, rope.base)
    stated = rope.scaling
    if decoded is None:
        found.problems.append(
            f"{stored.name} is not Llama 3.1's formula at base {rope.base:g} for any factor, "
            f"band and original context (divisors {values[0]:.4g} ... {values[-1]:.4g})"
        )
        found.summary = f"per-pair RoPE divisors of no known rule ({values.size} pairs)"
        return found
    factor, original, low, high = decoded
    found.scaling = Scaling(
        "llama3", factor, original, {"low_freq_factor": low, "high_freq_factor": high}
    )
    found.summary = (
        f"llama3 \N{MULTIPLICATION SIGN}{factor:g} from {original} (Llama 3.1's per-pair factors)"
    )
    if stated is not None and stated.factor is not None and not math.isclose(stated.factor, factor):
        found.problems.append(
            f"{stored.name} is Llama 3.1's rule at factor {factor:g}, but the file states "
            f"rope.scaling.factor {stated.factor:g}"
        )
    if stated is not None and stated.original_context and stated.original_context != original:
        found.problems.append(
            f"{stored.name} is Llama 3.1's rule from {original}, but the file states "
            f"rope.scaling.original_context_length {stated.original_context}"
        )
    if stated is None:  # the file's RoPE is Llama 3.1's: say so in its entry
        theta = frequencies(rope.rotary_dim, base=rope.base) / values
        rope.scaling = found.scaling
        rope.details["inv_freq"] = theta
        rope.ladder = ladder(theta, rope.rotary_dim, rope.base, rope.scaling)
        rope.summary = rope_summary(rope)
        rope.notes.append(f"scaling from {stored.name}: Llama 3.1's per-pair divisors")
    return found


#: Llama 3.1's bands tried when decoding rope_freqs (low_freq_factor, high_freq_factor).
_BANDS = ((1.0, 4.0), (1.0, 2.0), (1.0, 8.0), (2.0, 4.0), (1.0, 1.0))


def _decode_llama3(
    divisors: np.ndarray, width: int, base: float
) -> tuple[float, int, float, float] | None:
    """(factor, original context, low, high) whose Llama 3.1 divisors are ``divisors``."""
    if divisors.size != width // 2 or width < 4:
        return None
    factor = _round(float(divisors.max()))
    plain = frequencies(width, base=base)
    for length in _LENGTHS:
        for low, high in _BANDS:
            if high == low:
                wavelength = 2 * np.pi / plain
                expected = np.where(wavelength > length / low, factor, 1.0)
            else:
                try:
                    theta = llama3_frequencies(
                        width,
                        max(factor, 1.0),
                        base=base,
                        low_freq_factor=low,
                        high_freq_factor=high,
                        original_length=length,
                    )
                except ValueError:
                    return None
                expected = plain / theta
            if _close(divisors, expected, 1e-5):
                return factor, length, low, high
    return None
