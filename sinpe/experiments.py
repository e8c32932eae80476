"""What the chapters measure on the NumPy Transformer of :mod:`sinpe.nn`.

Accuracy, the attention peak, the equivariance gap, and a RoPE model stretched to a
longer context; the models are trained by :mod:`sinpe.training`. Throughout,
``model`` is a :class:`sinpe.nn.TokenModel` and ``tokens`` a ``(B, T)`` integer
array of its ids, in ``[0, model.vocab)``; a measurement runs ``model.forward``
once (its caches are then those of ``tokens``). NumPy only.

Used in: chapters 4, 6 and 8.
"""

from __future__ import annotations

import copy

import numpy as np
import numpy.typing as npt

from sinpe import nn
from sinpe._threads import one_blas_thread
from sinpe._validation import (
    FLAG,
    check_choice,
    check_count,
    check_instance,
    check_integer_array,
    constrained,
)
from sinpe.rope import SCALING_METHODS, scaled_frequencies, yarn_temperature

__all__ = [
    "attention_peak",
    "equivariance_gap",
    "extend_context",
    "token_accuracy",
]


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
    ``causal=True`` the model runs with :func:`sinpe.nn.causal_mask`. BLAS runs on
    one thread: the matrices are small.

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
    mask = nn.causal_mask(ids.shape[-1]) if causal else None
    correct = model.forward(ids, mask=mask).argmax(axis=-1) == wanted  # (B, T)
    return correct.mean(axis=0) if per_position else float(correct.mean())


def _check_model_tokens(model: nn.TokenModel, tokens: npt.ArrayLike) -> np.ndarray:
    """A TokenModel and a (B, T) array of its token ids, both checked."""
    check_instance(model, "model", nn.TokenModel)
    return model._ids(tokens)


def attention_peak(model: nn.TokenModel, tokens: np.ndarray, *, layer: int = 0) -> float:
    """Mean over queries of the largest attention weight in ``layer``, for ``tokens``.

    In ``[1 / T, 1]``: ``1 / T`` when every query spreads its attention evenly over
    the ``T`` tokens, 1 when each looks at one token only (a saturated softmax).
    Averaged over batch, heads and queries; no mask.

    Examples
    --------
    Identical tokens and no position information: attention is uniform, ``1 / 6``:

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

    ``f`` is ``model.forward`` (the logits) and ``permutation``, of
    ``0 .. T - 1``, reorders the positions of every sequence. A model without
    position information is permutation equivariant, and the gap is then zero up
    to rounding (about 1e-16); a position encoding makes it of order 1.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe import nn
    >>> reverse = np.array([3, 2, 1, 0])
    >>> equivariance_gap(nn.TokenModel(4, 4, 2, 8, 0, encoding="sinusoidal"),
    ...                  np.array([[0, 1, 2, 3]]), reverse) > 0.1
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

    Every attention layer of the copy (a deep copy: ``model`` is unchanged)
    rotates with :func:`sinpe.rope.scaled_frequencies` of its head width, from the
    default base 10000; ``"yarn"`` also divides the query-key products by
    :func:`sinpe.rope.yarn_temperature`.

    Parameters
    ----------
    model : sinpe.nn.TokenModel
        A model with ``encoding="rope"``.
    method : {"interpolation", "ntk", "yarn"}
        Position Interpolation, NTK-aware base scaling, or YaRN.
    factor : float
        The scale ``s >= 1``: new context / ``original_length``.
    original_length : int
        The context the model was trained on (YaRN's ramp is set by it).
    ramp : {"released", "paper"}, optional
        YaRN only: the ramp of :func:`sinpe.rope.scaled_frequencies`.

    Examples
    --------
    >>> from sinpe import nn
    >>> model = nn.TokenModel(10, 8, 2, 16, 1, encoding="rope")
    >>> longer = extend_context(model, "yarn", 4.0, original_length=16)
    >>> attention = longer.layers[0].self_attn
    >>> attention.frequencies.shape, round(attention.temperature, 6)   # head width 4
    ((2,), 0.771321)
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
