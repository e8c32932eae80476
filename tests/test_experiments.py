"""The experiment helpers: tasks, the exact reversal ceiling, equivariance."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict

import numpy as np
import pytest

from sinpe.lab import nn, probes, tasks, training


def brute_force_ceiling(vocab, length):
    """Bayes-optimal accuracy given (own token, multiset), by enumerating every sequence."""
    groups = defaultdict(Counter)
    for sequence in itertools.product(range(vocab), repeat=length):
        multiset = tuple(sorted(sequence))
        for position, token in enumerate(sequence):
            groups[token, multiset][sequence[length - 1 - position]] += 1
    best = sum(max(counter.values()) for counter in groups.values())
    return best / (vocab**length * length)


@pytest.mark.parametrize(("vocab", "length"), [(2, 2), (3, 4), (2, 6), (4, 4)])
def test_ceiling_matches_brute_force(vocab, length):
    assert tasks.reversal_ceiling(vocab, length) == pytest.approx(
        brute_force_ceiling(vocab, length), rel=1e-12
    )


def test_ceiling_matches_monte_carlo_at_book_size():
    rng = np.random.default_rng(0)
    tokens = rng.integers(0, 10, size=(200_000, 16))
    counts = np.stack([(tokens == v).sum(axis=1) for v in range(10)], axis=1)
    others = counts - np.eye(10, dtype=int)[tokens[:, 0]]
    estimate = (others.max(axis=1) / 15).mean()
    assert tasks.reversal_ceiling(10, 16) == pytest.approx(estimate, abs=0.003)


def test_ceiling_rejects_odd_length():
    with pytest.raises(ValueError, match="even"):
        tasks.reversal_ceiling(10, 15)


@pytest.mark.parametrize(
    ("task", "source"),
    [
        (tasks.reversal_task, lambda t, length: length - 1 - t),
        (tasks.previous_token_task, lambda t, length: max(t - 1, 0)),
    ],
)
def test_each_target_is_the_token_its_rule_names(task, source):
    """y[b, t] = x[b, source(t)], entry by entry, as each docstring states the rule."""
    x, y = task(np.random.default_rng(3), 4, 7, 50)
    assert x.shape == y.shape == (4, 7)
    for b, t in itertools.product(range(4), range(7)):
        assert y[b, t] == x[b, source(t, 7)], (b, t)


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


def test_training_log_and_determinism():
    def run():
        model = nn.TokenModel(
            nn.ModelConfig(vocab=5, d_model=16, n_heads=1, d_ff=16, n_layers=1, seed=0)
        )
        held = tasks.reversal_task(np.random.default_rng(9), 20, 6, 5)
        return training.train(
            model,
            tasks.reversal_task,
            steps=20,
            length=6,
            vocab=5,
            held_out=held,
            eval_every=10,
        )

    first, second = run(), run()
    assert first.losses == second.losses and len(first.losses) == 20
    assert first.eval_steps == [10, 20]
    assert first.accuracy_at(20) == first.eval_accuracy[-1]
    with pytest.raises(ValueError, match="no evaluation after step 15"):
        first.accuracy_at(15)
    assert first.losses[-1] < first.losses[0]


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
