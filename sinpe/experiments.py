"""Training and measuring the NumPy Transformer of :mod:`sinpe.nn`, seeded.

One Adam loop (:func:`train` on a task of :mod:`sinpe.tasks`, :func:`fit_regression`
on data), and what the chapters measure with it: accuracy, the attention peak, the
equivariance gap. NumPy only.

Used in: chapters 4, 5, 6 and 8.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sinpe import nn
from sinpe._threads import one_blas_thread
from sinpe._validation import (
    check_choice,
    check_count,
    check_flag,
    check_float_array,
    check_instance,
    check_integer_array,
)
from sinpe.rope import SCALING_METHODS, scaled_frequencies, yarn_temperature
from sinpe.tasks import Task

__all__ = [
    "RegressionLog",
    "TrainingLog",
    "attention_peak",
    "equivariance_gap",
    "extend_context",
    "fit_regression",
    "token_accuracy",
    "train",
]

#: Most optimisation steps accepted by :func:`train` and :func:`fit_regression`.
MAX_STEPS = 10**6


@one_blas_thread
def token_accuracy(
    model: nn.TokenModel,
    tokens: np.ndarray,
    targets: np.ndarray,
    *,
    per_position: bool = False,
    causal: bool = False,
) -> float | np.ndarray:
    """Fraction of tokens whose most likely prediction is the target (per position if asked).

    Runs ``model.forward`` once (its caches are then those of ``tokens``). BLAS
    threads are limited to one during the call: the matrices are small.

    Parameters
    ----------
    model : sinpe.nn.TokenModel
        The model.
    tokens : array_like of int, shape (B, T)
        Token ids in ``[0, model.vocab)``.
    targets : array_like of int, shape (B, T)
        The wanted ids.
    per_position : bool, optional
        Return the accuracy at each position (averaged over the batch) instead
        of one number.
    causal : bool, optional
        Run the model with :func:`sinpe.nn.causal_mask`.

    Returns
    -------
    float or numpy.ndarray
        The fraction of the ``B * T`` tokens whose argmax logit is the target, or
        with ``per_position=True`` a float64 array of shape ``(T,)``.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`sinpe.nn.TokenModel`, or ``tokens`` are not
        integers.
    ValueError
        If ``tokens`` is empty, not 2-d, or holds ids outside ``[0, vocab)``.
        Also for ``targets`` that are not integers (``TypeError``) or not of the
        shape of ``tokens`` (``ValueError``), and flags that are not booleans
        (``TypeError``).

    Examples
    --------
    A model without layers whose embedding and head are identities predicts each
    token itself:

    >>> import numpy as np
    >>> from sinpe import nn
    >>> model = nn.TokenModel(4, 4, 2, 8, 0, encoding="none")
    >>> model.embedding.params["weight"][:] = np.eye(4)
    >>> model.head.params["weight"][:] = np.eye(4)
    >>> tokens = np.array([[0, 1, 2, 3]])
    >>> token_accuracy(model, tokens, np.array([[0, 2, 1, 3]]))
    0.5
    >>> token_accuracy(model, tokens, np.array([[0, 2, 1, 3]]), per_position=True).tolist()
    [1.0, 0.0, 0.0, 1.0]
    """
    ids = _check_model_tokens(model, tokens)
    wanted = check_integer_array(targets, "targets", ndim=2, hint="np.array([[1, 2, 3]])")
    if wanted.shape != ids.shape:
        raise ValueError(f"targets must have the shape of tokens, {ids.shape}, got {wanted.shape}")
    per_position = check_flag(per_position, "per_position")
    mask = nn.causal_mask(ids.shape[-1]) if check_flag(causal, "causal") else None
    correct = model.forward(ids, mask=mask).argmax(axis=-1) == wanted  # (B, T)
    return correct.mean(axis=0) if per_position else float(correct.mean())


def _check_model_tokens(model: nn.TokenModel, tokens: npt.ArrayLike) -> np.ndarray:
    """A TokenModel and a (B, T) array of its token ids, both checked."""
    check_instance(model, "model", nn.TokenModel)
    return model._ids(tokens)


@dataclass
class TrainingLog:
    """Losses of every step and held-out accuracies every ``eval_every`` steps.

    What :func:`train` returns. Each parameter is kept as the attribute of the
    same name.

    Parameters
    ----------
    losses : list of float, optional
        The training loss of each step, step 1 first.
    eval_steps : list of int, optional
        The steps after which the held-out accuracy was measured.
    eval_accuracy : list of float, optional
        The held-out accuracy after each of ``eval_steps``.

    Examples
    --------
    >>> log = TrainingLog(losses=[2.3, 1.2, 0.4], eval_steps=[2, 3], eval_accuracy=[0.5, 0.9])
    >>> log.accuracy_at(3), log.first_step_reaching(0.8), log.first_step_reaching(0.95)
    (0.9, 3, None)
    """

    losses: list[float] = field(default_factory=list)
    eval_steps: list[int] = field(default_factory=list)
    eval_accuracy: list[float] = field(default_factory=list)

    def accuracy_at(self, step: int) -> float:
        """The held-out accuracy evaluated after ``step`` steps.

        Parameters
        ----------
        step : int
            One of ``eval_steps``.

        Returns
        -------
        float
            The accuracy measured after that step.

        Raises
        ------
        ValueError
            If no evaluation was made after ``step``.
        """
        if step not in self.eval_steps:
            raise ValueError(f"no evaluation after step {step}; evaluated at {self.eval_steps}")
        return self.eval_accuracy[self.eval_steps.index(step)]

    def first_step_reaching(self, accuracy: float) -> int | None:
        """The first evaluated step with held-out accuracy >= ``accuracy``.

        Parameters
        ----------
        accuracy : float
            The accuracy to reach.

        Returns
        -------
        int or None
            The step, or ``None`` if no evaluation reached it.
        """
        for step, value in zip(self.eval_steps, self.eval_accuracy, strict=True):
            if value >= accuracy:
                return step
        return None


@one_blas_thread
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
    every token attends only to itself and earlier tokens. The loss is
    :func:`sinpe.nn.softmax_cross_entropy` over all tokens; the parameters are
    updated in place by :class:`sinpe.nn.Adam`. BLAS threads are limited to one
    during the call: the matrices are small.

    Parameters
    ----------
    model : sinpe.nn.TokenModel
        The model to train, in place.
    task : callable
        ``task(rng, batch, length, vocab)`` returning ``(tokens, targets)``, such
        as :func:`sinpe.tasks.reversal_task` or :func:`sinpe.tasks.previous_token_task`.
    steps : int
        Number of optimisation steps, from 1 to ``MAX_STEPS`` (10**6).
    length : int
        Sequence length of the training batches.
    vocab : int
        Ids drawn by the task, from 1 to ``model.vocab``.
    batch : int, optional
        Sequences per step.
    lr : float, optional
        Adam's learning rate (> 0).
    seed : int, optional
        Seed of the generator the batches are drawn from (>= 0).
    held_out : tuple of (numpy.ndarray, numpy.ndarray), optional
        ``(tokens, targets)`` of shape ``(B, T)`` each, on which the accuracy is
        measured after every ``eval_every`` steps and after the last one.
    eval_every : int, optional
        Steps between evaluations (at least 1).
    causal : bool, optional
        Train and evaluate with :func:`sinpe.nn.causal_mask`.

    Returns
    -------
    TrainingLog
        The loss of every step, and the accuracies on ``held_out`` (empty lists
        without it).

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`sinpe.nn.TokenModel`, ``task`` is not
        callable, ``held_out`` is not a pair (a ``tuple``), a count is not an
        integer, ``causal`` is not a boolean or ``lr`` is not a real number.
    ValueError
        If a count is out of range, ``vocab`` exceeds ``model.vocab``, ``lr`` is
        not positive, ``held_out`` does not fit the model (as
        :func:`token_accuracy`), or training diverges (a loss or parameter
        stops being finite). The task raises for a bad ``batch`` or ``length``.

    Examples
    --------
    Four steps of reversal, evaluated after steps 2 and 4:

    >>> import numpy as np
    >>> from sinpe import nn
    >>> from sinpe.tasks import reversal_task
    >>> model = nn.TokenModel(10, 8, 2, 16, 1, seed=0)
    >>> held_out = reversal_task(np.random.default_rng(1), 4, 6, 10)
    >>> log = train(model, reversal_task, steps=4, length=6, vocab=10, batch=8,
    ...             held_out=held_out, eval_every=2)
    >>> len(log.losses), log.eval_steps
    (4, [2, 4])
    >>> bool(abs(log.losses[0] - np.log(10)) < 0.5)   # near chance at first: ln 10
    True
    """
    check_instance(model, "model", nn.TokenModel)
    if not callable(task):
        raise TypeError(f"task must be a function such as reversal_task, got {task!r}")
    steps = check_count(steps, "steps", maximum=MAX_STEPS, hint="such as 300")
    eval_every = check_count(eval_every, "eval_every", hint="such as 50")
    vocab = check_count(vocab, "vocab", maximum=model.vocab, hint="up to the model's vocab")
    causal = check_flag(causal, "causal")
    rng = np.random.default_rng(check_count(seed, "seed", minimum=0, hint="such as 0"))
    log = TrainingLog()
    mask = nn.causal_mask(length) if causal else None
    if held_out is not None:
        if not isinstance(held_out, tuple) or len(held_out) != 2:
            raise TypeError("held_out must be a pair (tokens, targets) of (B, T) integer arrays")
        token_accuracy(model, *held_out, causal=causal)  # checks them before training

    def loss_and_gradient(step: int) -> tuple[float, np.ndarray]:
        tokens, targets = task(rng, batch, length, vocab)
        return nn.softmax_cross_entropy(model.forward(tokens, mask=mask), targets)

    def record(step: int, loss: float) -> None:
        log.losses.append(loss)
        if held_out is not None and (step % eval_every == 0 or step == steps):
            log.eval_steps.append(step)
            log.eval_accuracy.append(token_accuracy(model, *held_out, causal=causal))

    _adam(model, loss_and_gradient, record, steps=steps, lr=lr)
    return log


