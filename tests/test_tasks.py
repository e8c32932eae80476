"""sinpe.lab.tasks: each task's targets, and the exact reversal ceiling against brute
force and Monte Carlo."""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict

import numpy as np
import pytest

from sinpe.lab import tasks


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
