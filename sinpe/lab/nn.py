"""A Transformer encoder in NumPy, forward and backward written out.

Small enough to read in one sitting, explicit enough to check every gradient:
each module keeps its parameters in ``params`` and their gradients in
``grads`` (same keys), caches what its backward pass needs during ``forward``,
and ``backward(dout)`` returns the gradient with respect to its input while
*adding* into ``grads``. Parameter names follow PyTorch, so an
:class:`EncoderLayer` loads the ``state_dict`` of a
``torch.nn.TransformerEncoderLayer`` (see :meth:`EncoderLayer.from_state_dict`).

Shapes: ``B`` batch, ``T`` sequence length, ``D`` width (d_model), ``H`` heads,
``Dh = D / H``, ``F`` feed-forward width, ``V`` vocabulary.

NumPy only; no dropout (the layers compute what PyTorch computes in eval mode).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sinpe import alibi, rope
from sinpe._schemes import registry
from sinpe._validation import (
    BASE,
    DTYPE,
    Integer,
    Width,
    check_choice,
    check_count,
    check_entries,
    check_flag,
    check_float_array,
    check_instance,
    check_integer_array,
    check_pair,
    check_real,
    constrained,
)
from sinpe.core import positional_encoding

__all__ = [
    "MLP",
    "AttentionCache",
    "Embedding",
    "EncoderLayer",
    "LayerNorm",
    "Linear",
    "Module",
    "MultiHeadAttention",
    "PositionalEncoding",
    "TokenModel",
    "attention_bias",
    "causal_mask",
    "gelu",
    "gelu_backward",
    "mean_squared_error",
    "relu",
    "relu_backward",
    "softmax",
    "softmax_cross_entropy",
]

ACTIVATIONS = ("relu", "gelu")

#: The schemes added to the embeddings (:class:`PositionalEncoding`) ...
ADDED_ENCODINGS = ("sinusoidal", "learned", "none")
#: ... and those that act inside attention (:class:`MultiHeadAttention`): the ``ATTENTION``
#: each module declares (``sinpe/_schemes.py``), registered here, oldest first. ``"none"``,
#: in both, means no position information at all.
ATTENTION_SCHEMES = registry(rope=rope.ATTENTION, alibi=alibi.ATTENTION)
ATTENTION_ENCODINGS = tuple(ATTENTION_SCHEMES)
#: The position encodings a model can use: ``encoding=`` of :class:`TokenModel`, the
#: two kinds above (a new scheme declared in one of them is selectable everywhere).
ENCODINGS = tuple(dict.fromkeys(ADDED_ENCODINGS + ATTENTION_ENCODINGS))

#: Deepest :class:`TokenModel` accepted (a NumPy model this deep would not train anyway).
MAX_LAYERS = 1024

#: The width and the heads of every layer, declared once (an odd width is fine until
#: sinusoids fill it with (sin, cos) pairs; the heads must also divide the width).
_D_MODEL = Integer(hint="such as 32")
_N_HEADS = Integer(hint="that divides d_model, such as 4")


# ---------------------------------------------------------------------------
# Functions


# The kernels below are what the layers call on their own (already checked)
# arrays; the public functions check their arguments first, then call them.


def _softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = scores - np.max(scores, axis=axis, keepdims=True)
    weights = np.exp(shifted)
    return weights / np.sum(weights, axis=axis, keepdims=True)


#: What to pass when an output gradient and its input differ in shape.
_GRADIENT_HINT = "pass the gradient of the output computed from x"


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


def _relu_backward(dout: np.ndarray, x: np.ndarray) -> np.ndarray:
    return dout * (x > 0)


_erf = np.frompyfunc(math.erf, 1, 1)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=x.dtype))


def _gelu_backward(dout: np.ndarray, x: np.ndarray) -> np.ndarray:
    cdf = 0.5 * (1.0 + np.asarray(_erf(x / math.sqrt(2.0)), dtype=x.dtype))
    with np.errstate(over="ignore"):  # x * x overflows only where exp(-x * x / 2) is 0 anyway
        pdf = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return dout * (cdf + x * pdf)


def softmax(scores: npt.ArrayLike, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``; ``-inf`` entries get probability 0.

    ``scores`` are finite or ``-inf``, with at least one finite entry per slice; the
    result has their shape, float64 unless they are float32/float16.

    Examples
    --------
    >>> import numpy as np
    >>> softmax(np.array([0.0, np.log(3.0), -np.inf])).round(6).tolist()
    [0.25, 0.75, 0.0]
    """
    values = check_float_array(scores, "scores", allow_negative_infinity=True)
    where = check_count(axis, "axis", minimum=-max(values.ndim, 1), maximum=max(values.ndim, 1) - 1)
    if values.ndim == 0 or values.shape[where] == 0:
        raise ValueError(f"scores must have a non-empty axis {where}, got shape {values.shape}")
    if np.all(values == -np.inf, axis=where).any():
        raise ValueError(
            "a slice of scores is -inf everywhere: every entry is masked and the softmax is "
            "undefined; leave at least one finite score per slice"
        )
    return _softmax(values, axis=where)


def relu(x: npt.ArrayLike) -> np.ndarray:
    """``max(x, 0)`` entry by entry, for finite real ``x``; float16/32/64 kept, else float64.

    Examples
    --------
    >>> relu([-1.5, 0.0, 2.0]).tolist()
    [0.0, 0.0, 2.0]
    """
    values = check_float_array(x, "x")
    return _relu(values)


def relu_backward(dout: npt.ArrayLike, x: npt.ArrayLike) -> np.ndarray:
    """The gradient through :func:`relu`: ``dout`` where ``x > 0``, else 0.

    ``dout`` is the gradient of the loss with respect to ``relu(x)``, of the shape of
    ``x``, the input of :func:`relu`.

    Examples
    --------
    >>> relu_backward([5.0, 5.0], [-1.0, 1.0]).tolist()
    [0.0, 5.0]
    """
    gradient, values = check_pair(
        dout, x, ("dout", "x"), hint=_GRADIENT_HINT, allow_empty=True, keep_dtype=True
    )
    return _relu_backward(gradient, values)


def gelu(x: npt.ArrayLike) -> np.ndarray:
    """Exact GELU, ``x * Phi(x) = x / 2 * (1 + erf(x / sqrt 2))`` (PyTorch's default).

    ``Phi`` is the standard normal distribution function. Argument, result and
    errors as :func:`relu`.

    Examples
    --------
    >>> round(float(gelu(1.0)), 6)  # Phi(1) = 0.841345
    0.841345
    >>> gelu([0.0]).tolist()
    [0.0]
    """
    return _gelu(check_float_array(x, "x"))


def gelu_backward(dout: npt.ArrayLike, x: npt.ArrayLike) -> np.ndarray:
    """The gradient through :func:`gelu`: ``dout * (Phi(x) + x phi(x))``.

    ``phi`` is the standard normal density. Arguments, result and errors as
    :func:`relu_backward` (``x`` the input of :func:`gelu`).

    Examples
    --------
    >>> round(float(gelu_backward(1.0, 0.0)), 6)  # Phi(0) = 1/2
    0.5
    """
    gradient, values = check_pair(
        dout, x, ("dout", "x"), hint=_GRADIENT_HINT, allow_empty=True, keep_dtype=True
    )
    return _gelu_backward(gradient, values)