def _adam(
    model: nn.Module,
    loss_and_gradient: Callable[[int], tuple[float, np.ndarray]],
    record: Callable[[int, float], None],
    *,
    steps: int,
    lr: float,
) -> None:
    """The training loop of :func:`train` and :func:`fit_regression`: Adam, full steps.

    Each step zeroes the gradients, computes the loss and its gradient with
    respect to the model's output, back-propagates, updates, checks that the
    loss and every parameter are still finite, then calls ``record(step, loss)``.
    """
    optimizer = nn.Adam(model, lr=lr)
    for step in range(1, steps + 1):
        model.zero_grad()
        with np.errstate(all="ignore"):  # a diverging run is reported below, in words
            loss, gradient = loss_and_gradient(step)
            model.backward(gradient)
            optimizer.step()
        finite = math.isfinite(loss) and all(
            np.isfinite(value).all() for _, value, _ in model.named_parameters()
        )
        if not finite:
            raise ValueError(
                f"training diverged at step {step}: the loss or a parameter is no longer "
                f"finite; lower lr (e.g. to 1e-3) or rescale the data"
            )
        record(step, loss)


def attention_peak(model: nn.TokenModel, tokens: np.ndarray, *, layer: int = 0) -> float:
    """Mean over queries of the largest attention weight in one layer, for ``tokens``.

    ``1 / T`` when every query spreads its attention evenly over the ``T``
    tokens, 1 when each looks at one token only (a saturated softmax). Runs
    ``model.forward`` once, without a mask.

    Parameters
    ----------
    model : sinpe.nn.TokenModel
        The model.
    tokens : array_like of int, shape (B, T)
        Token ids in ``[0, model.vocab)``.
    layer : int, optional
        Which layer, from 0 to ``model.n_layers - 1``.

    Returns
    -------
    float
        The largest weight of each query's row, averaged over batch, heads and
        queries; in ``[1 / T, 1]``.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`sinpe.nn.TokenModel`, or ``tokens`` are not
        integers.
    ValueError
        If ``tokens`` is empty, not 2-d, or holds ids outside ``[0, vocab)``.
        Also if the model has no layers or ``layer`` is out of range
        (``ValueError``; ``TypeError`` for a non-integer ``layer``).

    Examples
    --------
    Identical tokens and no position information: every key looks the same, so
    attention is uniform, ``1 / 6``:

    >>> import numpy as np
    >>> from sinpe import nn
    >>> model = nn.TokenModel(10, 8, 2, 16, 1, encoding="none", seed=0)
    >>> round(attention_peak(model, np.zeros((2, 6), dtype=int)), 6)
    0.166667
    """
    ids = _check_model_tokens(model, tokens)
    if model.n_layers == 0:
        raise ValueError("model has no layers, so no attention to measure")
    layer = check_count(layer, "layer", minimum=0, maximum=model.n_layers - 1, hint="such as 0")
    model.forward(ids)
    weights = model.layers[layer].self_attn.attention_weights
    return float(weights.max(axis=-1).mean())  # (B, H, T, T) -> mean over B, H, T


