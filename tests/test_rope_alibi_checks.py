"""RoPE, ALiBi and the table checker against golden values and their definitions."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import sinpe
from sinpe import symbolic as sym
from sinpe.alibi import alibi_bias, alibi_slopes
from sinpe.checkpoint import tables
from sinpe.checkpoint.tables import inspect_table
from sinpe.rope import apply_rope, convert_qk_weight, rope_permutation

# RoFormer's rotation (Su et al. 2021, eq. 14) evaluated by hand, q = [1..8], p = 1.
GOLDEN_INTERLEAVED = [
    -1.1426396637,
    1.9220755965,
    2.5856788292,
    4.2795169111,
    4.9397510021,
    6.0496991692,
    6.9919965013,
    8.0069959988,
]
GOLDEN_CONCAT = [
    -3.6670526182,
    1.3910078307,
    2.9298511679,
    3.9919980013,
    3.5429825141,
    6.1696918250,
    7.0296495029,
    8.0039959993,
]


@pytest.mark.parametrize(
    ("layout", "golden"), [("interleaved", GOLDEN_INTERLEAVED), ("concat", GOLDEN_CONCAT)]
)
def test_rope_golden(layout, golden):
    np.testing.assert_allclose(
        apply_rope(np.arange(1.0, 9.0), 1, layout=layout), golden, atol=5e-10
    )


@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_rope_relative_and_norm(layout):
    rng = np.random.default_rng(0)
    q, k = rng.normal(size=(2, 16))
    for m, n in [(3, 1), (103, 101), (-7.5, -9.5)]:
        dot = apply_rope(q, m, layout=layout) @ apply_rope(k, n, layout=layout)
        assert dot == pytest.approx(apply_rope(q, 2, layout=layout) @ k, rel=1e-9)
    assert np.linalg.norm(apply_rope(q, 1234.5, layout=layout)) == pytest.approx(
        np.linalg.norm(q), rel=1e-12
    )


def test_rope_layouts_are_related_by_the_permutation():
    x = np.random.default_rng(1).normal(size=(5, 8))
    perm = rope_permutation(8)
    positions = np.arange(5)
    np.testing.assert_allclose(
        apply_rope(x[:, perm], positions, layout="concat"),
        apply_rope(x, positions)[:, perm],
        atol=1e-12,
    )


def test_converting_weights_keeps_attention_scores():
    rng = np.random.default_rng(2)
    heads, head_width, d_in, length = 2, 8, 12, 6
    wq, wk = rng.normal(size=(2, heads * head_width, d_in))
    tokens = rng.normal(size=(length, d_in))

    def scores(wq, wk, layout):
        q = (tokens @ wq.T).reshape(length, heads, head_width).transpose(1, 0, 2)
        k = (tokens @ wk.T).reshape(length, heads, head_width).transpose(1, 0, 2)
        positions = np.arange(length)
        return apply_rope(q, positions, layout=layout) @ apply_rope(
            k, positions, layout=layout
        ).transpose(0, 2, 1)

    meta = scores(wq, wk, "interleaved")
    hf = scores(
        convert_qk_weight(wq, heads, "interleaved", "concat"),
        convert_qk_weight(wk, heads, "interleaved", "concat"),
        "concat",
    )
    np.testing.assert_allclose(hf, meta, atol=1e-9)
    mixed = scores(wq, wk, "concat")  # the bug: layouts mixed up
    assert not np.allclose(mixed, meta, atol=1e-3)
    back = convert_qk_weight(
        convert_qk_weight(wq, heads, "interleaved", "concat"), heads, "concat", "interleaved"
    )
    np.testing.assert_array_equal(back, wq)


def test_hf_permute_formula():
    # convert_llama_weights_to_hf.py: w.view(h, d/h/2, 2, d_in).transpose(1, 2).reshape(d, d_in)
    w = np.arange(16.0 * 3).reshape(16, 3)
    heads = 2
    hf = w.reshape(heads, 16 // heads // 2, 2, 3).transpose(0, 2, 1, 3).reshape(16, 3)
    np.testing.assert_array_equal(convert_qk_weight(w, heads, "interleaved", "concat"), hf)


def test_alibi_golden_and_reference_rule():
    np.testing.assert_allclose(alibi_slopes(8), [2.0**-k for k in range(1, 9)])
    np.testing.assert_allclose(alibi_slopes(12)[:8], alibi_slopes(8))
    np.testing.assert_allclose(
        alibi_slopes(12)[8:], [0.7071067812, 0.3535533906, 0.1767766953, 0.0883883476], atol=1e-10
    )
    for n in (1, 2, 4, 16, 32):
        np.testing.assert_allclose(alibi_slopes(n), [2 ** (-8 * (h + 1) / n) for h in range(n)])
    assert alibi_slopes(12)[0] != 1.0  # not the off-by-one 2^(-8h/n)
    bias = alibi_bias(4, 5)
    assert bias.shape == (4, 5, 5)
    assert bias[1, 4, 1] == pytest.approx(-alibi_slopes(4)[1] * 3)
    with pytest.raises(ValueError):
        alibi_slopes(0)


def test_symbolic_rope_proofs_and_failures():
    sym.verify_rope_relative()
    sym.verify_rope_norm()
    sym.verify_rope_layouts()

    def squared(vector, position, *, base=sym.base, layout="interleaved"):
        return sym.rope(vector, position**2, base=base, layout=layout)

    def doubled(vector, position, *, base=sym.base, layout="interleaved"):
        return 2 * sym.rope(vector, position, base=base, layout=layout)

    with pytest.raises(sym.IdentityError):
        sym.verify_rope_relative(squared)
    with pytest.raises(sym.IdentityError):
        sym.verify_rope_norm(doubled)
    q = sp.Matrix(sp.symbols("a b", real=True))
    numeric = sp.lambdify(sym.base, sym.rope(q, sp.Integer(1)).subs({q[0]: 1, q[1]: 2}))
    np.testing.assert_allclose(
        np.asarray(numeric(10000.0), float).ravel(), apply_rope([1.0, 2.0], 1), atol=1e-12
    )


# The table checker, on bugs seen in real code (the sources are in chapter 6's gallery).
positions = np.arange(64)[:, None]
i = np.arange(0, 32, 2)


def paper_like(frequencies_of_i):
    table = np.zeros((64, 32))
    table[:, 0::2] = np.sin(positions * frequencies_of_i)
    table[:, 1::2] = np.cos(positions * frequencies_of_i)
    return table


def test_checker_accepts_real_tables_and_names_them():
    assert inspect_table(sinpe.positional_encoding(np.arange(64), 32)).matches == ["paper"]
    report = inspect_table(sinpe.encode(np.arange(64), 32, "whisper"))
    assert report.valid and {"tensor2tensor", "whisper"} <= set(report.matches)
    assert (
        "hf-marian"
        in inspect_table(sinpe.positional_encoding(np.arange(64), 32, layout="concat")).matches
    )
    low = inspect_table(sinpe.positional_encoding(np.arange(64), 32, dtype=np.float16))
    assert low.valid and low.matches == ["paper"]


@pytest.mark.parametrize(
    ("name", "table", "words"),
    [
        ("integer division", paper_like(1 / 10000 ** (i // 32)), "distinct"),
        ("/div_term instead of *", paper_like(10000 ** (i / 32)), None),
        ("sin only", np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32)), "no pairing"),
        (
            "wrong exponent on cos",
            np.where(
                np.arange(32) % 2 == 0,
                np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32)),
                np.cos(positions / 10000 ** (np.arange(32) / 32)),
            ),
            None,
        ),
        (
            "every token position 0",
            np.tile(sinpe.positional_encoding(0, 32), (64, 1)),
            "rows are distinct",
        ),
        (
            "fp16 phases",
            paper_like(
                (positions * (1 / 10000 ** (i / 32))).astype(np.float16) / np.maximum(positions, 1)
            ),
            None,
        ),
    ],
)
def test_checker_rejects_or_does_not_recognise_bugs(name, table, words):
    report = inspect_table(table)
    assert "paper" not in report.matches, name
    if words is not None:
        assert not report.valid and any(words in problem for problem in report.problems), name


# The same bugs as in sinpe.checkpoint.tables.BUGGY_TABLES, transcribed independently above from
# the reports (the registry must build exactly these tables).
TRANSCRIBED = {
    "integer division 2*i//d": paper_like(1 / 10000 ** (i // 32)),
    "/div_term instead of *": paper_like(10000 ** (i / 32)),
    "sines only": np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32)),
    "every token at position 0": np.tile(sinpe.positional_encoding(0, 32), (64, 1)),
}


@pytest.mark.parametrize("name", sorted(TRANSCRIBED))
def test_registry_builds_the_transcribed_bug(name):
    built = tables.buggy_table(name, np.arange(64), 32)
    # phases up to 6e5 radians for /div_term: the two transcriptions round differently
    np.testing.assert_allclose(built, TRANSCRIBED[name], rtol=0, atol=1e-9)


@pytest.mark.parametrize("name", sorted(tables.BUGGY_TABLES))
def test_checker_catches_every_bug_in_the_registry(name):
    bug = tables.BUGGY_TABLES[name]
    assert bug.name == name and bug.bug and bug.source
    report = inspect_table(tables.buggy_table(name, np.arange(64), 32))
    # flagged: a property fails, or (a valid rotation) no code base computes it
    assert not report.valid or not report.matches, (name, report)


def test_registry_hand_values():
    p = np.arange(3.0)
    # integer division: every pair at frequency 1
    assert tables.buggy_table("integer division 2*i//d", p, 4)[2].tolist() == [
        math.sin(2),
        math.cos(2),
        math.sin(2),
        math.cos(2),
    ]
    # /div_term: pair 1 of d = 4 turns 100 radians per position instead of 1/100
    assert tables.buggy_table("/div_term instead of *", p, 4)[1, 2] == pytest.approx(
        math.sin(100.0), abs=1e-12
    )
    # fp16 phases: 2 * 10000**(-1/2) = 0.02 rounds to float16 0.0200042724609375, and
    # its sine, taken in float16 too, rounds back to the same float16 (sin x ~ x there)
    assert tables.buggy_table("fp16 phases", p, 4)[2, 2] == 0.0200042724609375
    assert tables.buggy_table("swapped layout (cos, sin)", p, 2)[1].tolist() == [
        math.cos(1),
        math.sin(1),
    ]
    with pytest.raises(ValueError, match="name must be one of"):
        tables.buggy_table("no such bug", p, 4)


def test_registry_and_symbolic_wrong_encodings_are_one_gallery():
    linked = {bug.symbolic: bug.name for bug in tables.BUGGY_TABLES.values() if bug.symbolic}
    assert set(linked) == set(sym.WRONG_ENCODINGS)
    for key, name in linked.items():
        column = sym.WRONG_ENCODINGS[key](sym.position, 6, base=sp.Integer(10000))
        evaluate = sp.lambdify(sym.position, column.T, "numpy")
        rows = np.array([np.asarray(evaluate(q), float).ravel() for q in range(5)])
        np.testing.assert_allclose(tables.buggy_table(name, np.arange(5), 6), rows, atol=1e-12)


def test_checker_reports_in_words():
    text = str(inspect_table(np.sin(positions / 10000 ** (np.arange(32) // 2 * 2 / 32))))
    assert "NOT a valid sinusoidal table" in text and "no known convention" in text
    with pytest.raises(ValueError, match="shape"):
        inspect_table(np.zeros(5))
    assert inspect_table(sinpe.positional_encoding(np.arange(5), 4)).shape == (5, 4)


# ---------------------------------------------------------------------------------
# Context extension: Position Interpolation, NTK-aware scaling, YaRN (closed forms)


def test_position_interpolation_divides_every_frequency():
    from sinpe.rope import scaled_frequencies

    # hand values: base 100, d = 4 gives theta = [1, 1/10]; divided by 2
    assert scaled_frequencies(4, 2.0, method="interpolation", base=100.0).tolist() == [0.5, 0.05]
    np.testing.assert_allclose(
        scaled_frequencies(64, 4.0, method="interpolation"),
        0.25 * 10000.0 ** (-np.arange(32) / 32),
        rtol=1e-15,
    )


def test_ntk_keeps_the_fastest_pair_and_divides_the_slowest_by_the_factor():
    from sinpe.rope import scaled_frequencies

    scaled = scaled_frequencies(128, 8.0, method="ntk")
    # hand-derived: (C s^(d/(d-2)))^(-2i/d) at i = d/2 - 1 is C^(-(d-2)/d) / s
    slowest = 10000.0 ** (-126 / 128) / 8.0
    assert scaled[0] == 1.0
    assert abs(scaled[-1] / slowest - 1) < 1e-13
    ratio = sinpe.frequencies(128) / scaled  # a geometric ramp from 1 to s
    np.testing.assert_allclose(ratio, 8.0 ** (np.arange(64) / 63), rtol=1e-12)


def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_ramps_between():
    from sinpe.rope import scaled_frequencies

    theta = sinpe.frequencies(128)
    yarn = scaled_frequencies(128, 16.0, method="yarn", original_length=4096, ramp="paper")
    ratio = 4096 * theta / (2 * np.pi)  # original length / wavelength
    fast, slow = ratio > 32, ratio < 1
    assert fast.any() and slow.any() and (~fast & ~slow).any()
    np.testing.assert_array_equal(yarn[fast], theta[fast])
    np.testing.assert_allclose(yarn[slow], theta[slow] / 16, rtol=1e-15)
    middle = ~fast & ~slow
    weight = (ratio[middle] - 1) / 31
    np.testing.assert_allclose(yarn[middle], theta[middle] * (weight + (1 - weight) / 16))
    assert np.all(np.diff(theta / yarn) >= 0)  # the stretch grows from fast to slow pairs


def test_yarn_released_ramp_keeps_fast_pairs_and_ramps_over_whole_pairs():
    from sinpe.rope import scaled_frequencies

    # d = 128, L = 4096: the pair index turning 32 times is 20.94 (floor 20), turning
    # once 45.03 (ceil 46); the released code ramps linearly in the index between them.
    theta = sinpe.frequencies(128)
    yarn = scaled_frequencies(128, 16.0, method="yarn", original_length=4096)
    index = np.arange(64)
    keep = 1 - np.clip((index - 20) / (46 - 20), 0, 1)
    np.testing.assert_allclose(yarn, (1 - keep) * theta / 16 + keep * theta, rtol=1e-15)
    np.testing.assert_array_equal(yarn[:21], theta[:21])
    np.testing.assert_allclose(yarn[46:], theta[46:] / 16, rtol=1e-15)


def test_yarn_temperature_matches_the_paper_formula():
    from sinpe.rope import yarn_temperature

    # sqrt(1/t) = 0.1 ln s + 1 (Peng et al. 2023): s = e^10 gives sqrt(1/t) = 2
    assert abs(yarn_temperature(math.exp(10.0)) - 0.25) < 1e-15
    assert yarn_temperature(1.0) == 1.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"factor": 0.5, "method": "ntk"}, ValueError),
        ({"factor": float("nan"), "method": "ntk"}, ValueError),
        ({"factor": "2", "method": "ntk"}, TypeError),
        ({"factor": 2.0, "method": "linear"}, ValueError),
        ({"factor": 2.0, "method": "yarn", "alpha": 32.0, "beta": 1.0}, ValueError),
        ({"factor": 2.0, "method": "yarn", "original_length": 0}, ValueError),
        ({"factor": 2.0, "method": "yarn", "original_length": 2.5}, TypeError),
        ({"factor": 2.0, "method": "yarn", "ramp": "bogus"}, ValueError),
        ({"factor": 2.0, "method": "ntk", "ramp": "paper"}, ValueError),
    ],
)
def test_scaled_frequencies_rejects_bad_input(kwargs, error):
    from sinpe.rope import scaled_frequencies

    with pytest.raises(error):
        scaled_frequencies(64, **kwargs)


def test_apply_rope_with_custom_frequencies_equals_scaled_positions():
    from sinpe.rope import apply_rope, scaled_frequencies

    x = np.random.default_rng(0).normal(size=(5, 16))
    positions = np.arange(5) * 3.0
    interpolated = apply_rope(
        x, positions, frequencies=scaled_frequencies(16, 3.0, method="interpolation")
    )
    np.testing.assert_allclose(interpolated, apply_rope(x, positions / 3.0), atol=1e-15)
    with pytest.raises(ValueError, match="frequencies must have shape"):
        apply_rope(x, positions, frequencies=np.ones(3))


def test_a_concat_table_is_named_once():
    # issue 17: the paper's table in the concat layout is Hugging Face Marian's, and
    # used to be reported twice, as 'hf-marian' and 'paper (concat layout)'.
    table = sinpe.positional_encoding(np.arange(40), 16, layout="concat")
    assert inspect_table(table).matches == ["hf-marian"]
