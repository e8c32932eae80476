"""Toy tasks where position is everything, and the best a model blind to positions can do.

:func:`reversal_task` and :func:`previous_token_task` draw batches of token ids,
``(tokens, targets)``, two int64 arrays ``(batch, length)`` with ids drawn
uniformly from ``0 .. vocab - 1`` by ``rng``; :func:`reversal_ceiling` is the exact
accuracy ceiling, on reversal, of a model that cannot see positions. NumPy only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator
from fractions import Fraction

import numpy as np

from sinpe._validation import Condition, Instance, Integer, check_entries, constrained

__all__ = ["MAX_CEILING_LENGTH", "Task", "previous_token_task", "reversal_ceiling", "reversal_task"]


#: A task as :func:`~sinpe.lab.training.train` calls it, ``task(rng, batch, length, vocab)``,
#: returning a batch of inputs and its targets.
Task = Callable[[np.random.Generator, int, int, int], tuple[np.ndarray, np.ndarray]]

#: The rules of a task's sizes (``train`` passes its own to the task, so declares these).
_SIZES = dict(
    batch=Integer(hint="such as 64"),
    length=Integer(hint="such as 16"),
    vocab=Integer(1, 2**62, hint="such as 10"),
)
_RNG = Instance(
    np.random.Generator, shown="numpy.random.Generator", hint="np.random.default_rng(0)"
)


def _draw(rng: np.random.Generator, batch: int, length: int, vocab: int) -> np.ndarray:
    """``batch`` uniform random sequences of ``length`` ids below ``vocab`` (all checked)."""
    check_entries((batch, length), what="the batch of sequences (batch, length)")
    return rng.integers(0, vocab, size=(batch, length))


@constrained(rng=_RNG, **_SIZES)
def reversal_task(
    rng: np.random.Generator, batch: int, length: int, vocab: int
) -> tuple[np.ndarray, np.ndarray]:
    """Uniform random sequences and their reversals: ``y[t] = x[length - 1 - t]``.

    A task for :func:`~sinpe.lab.training.train`: the target at position ``t`` depends
    on the token at another position, so a model that cannot see positions cannot
    learn it beyond :func:`reversal_ceiling`.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = reversal_task(np.random.default_rng(0), 1, 4, 10)
    >>> bool((y == x[:, ::-1]).all())
    True
    """
    tokens = _draw(rng, batch, length, vocab)
    return tokens, tokens[:, ::-1].copy()


@constrained(rng=_RNG, **_SIZES)
def previous_token_task(
    rng: np.random.Generator, batch: int, length: int, vocab: int
) -> tuple[np.ndarray, np.ndarray]:
    """``y[t] = x[t - 1]`` (and ``y[0] = x[0]``): a rule that means the same at every length.

    As :func:`reversal_task`, but the target depends only on the offset between
    positions.
    """
    tokens = _draw(rng, batch, length, vocab)
    return tokens, np.concatenate([tokens[:, :1], tokens[:, :-1]], axis=1)


def _partitions(total: int, parts: int, largest: int) -> Iterator[tuple[int, ...]]:
    """Non-increasing tuples of at most ``parts`` integers <= ``largest`` summing to ``total``."""
    if total == 0:
        yield ()
        return
    if parts == 0:
        return
    for first in range(min(total, largest), 0, -1):
        for rest in _partitions(total - first, parts - 1, first):
            yield (first, *rest)


#: Longest sequence :func:`reversal_ceiling` sums over exactly (the 147,273
#: partitions of 48 take a few seconds; their number grows like exp(pi sqrt(2n/3))).
MAX_CEILING_LENGTH = 48

_EVEN = Condition(
    "be even",
    lambda v: v % 2 == 0,
    lambda v: f"an odd length has a middle token that is its own mirror; pass e.g. {v + 1}",
    (3,),
)


@constrained(
    vocab=Integer(hint="such as 10"),
    length=Integer(2, MAX_CEILING_LENGTH, hint="even, such as 16", conditions=(_EVEN,)),
)
def reversal_ceiling(vocab: int, length: int) -> float:
    """Best expected token accuracy on reversal for a model that cannot see positions.

    A permutation-equivariant model's prediction at a position can depend only
    on the token there and on the multiset of the whole sequence. For uniform
    random sequences and ``length`` even, the target (the token at the mirrored
    position) is then uniformly one of the other ``length - 1`` tokens, so the
    best prediction is the most frequent of them, right with probability
    ``max_v c'_v / (length - 1)``, where ``c'`` counts the tokens without the one
    at hand. The ceiling is the expectation of that over sequences, summed
    exactly over the partitions of ``length`` into at most ``vocab`` parts (the
    accuracy does not change when tokens are relabelled), in rational arithmetic:
    the result is the float nearest to the true ceiling. ``length`` is even, from
    2 to ``MAX_CEILING_LENGTH``.

    Examples
    --------
    Two ids, length 4: of the 16 sequences, 2 have counts (4, 0) and are always
    right, 8 have counts (3, 1) and are right 3/4 of the time, 6 have (2, 2) and
    are right 2/3 of the time: ``(2 + 6 + 4) / 16 = 0.75``.

    >>> reversal_ceiling(2, 4)
    0.75
    >>> round(reversal_ceiling(10, 16), 4)
    0.2411
    """
    # Exact rational arithmetic: the ceiling is numerator / (vocab**length * L (L - 1)).
    numerator = 0
    for partition in _partitions(length, min(vocab, length), length):
        # count vectors that sort to this one: V! / ((V - parts)! prod(multiplicity)!)
        multiplicities = Counter(partition)
        arrangements = math.perm(vocab, len(partition))
        arrangements //= math.prod(map(math.factorial, multiplicities.values()))
        # sequences with one such count vector: L! / prod(count!)
        sequences = math.factorial(length) // math.prod(map(math.factorial, partition))
        # Sum over the tokens a of c_a * max_v c'_v: removing one copy of a lowers the
        # maximum only when a is the unique most frequent token.
        largest = partition[0]
        runner_up = partition[1] if len(partition) > 1 else 0
        hits = 0
        for count, multiplicity in multiplicities.items():
            unique_top = count == largest and multiplicity == 1
            best = max(largest - 1, runner_up) if unique_top else largest
            hits += multiplicity * count * best
        numerator += arrangements * sequences * hits
    return float(Fraction(numerator, vocab**length * length * (length - 1)))