def equivariance_gap(model: nn.TokenModel, tokens: np.ndarray, permutation: np.ndarray) -> float:
    """``max |f(x)[perm] - f(x[perm])|``: zero when permuting commutes with the model.

    ``f`` is ``model.forward`` (the logits) and ``perm`` reorders the positions
    of every sequence. A model without position information is permutation
    equivariant, and the gap is then zero up to rounding (about 1e-16); a
    position encoding makes it of order 1.

    Parameters
    ----------
    model : sinpe.nn.TokenModel
        The model.
    tokens : array_like of int, shape (B, T)
        Token ids in ``[0, model.vocab)``.
    permutation : array_like of int, shape (T,)
        A permutation of ``0 .. T - 1``.

    Returns
    -------
    float
        The largest absolute difference between the two sets of logits.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`sinpe.nn.TokenModel`, or ``tokens`` are not
        integers.
    ValueError
        If ``tokens`` is empty, not 2-d, or holds ids outside ``[0, vocab)``.
        Also if ``permutation`` is not integers (``TypeError``) or not a
        permutation of ``0 .. T - 1`` (``ValueError``).

    Examples
    --------
    A model without layers whose embedding and head are identities predicts each
    token itself:

    >>> import numpy as np
    >>> from sinpe import nn
    >>> model = nn.TokenModel(4, 4, 2, 8, 0, encoding="none")
    >>> model.embedding.params["weight"][:] = np.eye(4)
    >>> model.head.params["weight"][:] = np.eye(4)
    >>> equivariance_gap(model, np.array([[0, 1, 2, 3]]), np.array([3, 2, 1, 0]))
    0.0
    >>> with_positions = nn.TokenModel(4, 4, 2, 8, 0, encoding="sinusoidal")
    >>> equivariance_gap(with_positions, np.array([[0, 1, 2, 3]]), np.array([3, 2, 1, 0])) > 0.1
    True
    """
    ids = _check_model_tokens(model, tokens)
    order = check_integer_array(permutation, "permutation", ndim=1, hint="np.array([1, 0, 2])")
    if not np.array_equal(np.sort(order), np.arange(ids.shape[1])):
        raise ValueError(
            f"permutation must hold each of 0 .. {ids.shape[1] - 1} exactly once (one per "
            f"token position), got {order.tolist()[:10]}"
        )
    outputs = model.forward(ids)
    permuted_outputs = model.forward(ids[:, order])
    return float(np.max(np.abs(outputs[:, order] - permuted_outputs)))


