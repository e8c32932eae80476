"""Small, seeded experiments with the NumPy Transformer of :mod:`sinpe.nn`.

Toy tasks where position is everything, a training loop, accuracy, and the
exact accuracy ceiling of a model that cannot see positions. NumPy only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sinpe import nn

__all__ = [
    "TASKS",
    "RecordedLayer",
    "RegressionLog",
    "TrainingLog",
    "attention_peak",
    "causal_mask",
    "equivariance_gap",
    "fit_regression",
    "previous_token_task",
    "recorded_layers",
    "reversal_ceiling",
    "reversal_task",
    "token_accuracy",
    "train",
]

Task = Callable[[np.random.Generator, int, int, int], tuple[np.ndarray, np.ndarray]]


def reversal_task(
    rng: np.random.Generator, batch: int, length: int, vocab: int
) -> tuple[np.ndarray, np.ndarray]:
    """Uniform random sequences and their reversals: ``y[t] = x[length - 1 - t]``.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = reversal_task(np.random.default_rng(0), 1, 4, 10)
    >>> bool((y == x[:, ::-1]).all())
    True
    """
    tokens = rng.integers(0, vocab, size=(batch, length))
    return tokens, tokens[:, ::-1].copy()


def previous_token_task(
    rng: np.random.Generator, batch: int, length: int, vocab: int
) -> tuple[np.ndarray, np.ndarray]:
    """``y[t] = x[t - 1]`` (and ``y[0] = x[0]``): a rule that means the same at every length.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = previous_token_task(np.random.default_rng(0), 1, 4, 10)
    >>> bool((y[:, 1:] == x[:, :-1]).all() and y[0, 0] == x[0, 0])
    True
    """
    tokens = rng.integers(0, vocab, size=(batch, length))
    return tokens, np.concatenate([tokens[:, :1], tokens[:, :-1]], axis=1)


TASKS: dict[str, Task] = {"reversal": reversal_task, "previous token": previous_token_task}


def causal_mask(length: int) -> np.ndarray:
    """Boolean ``(T, T)`` mask, True above the diagonal: no token may look ahead."""
    return np.triu(np.ones((length, length), dtype=bool), 1)


def token_accuracy(
    model: nn.TokenModel,
    tokens: np.ndarray,
    targets: np.ndarray,
    *,
    per_position: bool = False,
    causal: bool = False,
) -> float | np.ndarray:
    """Fraction of tokens whose most likely prediction is the target (per position if asked)."""
    mask = causal_mask(tokens.shape[-1]) if causal else None
    correct = model.forward(tokens, mask=mask).argmax(axis=-1) == targets  # (B, T)
    return correct.mean(axis=0) if per_position else float(correct.mean())


@dataclass
class TrainingLog:
    """Losses of every step and held-out accuracies every ``eval_every`` steps."""

    losses: list[float] = field(default_factory=list)
    eval_steps: list[int] = field(default_factory=list)
    eval_accuracy: list[float] = field(default_factory=list)

    def accuracy_at(self, step: int) -> float:
        """The held-out accuracy evaluated after ``step`` steps (``ValueError`` if none was)."""
        if step not in self.eval_steps:
            raise ValueError(f"no evaluation after step {step}; evaluated at {self.eval_steps}")
        return self.eval_accuracy[self.eval_steps.index(step)]

    def first_step_reaching(self, accuracy: float) -> int | None:
        """The first evaluated step with held-out accuracy >= ``accuracy``."""
        for step, value in zip(self.eval_steps, self.eval_accuracy, strict=True):
            if value >= accuracy:
                return step
        return None


def train(
    model: nn.TokenModel,
    task: Task,
    *,
    steps: int,
    length: int,
    vocab: int,
    batch: int = 64,
    lr: float = 3e-3,
    seed: int = 0,
    held_out: tuple[np.ndarray, np.ndarray] | None = None,
    eval_every: int = 50,
    causal: bool = False,
) -> TrainingLog:
    """Train ``model`` with Adam on fresh batches of ``task``; returns the log.

    Each step draws a new batch from ``np.random.default_rng(seed)``, so two
    models trained with the same seed see the same data. With ``causal=True``
    every token attends only to itself and earlier tokens.
    """
    optimizer = nn.Adam(model, lr=lr)
    rng = np.random.default_rng(seed)
    log = TrainingLog()
    mask = causal_mask(length) if causal else None
    for step in range(1, steps + 1):
        tokens, targets = task(rng, batch, length, vocab)
        model.zero_grad()
        loss, dlogits = nn.softmax_cross_entropy(model.forward(tokens, mask=mask), targets)
        model.backward(dlogits)
        optimizer.step()
        log.losses.append(loss)
        if held_out is not None and (step % eval_every == 0 or step == steps):
            log.eval_steps.append(step)
            log.eval_accuracy.append(token_accuracy(model, *held_out, causal=causal))
    return log


def attention_peak(model: nn.TokenModel, tokens: np.ndarray, *, layer: int = 0) -> float:
    """Mean over queries of the largest attention weight in one layer, for ``tokens``.

    ``1 / T`` when every query spreads its attention evenly over the ``T``
    tokens, 1 when each looks at one token only (a saturated softmax).

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe import nn
    >>> model = nn.TokenModel(10, 8, 2, 16, 1, seed=0)
    >>> 1 / 6 <= attention_peak(model, np.zeros((2, 6), dtype=int)) <= 1
    True
    """
    model.forward(tokens)
    weights = model.children[f"layers.{layer}"].children["self_attn"].attention_weights
    return float(weights.max(axis=-1).mean())  # (B, H, T, T) -> mean over B, H, T


def equivariance_gap(model: nn.TokenModel, tokens: np.ndarray, permutation: np.ndarray) -> float:
    """``max |f(x)[perm] - f(x[perm])|``: zero exactly when permuting commutes with the model."""
    outputs = model.forward(tokens)
    permuted_outputs = model.forward(tokens[:, permutation])
    return float(np.max(np.abs(outputs[:, permutation] - permuted_outputs)))


def _partitions(total: int, parts: int, largest: int):
    """Non-increasing tuples of at most ``parts`` integers in 1..``largest``, summing to ``total``.

    Used by :func:`reversal_ceiling`; yields the empty tuple for ``total == 0``.
    """
    if total == 0:
        yield ()
        return
    if parts == 0:
        return
    for first in range(min(total, largest), 0, -1):
        for rest in _partitions(total - first, parts - 1, first):
            yield (first, *rest)


def reversal_ceiling(vocab: int, length: int) -> float:
    """Best expected token accuracy on reversal for a model that cannot see positions.

    A permutation-equivariant model's prediction at a position can depend only
    on the token there, ``a``, and on the multiset of the whole sequence. For
    uniform random sequences and ``length`` even, the target -- the token at the
    mirrored position, which is another position -- is then uniformly one of
    the other ``length - 1`` tokens, so the best prediction is the most frequent
    of them and is right with probability ``max_v c'_v / (length - 1)``, where
    ``c'`` counts the tokens without the one at hand. The ceiling is the
    expectation of that over sequences, computed exactly: the accuracy of a
    count vector does not change when the tokens are relabelled, so the sum runs
    over the partitions of ``length`` into at most ``vocab`` parts, each weighted
    by its multinomial probability times the number of count vectors that sort to it.

    Examples
    --------
    >>> round(reversal_ceiling(2, 2), 6)   # the other token is the answer: it is the only one
    1.0
    >>> round(reversal_ceiling(10, 16), 4)
    0.2411
    """
    if length % 2 or length < 2:
        raise ValueError(f"length must be even and >= 2 (no middle token), got {length}")
    if vocab < 1:
        raise ValueError(f"vocab must be positive, got {vocab}")
    total = 0.0
    for partition in _partitions(length, vocab, length):
        counts = np.array(partition + (0,) * (vocab - len(partition)))  # (V,), sorted
        # count vectors that sort to `counts`: V! / prod(multiplicity of each value)!
        arrangements = math.factorial(vocab)
        for multiplicity in np.unique(counts, return_counts=True)[1]:
            arrangements //= math.factorial(int(multiplicity))
        sequences = math.factorial(length)  # sequences with one such count vector
        for count in partition:
            sequences //= math.factorial(count)
        expected = 0.0
        for token in np.flatnonzero(counts):
            others = counts.copy()
            others[token] -= 1
            expected += counts[token] / length * others.max() / (length - 1)
        total += arrangements * sequences * expected
    return float(total / vocab**length)


@dataclass
class RegressionLog:
    """Training losses, and held-out predictions recorded every ``record_every`` steps."""

    losses: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    predictions: list[np.ndarray] = field(default_factory=list)


def fit_regression(
    model: nn.Module,
    inputs: np.ndarray,
    targets: np.ndarray,
    *,
    steps: int,
    lr: float = 1e-3,
    eval_inputs: np.ndarray | None = None,
    record_every: int = 100,
) -> RegressionLog:
    """Full-batch Adam on the mean squared error; records predictions on ``eval_inputs``."""
    optimizer = nn.Adam(model, lr=lr)
    log = RegressionLog()
    for step in range(1, steps + 1):
        model.zero_grad()
        loss, grad = nn.mean_squared_error(model.forward(inputs), targets)
        model.backward(grad)
        optimizer.step()
        log.losses.append(loss)
        if eval_inputs is not None and (step % record_every == 0 or step == steps):
            log.steps.append(step)
            log.predictions.append(model.forward(eval_inputs))
    return log


@dataclass(frozen=True)
class RecordedLayer:
    """A PyTorch encoder layer, loaded into :class:`sinpe.nn.EncoderLayer`, with its record.

    Attributes
    ----------
    case : str
        ``"<norm>-<activation>-<mask>"``, e.g. ``"pre-gelu-causal"``.
    layer : nn.EncoderLayer
        The layer built from PyTorch's ``state_dict``.
    inputs, outputs : ndarray
        The input and what PyTorch computed from it, ``(B, T, D)`` float32.
    mask, key_padding_mask : ndarray or None
        The masks PyTorch was given.
    """

    case: str
    layer: nn.EncoderLayer
    inputs: np.ndarray
    outputs: np.ndarray
    mask: np.ndarray | None
    key_padding_mask: np.ndarray | None

    def run(self) -> np.ndarray:
        """The NumPy layer's output for the recorded input and masks."""
        return self.layer(self.inputs, mask=self.mask, key_padding_mask=self.key_padding_mask)


def recorded_layers(path: str | Path) -> tuple[str, list[RecordedLayer]]:
    """Load encoder layers recorded with PyTorch by ``scripts/make_torch_fixtures.py``.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file (``tests/data/torch_encoder_layer.npz`` in the repository).

    Returns
    -------
    torch_version : str
        The PyTorch version that computed the outputs.
    layers : list of RecordedLayer
        One per recorded case, sorted by case name.
    """
    with np.load(path) as record:
        arrays = {key: record[key] for key in record.files}
    cases = sorted({key.split("/")[0] for key in arrays if "/" in key})
    layers = []
    for case in cases:
        norm, activation, _ = case.split("-")
        prefix = f"{case}/state/"
        state = {
            key[len(prefix) :]: value for key, value in arrays.items() if key.startswith(prefix)
        }
        layer = nn.EncoderLayer.from_state_dict(
            state, n_heads=4, norm_first=norm == "pre", activation=activation
        )
        layers.append(
            RecordedLayer(
                case,
                layer,
                arrays[f"{case}/x"],
                arrays[f"{case}/y"],
                arrays.get(f"{case}/mask"),
                arrays.get(f"{case}/key_padding_mask"),
            )
        )
    return str(arrays["torch_version"]), layers
