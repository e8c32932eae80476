"""sinpe.lab.probes against independent oracles.

The oracles: the score a head computes (the model's own attention scores), direct
evaluation of ``u(t) . B u(s)`` for the pair decomposition, Chapter 2's ``M_k`` from
``sinpe.shift_matrix``, closed-form spectra and residuals, a brute-force scalar
search with :func:`math.remainder` for the unseen angles, planes at known angles for
the principal angles, labels a linear map does or cannot read for the probes, and a
model without positions for the equivariance gap and the attention peak.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import sinpe
from sinpe.lab import context, nn, probes
from sinpe.rope import yarn_temperature

# ---------------------------------------------------------------------------------
# query_key_form: the model's own scores are the oracle


@pytest.mark.parametrize("head", [0, 1])
def test_query_key_form_gives_the_scores_the_model_computes(head):
    model = nn.TokenModel(
        nn.ModelConfig(
            vocab=7, d_model=8, n_heads=2, d_ff=16, n_layers=1, encoding="sinusoidal", seed=3
        )
    )
    tokens = np.array([[1, 5, 2, 6, 0]])
    x = model.hidden_states(tokens)[0][0]  # the input of layer 0, (T, D)
    scores = model.layers[0].self_attn.attention_scores[0, head]  # from the same pass
    form = probes.query_key_form(model, head=head)
    assert form.shape == (8, 8)
    # the biases start at zero, so the score is x_t . G x_s exactly (up to rounding)
    np.testing.assert_allclose(x @ form @ x.T, scores, rtol=1e-12, atol=1e-12)


def test_query_key_form_reads_the_layer_asked_for():
    model = nn.TokenModel(
        nn.ModelConfig(vocab=7, d_model=8, n_heads=1, d_ff=16, n_layers=2, seed=1)
    )
    forms = [probes.query_key_form(model, layer=k) for k in (0, 1)]
    assert not np.allclose(forms[0], forms[1])
    weight = model.layers[1].self_attn.params["in_proj_weight"]
    np.testing.assert_allclose(forms[1], weight[:8].T @ weight[8:16] / math.sqrt(8))


def test_query_key_form_divides_by_the_temperature():
    model = nn.TokenModel(
        nn.ModelConfig(vocab=7, d_model=8, n_heads=2, d_ff=16, n_layers=1, encoding="rope", seed=0)
    )
    stretched = context.extend_context(model, "yarn", 4.0, original_length=16)
    np.testing.assert_allclose(
        probes.query_key_form(stretched),
        probes.query_key_form(model) / yarn_temperature(4.0),
        rtol=1e-14,
    )


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(layer=1), ValueError),
        (dict(layer=-1), ValueError),
        (dict(head=2), ValueError),
        (dict(head=0.5), TypeError),
        (dict(layer=True), TypeError),
    ],
)
def test_query_key_form_refuses_a_layer_or_head_that_is_not_there(kwargs, error):
    model = nn.TokenModel(nn.ModelConfig(vocab=7, d_model=8, n_heads=2, d_ff=16, n_layers=1))
    with pytest.raises(error, match=r"layer|head"):
        probes.query_key_form(model, **kwargs)


def test_query_key_form_needs_a_model_with_attention():
    with pytest.raises(TypeError, match="model"):
        probes.query_key_form(np.eye(4))
    with pytest.raises(ValueError, match="no layers"):
        probes.query_key_form(
            nn.TokenModel(nn.ModelConfig(vocab=7, d_model=8, n_heads=2, d_ff=16, n_layers=0))
        )


# ---------------------------------------------------------------------------------
# pair_blocks: direct evaluation of the score, and Chapter 2's M_k


def _pair(x, omega):
    return np.array([math.sin(omega * x), math.cos(omega * x)])


def test_pair_blocks_reproduce_the_score_of_every_block():
    rng = np.random.default_rng(5)
    form = rng.normal(size=(8, 8))
    omega = sinpe.frequencies(8)
    parts = probes.pair_blocks(form)
    for i in range(4):
        block = form[2 * i : 2 * i + 2, 2 * i : 2 * i + 2]
        for t, s in rng.uniform(-20, 20, size=(10, 2)):
            direct = _pair(t, omega[i]) @ block @ _pair(s, omega[i])
            rebuilt = parts.rotation[i] * math.cos(
                omega[i] * (s - t) - parts.rotation_angle[i]
            ) + parts.reflection[i] * math.cos(omega[i] * (s + t) - parts.reflection_angle[i])
            assert math.isclose(direct, rebuilt, rel_tol=1e-12, abs_tol=1e-12)


@pytest.mark.parametrize("k", [1, 2, 5, -3])
def test_the_form_of_a_head_that_looks_k_back_has_the_angle_of_m_minus_k(k):
    d = 16
    form = sinpe.shift_matrix(-k, d).T  # PE(t) . M_(-k)^T PE(s) = PE(t - k) . PE(s)
    parts = probes.pair_blocks(form)
    expected = np.angle(np.exp(-1j * k * sinpe.frequencies(d)))  # -k w_i, wrapped
    np.testing.assert_allclose(parts.rotation, 1.0, rtol=1e-12)
    np.testing.assert_allclose(parts.rotation_angle, expected, atol=1e-12)
    np.testing.assert_allclose(parts.reflection, 0.0, atol=1e-12)
    # and the score of query t peaks at key t - k, for every query
    table = sinpe.positional_encoding(np.arange(40), d)
    scores = table @ form @ table.T
    queries = np.arange(max(k, 0), 40 + min(k, 0))
    assert np.array_equal(scores[queries].argmax(axis=1), queries - k)


def test_a_reflection_block_has_only_a_reflection_part():
    psi = 0.7
    # u(t) . R u(s) = cos(w (s + t) - psi): R = [[-cos psi, sin psi], [sin psi, cos psi]]
    block = np.array([[-math.cos(psi), math.sin(psi)], [math.sin(psi), math.cos(psi)]])
    parts = probes.pair_blocks(block)
    assert parts.rotation[0] == pytest.approx(0.0, abs=1e-15)
    assert parts.reflection[0] == pytest.approx(1.0, rel=1e-15)
    assert parts.reflection_angle[0] == pytest.approx(psi, rel=1e-15)
    for t, s in [(0.0, 3.0), (2.5, -1.0)]:
        assert _pair(t, 1.0) @ block @ _pair(s, 1.0) == pytest.approx(math.cos(s + t - psi))


def test_pair_blocks_read_only_the_blocks_of_a_pair_with_itself():
    rng = np.random.default_rng(2)
    form = rng.normal(size=(6, 6))
    coupled = form.copy()
    coupled[0:2, 2:6] += rng.normal(size=(2, 4))  # pair 0 with pairs 1 and 2
    for mine, theirs in zip(probes.pair_blocks(form), probes.pair_blocks(coupled), strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_the_concat_layout_reads_the_same_pairs_at_other_indices():
    rng = np.random.default_rng(4)
    interleaved = rng.normal(size=(8, 8))
    order = sinpe.layout_permutation(8, "interleaved", "concat")  # concat = interleaved[order]
    concat = interleaved[np.ix_(order, order)]
    for a, b in zip(
        probes.pair_blocks(interleaved),
        probes.pair_blocks(concat, layout="concat"),
        strict=True,
    ):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "form, error",
    [
        (np.eye(3), ValueError),  # odd side
        (np.ones((4, 2)), ValueError),  # not square
        (np.ones(4), ValueError),
        (np.full((2, 2), np.nan), ValueError),
        (np.array([["a", "b"], ["c", "d"]]), TypeError),
    ],
)
def test_pair_blocks_refuse_what_is_not_a_form_on_pairs(form, error):
    with pytest.raises(error):
        probes.pair_blocks(form)


def test_pair_blocks_refuse_an_unknown_layout():
    with pytest.raises(ValueError, match="layout"):
        probes.pair_blocks(np.eye(2), layout="half-and-half")


# ---------------------------------------------------------------------------------
# attention_entropy and attention_on: closed forms and a plain loop


def test_entropy_of_uniform_and_one_hot_rows():
    for n in (1, 2, 7):
        assert probes.attention_entropy(np.full(n, 1 / n)) == pytest.approx(math.log(n))
    assert probes.attention_entropy(np.eye(4)).tolist() == [0.0] * 4


def test_entropy_matches_the_sum_over_the_nonzero_weights():
    rng = np.random.default_rng(0)
    weights = nn.softmax(rng.normal(size=(2, 3, 5, 5)))
    weights[0, 0, 0] = [0.5, 0.5, 0, 0, 0]
    got = probes.attention_entropy(weights)
    assert got.shape == (2, 3, 5)
    for index in np.ndindex(got.shape):
        row = [w for w in weights[index] if w > 0]
        assert got[index] == pytest.approx(-sum(w * math.log(w) for w in row), rel=1e-12)


def test_attention_on_picks_one_key_per_query():
    rng = np.random.default_rng(1)
    weights = nn.softmax(rng.normal(size=(3, 2, 4, 6)))
    keys = np.array([0, 0, 1, 5])
    got = probes.attention_on(weights, keys)
    assert got.shape == (3, 2, 4)
    for b, h, t in np.ndindex(got.shape):
        assert got[b, h, t] == weights[b, h, t, keys[t]]


@pytest.mark.parametrize(
    "weights",
    [
        np.full((2, 2), 0.4),  # rows sum to 0.8
        np.array([[1.5, -0.5], [0.5, 0.5]]),  # a negative weight
        np.array([[np.nan, 1.0]]),
        np.zeros((2, 0)),
        np.float64(1.0),
    ],
)
def test_weights_that_are_not_a_softmax_are_refused(weights):
    with pytest.raises(ValueError, match="weights"):
        probes.attention_entropy(weights)


@pytest.mark.parametrize(
    "keys, error",
    [
        (np.array([0, 2]), ValueError),  # key 2 of 2
        (np.array([0, -1]), ValueError),
        (np.array([0]), ValueError),  # one key for two queries
        (np.array([0.0, 1.0]), TypeError),
    ],
)
def test_attention_on_refuses_keys_that_are_not_there(keys, error):
    with pytest.raises(error, match="keys"):
        probes.attention_on(np.full((2, 2), 0.5), keys)


def test_attention_on_needs_a_query_axis():
    with pytest.raises(ValueError, match="query axis"):
        probes.attention_on(np.array([0.5, 0.5]), np.array([0]))


# ---------------------------------------------------------------------------------
# unseen_phases: a brute-force scalar search


def _unseen_by_hand(trained_length, position, omega):
    turn = abs(math.remainder(omega, 2 * math.pi))  # the step, on the circle
    step = turn / 2
    nearest = min(
        abs(math.remainder(omega * position - omega * q, 2 * math.pi))
        for q in range(trained_length)
    )
    return nearest > step


@pytest.mark.parametrize(
    "d_model, base, trained",
    # base < 1: w_i up to 1000; and w_1 = 2 pi - 0.01, a small step the other way
    [(8, 1e4, 16), (16, 100.0, 5), (6, 7.0, 1), (8, 0.01, 3), (4, (2 * math.pi - 0.01) ** -2, 8)],
)
def test_unseen_phases_match_a_scalar_search(d_model, base, trained):
    positions = np.concatenate([np.arange(60), [1000.5, 12345.0]])
    got = probes.unseen_phases(positions, d_model, trained_length=trained, base=base)
    omega = sinpe.frequencies(d_model, base=base)
    assert got.shape == (len(positions), d_model // 2)
    for n, p in enumerate(positions):
        for i, w in enumerate(omega):
            assert got[n, i] == _unseen_by_hand(trained, float(p), float(w)), (p, i)


def test_trained_positions_are_never_unseen_and_fast_pairs_never_are():
    got = probes.unseen_phases(np.arange(16), 32, trained_length=16)
    assert not got.any()
    # pairs 0 and 1 go round within 16 positions (wavelengths 6.3 and 11.2)
    far = probes.unseen_phases(np.arange(5000), 32, trained_length=16)
    assert not far[:, :2].any() and far[:, 2:].any()


def test_unseen_phases_refuse_bad_arguments():
    with pytest.raises(ValueError, match="trained_length"):
        probes.unseen_phases([1.0], 8, trained_length=0)
    with pytest.raises(ValueError, match="1-d"):
        probes.unseen_phases(np.ones((2, 2)), 8, trained_length=4)
    with pytest.raises(ValueError, match="positions"):
        probes.unseen_phases([np.inf], 8, trained_length=4)
    with pytest.raises(ValueError, match="d_model"):
        probes.unseen_phases([1.0], 7, trained_length=4)
    with pytest.raises(ValueError, match="entries"):
        probes.unseen_phases(np.arange(2**12), 8, trained_length=2**20)


# ---------------------------------------------------------------------------------
# position_spectrum and shift_rotation_residual: closed forms


def test_spectrum_of_two_cosines_splits_by_their_squared_amplitudes():
    p = np.arange(16)
    column = np.cos(2 * np.pi * 1 * p / 16) + 2 * np.cos(2 * np.pi * 3 * p / 16 + 0.4)
    got = probes.position_spectrum(np.stack([column, 0.5 * column], axis=1))
    expected = np.zeros(9)
    expected[[1, 3]] = [1 / 5, 4 / 5]
    np.testing.assert_allclose(got, expected, atol=1e-15)


def test_spectrum_ignores_the_mean_and_sums_to_one():
    table = np.random.default_rng(0).normal(size=(11, 4)) + 100.0
    got = probes.position_spectrum(table)
    assert got.shape == (6,) and got[0] < 1e-20
    assert got.sum() == pytest.approx(1.0, rel=1e-14)


def test_spectrum_of_a_constant_table_is_refused():
    with pytest.raises(ValueError, match="does not vary"):
        probes.position_spectrum(np.ones((8, 3)))


def test_rotation_residual_of_rows_turned_by_one_rotation_is_zero():
    rng = np.random.default_rng(3)
    q, _ = np.linalg.qr(rng.normal(size=(5, 5)))  # a random orthogonal matrix
    rows = [rng.normal(size=5)]
    for _ in range(9):
        rows.append(rows[-1] @ q)
    assert probes.shift_rotation_residual(np.array(rows)) < 1e-14
    assert probes.shift_rotation_residual(np.array(rows), offset=3) < 1e-14


def test_rotation_residual_of_sinusoids_is_zero_and_of_a_stretch_is_known():
    table = sinpe.positional_encoding(np.arange(40), 8)
    assert probes.shift_rotation_residual(table, offset=2) < 1e-12
    # rows 1 -> 2 -> 4: the best orthogonal map of the line is 1; residual
    # |(1, 2) - (2, 4)| / |(2, 4)| = 1/2
    assert probes.shift_rotation_residual([[1.0], [2.0], [4.0]]) == pytest.approx(0.5)
    # a quarter turn in the plane is exact
    assert probes.shift_rotation_residual([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]) < 1e-15


@pytest.mark.parametrize(
    "table, offset, error",
    [
        (np.ones((1, 3)), 1, ValueError),  # one row
        (np.ones((4, 3)), 4, ValueError),  # offset too large
        (np.ones((4, 3)), 0, ValueError),
        (np.ones((4, 3)), 1.0, TypeError),
        (np.zeros((4, 3)), 1, ValueError),  # nothing to rotate to
        (np.ones(4), 1, ValueError),
    ],
)
def test_rotation_residual_refuses_bad_tables(table, offset, error):
    with pytest.raises(error):
        probes.shift_rotation_residual(table, offset=offset)


# ---------------------------------------------------------------------------------
# the edges: a turn just short of a circle, the Nyquist bin, huge and tiny entries


def test_a_turn_just_short_of_a_full_circle_is_a_small_step():
    base = (2 * math.pi - 0.01) ** -2  # d = 4: w_1 = 2 pi - 0.01
    unseen = probes.unseen_phases(np.arange(200), 4, trained_length=8, base=base)
    # training saw an arc of 7 * 0.01 rad for pair 1: almost every later position is new
    assert unseen[:8, 1].sum() == 0 and unseen[20:, 1].all()


def test_the_spectrum_counts_both_halves_of_a_bin_below_nyquist():
    p = np.arange(16)
    columns = np.stack([np.cos(2 * np.pi * p / 16), 0.5 * np.cos(np.pi * p)], axis=1)
    # variances: 1/2 at 1 cycle, 1/4 at the Nyquist frequency (8 cycles)
    got = probes.position_spectrum(columns)
    assert got[1] == pytest.approx(2 / 3) and got[8] == pytest.approx(1 / 3)


@pytest.mark.parametrize("scale", [1e-200, 1e200, 1e307])
def test_huge_and_tiny_entries_give_the_same_shares_and_residuals(scale):
    rng = np.random.default_rng(0)
    table = rng.normal(size=(10, 4))
    np.testing.assert_allclose(
        probes.position_spectrum(scale * table),
        probes.position_spectrum(table),
        rtol=1e-12,
        atol=1e-15,  # the share at 0 cycles is 0 up to rounding
    )
    assert probes.shift_rotation_residual(scale * table) == pytest.approx(
        probes.shift_rotation_residual(table), rel=1e-10
    )
    form = rng.normal(size=(4, 4))
    blocks = probes.pair_blocks(scale * form / np.abs(form).max())
    assert all(np.isfinite(part).all() for part in blocks)


# issue 40: how nearly orthogonal the token and position subspaces are (chapter 4)
def test_principal_angles_against_planes_of_known_angles():
    # two planes in R^4 at 30 and 70 degrees (Jordan's canonical pair), rotated at random
    a, b = np.radians([30.0, 70.0])
    first = np.array([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
    second = np.array([[np.cos(a), 0, np.sin(a), 0], [0, np.cos(b), 0, np.sin(b)]])
    turn, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(4, 4)))
    mixed = np.array([[2.0, 1.0], [0.5, -3.0]])  # another basis of the same plane
    angles = probes.principal_angles(first @ turn, mixed @ second @ turn)
    np.testing.assert_allclose(angles, [30.0, 70.0], atol=1e-9)
    # a repeated row adds no dimension; orthogonal spans are at 90 degrees
    np.testing.assert_allclose(
        probes.principal_angles([[1.0, 0, 0], [2.0, 0, 0]], [[0, 1.0, 0], [0, 0, 1.0]]), [90.0]
    )
    assert probes.principal_angles(np.eye(3), np.eye(3)[:2]).max() < 1e-6


@pytest.mark.parametrize(
    ("first", "second", "error", "words"),
    [
        (np.zeros((2, 3)), np.eye(3), ValueError, "spans nothing"),
        (np.eye(3), np.eye(4), ValueError, "same width"),
        ([[np.nan, 0.0]], [[1.0, 0.0]], ValueError, "first"),
        (np.ones(3), np.eye(3), ValueError, "first"),
    ],
)
def test_principal_angles_refuse_what_spans_nothing(first, second, error, words):
    with pytest.raises(error, match=words):
        probes.principal_angles(first, second)


# ---------------------------------------------------------------------------------
# linear_probe and position_probes: labels a linear map reads, and noise


def test_linear_probe_reads_linear_labels_and_not_random_ones():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 4))
    labels = (x @ [1.0, -2.0, 0.5, 0.0] > 0) + 2 * (x[:, 3] > 0)  # four linear classes
    assert probes.linear_probe(x[:400], labels[:400], x[400:], labels[400:]) > 0.85
    shuffled = rng.permutation(labels)
    assert probes.linear_probe(x[:400], shuffled[:400], x[400:], shuffled[400:]) < 0.6
    # a constant feature is allowed (only centred), and an unseen test label is an error
    padded = np.hstack([x, np.ones((600, 1))])
    unseen = np.where(labels[400:] == 2, 7, labels[400:])
    assert probes.linear_probe(
        padded[:400], labels[:400], padded[400:], unseen
    ) < probes.linear_probe(padded[:400], labels[:400], padded[400:], labels[400:])
    with pytest.raises(ValueError, match="features"):
        probes.linear_probe(x[:, 0], labels, x, labels)
    with pytest.raises(ValueError, match="one label per row"):
        probes.linear_probe(x, labels[:10], x, labels)
    with pytest.raises(ValueError, match="ridge"):
        probes.linear_probe(x, labels, x, labels, ridge=0.0)


def test_position_probes_read_sinusoids_and_nothing_from_noise():
    from sinpe.core import positional_encoding

    rng = np.random.default_rng(0)
    words = rng.normal(size=(5, 16))[rng.integers(0, 5, size=(40, 12))]  # 5 token vectors
    assert probes.position_probes(
        words + 2 * positional_encoding(np.arange(12), 16), n_train=30, max_offset=3
    ) == (1.0, 1.0)
    tokens = rng.normal(size=(40, 12, 16))  # content that knows no position
    absolute, offset = probes.position_probes(tokens, n_train=30, max_offset=3)
    chance_offset = 11 / (2 * (11 + 10 + 9))  # the largest classes, offsets +-1
    assert absolute < 2 / 12 and offset < 2 * chance_offset
    # the same state at every position: nothing to read but the majority class
    flat = np.broadcast_to(rng.normal(size=(40, 1, 16)), (40, 12, 16))
    assert probes.position_probes(flat, n_train=30, max_offset=3) == (1 / 12, chance_offset)
    with pytest.raises(ValueError, match="shape"):
        probes.position_probes(tokens[0], n_train=30, max_offset=3)
    with pytest.raises(ValueError, match="n_train"):
        probes.position_probes(tokens, n_train=40, max_offset=3)
    with pytest.raises(ValueError, match="max_offset"):
        probes.position_probes(tokens, n_train=30, max_offset=0)


def test_offsets_need_a_bilinear_probe_even_on_the_bare_sinusoids():
    # the reason position_probes reads offsets from outer products: PE(i) - PE(j), or
    # the pair side by side, depends on i + j too, and a linear map reads i - j from it
    # for fewer than half of the pairs, even fitted and scored on the same pairs
    from sinpe.core import positional_encoding

    table = positional_encoding(np.arange(16), 32)
    gaps = np.abs(np.arange(16)[:, None] - np.arange(16))
    first, second = np.nonzero((gaps > 0) & (gaps <= 3))
    offsets = first - second
    for features in (table[first] - table[second], np.hstack([table[first], table[second]])):
        assert probes.linear_probe(features, offsets, features, offsets) < 0.5
    states = np.broadcast_to(table, (6, 16, 32))
    assert probes.position_probes(states, n_train=4, max_offset=3) == (1.0, 1.0)


# ---------------------------------------------------------------------------------
# equivariance_gap and attention_peak: a model that sees no position


def test_equivariance_gap():
    permutation = np.random.default_rng(1).permutation(8)
    tokens = np.random.default_rng(2).integers(0, 6, size=(3, 8))
    blind = nn.TokenModel(
        nn.ModelConfig(vocab=6, d_model=16, n_heads=2, d_ff=32, n_layers=2, encoding="none", seed=0)
    )
    seeing = nn.TokenModel(
        nn.ModelConfig(
            vocab=6, d_model=16, n_heads=2, d_ff=32, n_layers=2, encoding="sinusoidal", seed=0
        )
    )
    assert probes.equivariance_gap(blind, tokens, permutation) < 1e-12
    assert probes.equivariance_gap(seeing, tokens, permutation) > 1e-2


def test_attention_peak_between_uniform_and_one_hot():
    tokens = np.random.default_rng(3).integers(0, 10, size=(4, 8))
    calm = nn.TokenModel(
        nn.ModelConfig(vocab=10, d_model=16, n_heads=2, d_ff=32, n_layers=1, seed=0)
    )
    loud = nn.TokenModel(
        nn.ModelConfig(
            vocab=10, d_model=16, n_heads=2, d_ff=32, n_layers=1, embedding_std=1.0, seed=0
        )
    )  # scaled: large inputs
    blind = nn.TokenModel(
        nn.ModelConfig(
            vocab=10, d_model=16, n_heads=2, d_ff=32, n_layers=1, encoding="none", seed=0
        )
    )
    same = probes.attention_peak(blind, np.zeros((4, 8), dtype=int))
    assert same == pytest.approx(1 / 8, rel=1e-12)  # identical inputs: attention is uniform
    assert 1 / 8 <= probes.attention_peak(calm, tokens) < probes.attention_peak(loud, tokens) <= 1