def extend_context(
    model: nn.TokenModel,
    method: str,
    factor: float,
    *,
    original_length: int,
    ramp: str | None = None,
) -> nn.TokenModel:
    """A copy of a RoPE model stretched, without training, to a context ``factor`` times longer.

    Every attention layer of the copy rotates with
    :func:`sinpe.rope.scaled_frequencies` of its head width (from the default base
    10000, replacing any frequencies the layers had); ``"yarn"`` also divides the
    query-key products by :func:`sinpe.rope.yarn_temperature`. The weights are
    copied (a deep copy), so ``model`` is unchanged.

    Parameters
    ----------
    model : sinpe.nn.TokenModel
        A model with ``encoding="rope"``.
    method : {"interpolation", "ntk", "yarn"}
        Position Interpolation, NTK-aware base scaling, or YaRN (with its
        temperature).
    factor : float
        The scale ``s >= 1``: new context / ``original_length``.
    original_length : int
        The context the model was trained on (YaRN's ramp is set by it).
    ramp : {"released", "paper"}, optional
        YaRN only: which ramp :func:`sinpe.rope.scaled_frequencies` uses
        (default ``"released"``, the released code's; ``"paper"``, the
        paper's equations). Given with another method, it raises.

    Returns
    -------
    sinpe.nn.TokenModel
        The stretched copy.

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`sinpe.nn.TokenModel`, or for a non-real
        ``factor`` or a non-integer ``original_length``.
    ValueError
        If the model does not use RoPE, or for an unknown ``method`` or
        ``ramp``, a ``ramp`` with a method other than ``"yarn"``, a ``factor``
        below 1 (or, with ``"ntk"``, so large that the new base overflows) or
        an ``original_length`` below 1.

    Examples
    --------
    >>> from sinpe import nn
    >>> from sinpe.experiments import extend_context
    >>> model = nn.TokenModel(10, 8, 2, 16, 1, encoding="rope")
    >>> longer = extend_context(model, "yarn", 4.0, original_length=16)
    >>> attention = longer.layers[0].self_attn
    >>> attention.frequencies.shape, round(attention.temperature, 6)   # head width 4
    ((2,), 0.771321)
    >>> model.layers[0].self_attn.frequencies is None   # the original is untouched
    True
    """
    check_instance(model, "model", nn.TokenModel)
    check_choice(method, "method", SCALING_METHODS)
    layers = [model.layers[index] for index in range(model.n_layers)]
    if not layers or any(layer.self_attn.encoding != "rope" for layer in layers):
        raise ValueError(
            "extend_context stretches RoPE; pass a model built with encoding='rope' "
            "(and at least one layer)"
        )
    original_length = check_count(original_length, "original_length", hint="such as 16")
    stretched = copy.deepcopy(model)
    temperature = yarn_temperature(factor) if method == "yarn" else 1.0
    for index in range(stretched.n_layers):
        attention = stretched.layers[index].self_attn
        head_width = attention.params["in_proj_weight"].shape[1] // attention.n_heads
        theta = scaled_frequencies(
            head_width, factor, method=method, original_length=original_length, ramp=ramp
        )
        attention._set_rope(theta, temperature, head_width=head_width)
    return stretched