def softmax_cross_entropy(
    logits: npt.ArrayLike, targets: npt.ArrayLike
) -> tuple[float, np.ndarray]:
    """Mean cross-entropy over all tokens, and its gradient with respect to ``logits``.

    Parameters
    ----------
    logits : array_like of real, shape (..., V)
        Finite scores of the ``V`` classes for each token.
    targets : array_like of int, shape (...)
        The class of each token, in ``0 .. V - 1``.

    Returns
    -------
    loss : float
        ``-mean(log softmax(logits)[target])`` over all tokens.
    gradient : numpy.ndarray
        ``(softmax(logits) - onehot(targets)) / N`` for ``N`` tokens.

    Examples
    --------
    Equal logits for 4 classes: probability 1/4 each, so the loss is ``ln 4`` and
    the gradient ``1/4 - 1`` at the target, ``1/4`` elsewhere:

    >>> import numpy as np
    >>> from sinpe.lab.nn import softmax_cross_entropy
    >>> loss, grad = softmax_cross_entropy(np.zeros((1, 4)), [2])
    >>> bool(np.isclose(loss, np.log(4))), grad.tolist()
    (True, [[0.25, 0.25, -0.75, 0.25]])
    """
    logits = check_float_array(logits, "logits")
    if logits.ndim == 0 or logits.shape[-1] == 0:
        raise ValueError(f"logits must have shape (..., V) with V >= 1, got {logits.shape}")
    labels = check_integer_array(
        targets, "targets", minimum=0, below=logits.shape[-1], hint="one class id per row"
    )
    if labels.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets must have shape {logits.shape[:-1]} (one class id per row of logits), "
            f"got {labels.shape}"
        )
    probs = _softmax(logits)  # (..., V)
    flat = probs.reshape(-1, probs.shape[-1])
    picked = flat[np.arange(flat.shape[0]), labels.reshape(-1)]
    loss = float(-np.mean(np.log(np.maximum(picked, np.finfo(probs.dtype).tiny))))
    grad = flat.copy()
    grad[np.arange(flat.shape[0]), labels.reshape(-1)] -= 1.0
    return loss, (grad / flat.shape[0]).reshape(logits.shape)


