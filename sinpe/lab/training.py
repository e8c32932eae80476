"""Training the NumPy Transformer of :mod:`sinpe.lab.nn`: the optimiser, the loop, the check.

One loop serves :func:`train` (batches of a task of :mod:`sinpe.lab.tasks`) and
:func:`fit_regression` (data). The model is :mod:`sinpe.lab.nn`, what is read inside it
:mod:`sinpe.lab.probes` (nanoGPT's ``model.py`` / ``train.py`` split). NumPy only.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sinpe._threads import one_blas_thread
from sinpe._validation import (
    FLAG,
    Instance,
    Integer,
    Pair,
    Real,
    check_float_array,
    check_integer_array,
    constrained,
)
from sinpe.lab import nn
from sinpe.lab.tasks import _SIZES, Task

__all__ = [
    "Adam",
    "RegressionLog",
    "TrainingLog",
    "check_gradients",
    "fit_regression",
    "token_accuracy",
    "train",
]

#: Most optimisation steps accepted by :func:`train` and :func:`fit_regression`.
MAX_STEPS = 10**6

_STEPS, _EVERY = Integer(1, MAX_STEPS, hint="such as 300"), Integer(hint="such as 50")
_LR, _SEED = Real(0.0, closed="neither", hint="e.g. 1e-3"), Integer(0, hint="such as 0")
_MODULE, _MODEL = Instance(nn.Module), Instance(nn.TokenModel)
_BETAS = Pair(Real(0.0, 1.0, closed="left"), hint="(beta1, beta2) such as (0.9, 0.999)")
_EPS = Real(0.0, closed="neither", hint="e.g. 1e-8")


class Adam:
    """Adam (Kingma & Ba 2015) over a module's parameters, updated in place.

    Each :meth:`step` reads the gradients the module has accumulated (call
    ``module.zero_grad()`` before each backward pass) and applies the
    bias-corrected update ``lr * m_hat / (sqrt(v_hat) + eps)``, without weight
    decay, to the parameters the module has when the optimiser is made.

    Parameters
    ----------
    module : sinpe.lab.nn.Module
        The module whose parameters (children included) are optimised.
    lr : float, optional
    betas : tuple of (float, float), optional
        Decay rates of the first and second moments, each in ``[0, 1)``.
    eps : float, optional
        Added to the denominator (> 0).

    Attributes
    ----------
    step_count : int
        Steps taken so far.
    moments : dict of str to tuple of numpy.ndarray
        The first and second moments of each parameter, by name.

    Examples
    --------
    The first step moves each parameter by ``lr`` against the sign of its
    gradient (``m_hat = g`` and ``sqrt(v_hat) = |g|``):

    >>> import numpy as np
    >>> layer = nn.Linear(1, 1, np.random.default_rng(0))
    >>> layer.params["weight"][:] = 0.5
    >>> layer.grads["weight"][:] = 2.0
    >>> Adam(layer, lr=0.1).step()
    >>> layer.params["weight"].round(6).tolist()   # 0.5 - 0.1
    [[0.4]]
    """

    @constrained(module=_MODULE, lr=_LR, betas=_BETAS, eps=_EPS)
    def __init__(
        self,
        module: nn.Module,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        self.module, self.lr, self.betas, self.eps = module, lr, betas, eps
        self.step_count = 0
        self.moments = {
            name: (np.zeros_like(value), np.zeros_like(value))
            for name, value, _ in module.named_parameters()
        }

    def step(self) -> None:
        """Update every parameter in place from its current gradient."""
        self.step_count += 1
        beta1, beta2 = self.betas
        correction1 = 1.0 - beta1**self.step_count
        correction2 = 1.0 - beta2**self.step_count
        for name, value, grad in self.module.named_parameters():
            first, second = self.moments[name]
            first *= beta1
            first += (1.0 - beta1) * grad
            second *= beta2
            second += (1.0 - beta2) * grad * grad
            value -= self.lr * (first / correction1) / (np.sqrt(second / correction2) + self.eps)


@constrained(module=_MODULE, delta=Real(0.0, 1.0, closed="right", hint="e.g. 1e-6"), seed=_SEED)
def check_gradients(
    module: nn.Module,
    inputs: npt.ArrayLike,
    forward: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    delta: float = 1e-6,
    seed: int = 0,
) -> dict[str, float]:
    """Compare a module's backward pass with central finite differences.

    Uses the scalar ``L = sum(forward(inputs) * R)`` for a fixed random ``R`` and
    returns, for ``"input"`` and every parameter (named as
    :meth:`sinpe.lab.nn.Module.named_parameters`), the largest deviation between the
    analytic and the numerical gradient relative to the largest numerical entry
    (or 0.01). Near 1e-9 means agreement; a wrong backward pass gives O(1). Run it
    in float64 on small shapes: every entry is perturbed twice, in place, and
    restored; the gradients are zeroed first.

    Parameters
    ----------
    module : sinpe.lab.nn.Module
        Its ``backward(dout)`` must return the gradient of ``inputs`` (so not
        :class:`~sinpe.lab.nn.Embedding` or :class:`~sinpe.lab.nn.TokenModel`).
    inputs : array_like of real
    forward : callable, optional
        ``forward(inputs)``, by default ``module.forward``; e.g.
        ``lambda x: layer.forward(x, mask)`` to check with a mask.
    delta : float, optional
        Step of the central differences, in ``(0, 1]``.
    seed : int, optional
        Seed of the random weights ``R``.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.random.default_rng(1).normal(size=(2, 3))
    >>> errors = check_gradients(nn.LayerNorm(3), x)
    >>> list(errors), max(errors.values()) < 1e-6
    (['input', 'weight', 'bias'], True)
    """
    if isinstance(module, (nn.Embedding, nn.TokenModel)):
        raise TypeError(
            f"check_gradients perturbs real inputs; {type(module).__name__} takes integer "
            f"token ids, which have no gradient. Check its layers (EncoderLayer, "
            f"MultiHeadAttention, ...) one by one"
        )
    inputs = check_float_array(inputs, "inputs")
    run = forward or module.forward
    weights = np.random.default_rng(seed).normal(size=run(inputs).shape)

    def loss() -> float:
        return float(np.sum(run(inputs) * weights))

    def numerical(array: np.ndarray) -> np.ndarray:
        grad = np.zeros_like(array)
        flat, out = array.reshape(-1), grad.reshape(-1)
        for index in range(flat.size):
            saved = flat[index]
            flat[index] = saved + delta
            plus = loss()
            flat[index] = saved - delta
            out[index] = (plus - loss()) / (2 * delta)
            flat[index] = saved
        return grad

    def deviation(analytic: np.ndarray, numeric: np.ndarray) -> float:
        scale = max(float(np.max(np.abs(numeric))), 1e-2)
        return float(np.max(np.abs(analytic - numeric))) / scale

    module.zero_grad()
    run(inputs)
    dinputs = module.backward(weights)
    if dinputs is None:
        raise TypeError(
            f"check_gradients needs a module whose backward returns the gradient of its "
            f"input; {type(module).__name__}.backward returns None"
        )
    analytic = {name: grad.copy() for name, _, grad in module.named_parameters()}
    errors = {"input": deviation(dinputs, numerical(inputs))}
    for name, value, _ in module.named_parameters():
        errors[name] = deviation(analytic[name], numerical(value))
    return errors


@dataclass
class TrainingLog:
    """What :func:`train` returns: the loss of every step and held-out accuracies.

    Attributes ``losses`` (step 1 first), ``eval_steps`` (the steps after which
    the held-out accuracy was measured) and ``eval_accuracy``.

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
        """The held-out accuracy after ``step`` steps; ValueError if not evaluated then."""
        if step not in self.eval_steps:
            raise ValueError(f"no evaluation after step {step}; evaluated at {self.eval_steps}")
        return self.eval_accuracy[self.eval_steps.index(step)]

    def first_step_reaching(self, accuracy: float) -> int | None:
        """The first evaluated step with accuracy >= ``accuracy``, or ``None``."""
        for step, value in zip(self.eval_steps, self.eval_accuracy, strict=True):
            if value >= accuracy:
                return step
        return None