@dataclass
class RegressionLog:
    """Training losses, and held-out predictions recorded every ``record_every`` steps.

    What :func:`fit_regression` returns. Each parameter is kept as the attribute
    of the same name.

    Parameters
    ----------
    losses : list of float, optional
        The training loss of each step, step 1 first.
    steps : list of int, optional
        The steps after which predictions were recorded.
    predictions : list of numpy.ndarray, optional
        The model's outputs on the evaluation inputs after each of ``steps``.

    Examples
    --------
    >>> import numpy as np
    >>> log = RegressionLog(losses=[1.0, 0.5], steps=[2], predictions=[np.zeros((3, 1))])
    >>> log.steps, log.predictions[0].shape
    ([2], (3, 1))
    """

    losses: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    predictions: list[np.ndarray] = field(default_factory=list)


@one_blas_thread
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
    """Full-batch Adam on the mean squared error; records predictions on ``eval_inputs``.

    Every step uses all rows of ``inputs``; the loss is
    :func:`sinpe.nn.mean_squared_error` and the parameters are updated in place
    by :class:`sinpe.nn.Adam`. BLAS threads are limited to one during the call:
    the matrices are small.

    Parameters
    ----------
    model : sinpe.nn.Module
        A module whose ``forward(inputs)`` returns an array of the shape of
        ``targets`` and whose ``backward`` accepts its gradient, such as
        :class:`sinpe.nn.MLP`.
    inputs : array_like of real, shape (N, F)
        Training inputs, one example per row (``N >= 1``).
    targets : array_like of real, shape (N, G)
        Training targets.
    steps : int
        Number of steps, from 1 to ``MAX_STEPS`` (10**6).
    lr : float, optional
        Adam's learning rate (> 0).
    eval_inputs : array_like of real, shape (M, F), optional
        Inputs whose predictions are recorded every ``record_every`` steps and
        after the last one.
    record_every : int, optional
        Steps between recordings (at least 1).

    Returns
    -------
    RegressionLog
        The loss of every step, and the recorded predictions (empty lists
        without ``eval_inputs``).

    Raises
    ------
    TypeError
        If ``model`` is not a :class:`sinpe.nn.Module`, an array is not real
        numbers, a count is not an integer, or ``lr`` is not a real number.
    ValueError
        If an array is not 2-d or holds NaN or infinities, ``inputs`` and
        ``targets`` have no rows or different numbers of rows, the model's
        outputs do not have the shape of ``targets``, a count is out of range,
        ``lr`` is not positive, or training diverges.

    Examples
    --------
    A linear model (no hidden layer) learning ``y = 2 x``, recorded after steps 2
    and 4:

    >>> import numpy as np
    >>> from sinpe import nn
    >>> model = nn.MLP([1, 1], np.random.default_rng(0))
    >>> x = np.array([[0.0], [1.0], [2.0]])
    >>> log = fit_regression(model, x, 2 * x, steps=4, lr=0.1,
    ...                      eval_inputs=np.array([[3.0]]), record_every=2)
    >>> log.steps, log.predictions[-1].shape, bool(log.losses[-1] < log.losses[0])
    ([2, 4], (1, 1), True)
    """
    check_instance(model, "model", nn.Module)
    inputs = check_float_array(inputs, "inputs", ndim=2)
    targets = check_float_array(targets, "targets", ndim=2)
    if inputs.shape[0] != targets.shape[0] or inputs.shape[0] == 0:
        raise ValueError(
            f"inputs and targets must have one row per example, got {inputs.shape} and "
            f"{targets.shape}"
        )
    if eval_inputs is not None:
        eval_inputs = check_float_array(eval_inputs, "eval_inputs", ndim=2)
    steps = check_count(steps, "steps", maximum=MAX_STEPS, hint="such as 500")
    record_every = check_count(record_every, "record_every", hint="such as 100")
    log = RegressionLog()

    def loss_and_gradient(step: int) -> tuple[float, np.ndarray]:
        prediction = model.forward(inputs)
        if prediction.shape != targets.shape:
            raise ValueError(
                f"the model's outputs have shape {prediction.shape}, targets {targets.shape}; "
                f"pass targets with one column per model output"
            )
        if not np.isfinite(prediction).all():
            return math.nan, np.zeros_like(prediction)  # reported as a divergence
        return nn.mean_squared_error(prediction, targets)

    def record(step: int, loss: float) -> None:
        log.losses.append(loss)
        if eval_inputs is not None and (step % record_every == 0 or step == steps):
            log.steps.append(step)
            log.predictions.append(model.forward(eval_inputs))

    _adam(model, loss_and_gradient, record, steps=steps, lr=lr)
    return log
