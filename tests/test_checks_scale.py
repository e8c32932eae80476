"""inspect_table at scale (GitHub issue 16), and the same verdicts as the direct algorithm.

``inspect_table`` reads the table once in blocks of rows and settles most tests
without the whole float64 table. The reference below is the direct algorithm it
replaced (every convention's full table, ``np.unique`` on the rounded table, least
squares on the whole table): on small tables both must give the same report,
word for word, including when the blocks are made tiny and the large-table paths
(pairwise bound, lower bound, blockwise QR) are forced. The time for the full
10**6 x 1024 table is measured by ``benchmarks/inspect_table.py``, not here.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import sinpe
from sinpe.checkpoint import tables as engine
from sinpe.checkpoint.tables import inspect_table
from sinpe.conventions import CONVENTIONS, encode
from sinpe.core import positional_encoding
from sinpe.geometry import linear_map_residual


def reference(table, positions=None, tolerance=1e-3):
    """(problems, matches) of the direct O(n d)-memory algorithm, on the float64 table."""
    values = np.asarray(table, dtype=np.float64)
    rows, width = values.shape
    where = np.arange(rows, dtype=float) if positions is None else np.asarray(positions, float)
    problems, matches = [], []
    if np.max(np.abs(values)) > 1 + tolerance:
        problems.append(f"values leave [-1, 1] (largest {np.max(np.abs(values)):.3g})")
    layout = None
    if width >= 2:
        half, even = width // 2, width - width % 2
        squares = [
            values[:, 0:even:2] ** 2 + values[:, 1:even:2] ** 2,
            values[:, :half] ** 2 + values[:, half : 2 * half] ** 2,
        ]
        if width % 2:
            squares.append(values[:, :half] ** 2 + values[:, half + 1 :] ** 2)
        layout = next((s for s in squares if np.allclose(s, 1.0, atol=1e-3)), None)
    if layout is None:
        problems.append("no pairing of the columns gives unit (sin, cos) pairs")
        norms = np.sum(values**2, axis=1)
        if not np.allclose(norms, width / 2, atol=tolerance * width):
            problems.append(
                f"|PE(p)|^2 is not d/2 = {width / 2:g} (ranges {norms.min():.3g} .. "
                f"{norms.max():.3g})"
            )
    distinct_rows = np.unique(np.round(values, 6), axis=0).shape[0]
    if distinct_rows < rows:
        problems.append(
            f"only {distinct_rows} of {rows} rows are distinct: different positions share "
            f"an encoding (as when every token gets position 0)"
        )
    varying = values[:, np.ptp(values, axis=0) > 10 * tolerance]
    distinct = np.unique(np.round(varying, 3), axis=1).shape[1]
    if distinct < varying.shape[1]:
        problems.append(
            f"only {distinct} of {varying.shape[1]} varying columns are distinct: pairs share "
            f"a frequency (as when an integer division zeroes the exponent)"
        )
    if np.allclose(np.diff(where), 1.0):
        residual = linear_map_residual(values[:-1], values[1:])
        if residual > tolerance:
            problems.append(
                f"PE(p + 1) is not a fixed linear map of PE(p) (RMS residual {residual:.3g})"
            )
    for offset in range(1, min(rows, 8)):
        diagonal = np.einsum("ij,ij->i", values[:-offset], values[offset:])
        if np.ptp(diagonal) > tolerance * width:
            problems.append(
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
            matches.append(label)
    return problems, matches


def gallery():
    """Chapter 6's bugs, every convention at even and odd widths, and damaged copies."""
    rng = np.random.default_rng(16)
    rows, width = 64, 32
    p = np.arange(rows)[:, np.newaxis]
    even = np.arange(0, width, 2)
    right = 1 / 10000 ** (even / width)

    def interleave(sines, cosines):
        table = np.empty((rows, width))
        table[:, 0::2], table[:, 1::2] = sines, cosines
        return table

    yield "integer division", interleave(np.sin(p / 10000 ** (even // width)), np.cos(p))
    yield "/div_term", interleave(np.sin(p / right), np.cos(p / right))
    yield "sines only", np.sin(p / 10000 ** (np.arange(width) // 2 * 2 / width))
    yield "wrong cos", interleave(np.sin(p * right), np.cos(p / 10000 ** ((even + 1) / width)))
    yield "position 0", np.tile(sinpe.positional_encoding(0, width), (rows, 1))
    fp16 = (p * right).astype(np.float16)
    yield "fp16 phases", interleave(np.sin(fp16), np.cos(fp16))
    yield "swapped", interleave(np.cos(p * right), np.sin(p * right))
    yield "init", rng.normal(0, 0.02, (rows, width))
    yield "zeros", np.zeros((30, 8))
    yield "signed zeros", np.where(np.arange(30)[:, None] % 2, -0.0, 0.0) * np.ones((30, 8))
    yield "few values", rng.integers(-1, 2, (200, 6)).astype(float)
    yield "repeated rows", np.repeat(sinpe.positional_encoding(np.arange(20), 16), 5, axis=0)
    for rows, width in [(40, 9), (100, 8), (3, 2), (10, 1), (50, 5)]:
        for name in [*CONVENTIONS, "concat"]:
            for start in (0, 2):
                try:
                    if name == "concat":
                        positions = np.arange(start, start + rows)
                        table = positional_encoding(positions, width, layout="concat")
                    else:
                        table = encode(np.arange(start, start + rows), width, name)
                except ValueError:
                    continue
                label = f"{name} {rows}x{width} from {start}"
                yield label, table
                yield label + " narrow", table.astype(np.float16 if start else np.float32)
                swapped = table.copy()
                swapped[rows // 2 :, : min(2, width)] = swapped[rows // 2 :, : min(2, width)][
                    :, ::-1
                ]
                yield label + " pair swapped", swapped
                repeated = table.copy()
                repeated[-1] = repeated[0]
                yield label + " row repeated", repeated
                copied = table.copy()
                copied[:, -1] = copied[:, 0]
                yield label + " column copied", copied
                yield label + " scaled", table * 1.01
                yield label + " noisy", table + rng.normal(0, 4e-4, table.shape)


CASES = list(gallery())
MODES = {
    "as shipped": {},
    "8-row blocks": {"_BLOCK_ENTRIES": 1},
    "large-table paths": {"_BLOCK_ENTRIES": 1, "_DIRECT_ENTRIES": 0, "_SAMPLE_ROWS": 2},
}


def same_report(table, positions=None, tolerance=1e-3, exact_residual=True):
    report = inspect_table(table, positions, tolerance=tolerance)
    problems, matches = reference(table, positions, tolerance)
    assert report.matches == matches
    if exact_residual:
        assert report.problems == problems
        return
    # the large-table paths report "at least" a lower bound, or the exact residual
    assert [p.split(" (RMS")[0] for p in report.problems] == [p.split(" (RMS")[0] for p in problems]
    for mine, theirs in zip(report.problems, problems, strict=True):
        if "linear map" in mine:
            value = float(mine.split()[-1].rstrip(")"))
            exact = float(theirs.split()[-1].rstrip(")"))
            assert value <= exact * 1.01 if "at least" in mine else value == exact


@pytest.mark.parametrize("mode", MODES)
def test_same_report_as_the_direct_algorithm(mode, monkeypatch):
    for name, value in MODES[mode].items():
        monkeypatch.setattr(engine, name, value)
    for label, table in CASES:
        try:
            same_report(table, exact_residual=mode != "large-table paths")
            if label.endswith("scaled"):  # a looser tolerance, and positions with a gap
                same_report(table, tolerance=0.05, exact_residual=mode != "large-table paths")
                positions = np.arange(table.shape[0], dtype=float)
                positions[-1] += 0.5
                same_report(table, positions, exact_residual=mode != "large-table paths")
        except AssertionError as error:
            raise AssertionError(f"{label}: {error}") from error


def test_entries_at_the_tolerance_are_compared_with_encode_itself():
    # |table - paper| equal to the tolerance up to rounding: the angle-addition
    # generator cannot call these, so encode decides, as np.allclose does
    table = sinpe.positional_encoding(np.arange(300), 16)
    for shift in (1e-3, 1e-3 + 1e-15, 1e-3 - 1e-15, 2e-3):
        moved = table.copy()
        moved[150:, 5] += shift
        same_report(moved)


def test_repeated_rows_are_counted_exactly_when_every_hash_collides(monkeypatch):
    # every row hashes alike: the count comes from comparing the rows themselves
    monkeypatch.setattr(engine, "_mix", lambda bits, weights: np.zeros(bits.shape[0], np.uint64))
    table = sinpe.positional_encoding(np.arange(40), 8)
    table[[5, 17, 33]] = table[2]
    table[[6, 7]] = table[30]
    assert "only 35 of 40 rows are distinct" in " ".join(inspect_table(table).problems)
    same_report(table)
    same_report(sinpe.positional_encoding(np.arange(40), 8))


def test_columns_that_differ_only_in_late_rows_are_distinct(monkeypatch):
    monkeypatch.setattr(engine, "_BLOCK_ENTRIES", 1)  # 8-row blocks
    table = sinpe.positional_encoding(np.arange(200), 8)
    table[:, 6] = table[:, 4]
    same_report(table)  # two equal columns: "only 7 of 8 varying columns"
    table[190:, 6] += 0.01  # ... until the last block
    same_report(table)
    assert inspect_table(table).valid is False  # no longer a rotation, but 8 distinct columns


def test_nan_in_a_late_block_is_reported_at_its_index(monkeypatch):
    monkeypatch.setattr(engine, "_BLOCK_ENTRIES", 1)
    table = sinpe.positional_encoding(np.arange(100), 8, dtype=np.float32)
    table[77, 3] = np.nan
    with pytest.raises(ValueError, match=r"table must be finite, got .*nan.* at index \(77, 3\)"):
        inspect_table(table)
    table[77, 3] = np.inf
    with pytest.raises(ValueError, match=r"\(77, 3\)"):
        inspect_table(table)


def test_positions_that_are_not_consecutive_use_encode():
    positions = np.arange(0, 120, 2.0)
    table = encode(positions, 12, "whisper")
    report = inspect_table(table, positions)
    assert report.valid and {"tensor2tensor", "whisper"} <= set(report.matches)
    same_report(table, positions)
    same_report(table + 5e-4, positions)


@pytest.fixture
def big():
    """2 * 10**5 x 1024 float32 (800 MB): the scale of the issue, a fifth of its rows."""
    return sinpe.table(200_000, 1024, dtype=np.float32)


def test_a_large_float32_table_in_one_read_without_a_float64_copy(big):
    tracemalloc.start()
    report = inspect_table(big)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert report.valid and report.matches == ["paper"], report
    assert peak < big.nbytes / 16, f"{peak / 2**20:.0f} MiB besides the table"


def test_a_large_table_with_one_pair_swapped_late_is_rejected():
    """All 2 * 10**5 rows, but 256 columns: the lower bound's QR of a window of
    8 d + 8 rows costs O(d**3), 15 s of CPU at d = 1024 against 2 s here."""
    table = sinpe.table(200_000, 256, dtype=np.float32)
    table[-500:, 2:4] = table[-500:, 2:4][:, ::-1].copy()
    report = inspect_table(table)
    assert not report.valid and "paper" not in report.matches
    assert any("at least" in problem for problem in report.problems), report.problems


def test_a_read_only_map_is_let_go_and_a_private_one_is_left_alone(tmp_path):
    """_release unmaps what a read-only np.memmap has read (the data stay the file's)
    and never touches a copy-on-write map, whose changes live only in its pages."""
    from sinpe.checkpoint.tables import _release

    path = tmp_path / "table.npy"
    np.save(path, sinpe.table(64, 16))
    exact = np.load(path)
    mapped = np.load(path, mmap_mode="r")
    assert float(mapped[10, 3]) == exact[10, 3]
    _release(np.asarray(mapped))  # a view of the map, as inspect_table holds it
    assert np.array_equal(mapped, exact)
    private = np.load(path, mmap_mode="c")
    private[10, 3] = 7.0
    _release(private)
    assert private[10, 3] == 7.0
    report = sinpe.checkpoint.tables.inspect_table(np.load(path, mmap_mode="r"))
    assert report.matches == sinpe.checkpoint.tables.inspect_table(exact).matches