@one_blas_thread
@constrained(
    model=_MODEL, **_SIZES, steps=_STEPS, lr=_LR, seed=_SEED, eval_every=_EVERY, causal=FLAG
)
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
    models trained with the same seed see the same data. The loss is
    :func:`sinpe.lab.nn.softmax_cross_entropy` over all tokens; :class:`Adam` updates
    the parameters in place. BLAS runs on one thread: the matrices are small.
    Divergence (a loss or parameter no longer finite) raises ValueError.

    Parameters
    ----------
    model : sinpe.lab.nn.TokenModel
    task : callable
        ``task(rng, batch, length, vocab)`` returning ``(tokens, targets)``, such
        as :func:`sinpe.lab.tasks.reversal_task`.
    steps : int
        Optimisation steps, from 1 to ``MAX_STEPS`` (10**6).
    length : int
        Sequence length of the batches.
    vocab : int
        Ids the task draws, at most ``model.vocab``.
    batch : int, optional
        Sequences per step.
    lr : float, optional
        Adam's learning rate.
    seed : int, optional
        Seed of the batches.
    held_out : tuple of (numpy.ndarray, numpy.ndarray), optional
        ``(tokens, targets)``, each ``(B, T)``, on which the accuracy is measured
        every ``eval_every`` steps and after the last one.
    causal : bool, optional
        Train and evaluate with :func:`sinpe.lab.nn.causal_mask`.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.lab import nn
    >>> from sinpe.lab.tasks import reversal_task
    >>> model = nn.TokenModel(nn.ModelConfig(vocab=10, d_model=8, n_heads=2, d_ff=16, n_layers=1))
    >>> held_out = reversal_task(np.random.default_rng(1), 4, 6, 10)
    >>> log = train(model, reversal_task, steps=4, length=6, vocab=10, batch=8,
    ...             held_out=held_out, eval_every=2)
    >>> len(log.losses), log.eval_steps
    (4, [2, 4])
    >>> bool(abs(log.losses[0] - np.log(10)) < 0.5)   # near chance at first: ln 10
    True
    """
    if not callable(task):
        raise TypeError(f"task must be a function such as reversal_task, got {task!r}")
    if vocab > model.vocab:
        raise ValueError(f"vocab must be at most the model's vocab, {model.vocab}, got {vocab}")
    rng = np.random.default_rng(seed)
    log = TrainingLog()
    mask = nn.causal_mask(length) if causal else None
    if held_out is not None:
        if not isinstance(held_out, tuple) or len(held_out) != 2:
            raise TypeError("held_out must be a pair (tokens, targets) of (B, T) integer arrays")
        token_accuracy(model, *held_out, causal=causal)  # checks them before training

    def loss_and_gradient() -> tuple[float, np.ndarray]:
        tokens, targets = task(rng, batch, length, vocab)
        return nn.softmax_cross_entropy(model.forward(tokens, mask=mask), targets)

    for step, loss in _adam(model, loss_and_gradient, steps=steps, lr=lr):
        log.losses.append(loss)
        if held_out is not None and (step % eval_every == 0 or step == steps):
            log.eval_steps.append(step)
            log.eval_accuracy.append(float(token_accuracy(model, *held_out, causal=causal)))
    return log


def _adam(
    model: nn.Module,
    loss_and_gradient: Callable[[], tuple[float, np.ndarray]],
    *,
    steps: int,
    lr: float,
) -> Iterator[tuple[int, float]]:
    """The loop of :func:`train` and :func:`fit_regression`: Adam's steps, each yielding
    ``(step, loss)`` once the loss and the updated parameters are found finite."""
    optimizer = Adam(model, lr=lr)
    for step in range(1, steps + 1):
        model.zero_grad()
        with np.errstate(all="ignore"):  # a diverging run is reported below, in words
            loss, gradient = loss_and_gradient()
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
        yield step, loss


@dataclass
class RegressionLog:
    """What :func:`fit_regression` returns: losses, and predictions every ``record_every`` steps.

    Attributes ``losses`` (step 1 first), ``steps`` (when predictions were
    recorded) and ``predictions`` (the outputs on the evaluation inputs then).
    """

    losses: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    predictions: list[np.ndarray] = field(default_factory=list)


@one_blas_thread
@constrained(model=_MODULE, steps=_STEPS, lr=_LR, record_every=_EVERY)
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

    As :func:`train`, but every step uses all rows of ``inputs`` and the loss is
    :func:`sinpe.lab.nn.mean_squared_error`.

    Parameters
    ----------
    model : sinpe.lab.nn.Module
        ``forward(inputs)`` returns an array of the shape of ``targets``, such as
        :class:`sinpe.lab.nn.MLP`.
    inputs : array_like of real, shape (N, F)
    targets : array_like of real, shape (N, G)
    steps : int
        From 1 to ``MAX_STEPS`` (10**6).
    lr : float, optional
    eval_inputs : array_like of real, shape (M, F), optional
        Predicted every ``record_every`` steps and after the last one.
    record_every : int, optional

    Examples
    --------
    A linear model learning ``y = 2 x``, recorded after steps 2 and 4:

    >>> import numpy as np
    >>> from sinpe.lab import nn
    >>> model = nn.MLP([1, 1], np.random.default_rng(0))
    >>> x = np.array([[0.0], [1.0], [2.0]])
    >>> log = fit_regression(model, x, 2 * x, steps=4, lr=0.1,
    ...                      eval_inputs=np.array([[3.0]]), record_every=2)
    >>> log.steps, log.predictions[-1].shape, bool(log.losses[-1] < log.losses[0])
    ([2, 4], (1, 1), True)
    """
    inputs = check_float_array(inputs, "inputs", ndim=2)
    targets = check_float_array(targets, "targets", ndim=2)
    if inputs.shape[0] != targets.shape[0] or inputs.shape[0] == 0:
        raise ValueError(
            f"inputs and targets must have one row per example, got {inputs.shape} and "
            f"{targets.shape}"
        )
    if eval_inputs is not None:
        eval_inputs = check_float_array(eval_inputs, "eval_inputs", ndim=2)
    log = RegressionLog()

    def loss_and_gradient() -> tuple[float, np.ndarray]:
        prediction = model.forward(inputs)
        if prediction.shape != targets.shape:
            raise ValueError(
                f"the model's outputs have shape {prediction.shape}, targets {targets.shape}; "
                f"pass targets with one column per model output"
            )
        if not np.isfinite(prediction).all():
            return math.nan, np.zeros_like(prediction)  # reported as a divergence
        return nn.mean_squared_error(prediction, targets)

    for step, loss in _adam(model, loss_and_gradient, steps=steps, lr=lr):
        log.losses.append(loss)
        if eval_inputs is not None and (step % record_every == 0 or step == steps):
            log.steps.append(step)
            log.predictions.append(model.forward(eval_inputs))
    return log