def causal_mask(length: int) -> np.ndarray:
    """Boolean ``(T, T)`` mask, True above the diagonal: no token may look ahead.

    ``True`` means *not allowed* (key ``j > i``), as in PyTorch's boolean ``src_mask``.

    Examples
    --------
    >>> causal_mask(3).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    length = check_count(length, "length", hint="such as 16")
    check_entries((length, length), what="the causal mask (length, length)")
    return np.triu(np.ones((length, length), dtype=bool), 1)


@constrained(dtype=DTYPE)
def attention_bias(
    mask: npt.ArrayLike | None,
    key_padding_mask: npt.ArrayLike | None,
    batch: int,
    heads: int,
    length: int,
    dtype: npt.DTypeLike = np.float64,
) -> np.ndarray | None:
    """Additive attention bias, broadcastable to ``(B, H, T, T)``, from PyTorch-style masks.

    Parameters
    ----------
    mask : array_like or None
        PyTorch's ``src_mask``, shape ``(T, T)`` or ``(B * H, T, T)``: boolean (True is
        *not allowed*, bias ``-inf``) or float (added as it is; ``-inf`` allowed).
    key_padding_mask : array_like of bool, shape (B, T), or None
        True for the padding keys that no query may attend to.
    batch, heads, length : int
        ``B``, ``H`` and ``T``.
    dtype : {numpy.float64, numpy.float32, numpy.float16}, optional
        dtype of the bias.

    Returns
    -------
    numpy.ndarray or None
        None when both masks are None; else 0 where attention is allowed and ``-inf``
        where not (plus a float mask), of shape ``(1, 1, T, T)`` or ``(B, H, T, T)``
        from ``mask``, ``(B, 1, 1, T)`` from ``key_padding_mask``, or their sum.

    Examples
    --------
    >>> import numpy as np
    >>> attention_bias(causal_mask(3), None, 1, 1, 3)[0, 0].tolist()
    [[0.0, -inf, -inf], [0.0, 0.0, -inf], [0.0, 0.0, 0.0]]
    >>> padding = np.array([[False, False, True]])   # the last key is padding
    >>> attention_bias(None, padding, 1, 2, 3).tolist()
    [[[[0.0, 0.0, -inf]]]]
    >>> attention_bias(None, None, 1, 2, 3) is None
    True
    """
    batch = check_count(batch, "batch", hint="such as 8")
    heads = check_count(heads, "heads", hint="such as 4")
    length = check_count(length, "length", hint="such as 16")
    bias = None
    if mask is not None:
        given = np.asarray(mask)
        if given.shape == (length, length):
            shaped = given[np.newaxis, np.newaxis]
        elif given.shape == (batch * heads, length, length):
            shaped = given.reshape(batch, heads, length, length)
        else:
            raise ValueError(
                f"mask must have shape ({length}, {length}) or "
                f"({batch * heads}, {length}, {length}), got {given.shape}"
            )
        if shaped.dtype == np.bool_:
            bias = np.where(shaped, -np.inf, 0.0).astype(dtype)
        elif shaped.dtype.kind == "f":
            bias = check_float_array(shaped, "mask", allow_negative_infinity=True).astype(dtype)
        else:
            raise TypeError(f"mask must be boolean or floating, got {shaped.dtype}")
    if key_padding_mask is not None:
        padding = np.asarray(key_padding_mask)
        if padding.shape != (batch, length) or padding.dtype != np.bool_:
            raise ValueError(
                f"key_padding_mask must be boolean of shape ({batch}, {length}), "
                f"got {padding.dtype} {padding.shape}"
            )
        pad_bias = np.where(padding[:, np.newaxis, np.newaxis, :], -np.inf, 0.0).astype(dtype)
        bias = pad_bias if bias is None else bias + pad_bias
    return bias


def _check_heads(d_model: int, n_heads: int, encoding: str) -> None:
    """``n_heads`` divides ``d_model``, and a rotating scheme (RoPE) has an even head width."""
    if d_model % n_heads:
        raise ValueError(
            f"d_model={d_model} is not divisible by n_heads={n_heads}; pick n_heads "
            f"among the divisors of d_model"
        )
    scheme = ATTENTION_SCHEMES[encoding]
    if scheme.rotate and (d_model // n_heads) % 2:
        raise ValueError(
            f"{scheme.label} rotates pairs of entries, so the head width d_model / n_heads "
            f"must be even, got {d_model // n_heads}; change d_model or n_heads"
        )


def _check_layer_sizes(d_model: int, d_ff: int) -> None:
    """The largest weights of an :class:`EncoderLayer` fit in memory."""
    check_entries((3 * d_model, d_model), what="in_proj_weight of MultiHeadAttention")
    check_entries((d_ff, d_model), what="the weight of Linear(d_in, d_out)")


# ---------------------------------------------------------------------------
# Modules


class Module:
    """Parameters, their gradients, and named children (for PyTorch-style names).

    The base class of the layers. A child is reached as an attribute,
    ``layer.self_attn``; numbered children ``layers.0``, ``layers.1``, ... as a list,
    ``model.layers[0]``. Calling a module runs its ``forward``, which caches what
    ``backward(dout)`` needs; ``backward`` adds into ``grads`` and returns the gradient
    with respect to the input.

    Attributes
    ----------
    params : dict of str to numpy.ndarray
        The module's own parameters, by PyTorch name (``"weight"``, ``"bias"``).
    grads : dict of str to numpy.ndarray
        Their gradients, same keys and shapes, accumulated by ``backward``.
    children : dict of str to Module
        Sub-modules, by name.

    Examples
    --------
    >>> from sinpe.lab import nn
    >>> model = nn.TokenModel(vocab=10, d_model=8, n_heads=2, d_ff=16, n_layers=2)
    >>> type(model.layers[1].self_attn).__name__, len(model.layers)
    ('MultiHeadAttention', 2)
    >>> model.num_parameters()  # 80 + 2 * (216 + 72 + 144 + 136 + 16 + 16) + 90
    1370
    """

    def __init__(self) -> None:
        self.params: dict[str, np.ndarray] = {}
        self.grads: dict[str, np.ndarray] = {}
        self.children: dict[str, Module] = {}

    def __getattr__(self, name: str):
        # Called only when ordinary lookup fails: look among the children.
        children = self.__dict__.get("children", {})
        if name in children:
            return children[name]
        numbered = []
        while f"{name}.{len(numbered)}" in children:
            numbered.append(children[f"{name}.{len(numbered)}"])
        if numbered:
            return numbered
        raise AttributeError(f"{type(self).__name__} has no attribute or sub-module {name!r}")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    @classmethod
    def _trusted(cls, *args, **kwargs):
        """A child built by a parent that checked its arguments: ``_build``, no checks."""
        module = cls.__new__(cls)
        Module.__init__(module)
        module._build(*args, **kwargs)
        return module

    def num_parameters(self) -> int:
        """The number of scalar parameters, children included."""
        return sum(value.size for _, value, _ in self.named_parameters())

    def _add(self, name: str, value: np.ndarray) -> None:
        self.params[name] = value
        self.grads[name] = np.zeros_like(value)

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
        """Yield ``(name, parameter, gradient)``, named as ``state_dict`` keys after ``prefix``.

        Own parameters first, then the children's in the order they were added; the arrays
        themselves, not copies (updating them in place updates the module).
        """
        for name, value in self.params.items():
            yield prefix + name, value, self.grads[name]
        for child_name, child in self.children.items():
            yield from child.named_parameters(f"{prefix}{child_name}.")

    def zero_grad(self) -> None:
        """Set every gradient, children included, to 0 in place."""
        for _, _, grad in self.named_parameters():
            grad.fill(0.0)

    def state_dict(self) -> dict[str, np.ndarray]:
        """Copies of the parameters by PyTorch name, in the order of :meth:`named_parameters`."""
        return {name: value.copy() for name, value, _ in self.named_parameters()}

    def load_state_dict(self, state_dict: dict[str, npt.ArrayLike]) -> None:
        """Copy arrays into the parameters (cast to their dtype); keys and shapes must match.

        KeyError for a missing or unexpected key, ValueError for a shape that differs.
        """
        own = {name: value for name, value, _ in self.named_parameters()}
        missing, unexpected = set(own) - set(state_dict), set(state_dict) - set(own)
        if missing or unexpected:
            raise KeyError(
                f"state_dict keys do not match: missing {sorted(missing)}, "
                f"unexpected {sorted(unexpected)}"
            )
        for name, value in own.items():
            given = np.asarray(state_dict[name])
            if given.shape != value.shape:
                raise ValueError(f"{name}: expected shape {value.shape}, got {given.shape}")
            np.copyto(value, given)

    def astype(self, dtype: npt.DTypeLike) -> Module:
        """Convert every parameter to ``dtype`` in place, gradients reset to 0; returns self."""
        for module in self._modules():
            for name in module.params:
                module.params[name] = module.params[name].astype(dtype)
                module.grads[name] = np.zeros_like(module.params[name])
        return self

    def _modules(self) -> Iterator[Module]:
        yield self
        for child in self.children.values():
            yield from child._modules()


class AttentionCache(NamedTuple):
    """What :meth:`MultiHeadAttention.forward` keeps for the backward pass (and for probes).

    A named tuple.

    Parameters
    ----------
    x : numpy.ndarray
        The layer's input, ``(B, T, D)``.
    q, k, v : numpy.ndarray
        Queries, keys (after RoPE, when the layer uses it) and values by head,
        ``(B, H, T, Dh)`` each.
    weights : numpy.ndarray
        The attention weights, ``(B, H, T, T)``; row ``t`` is where query ``t`` looks.
    scale : float
        The factor ``1 / sqrt(Dh)`` applied to the scores.

    Examples
    --------
    >>> import numpy as np
    >>> attention = MultiHeadAttention(8, 2, np.random.default_rng(0))
    >>> _ = attention(np.ones((1, 3, 8)))
    >>> attention.cache.q.shape, attention.cache.scale   # Dh = 4: 1 / sqrt(4)
    ((1, 2, 3, 4), 0.5)
    """

    x: np.ndarray  # (B, T, D), the layer's input
    q: np.ndarray  # (B, H, T, Dh)
    k: np.ndarray  # (B, H, T, Dh)
    v: np.ndarray  # (B, H, T, Dh)
    weights: np.ndarray  # (B, H, T, T), the attention weights
    scale: float  # 1 / sqrt(Dh)


class Linear(Module):
    """``y = x W^T + b`` with ``W`` of shape ``(d_out, d_in)``, as ``torch.nn.Linear``.

    Weight and bias start uniform in ``[-1/sqrt(d_in), 1/sqrt(d_in)]`` (PyTorch's
    initialisation), drawn from ``rng``.

    Examples
    --------
    >>> import numpy as np
    >>> layer = Linear(2, 1, np.random.default_rng(0))
    >>> layer.params["weight"][:] = [[1.0, 2.0]]
    >>> layer.params["bias"][:] = 0.5
    >>> layer(np.array([[1.0, 1.0]])).tolist()              # 1 + 2 + 0.5
    [[3.5]]
    >>> layer.backward(np.array([[1.0]])).tolist(), layer.grads["weight"].tolist()
    ([[1.0, 2.0]], [[1.0, 1.0]])
    """

    def __init__(self, d_in: int, d_out: int, rng: np.random.Generator) -> None:
        super().__init__()
        d_in = check_count(d_in, "d_in", hint="such as 32 (the input width)")
        d_out = check_count(d_out, "d_out", hint="such as 32 (the output width)")
        check_entries((d_out, d_in), what="the weight of Linear(d_in, d_out)")
        self._build(d_in, d_out, rng)

    def _build(self, d_in: int, d_out: int, rng: np.random.Generator) -> None:
        bound = 1.0 / math.sqrt(d_in)
        self._add("weight", rng.uniform(-bound, bound, size=(d_out, d_in)))  # (out, in)
        self._add("bias", rng.uniform(-bound, bound, size=d_out))  # (out,)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """``x W^T + b``, ``(..., in) -> (..., out)``; ValueError if ``x`` is not ``in`` wide."""
        d_in = self.params["weight"].shape[1]
        if np.shape(x)[-1:] != (d_in,):
            raise ValueError(
                f"Linear({d_in}, ...) takes inputs of shape (..., {d_in}), got {np.shape(x)}"
            )
        self._x = x  # (..., in)
        return x @ self.params["weight"].T + self.params["bias"]  # (..., out)

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add ``dW = dout^T x`` and ``db = sum(dout)`` into ``grads``; return ``dout W``."""
        d_out, d_in = self.params["weight"].shape
        x2, g2 = self._x.reshape(-1, d_in), dout.reshape(-1, d_out)  # (N, in), (N, out)
        self.grads["weight"] += g2.T @ x2  # (out, in)
        self.grads["bias"] += g2.sum(axis=0)  # (out,)
        return dout @ self.params["weight"]  # (..., in)