@one_blas_thread
@constrained(per_position=FLAG, causal=FLAG)
def token_accuracy(
    model: nn.TokenModel,
    tokens: np.ndarray,
    targets: np.ndarray,
    *,
    per_position: bool = False,
    causal: bool = False,
) -> float | np.ndarray:
    """Fraction of tokens whose most likely prediction is the target (per position if asked).

    ``targets`` has the shape of ``tokens``. With ``per_position=True``, the
    accuracy at each position, averaged over the batch (shape ``(T,)``); with
    ``causal=True`` the model runs with :func:`sinpe.lab.nn.causal_mask`. BLAS runs on
    one thread: the matrices are small.

    Examples
    --------
    A model without layers whose embedding and head are identities predicts each
    token itself:

    >>> import numpy as np
    >>> from sinpe.lab import nn
    >>> config = nn.ModelConfig(vocab=4, d_model=4, n_heads=2, d_ff=8, n_layers=0, encoding="none")
    >>> model = nn.TokenModel(config)
    >>> model.embedding.params["weight"][:] = np.eye(4)
    >>> model.head.params["weight"][:] = np.eye(4)
    >>> tokens = np.array([[0, 1, 2, 3]])
    >>> token_accuracy(model, tokens, np.array([[0, 2, 1, 3]]))
    0.5
    >>> token_accuracy(model, tokens, np.array([[0, 2, 1, 3]]), per_position=True).tolist()
    [1.0, 0.0, 0.0, 1.0]
    """
    ids = nn._checked_tokens(model, tokens)
    wanted = check_integer_array(targets, "targets", ndim=2, hint="np.array([[1, 2, 3]])")
    if wanted.shape != ids.shape:
        raise ValueError(f"targets must have the shape of tokens, {ids.shape}, got {wanted.shape}")
    mask = nn.causal_mask(ids.shape[-1]) if causal else None
    correct = model.forward(ids, mask=mask).argmax(axis=-1) == wanted  # (B, T)
    return correct.mean(axis=0) if per_position else float(correct.mean())