class LayerNorm(Module):
    """Normalise the last axis (``d_model`` wide) to mean 0 and variance 1, then scale and shift.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias`` with the biased variance, as
    ``torch.nn.LayerNorm``; ``weight`` starts at 1 and ``bias`` at 0; ``eps > 0``.

    Examples
    --------
    ``[1, 3]`` has mean 2 and variance 1:

    >>> import numpy as np
    >>> LayerNorm(2)(np.array([[1.0, 3.0]])).round(4).tolist()
    [[-1.0, 1.0]]
    """

    @constrained(d_model=_D_MODEL)
    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        check_entries((d_model,), what="LayerNorm(d_model)'s weight")
        self._build(
            d_model, check_real(eps, "eps", minimum=0.0, strict_minimum=True, hint="e.g. 1e-5")
        )

    def _build(self, d_model: int, eps: float) -> None:
        self.eps = eps
        self._add("weight", np.ones(d_model))  # (D,)
        self._add("bias", np.zeros(d_model))  # (D,)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Normalise ``x``, ``(..., D) -> (..., D)``; caches for backward."""
        mean = x.mean(axis=-1, keepdims=True)  # (..., 1)
        centred = x - mean  # (..., D)
        inv_std = 1.0 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + self.eps)
        self._xhat, self._inv_std = centred * inv_std, inv_std  # (..., D), (..., 1)
        return self._xhat * self.params["weight"] + self.params["bias"]

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradients of ``weight`` and ``bias``; return the gradient of ``x``."""
        xhat, width = self._xhat, self._xhat.shape[-1]
        self.grads["weight"] += (dout * xhat).reshape(-1, width).sum(axis=0)
        self.grads["bias"] += dout.reshape(-1, width).sum(axis=0)
        dxhat = dout * self.params["weight"]  # (..., D)
        return self._inv_std * (
            dxhat
            - dxhat.mean(axis=-1, keepdims=True)
            - xhat * (dxhat * xhat).mean(axis=-1, keepdims=True)
        )


class MultiHeadAttention(Module):
    """Multi-head scaled dot-product self-attention with PyTorch's parameter layout.

    ``in_proj_weight`` stacks the query, key and value projections, ``(3D, D)``,
    drawn Xavier-uniform (biases start at 0); ``out_proj`` is a :class:`Linear`
    ``(D, D)``. ``forward(x, mask=None, key_padding_mask=None)`` maps ``(B, T, D)`` to
    ``(B, T, D)``; the masks are PyTorch's ``src_mask`` and ``src_key_padding_mask``
    (:func:`attention_bias`); ``backward(dout)`` takes the gradient of that output.
    Afterwards ``attention_scores`` holds the scores before the softmax (scaled, biases
    and masks included), ``attention_weights`` the weights, both ``(B, H, T, T)``, and
    ``cache`` an :class:`AttentionCache`.

    Parameters
    ----------
    d_model : int
        Width ``D``.
    n_heads : int
        Number of heads ``H``; must divide ``d_model``.
    rng : numpy.random.Generator
        Source of the initial weights.
    encoding : str, optional
        ``"none"`` or a scheme of ``ATTENTION_ENCODINGS``, whose hooks ``forward``
        calls: ``"rope"`` rotates queries and keys by their positions (head width
        even), ``"alibi"`` adds a fixed bias ``-m_h |i - j|`` per head.
    frequencies : array_like of real, shape (head_width / 2,), optional
        RoPE's ``theta_i``, e.g. from :func:`sinpe.rope.scaled_frequencies`; by
        default ``10000 ** (-2 i / head_width)`` (attribute ``frequencies``, None).
    temperature : float, optional
        The query-key products are divided by it (>= 1e-6): YaRN's
        (:func:`sinpe.rope.yarn_temperature`). Attribute ``temperature``.

    Examples
    --------
    Under a causal mask the first query can only look at itself:

    >>> import numpy as np
    >>> attention = MultiHeadAttention(8, 2, np.random.default_rng(0))
    >>> attention(np.ones((1, 3, 8)), mask=causal_mask(3)).shape
    (1, 3, 8)
    >>> attention.attention_weights[0, :, 0].tolist()   # both heads, query 0
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """

    @constrained(d_model=_D_MODEL, n_heads=_N_HEADS)
    def __init__(
        self,
        d_model: int,
        n_heads: int,
        rng: np.random.Generator,
        *,
        encoding: str = "none",
        frequencies: npt.ArrayLike | None = None,
        temperature: float = 1.0,
    ) -> None:
        super().__init__()
        check_choice(encoding, "encoding", ATTENTION_ENCODINGS)
        _check_heads(d_model, n_heads, encoding)
        check_entries((3 * d_model, d_model), what="in_proj_weight of MultiHeadAttention")
        self._build(d_model, n_heads, rng, encoding)
        self._set_rope(frequencies, temperature, head_width=d_model // n_heads)

    def _build(self, d_model: int, n_heads: int, rng: np.random.Generator, encoding: str) -> None:
        self.n_heads, self.encoding = n_heads, encoding
        self.scheme = ATTENTION_SCHEMES[encoding]  # its hooks: rotate q and k, bias scores
        self.frequencies, self.temperature = None, 1.0
        bound = math.sqrt(6.0 / (d_model + 3 * d_model))  # Xavier uniform, as PyTorch
        self._add("in_proj_weight", rng.uniform(-bound, bound, size=(3 * d_model, d_model)))
        self._add("in_proj_bias", np.zeros(3 * d_model))
        self.children["out_proj"] = Linear._trusted(d_model, d_model, rng)
        self.out_proj.params["bias"][:] = 0.0

    def _set_rope(self, frequencies, temperature: float, *, head_width: int) -> None:
        """Check and keep RoPE's frequencies and the temperature of the scores."""
        self.temperature = check_real(
            temperature, "temperature", minimum=1e-6, hint="such as 1.0 (at least 1e-6)"
        )
        if frequencies is None:
            self.frequencies = None
            return
        if not self.scheme.rotate:
            rotating = " or ".join(
                f"encoding={name!r}" for name, scheme in ATTENTION_SCHEMES.items() if scheme.rotate
            )
            raise ValueError(
                f"frequencies are the angles per pair of a rotation, but "
                f"encoding={self.encoding!r}; pass {rotating} or leave frequencies=None"
            )
        theta = check_float_array(frequencies, "frequencies", ndim=1).astype(np.float64)
        if theta.shape != (head_width // 2,):
            raise ValueError(
                f"frequencies must have shape ({head_width // 2},), one per pair of the head "
                f"width {head_width}, got {theta.shape}; pass "
                f"sinpe.rope.scaled_frequencies({head_width}, factor, method=...)"
            )
        self.frequencies = theta

    def forward(self, x: np.ndarray, mask=None, key_padding_mask=None) -> np.ndarray:
        """Self-attention of ``x``, ``(B, T, D) -> (B, T, D)``; keeps weights and cache."""
        batch, length, width = x.shape  # (B, T, D)
        heads, head_width = self.n_heads, width // self.n_heads
        qkv = x @ self.params["in_proj_weight"].T + self.params["in_proj_bias"]  # (B, T, 3D)
        qkv = qkv.reshape(batch, length, 3, heads, head_width).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # each (B, H, T, Dh)
        positions, rotate = np.arange(length), self.scheme.rotate
        if rotate:  # RoPE: queries and keys rotated by their positions
            q = rotate(q, positions, frequencies=self.frequencies).astype(x.dtype)
            k = rotate(k, positions, frequencies=self.frequencies).astype(x.dtype)
        scale = 1.0 / (math.sqrt(head_width) * self.temperature)
        scores = (q @ k.transpose(0, 1, 3, 2)) * scale  # (B, H, T, T)
        if self.scheme.bias:  # ALiBi: -m_h |i - j|, a fixed bias per head
            scores = scores + self.scheme.bias(heads, length).astype(x.dtype)
        bias = attention_bias(mask, key_padding_mask, batch, heads, length, x.dtype)
        if bias is not None:
            scores = scores + bias
        weights = _softmax(scores)  # (B, H, T, T): row t = where query t looks
        context = weights @ v  # (B, H, T, Dh)
        merged = context.transpose(0, 2, 1, 3).reshape(batch, length, width)  # (B, T, D)
        self.cache = AttentionCache(x, q, k, v, weights, scale)
        self.attention_scores = scores  # (B, H, T, T), before the softmax, biases included
        self.attention_weights = weights
        return self.out_proj.forward(merged)  # (B, T, D)

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradients of every projection; return the gradient of ``x``."""
        x, q, k, v, weights, scale = self.cache  # x (B, T, D); q, k, v (B, H, T, Dh)
        batch, length, width = x.shape
        heads, head_width = self.n_heads, width // self.n_heads
        dmerged = self.out_proj.backward(dout)  # (B, T, D)
        dcontext = dmerged.reshape(batch, length, heads, head_width).transpose(0, 2, 1, 3)
        dweights = dcontext @ v.transpose(0, 1, 3, 2)  # (B, H, T, T)
        dv = weights.transpose(0, 1, 3, 2) @ dcontext  # (B, H, T, Dh)
        # softmax backward, row by row: dS = W * (dW - sum(dW * W))
        dscores = weights * (dweights - np.sum(dweights * weights, axis=-1, keepdims=True))
        dscores *= scale
        dq = dscores @ k  # (B, H, T, Dh)
        dk = dscores.transpose(0, 1, 3, 2) @ q  # (B, H, T, Dh)
        positions, rotate = np.arange(length), self.scheme.rotate
        if rotate:  # a rotation: its transpose rotates back
            dq = rotate(dq, -positions, frequencies=self.frequencies).astype(x.dtype)
            dk = rotate(dk, -positions, frequencies=self.frequencies).astype(x.dtype)
        dqkv = np.stack([dq, dk, dv]).transpose(1, 3, 0, 2, 4).reshape(batch, length, 3 * width)
        self.grads["in_proj_weight"] += dqkv.reshape(-1, 3 * width).T @ x.reshape(-1, width)
        self.grads["in_proj_bias"] += dqkv.reshape(-1, 3 * width).sum(axis=0)
        return dqkv @ self.params["in_proj_weight"]  # (B, T, D)


class EncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and a LayerNorm.

    Post-LN (the paper, PyTorch's default): ``h = norm1(x + attn(x))``,
    ``y = norm2(h + ff(h))``. Pre-LN (``norm_first=True``):
    ``h = x + attn(norm1(x))``, ``y = h + ff(norm2(h))``. ``ff(h) =
    linear2(activation(linear1(h)))``. Parameter names are those of
    ``torch.nn.TransformerEncoderLayer``; ``forward`` and ``backward`` take and return
    what those of :class:`MultiHeadAttention` do.

    Parameters
    ----------
    d_model, n_heads, rng, encoding
        As :class:`MultiHeadAttention`.
    d_ff : int
        Width ``F`` of the feed-forward block.
    norm_first : bool, optional
        Pre-LN instead of post-LN.
    activation : {"relu", "gelu"}, optional
        Activation of the feed-forward block (exact GELU, as PyTorch).
    eps : float, optional
        The ``eps`` of both LayerNorms.
    residual : bool, optional
        Keep the skip connections. Without them (an ablation, not a PyTorch option)
        post-LN is ``h = norm1(attn(x))``, ``y = norm2(ff(h))``, pre-LN ``h =
        attn(norm1(x))``, ``y = ff(norm2(h))``: the input reaches the output only
        through what attention and the feed-forward block pass on.

    Examples
    --------
    A post-LN layer ends with a LayerNorm (weight 1, bias 0 at first), so every
    output vector has mean 0:

    >>> import numpy as np
    >>> layer = EncoderLayer(8, 2, 16, np.random.default_rng(0))
    >>> x = np.random.default_rng(1).normal(size=(2, 3, 8))
    >>> y = layer(x)
    >>> y.shape, bool(np.allclose(y.mean(axis=-1), 0))
    ((2, 3, 8), True)
    """

    @constrained(d_model=_D_MODEL, n_heads=_N_HEADS)
    def __init__(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        rng: np.random.Generator,
        *,
        norm_first: bool = False,
        activation: str = "relu",
        eps: float = 1e-5,
        encoding: str = "none",
        residual: bool = True,
    ) -> None:
        super().__init__()
        d_ff = check_count(d_ff, "d_ff", hint="such as 4 * d_model")
        check_choice(encoding, "encoding", ATTENTION_ENCODINGS)
        _check_heads(d_model, n_heads, encoding)
        _check_layer_sizes(d_model, d_ff)
        self._build(
            d_model,
            n_heads,
            d_ff,
            rng,
            norm_first=check_flag(norm_first, "norm_first"),
            activation=check_choice(activation, "activation", ACTIVATIONS),
            eps=check_real(eps, "eps", minimum=0.0, strict_minimum=True, hint="e.g. 1e-5"),
            encoding=encoding,
            residual=check_flag(residual, "residual"),
        )

    def _build(
        self,
        d_model: int,
        n_heads: int,
        d_ff: int,
        rng: np.random.Generator,
        *,
        norm_first: bool,
        activation: str,
        eps: float,
        encoding: str,
        residual: bool,
    ) -> None:
        self.activation, self.norm_first, self.residual = activation, norm_first, residual
        self.children["self_attn"] = MultiHeadAttention._trusted(d_model, n_heads, rng, encoding)
        self.children["linear1"] = Linear._trusted(d_model, d_ff, rng)
        self.children["linear2"] = Linear._trusted(d_ff, d_model, rng)
        self.children["norm1"] = LayerNorm._trusted(d_model, eps)
        self.children["norm2"] = LayerNorm._trusted(d_model, eps)

    @classmethod
    def from_state_dict(
        cls,
        state_dict: dict[str, npt.ArrayLike],
        n_heads: int,
        *,
        norm_first: bool = False,
        activation: str = "relu",
        eps: float = 1e-5,
    ) -> EncoderLayer:
        """Build a layer from the ``state_dict`` of ``torch.nn.TransformerEncoderLayer``.

        ``state_dict`` is ``{k: v.numpy() for k, v in torch_layer.state_dict().items()}``;
        ``n_heads``, ``norm_first``, ``activation`` and ``eps`` are PyTorch's ``nhead``,
        ``norm_first``, ``activation`` and ``layer_norm_eps``. The layer computes what the
        PyTorch layer computes with ``batch_first=True`` in eval mode, in the arrays' dtype
        (float32 from PyTorch). KeyError or ValueError for keys or shapes that do not fit.

        Examples
        --------
        A round trip through ``state_dict``:

        >>> import numpy as np
        >>> layer = EncoderLayer(8, 2, 16, np.random.default_rng(0))
        >>> copy = EncoderLayer.from_state_dict(layer.state_dict(), n_heads=2)
        >>> x = np.random.default_rng(1).normal(size=(1, 4, 8))
        >>> bool(np.array_equal(copy(x), layer(x)))
        True
        """
        arrays = {name: np.asarray(value) for name, value in state_dict.items()}
        if "linear1.weight" not in arrays:
            raise KeyError("state_dict has no 'linear1.weight'; is it a TransformerEncoderLayer?")
        d_ff, d_model = arrays["linear1.weight"].shape
        layer = cls(
            d_model,
            n_heads,
            d_ff,
            np.random.default_rng(0),
            norm_first=norm_first,
            activation=activation,
            eps=eps,
        )
        layer.astype(arrays["linear1.weight"].dtype)
        layer.load_state_dict(arrays)
        return layer

    def _feed_forward(self, h: np.ndarray) -> np.ndarray:
        hidden = self.linear1.forward(h)  # (B, T, F)
        self._hidden = hidden
        act = _relu(hidden) if self.activation == "relu" else _gelu(hidden)
        return self.linear2.forward(act)  # (B, T, D)

    def _feed_forward_backward(self, dout: np.ndarray) -> np.ndarray:
        dact = self.linear2.backward(dout)  # (B, T, F)
        if self.activation == "relu":
            dhidden = _relu_backward(dact, self._hidden)
        else:
            dhidden = _gelu_backward(dact, self._hidden)
        return self.linear1.backward(dhidden)  # (B, T, D)

    def forward(self, x: np.ndarray, mask=None, key_padding_mask=None) -> np.ndarray:
        """The layer's output for ``x``, ``(B, T, D) -> (B, T, D)``; caches for backward."""
        attn, norm1, norm2 = self.self_attn, self.norm1, self.norm2
        if not self.residual:  # no skip connections: each block sees only the last output
            if self.norm_first:
                h = attn.forward(norm1.forward(x), mask, key_padding_mask)  # (B, T, D)
                return self._feed_forward(norm2.forward(h))
            h = norm1.forward(attn.forward(x, mask, key_padding_mask))
            return norm2.forward(self._feed_forward(h))
        if self.norm_first:
            h = x + attn.forward(norm1.forward(x), mask, key_padding_mask)  # (B, T, D)
            return h + self._feed_forward(norm2.forward(h))
        h = norm1.forward(x + attn.forward(x, mask, key_padding_mask))
        return norm2.forward(h + self._feed_forward(h))

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradients of every sub-module; return the gradient of ``x``."""
        attn, norm1, norm2 = self.self_attn, self.norm1, self.norm2
        if not self.residual:  # the chain rule through each block, nothing skips it
            if self.norm_first:
                dh = norm2.backward(self._feed_forward_backward(dout))  # d attn output
                return norm1.backward(attn.backward(dh))
            dh = self._feed_forward_backward(norm2.backward(dout))  # d norm1 output
            return attn.backward(norm1.backward(dh))
        if self.norm_first:
            dh = dout + norm2.backward(self._feed_forward_backward(dout))
            return dh + norm1.backward(attn.backward(dh))
        dsum2 = norm2.backward(dout)  # d(h + ff(h))
        dh = dsum2 + self._feed_forward_backward(dsum2)
        dsum1 = norm1.backward(dh)  # d(x + attn(x))
        return dsum1 + attn.backward(dsum1)


class Embedding(Module):
    """Token ids to vectors: a ``(vocab, d_model)`` table, times ``sqrt(d_model)`` if ``scale``.

    The entries are drawn from ``rng``, normal with standard deviation ``std``, by
    default ``1 / sqrt(D)``: after the ``sqrt(D)`` scaling each vector has a norm of
    about ``sqrt(D)``, like an encoding vector (PyTorch's ``nn.Embedding`` uses 1).
    ``forward`` does not check the ids: :class:`TokenModel` does.

    Examples
    --------
    >>> import numpy as np
    >>> embedding = Embedding(3, 4, np.random.default_rng(0), scale=True)
    >>> embedding.params["weight"][:] = 1.0
    >>> embedding(np.array([[0, 2]])).tolist()   # scaled by sqrt(4) = 2
    [[[2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]]]
    """

    @constrained(d_model=_D_MODEL)
    def __init__(
        self,
        vocab: int,
        d_model: int,
        rng: np.random.Generator,
        *,
        scale: bool,
        std: float | None = None,
    ):
        super().__init__()
        vocab = check_count(vocab, "vocab", hint="such as 100 (the number of token ids)")
        check_entries((vocab, d_model), what="the embedding table (vocab, d_model)")
        if std is not None:
            std = check_real(std, "std", minimum=0.0, strict_minimum=True, hint="e.g. 0.02")
        self._build(vocab, d_model, rng, scale=check_flag(scale, "scale"), std=std)

    def _build(
        self, vocab: int, d_model: int, rng: np.random.Generator, *, scale: bool, std: float | None
    ) -> None:
        self.factor = math.sqrt(d_model) if scale else 1.0
        # Default entries N(0, 1/D): after the sqrt(D) scaling each vector has norm
        # about sqrt(D); PyTorch's nn.Embedding uses std 1.
        if std is None:
            std = d_model**-0.5
        self._add("weight", rng.normal(0.0, std, size=(vocab, d_model)))

    def forward(self, tokens: np.ndarray) -> np.ndarray:
        """Rows of the table times the scale, ``(B, T) -> (B, T, D)``; ids unchecked here."""
        self._tokens = tokens  # (B, T) int
        return self.params["weight"][tokens] * self.factor  # (B, T, D)

    def backward(self, dout: np.ndarray) -> None:
        """Add the gradient of the table; return None (ids have no gradient)."""
        np.add.at(self.grads["weight"], self._tokens, dout * self.factor)


class PositionalEncoding(Module):
    """Add position information to embeddings: sinusoids, a learned table, or nothing.

    Parameters
    ----------
    d_model : int
        Width ``D``; even for ``"sinusoidal"``.
    max_len : int
        Rows of the learned table: longer inputs raise ValueError (checked, unused by
        the other encodings, which fit any length).
    rng : numpy.random.Generator
        Source of the learned table.
    encoding : {"sinusoidal", "learned", "none"}, optional
        What to add.
    base : float, optional
        The constant ``C`` of the sinusoids.
    std : float, optional
        Standard deviation of the learned table's initial entries: 1 as
        ``torch.nn.Embedding``, 0.02 as nanoGPT and Hugging Face's GPT-2.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> added = PositionalEncoding(4, 16, np.random.default_rng(0))(np.zeros((1, 3, 4)))
    >>> bool(np.array_equal(added[0], sinpe.positional_encoding(np.arange(3), 4)))
    True
    """

    @constrained(d_model=_D_MODEL, base=BASE)
    def __init__(
        self,
        d_model: int,
        max_len: int,
        rng: np.random.Generator,
        *,
        encoding: str = "sinusoidal",
        base: float = 10000.0,
        std: float = 1.0,
    ) -> None:
        super().__init__()
        check_choice(encoding, "encoding", ADDED_ENCODINGS)
        std = check_real(std, "std", minimum=0.0, strict_minimum=True, hint="such as 0.02")
        if encoding == "sinusoidal":  # the sinusoids fill (sin, cos) pairs
            d_model = Width.paired(d_model)
        max_len = check_count(max_len, "max_len", hint="such as 64 (the longest sequence)")
        if encoding == "learned":
            check_entries((max_len, d_model), what="the learned position table (max_len, d_model)")
        self._build(d_model, max_len, rng, encoding=encoding, base=base, std=std)

    def _build(
        self,
        d_model: int,
        max_len: int,
        rng: np.random.Generator,
        *,
        encoding: str,
        base: float,
        std: float,
    ) -> None:
        self.encoding, self.d_model, self.max_len, self.base = encoding, d_model, max_len, base
        if encoding == "learned":
            self._add("weight", rng.normal(0.0, std, size=(max_len, d_model)))

    def forward(self, x: np.ndarray) -> np.ndarray:
        """``x`` plus positions ``0 .. T-1``, ``(..., T, D)``; learned: raises past max_len."""
        length = x.shape[-2]
        if self.encoding == "none":
            return x
        if self.encoding == "sinusoidal":
            return x + positional_encoding(np.arange(length), self.d_model, base=self.base).astype(
                x.dtype
            )
        if length > self.max_len:
            raise ValueError(
                f"a learned position table has {self.max_len} rows; it cannot encode "
                f"position {self.max_len} or later (sequence length {length})"
            )
        self._length = length
        return x + self.params["weight"][:length]

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradient of a learned table; return ``dout`` (the encoding is added)."""
        if self.encoding == "learned":
            self.grads["weight"][: self._length] += dout.reshape(-1, *dout.shape[-2:]).sum(0)
        return dout


class TokenModel(Module):
    """Embedding (+ position) -> encoder layers -> per-token logits.

    ``logits = head(layers(PE(embedding(tokens) * sqrt(D))))``, with a final LayerNorm
    when the layers are pre-LN. Children: ``embedding`` (:class:`Embedding`),
    ``position`` (:class:`PositionalEncoding`), ``layers.0`` ...
    (:class:`EncoderLayer`), ``norm`` (pre-LN only) and ``head`` (:class:`Linear`).
    Its methods take ``tokens`` of shape ``(B, T)``, ids in ``[0, vocab)``, and the
    masks of :func:`attention_bias`.

    Parameters
    ----------
    vocab : int
        Number of token ids ``V``.
    d_model, n_heads, d_ff, norm_first, activation, residual
        As :class:`EncoderLayer`, for every layer.
    n_layers : int
        Number of encoder layers, from 0 to 1024.
    encoding : str, optional
        The position scheme, one of ``ENCODINGS``: added to the embeddings
        (``ADDED_ENCODINGS``) or applied inside every attention layer
        (``ATTENTION_ENCODINGS``, such as ``"rope"`` and ``"alibi"``).
    max_len, position_std
        ``max_len`` and ``std`` of :class:`PositionalEncoding`.
    scale_embeddings, embedding_std
        ``scale`` and ``std`` of :class:`Embedding`.
    n_outputs : int, optional
        Width of the head; by default ``vocab`` (predict a token).
    seed : int, optional
        Seed of the generator that draws every initial weight.

    Examples
    --------
    >>> import numpy as np
    >>> model = TokenModel(vocab=10, d_model=8, n_heads=2, d_ff=16, n_layers=2)
    >>> tokens = np.array([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])
    >>> model(tokens).shape, len(model.hidden_states(tokens))   # (B, T, V); n_layers + 1
    ((2, 5, 10), 3)
    """

    @constrained(d_model=_D_MODEL, n_heads=_N_HEADS)
    def __init__(
        self,
        vocab: int,
        d_model: int,
        n_heads: int,
        d_ff: int,
        n_layers: int,
        *,
        encoding: str = "sinusoidal",
        max_len: int = 64,
        scale_embeddings: bool = True,
        embedding_std: float | None = None,
        norm_first: bool = False,
        activation: str = "relu",
        n_outputs: int | None = None,
        seed: int = 0,
        residual: bool = True,
        position_std: float = 1.0,
    ) -> None:
        super().__init__()
        # The one check of every argument: the children are built without theirs.
        check_choice(encoding, "encoding", ENCODINGS)
        in_attention = encoding if encoding in ATTENTION_ENCODINGS else "none"
        added = "none" if in_attention != "none" else encoding
        n_layers = check_count(
            n_layers, "n_layers", minimum=0, maximum=MAX_LAYERS, hint="such as 2"
        )
        if n_outputs is not None:
            n_outputs = check_count(n_outputs, "n_outputs", hint="such as 10 (the classes)")
        rng = np.random.default_rng(check_count(seed, "seed", minimum=0, hint="such as 0"))
        self.vocab = vocab = check_count(
            vocab, "vocab", hint="such as 100 (the number of token ids)"
        )
        if added == "sinusoidal":  # the sinusoids fill (sin, cos) pairs
            d_model = Width.paired(d_model)
        d_ff = check_count(d_ff, "d_ff", hint="such as 4 * d_model")
        max_len = check_count(max_len, "max_len", hint="such as 64 (the longest sequence)")
        scale_embeddings = check_flag(scale_embeddings, "scale_embeddings")
        residual = check_flag(residual, "residual")
        norm_first = check_flag(norm_first, "norm_first")
        activation = check_choice(activation, "activation", ACTIVATIONS)
        if embedding_std is not None:
            embedding_std = check_real(
                embedding_std, "embedding_std", minimum=0.0, strict_minimum=True
            )
        position_std = check_real(
            position_std, "position_std", minimum=0.0, strict_minimum=True, hint="such as 0.02"
        )
        _check_heads(d_model, n_heads, in_attention)
        check_entries((vocab, d_model), what="the embedding table (vocab, d_model)")
        if added == "learned":
            check_entries((max_len, d_model), what="the learned position table (max_len, d_model)")
        if n_layers:
            _check_layer_sizes(d_model, d_ff)
        check_entries((n_outputs or vocab, d_model), what="the weight of Linear(d_in, d_out)")

        self.children["embedding"] = Embedding._trusted(
            vocab, d_model, rng, scale=scale_embeddings, std=embedding_std
        )
        self.children["position"] = PositionalEncoding._trusted(
            d_model, max_len, rng, encoding=added, base=10000.0, std=position_std
        )
        for index in range(n_layers):
            self.children[f"layers.{index}"] = EncoderLayer._trusted(
                d_model,
                n_heads,
                d_ff,
                rng,
                norm_first=norm_first,
                activation=activation,
                eps=1e-5,
                encoding=in_attention,
                residual=residual,
            )
        self.n_layers, self.norm_first = n_layers, norm_first
        if norm_first:
            self.children["norm"] = LayerNorm._trusted(d_model, 1e-5)
        self.children["head"] = Linear._trusted(d_model, n_outputs or vocab, rng)

    def _ids(self, tokens: npt.ArrayLike) -> np.ndarray:
        """``tokens`` checked: integer ids in ``[0, vocab)``, shape ``(B, T)``."""
        return check_integer_array(
            tokens, "tokens", ndim=2, minimum=0, below=self.vocab, hint="np.array([[1, 2, 3]])"
        )

    def forward(self, tokens: npt.ArrayLike, mask=None, key_padding_mask=None) -> np.ndarray:
        """The logits, ``(B, T) -> (B, T, n_outputs)``; caches what :meth:`backward` needs."""
        ids = self._ids(tokens)
        h = self.position.forward(self.embedding.forward(ids))
        for index in range(self.n_layers):
            h = self.layers[index].forward(h, mask, key_padding_mask)
        if self.norm_first:
            h = self.norm.forward(h)
        return self.head.forward(h)  # (B, T, V_out)

    def hidden_states(
        self, tokens: npt.ArrayLike, mask=None, key_padding_mask=None
    ) -> list[np.ndarray]:
        """What the layers see: the input to the first layer, then every layer's output.

        ``n_layers + 1`` arrays ``(B, T, D)`` (the last before a pre-LN model's final
        LayerNorm). Runs a forward pass, so ``backward`` then follows these tokens.
        """
        ids = self._ids(tokens)
        h = self.position.forward(self.embedding.forward(ids))
        states = [h]
        for index in range(self.n_layers):
            h = self.layers[index].forward(h, mask, key_padding_mask)
            states.append(h)
        return states

    def backward(self, dlogits: np.ndarray) -> None:
        """Add the gradients of every parameter, given those of the last logits."""
        dh = self.head.backward(dlogits)
        if self.norm_first:
            dh = self.norm.backward(dh)
        for index in reversed(range(self.n_layers)):
            dh = self.layers[index].backward(dh)
        self.embedding.backward(self.position.backward(dh))


class MLP(Module):
    """A multilayer perceptron: Linear layers with ReLU between, optional sigmoid output.

    ``sizes = [in, hidden, ..., out]`` (at least two, each >= 1; a tuple or an array
    too); children ``layers.0``, ``layers.1``, ...; ``output="sigmoid"`` applies a
    logistic sigmoid to the output.

    Examples
    --------
    A zero last layer outputs ``sigmoid(0) = 1/2`` whatever the input:

    >>> import numpy as np
    >>> mlp = MLP([2, 8, 1], np.random.default_rng(0), output="sigmoid")
    >>> mlp.layers[1].params["weight"][:] = 0.0
    >>> mlp.layers[1].params["bias"][:] = 0.0
    >>> mlp(np.array([[1.0, -1.0], [3.0, 2.0]])).tolist()
    [[0.5], [0.5]]
    """

    def __init__(
        self, sizes: list[int], rng: np.random.Generator, *, output: str = "linear"
    ) -> None:
        super().__init__()
        check_choice(output, "output", ("linear", "sigmoid"))
        if not isinstance(sizes, (list, tuple, np.ndarray)):
            raise TypeError(
                f"sizes must be a list of layer widths, got {type(sizes).__name__}; "
                f"pass e.g. [2, 64, 1]"
            )
        sizes = [
            check_count(size, f"sizes[{i}]", hint="such as 64") for i, size in enumerate(sizes)
        ]
        if len(sizes) < 2:
            raise ValueError(
                f"sizes needs at least an input and an output width, got {sizes}; "
                f"pass e.g. [2, 64, 1]"
            )
        self.output, self.depth = output, len(sizes) - 1
        for d_in, d_out in itertools.pairwise(sizes):
            check_entries((d_out, d_in), what="the weight of Linear(d_in, d_out)")
        for index, (d_in, d_out) in enumerate(itertools.pairwise(sizes)):
            self.children[f"layers.{index}"] = Linear._trusted(d_in, d_out, rng)

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The output, ``(N, in) -> (N, out)``; ValueError if ``x`` is not ``in`` wide."""
        self._pre = []  # pre-activations of the hidden layers, (N, hidden)
        h = x  # (N, in)
        for index in range(self.depth):
            h = self.layers[index].forward(h)
            if index < self.depth - 1:
                self._pre.append(h)
                h = _relu(h)
        if self.output == "sigmoid":
            h = 1.0 / (1.0 + np.exp(-h))
            self._out = h
        return h  # (N, out)

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradients of every layer; return the gradient of ``x``, ``(N, in)``."""
        if self.output == "sigmoid":
            dout = dout * self._out * (1.0 - self._out)
        for index in reversed(range(self.depth)):
            if index < self.depth - 1:
                dout = _relu_backward(dout, self._pre[index])
            dout = self.layers[index].backward(dout)
        return dout


def mean_squared_error(
    prediction: npt.ArrayLike, target: npt.ArrayLike
) -> tuple[float, np.ndarray]:
    """Mean of squared errors over all entries, and its gradient with respect to ``prediction``.

    As :func:`softmax_cross_entropy`, for regression: ``prediction`` and ``target`` of
    one shape (no broadcasting); the loss is ``mean((prediction - target) ** 2)`` over
    the ``n`` entries, the gradient ``2 (prediction - target) / n``.

    Examples
    --------
    >>> loss, grad = mean_squared_error([1.0, 3.0], [0.0, 0.0])
    >>> loss, grad.tolist()
    (5.0, [1.0, 3.0])
    """
    predicted, wanted = check_pair(
        prediction,
        target,
        ("prediction", "target"),
        hint="pass one target per prediction",
        allow_empty=True,
        keep_dtype=True,
    )
    if predicted.size == 0:
        raise ValueError("prediction and target are empty; pass at least one value")
    with np.errstate(over="ignore"):
        difference = predicted - wanted
        loss = float(np.mean(difference**2))
    if not math.isfinite(loss) or not np.isfinite(difference).all():
        raise ValueError(
            "the squared error overflows float64 (prediction and target differ by more "
            "than about 1e154); rescale the targets or lower the learning rate"
        )
    return loss, 2.0 * difference / difference.size


def _checked_tokens(model: TokenModel, tokens: npt.ArrayLike) -> np.ndarray:
    """A TokenModel and a (B, T) array of its token ids, both checked."""
    check_instance(model, "model", TokenModel)
    return model._ids(tokens)
