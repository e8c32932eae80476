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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from sinpe import alibi, rope
from sinpe._schemes import registry
from sinpe._validation import (
    BASE,
    DTYPE,
    FLAG,
    Condition,
    Constraint,
    Integer,
    Optional,
    Options,
    Real,
    check_count,
    check_entries,
    check_float_array,
    check_instance,
    check_integer_array,
    check_pair,
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
    "ModelConfig",
    "Module",
    "MultiHeadAttention",
    "NoResidualEncoderLayer",
    "PositionalEncoding",
    "PreNormEncoderLayer",
    "PreNormNoResidualEncoderLayer",
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
#: The standard deviation of initial weights, and the eps of a LayerNorm.
_STD = Real(0.0, closed="neither", hint="such as 0.02")
_EPS = Real(0.0, closed="neither", hint="e.g. 1e-5")
#: The sizes of a mask.
_BATCH, _HEADS, _LENGTH = (Integer(hint=f"such as {size}") for size in (8, 4, 16))


# ---------------------------------------------------------------------------
# Functions. The kernels below are what the layers call on their own (already checked)
# arrays; the public functions check their arguments first, then call them.


def _softmax(scores: np.ndarray, axis: int = -1) -> np.ndarray:
    shifted = scores - np.max(scores, axis=axis, keepdims=True)
    weights = np.exp(shifted)
    return weights / np.sum(weights, axis=axis, keepdims=True)


def _checked_gradient(dout: npt.ArrayLike, x: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(dout, x)`` of a backward function, checked: float arrays of one shape."""
    hint = "pass the gradient of the output computed from x"
    return check_pair(dout, x, ("dout", "x"), hint=hint, allow_empty=True, keep_dtype=True)


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


#: Each activation of the feed-forward block, with its gradient: ``(f, df)``.
_ACTIVATIONS = {"relu": (_relu, _relu_backward), "gelu": (_gelu, _gelu_backward)}
ACTIVATIONS = tuple(_ACTIVATIONS)


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
    # The range of axis depends on the array's dimensions: no rule can declare it.
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
    return _relu(check_float_array(x, "x"))


def relu_backward(dout: npt.ArrayLike, x: npt.ArrayLike) -> np.ndarray:
    """The gradient through :func:`relu`: ``dout`` where ``x > 0``, else 0.

    ``dout`` is the gradient of the loss with respect to ``relu(x)``, of the shape of
    ``x``, the input of :func:`relu`.

    Examples
    --------
    >>> relu_backward([5.0, 5.0], [-1.0, 1.0]).tolist()
    [0.0, 5.0]
    """
    return _relu_backward(*_checked_gradient(dout, x))


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
    return _gelu_backward(*_checked_gradient(dout, x))


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


@constrained(length=_LENGTH)
def causal_mask(length: int) -> np.ndarray:
    """Boolean ``(T, T)`` mask, True above the diagonal: no token may look ahead.

    ``True`` means *not allowed* (key ``j > i``), as in PyTorch's boolean ``src_mask``.

    Examples
    --------
    >>> causal_mask(3).astype(int).tolist()
    [[0, 1, 1], [0, 0, 1], [0, 0, 0]]
    """
    check_entries((length, length), what="the causal mask (length, length)")
    return np.triu(np.ones((length, length), dtype=bool), 1)


@constrained(batch=_BATCH, heads=_HEADS, length=_LENGTH, dtype=DTYPE)
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


# ---------------------------------------------------------------------------
# The configuration


def _even_heads(fields: dict[str, Any]) -> bool:
    """A rotating scheme (RoPE) turns pairs: its heads must be of even width."""
    scheme = ATTENTION_SCHEMES.get(fields["encoding"], ATTENTION_SCHEMES["none"])
    return not scheme.rotate or (fields["d_model"] // fields["n_heads"]) % 2 == 0


#: The conditions on fields taken together, each with the fields it reads (its message
#: names the first and shows them all), checked after every field's own rule.
_TOGETHER: tuple[tuple[tuple[str, ...], Condition], ...] = (
    (
        ("d_model", "n_heads"),
        Condition(
            "be divisible by n_heads",
            lambda v: v["d_model"] % v["n_heads"] == 0,
            "each head takes d_model / n_heads entries; pick n_heads among the divisors of d_model",
        ),
    ),
    (
        ("d_model", "encoding"),
        Condition(
            "be even with sinusoids added",
            lambda v: v["encoding"] != "sinusoidal" or v["d_model"] % 2 == 0,
            "each frequency fills a (sin, cos) pair; use an even d_model",
        ),
    ),
    (
        ("d_model", "n_heads", "encoding"),
        Condition(
            "leave heads of even width d_model / n_heads for a rotation",
            _even_heads,
            "the encoding rotates pairs of entries; change d_model or n_heads",
        ),
    ),
)


@dataclass(frozen=True)
class ModelConfig:
    """Every size and option of a :class:`TokenModel`, checked once, when it is built.

    A frozen dataclass, as nanoGPT's ``GPTConfig``: the layers read their fields from it,
    and ``dataclasses.replace(config, n_layers=4)`` is another config, checked again.
    Each field obeys a declared rule (``ModelConfig.__init__.constraints``), then the
    fields that depend on each other are checked (the heads divide ``d_model``,
    sinusoids and RoPE need pairs, every table fits in memory).

    Parameters
    ----------
    vocab, d_model, n_heads, d_ff, n_layers : int
        Token ids ``V``, width ``D``, heads ``H`` (dividing ``D``), feed-forward width
        ``F`` and number of encoder layers (0 to 1024).
    encoding : str
        One of ``ENCODINGS``: added to the embeddings (``ADDED_ENCODINGS``) or applied
        inside every attention layer (``ATTENTION_ENCODINGS``: ``"rope"``, ``"alibi"``).
    max_len : int
        Rows of a learned position table (other encodings fit any length).
    scale_embeddings : bool
        Multiply the embeddings by ``sqrt(D)``.
    embedding_std, position_std : float
        Standard deviations of the initial tables: the embedding's (None for ``1 /
        sqrt(D)``), a learned position table's (1 as ``torch.nn.Embedding``, 0.02 as
        nanoGPT and GPT-2).
    norm_first, residual : bool
        Pre-LN layers and a final LayerNorm, instead of the paper's post-LN; keep the
        skip connections (False is an ablation, not a PyTorch option).
    activation : {"relu", "gelu"}
        Activation of the feed-forward blocks (exact GELU, as PyTorch).
    n_outputs : int or None
        Width of the head; None for ``vocab`` (predict a token).
    seed : int
        Seed of the generator that draws every initial weight.
    eps : float
        The ``eps`` of every LayerNorm (PyTorch's ``layer_norm_eps``).

    Examples
    --------
    >>> config = ModelConfig(vocab=10, d_model=8, n_heads=2, d_ff=16, n_layers=2)
    >>> config.encoding, config.attention    # sinusoids are added, not in attention
    ('sinusoidal', 'none')
    >>> ModelConfig(d_model=6, n_heads=4)
    Traceback (most recent call last):
    ...
    ValueError: d_model must be divisible by n_heads, got {'d_model': 6, 'n_heads': 4}: ...
    """

    vocab: int = 10
    d_model: int = 32
    n_heads: int = 4
    d_ff: int = 64
    n_layers: int = 2
    encoding: str = "sinusoidal"
    max_len: int = 64
    scale_embeddings: bool = True
    embedding_std: float | None = None
    norm_first: bool = False
    activation: str = "relu"
    n_outputs: int | None = None
    seed: int = 0
    residual: bool = True
    position_std: float = 1.0
    eps: float = 1e-5

    def __post_init__(self) -> None:
        for names, condition in _TOGETHER:
            condition.check({name: getattr(self, name) for name in names}, names[0])
        d_model, added = self.d_model, self.added
        check_entries((self.vocab, d_model), what="the embedding table (vocab, d_model)")
        if added == "learned":
            check_entries(
                (self.max_len, d_model), what="the learned position table (max_len, d_model)"
            )
        check_entries((3 * d_model, d_model), what="in_proj_weight of MultiHeadAttention")
        check_entries((self.d_ff, d_model), what="the weight of Linear(d_in, d_out)")
        check_entries((self.n_outputs or self.vocab, d_model), what="the head (n_outputs, d_model)")

    @property
    def added(self) -> str:
        """The scheme added to the embeddings: ``encoding``, or ``"none"`` if in attention."""
        return self.encoding if self.encoding in ADDED_ENCODINGS else "none"

    @property
    def attention(self) -> str:
        """The scheme inside attention: ``encoding``, or ``"none"`` if added."""
        return self.encoding if self.encoding in ATTENTION_ENCODINGS else "none"


#: The rule of each field, applied by the dataclass's ``__init__`` (also on ``replace``).
ModelConfig.__init__ = constrained(  # type: ignore[method-assign]
    vocab=Integer(hint="such as 100 (the number of token ids)"),
    d_model=_D_MODEL,
    n_heads=_N_HEADS,
    d_ff=Integer(hint="such as 4 * d_model"),
    n_layers=Integer(0, MAX_LAYERS, hint="such as 2"),
    encoding=Options(*ENCODINGS),
    max_len=Integer(hint="such as 64 (the longest sequence)"),
    scale_embeddings=FLAG,
    embedding_std=Optional(_STD),
    norm_first=FLAG,
    activation=Options(*ACTIVATIONS),
    n_outputs=Optional(Integer(hint="such as 10 (the classes)")),
    seed=Integer(0, hint="such as 0"),
    residual=FLAG,
    position_std=_STD,
    eps=_EPS,
)(ModelConfig.__init__)


class _Config(Constraint[ModelConfig]):
    """A :class:`ModelConfig` (checked when it was built)."""

    name = "config"
    kind = "a sinpe.lab.nn.ModelConfig"
    hint = "nn.ModelConfig(vocab=10, d_model=32, n_heads=4, d_ff=64, n_layers=2)"

    def is_kind(self, value: object) -> bool:
        return isinstance(value, ModelConfig)

    def convert(self, value: Any) -> ModelConfig:
        return value

    def accepted(self) -> list[tuple[str, object]]:
        return [("typical", ModelConfig()), ("pre-LN", ModelConfig(norm_first=True))]


CONFIG = _Config()


# ---------------------------------------------------------------------------
# Modules


class Module:
    """Parameters, their gradients, and the sub-modules found among its attributes.

    The base class of the layers. A child is an attribute, ``layer.self_attn``, and
    numbered children a list, ``model.layers[0]``; they are named as in PyTorch
    (``"layers.0.self_attn.in_proj_weight"``). Calling a module runs its ``forward``.

    Attributes
    ----------
    params : dict of str to numpy.ndarray
        The module's own parameters, by PyTorch name (``"weight"``, ``"bias"``).
    grads : dict of str to numpy.ndarray
        Their gradients, same keys and shapes, accumulated by ``backward``.

    Examples
    --------
    >>> from sinpe.lab import nn
    >>> model = nn.TokenModel(nn.ModelConfig(vocab=10, d_model=8, n_heads=2, d_ff=16))
    >>> type(model.layers[1].self_attn).__name__, len(model.layers)
    ('MultiHeadAttention', 2)
    >>> model.num_parameters()  # 80 + 2 * (216 + 72 + 144 + 136 + 16 + 16) + 90
    1370
    """

    def __init__(self) -> None:
        self.params: dict[str, np.ndarray] = {}
        self.grads: dict[str, np.ndarray] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def backward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` of the sub-modules, in the order they were assigned."""
        for name, value in vars(self).items():
            if isinstance(value, Module):
                yield name, value
            elif isinstance(value, list):
                modules = enumerate(item for item in value if isinstance(item, Module))
                yield from ((f"{name}.{index}", item) for index, item in modules)

    def num_parameters(self) -> int:
        """The number of scalar parameters, children included."""
        return sum(value.size for _, value, _ in self.named_parameters())

    def _add(self, name: str, value: np.ndarray) -> None:
        self.params[name] = value
        self.grads[name] = np.zeros_like(value)

    def named_parameters(self, prefix: str = "") -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
        """Yield ``(name, parameter, gradient)``, named as ``state_dict`` keys after ``prefix``.

        Own parameters first, then the children's in the order they were assigned; the
        arrays themselves, not copies (updating them in place updates the module).
        """
        for name, value in self.params.items():
            yield prefix + name, value, self.grads[name]
        for child_name, child in self.children():
            yield from child.named_parameters(f"{prefix}{child_name}.")

    def zero_grad(self) -> None:
        """Set every gradient, children included, to 0 in place."""
        for _, _, grad in self.named_parameters():
            grad.fill(0.0)

    def state_dict(self) -> dict[str, np.ndarray]:
        """Copies of the parameters by PyTorch name, in the order of :meth:`named_parameters`."""
        return {name: value.copy() for name, value, _ in self.named_parameters()}

    def load_state_dict(self, state_dict: Mapping[str, npt.ArrayLike]) -> None:
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
                module._add(name, module.params[name].astype(dtype))
        return self

    def _modules(self) -> Iterator[Module]:
        yield self
        for _, child in self.children():
            yield from child._modules()


class AttentionCache(NamedTuple):
    """What :meth:`MultiHeadAttention.forward` keeps for the backward pass (and for probes).

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
    >>> attention = MultiHeadAttention(ModelConfig(d_model=8, n_heads=2), np.random.default_rng(0))
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

    @constrained(
        d_in=Integer(hint="such as 32 (the input width)"),
        d_out=Integer(hint="such as 32 (the output width)"),
    )
    def __init__(self, d_in: int, d_out: int, rng: np.random.Generator) -> None:
        super().__init__()
        check_entries((d_out, d_in), what="the weight of Linear(d_in, d_out)")
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

    @constrained(d_model=_D_MODEL, eps=_EPS)
    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        check_entries((d_model,), what="LayerNorm(d_model)'s weight")
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


#: A mask of :func:`attention_bias` (PyTorch's ``src_mask`` or padding mask), or None.
Mask = npt.ArrayLike | None


class MultiHeadAttention(Module):
    """Multi-head scaled dot-product self-attention with PyTorch's parameter layout.

    ``in_proj_weight`` stacks the query, key and value projections, ``(3D, D)``,
    drawn Xavier-uniform (biases start at 0); ``out_proj`` is a :class:`Linear`
    ``(D, D)``. The masks of ``forward`` are PyTorch's ``src_mask`` and
    ``src_key_padding_mask`` (:func:`attention_bias`). Afterwards ``attention_scores``
    holds the scores before the softmax (scaled, biases and masks included),
    ``attention_weights`` the weights, both ``(B, H, T, T)``, and ``cache`` an
    :class:`AttentionCache`.

    Parameters
    ----------
    config : ModelConfig
        Its ``d_model``, ``n_heads`` and ``attention``: ``"none"`` or a scheme of
        ``ATTENTION_ENCODINGS``, whose hooks ``forward`` calls: ``"rope"`` rotates
        queries and keys by their positions, ``"alibi"`` adds a fixed bias
        ``-m_h |i - j|`` per head.
    rng : numpy.random.Generator
        Source of the initial weights.
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
    >>> attention = MultiHeadAttention(ModelConfig(d_model=8, n_heads=2), np.random.default_rng(0))
    >>> attention(np.ones((1, 3, 8)), mask=causal_mask(3)).shape
    (1, 3, 8)
    >>> attention.attention_weights[0, :, 0].tolist()   # both heads, query 0
    [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """

    @constrained(config=CONFIG, temperature=Real(1e-6, hint="such as 1.0 (at least 1e-6)"))
    def __init__(
        self,
        config: ModelConfig,
        rng: np.random.Generator,
        *,
        frequencies: npt.ArrayLike | None = None,
        temperature: float = 1.0,
    ) -> None:
        super().__init__()
        d_model, self.n_heads, self.encoding = config.d_model, config.n_heads, config.attention
        self.scheme = ATTENTION_SCHEMES[self.encoding]  # its hooks: rotate q and k, bias scores
        bound = math.sqrt(6.0 / (d_model + 3 * d_model))  # Xavier uniform, as PyTorch
        self._add("in_proj_weight", rng.uniform(-bound, bound, size=(3 * d_model, d_model)))
        self._add("in_proj_bias", np.zeros(3 * d_model))
        self.out_proj = Linear(d_model, d_model, rng)
        self.out_proj.params["bias"][:] = 0.0
        self._set_rope(frequencies, temperature, head_width=d_model // self.n_heads)

    def _set_rope(
        self, frequencies: npt.ArrayLike | None, temperature: float, *, head_width: int
    ) -> None:
        """Keep RoPE's frequencies (checked) and the temperature of the scores."""
        self.temperature, self.frequencies = temperature, None
        if frequencies is None:
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

    def forward(
        self,
        x: np.ndarray,
        mask: Mask = None,
        key_padding_mask: Mask = None,
        positions: np.ndarray | None = None,
    ) -> np.ndarray:
        """Self-attention of ``x``, ``(B, T, D) -> (B, T, D)``; RoPE at ``positions`` (B, T)."""
        batch, length, width = x.shape  # (B, T, D)
        heads, head_width = self.n_heads, width // self.n_heads
        qkv = x @ self.params["in_proj_weight"].T + self.params["in_proj_bias"]  # (B, T, 3D)
        qkv = qkv.reshape(batch, length, 3, heads, head_width).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]  # each (B, H, T, Dh)
        if positions is not None and self.scheme.bias:
            raise ValueError(
                f"encoding={self.encoding!r} biases the scores by i - j alone: positions "
                "cannot change it; mask the padding with key_padding_mask instead"
            )
        positions = np.arange(length) if positions is None else positions
        self._positions, rotate = positions, self.scheme.rotate
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
        positions, rotate = self._positions, self.scheme.rotate
        if rotate:  # a rotation: its transpose rotates back
            dq = rotate(dq, -positions, frequencies=self.frequencies).astype(x.dtype)
            dk = rotate(dk, -positions, frequencies=self.frequencies).astype(x.dtype)
        dqkv = np.stack([dq, dk, dv]).transpose(1, 3, 0, 2, 4).reshape(batch, length, 3 * width)
        self.grads["in_proj_weight"] += dqkv.reshape(-1, 3 * width).T @ x.reshape(-1, width)
        self.grads["in_proj_bias"] += dqkv.reshape(-1, 3 * width).sum(axis=0)
        return dqkv @ self.params["in_proj_weight"]  # (B, T, D)


class EncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and a LayerNorm.

    Post-LN, as the paper and PyTorch's default: ``h = norm1(x + attn(x))``, ``y =
    norm2(h + ff(h))``, with ``ff(h) = linear2(activation(linear1(h)))``. Its
    subclasses are the other placements: :class:`PreNormEncoderLayer` and the
    ablations without skip connections; :meth:`of` builds the one a config asks for.
    ``forward`` and ``backward`` take and return what those of :class:`MultiHeadAttention` do.

    Parameters
    ----------
    config : ModelConfig
        Its ``d_model``, ``n_heads``, ``d_ff``, ``activation``, ``eps`` and the scheme
        of its attention (:class:`MultiHeadAttention`).
    rng : numpy.random.Generator
        Source of the initial weights.

    Examples
    --------
    A post-LN layer ends with a LayerNorm (weight 1, bias 0 at first), so every
    output vector has mean 0:

    >>> import dataclasses, numpy as np
    >>> config = ModelConfig(d_model=8, n_heads=2, d_ff=16)
    >>> layer = EncoderLayer(config, np.random.default_rng(0))
    >>> x = np.random.default_rng(1).normal(size=(2, 3, 8))
    >>> y = layer(x)
    >>> y.shape, bool(np.allclose(y.mean(axis=-1), 0))
    ((2, 3, 8), True)
    >>> pre = dataclasses.replace(config, norm_first=True, residual=False)
    >>> type(EncoderLayer.of(pre, np.random.default_rng(0))).__name__
    'PreNormNoResidualEncoderLayer'
    """

    #: Whether the LayerNorms come before each block, and whether blocks are skipped.
    norm_first, residual = False, True

    @constrained(config=CONFIG)
    def __init__(self, config: ModelConfig, rng: np.random.Generator) -> None:
        super().__init__()
        self.activation = config.activation
        self.self_attn = MultiHeadAttention(config, rng)
        self.linear1 = Linear(config.d_model, config.d_ff, rng)
        self.linear2 = Linear(config.d_ff, config.d_model, rng)
        self.norm1 = LayerNorm(config.d_model, config.eps)
        self.norm2 = LayerNorm(config.d_model, config.eps)

    @staticmethod
    @constrained(config=CONFIG)
    def of(config: ModelConfig, rng: np.random.Generator) -> EncoderLayer:
        """The layer ``config`` asks for: its ``norm_first`` and ``residual`` pick the class."""
        return _LAYERS[config.norm_first, config.residual](config, rng)

    @staticmethod
    def from_state_dict(
        state_dict: Mapping[str, npt.ArrayLike],
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
        >>> layer = EncoderLayer(ModelConfig(d_model=8, n_heads=2), np.random.default_rng(0))
        >>> copy = EncoderLayer.from_state_dict(layer.state_dict(), n_heads=2)
        >>> x = np.random.default_rng(1).normal(size=(1, 4, 8))
        >>> bool(np.array_equal(copy(x), layer(x)))
        True
        """
        arrays = {name: np.asarray(value) for name, value in state_dict.items()}
        if "linear1.weight" not in arrays:
            raise KeyError("state_dict has no 'linear1.weight'; is it a TransformerEncoderLayer?")
        d_ff, d_model = arrays["linear1.weight"].shape
        config = ModelConfig(
            d_model=d_model,
            n_heads=n_heads,
            d_ff=d_ff,
            encoding="none",
            norm_first=norm_first,
            activation=activation,
            eps=eps,
        )
        layer = EncoderLayer.of(config, np.random.default_rng(0))
        layer.astype(arrays["linear1.weight"].dtype)
        layer.load_state_dict(arrays)
        return layer

    def forward(
        self,
        x: np.ndarray,
        mask: Mask = None,
        key_padding_mask: Mask = None,
        positions: np.ndarray | None = None,
    ) -> np.ndarray:
        """Post-LN: the LayerNorms after the residual sums, ``(B, T, D) -> (B, T, D)``."""
        h = self.norm1(x + self.self_attn(x, mask, key_padding_mask, positions))  # (B, T, D)
        return self.norm2(h + self._feed_forward(h))  # (B, T, D)

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradients of every sub-module; return the gradient of ``x``."""
        dsum2 = self.norm2.backward(dout)  # d(h + ff(h))
        dh = dsum2 + self._feed_forward_backward(dsum2)
        dsum1 = self.norm1.backward(dh)  # d(x + attn(x))
        return dsum1 + self.self_attn.backward(dsum1)

    def _feed_forward(self, h: np.ndarray) -> np.ndarray:
        """``linear2(activation(linear1(h)))``, ``(B, T, D) -> (B, T, D)``."""
        self._hidden = self.linear1(h)  # (B, T, F)
        return self.linear2(_ACTIVATIONS[self.activation][0](self._hidden))

    def _feed_forward_backward(self, dout: np.ndarray) -> np.ndarray:
        dact = self.linear2.backward(dout)  # (B, T, F)
        return self.linear1.backward(_ACTIVATIONS[self.activation][1](dact, self._hidden))


class PreNormEncoderLayer(EncoderLayer):
    """Pre-LN (``norm_first=True``, as GPT-2 and nanoGPT's ``Block``): ``h = x +
    attn(norm1(x))``, ``y = h + ff(norm2(h))``; otherwise an :class:`EncoderLayer`.
    """

    norm_first = True

    def forward(
        self,
        x: np.ndarray,
        mask: Mask = None,
        key_padding_mask: Mask = None,
        positions: np.ndarray | None = None,
    ) -> np.ndarray:
        """Pre-LN: each block reads a LayerNorm of what it adds to, ``(B, T, D)``."""
        h = x + self.self_attn(self.norm1(x), mask, key_padding_mask, positions)  # (B, T, D)
        return h + self._feed_forward(self.norm2(h))  # (B, T, D)

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradients of every sub-module; return the gradient of ``x``."""
        dh = dout + self.norm2.backward(self._feed_forward_backward(dout))
        return dh + self.norm1.backward(self.self_attn.backward(dh))


class NoResidualEncoderLayer(EncoderLayer):
    """An ablation (``residual=False``, not a PyTorch option): post-LN without the skip
    connections, ``h = norm1(attn(x))``, ``y = norm2(ff(h))``, so the input reaches the
    output only through what attention and the feed-forward block pass on.
    """

    residual = False

    def forward(
        self,
        x: np.ndarray,
        mask: Mask = None,
        key_padding_mask: Mask = None,
        positions: np.ndarray | None = None,
    ) -> np.ndarray:
        """Each block sees only the last one's output, ``(B, T, D) -> (B, T, D)``."""
        h = self.norm1(self.self_attn(x, mask, key_padding_mask, positions))  # (B, T, D)
        return self.norm2(self._feed_forward(h))  # (B, T, D)

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """The chain rule through each block, nothing skips it; the gradient of ``x``."""
        dh = self._feed_forward_backward(self.norm2.backward(dout))  # d norm1 output
        return self.self_attn.backward(self.norm1.backward(dh))


class PreNormNoResidualEncoderLayer(PreNormEncoderLayer):
    """The ablation of :class:`NoResidualEncoderLayer` in pre-LN: ``h =
    attn(norm1(x))``, ``y = ff(norm2(h))``.
    """

    residual = False

    def forward(
        self,
        x: np.ndarray,
        mask: Mask = None,
        key_padding_mask: Mask = None,
        positions: np.ndarray | None = None,
    ) -> np.ndarray:
        """Each block sees only the last one's output, ``(B, T, D) -> (B, T, D)``."""
        h = self.self_attn(self.norm1(x), mask, key_padding_mask, positions)  # (B, T, D)
        return self._feed_forward(self.norm2(h))  # (B, T, D)

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """The chain rule through each block, nothing skips it; the gradient of ``x``."""
        dh = self.norm2.backward(self._feed_forward_backward(dout))  # d attn output
        return self.norm1.backward(self.self_attn.backward(dh))


#: The layer of each ``(norm_first, residual)`` of a config, chosen here only.
_LAYERS: dict[tuple[bool, bool], type[EncoderLayer]] = {
    (False, True): EncoderLayer,
    (True, True): PreNormEncoderLayer,
    (False, False): NoResidualEncoderLayer,
    (True, False): PreNormNoResidualEncoderLayer,
}


class Embedding(Module):
    """Token ids to vectors: a ``(vocab, d_model)`` table, times ``sqrt(d_model)`` if scaled.

    The config's ``vocab``, ``d_model``, ``scale_embeddings`` and ``embedding_std``:
    entries drawn from ``rng``, normal with that standard deviation, by default ``1 /
    sqrt(D)``: after the ``sqrt(D)`` scaling each vector has a norm of about
    ``sqrt(D)``, like an encoding vector (PyTorch's ``nn.Embedding`` uses 1).

    Examples
    --------
    >>> import numpy as np
    >>> embedding = Embedding(ModelConfig(vocab=3, d_model=4, n_heads=2), np.random.default_rng(0))
    >>> embedding.params["weight"][:] = 1.0
    >>> embedding(np.array([[0, 2]])).tolist()   # scaled by sqrt(4) = 2
    [[[2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0]]]
    """

    @constrained(config=CONFIG)
    def __init__(self, config: ModelConfig, rng: np.random.Generator) -> None:
        super().__init__()
        d_model, std = config.d_model, config.embedding_std
        self.factor = math.sqrt(d_model) if config.scale_embeddings else 1.0
        std = d_model**-0.5 if std is None else std  # N(0, 1/D): vectors of norm ~ sqrt(D)
        self._add("weight", rng.normal(0.0, std, size=(config.vocab, d_model)))

    def forward(self, tokens: np.ndarray) -> np.ndarray:
        """Rows of the table times the scale, ``(B, T) -> (B, T, D)``; ids unchecked here."""
        self._tokens = tokens  # (B, T) int
        return self.params["weight"][tokens] * self.factor

    def backward(self, dout: np.ndarray) -> None:
        """Add the gradient of the table; return None (ids have no gradient)."""
        np.add.at(self.grads["weight"], self._tokens, dout * self.factor)


class PositionalEncoding(Module):
    """Add position information to embeddings: sinusoids, a learned table, or nothing.

    What the config adds (its ``added``: ``"sinusoidal"``, ``"learned"``, or ``"none"``
    when the scheme acts inside attention), ``d_model`` wide; a learned table has
    ``max_len`` rows, drawn from ``rng`` with standard deviation ``position_std``.
    ``base`` is the constant ``C`` of the sinusoids.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> config = ModelConfig(d_model=4, n_heads=2)
    >>> added = PositionalEncoding(config, np.random.default_rng(0))(np.zeros((1, 3, 4)))
    >>> bool(np.array_equal(added[0], sinpe.positional_encoding(np.arange(3), 4)))
    True
    """

    @constrained(config=CONFIG, base=BASE)
    def __init__(
        self, config: ModelConfig, rng: np.random.Generator, *, base: float = 10000.0
    ) -> None:
        super().__init__()
        d_model, max_len = config.d_model, config.max_len
        self.encoding, self.d_model, self.max_len, self.base = config.added, d_model, max_len, base
        if self.encoding == "learned":
            self._add("weight", rng.normal(0.0, config.position_std, size=(max_len, d_model)))

    def forward(self, x: np.ndarray, positions: np.ndarray | None = None) -> np.ndarray:
        """``x`` plus its positions (default ``0 .. T-1``); learned: raises past max_len."""
        length = x.shape[-2]
        if self.encoding == "none":
            return x
        if self.encoding == "sinusoidal":
            where = np.arange(length) if positions is None else positions
            return x + positional_encoding(where, self.d_model, base=self.base).astype(x.dtype)
        if positions is not None:
            raise ValueError(
                "a learned position table is read row by row from position 0; positions= "
                "is for encoding='sinusoidal', 'rope' or 'none'"
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
    """Embedding (+ position) -> encoder layers -> per-token logits, as ``config`` says.

    ``logits = head(layers(PE(embedding(tokens) * sqrt(D))))``, with a final LayerNorm
    when the layers are pre-LN. Children: ``embedding`` (:class:`Embedding`),
    ``position`` (:class:`PositionalEncoding`), ``layers.0`` ... (the
    :class:`EncoderLayer` the config asks for, :meth:`EncoderLayer.of`), ``norm``
    (pre-LN only, else None) and ``head`` (:class:`Linear`). Its methods take
    ``tokens`` of shape ``(B, T)``, ids in ``[0, vocab)``, and the masks of
    :func:`attention_bias`. Every initial weight is drawn from one generator seeded
    with ``config.seed``.

    Examples
    --------
    >>> import numpy as np
    >>> model = TokenModel(ModelConfig(vocab=10, d_model=8, n_heads=2, d_ff=16, n_layers=2))
    >>> tokens = np.array([[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]])
    >>> model(tokens).shape, len(model.hidden_states(tokens))   # (B, T, V); n_layers + 1
    ((2, 5, 10), 3)
    """

    @constrained(config=CONFIG)
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        rng = np.random.default_rng(config.seed)
        self.config, self.vocab, self.n_layers = config, config.vocab, config.n_layers
        self.embedding = Embedding(config, rng)
        self.position = PositionalEncoding(config, rng)
        self.layers = [EncoderLayer.of(config, rng) for _ in range(config.n_layers)]
        self.norm = LayerNorm(config.d_model, config.eps) if config.norm_first else None
        self.head = Linear(config.d_model, config.n_outputs or config.vocab, rng)

    def _ids(self, tokens: npt.ArrayLike) -> np.ndarray:
        """``tokens`` checked: integer ids in ``[0, vocab)``, shape ``(B, T)``."""
        return check_integer_array(
            tokens, "tokens", ndim=2, minimum=0, below=self.vocab, hint="np.array([[1, 2, 3]])"
        )

    def _positions(self, positions: npt.ArrayLike | None, ids: np.ndarray) -> np.ndarray | None:
        """``positions`` checked: integers >= 0 of shape ``(T,)`` or ``(B, T)``, or None."""
        if positions is None:
            return None
        where = check_integer_array(
            positions, "positions", minimum=0, hint="np.array([0, 0, 0, 1, 2]) (padding first)"
        )
        if where.shape not in (ids.shape[-1:], ids.shape):
            raise ValueError(
                f"positions must have shape (T,) = {ids.shape[-1:]} or (B, T) = {ids.shape}, "
                f"one per token, got {where.shape}"
            )
        return where

    def forward(
        self,
        tokens: npt.ArrayLike,
        mask: Mask = None,
        key_padding_mask: Mask = None,
        *,
        positions: npt.ArrayLike | None = None,
    ) -> np.ndarray:
        """The logits, ``(B, T) -> (B, T, n_outputs)``; caches what :meth:`backward` needs.

        ``positions``: the position of each token, ``(T,)`` or ``(B, T)`` integers, by
        default ``0 .. T-1``; with left padding, count only the real tokens (chapter 6).
        Added sinusoids and RoPE read them; a learned table and ALiBi refuse them.
        """
        h = self.hidden_states(tokens, mask, key_padding_mask, positions=positions)[-1]
        return self.head(h if self.norm is None else self.norm(h))  # (B, T, n_outputs)

    def hidden_states(
        self,
        tokens: npt.ArrayLike,
        mask: Mask = None,
        key_padding_mask: Mask = None,
        *,
        positions: npt.ArrayLike | None = None,
    ) -> list[np.ndarray]:
        """What the layers see: the input to the first layer, then every layer's output.

        ``n_layers + 1`` arrays ``(B, T, D)`` (the last before a pre-LN model's final
        LayerNorm). Runs a forward pass, so ``backward`` then follows these tokens.
        """
        ids = self._ids(tokens)
        where = self._positions(positions, ids)
        states = [self.position(self.embedding(ids), where)]  # (B, T, D)
        for layer in self.layers:
            states.append(layer(states[-1], mask, key_padding_mask, where))
        return states

    def backward(self, dlogits: np.ndarray) -> None:
        """Add the gradients of every parameter, given those of the last logits."""
        dh = self.head.backward(dlogits)
        if self.norm is not None:
            dh = self.norm.backward(dh)
        for layer in reversed(self.layers):
            dh = layer.backward(dh)
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

    @constrained(output=Options("linear", "sigmoid"))
    def __init__(
        self, sizes: list[int], rng: np.random.Generator, *, output: str = "linear"
    ) -> None:
        super().__init__()
        if not isinstance(sizes, (list, tuple, np.ndarray)):
            raise TypeError(
                f"sizes must be a list of layer widths, got {type(sizes).__name__}; "
                f"pass e.g. [2, 64, 1]"
            )
        # The entries of a list: a rule declares one argument, so each is checked here.
        widths = [
            check_count(size, f"sizes[{i}]", hint="such as 64") for i, size in enumerate(sizes)
        ]
        if len(widths) < 2:
            raise ValueError(
                f"sizes needs at least an input and an output width, got {widths}; "
                f"pass e.g. [2, 64, 1]"
            )
        for d_in, d_out in itertools.pairwise(widths):
            check_entries((d_out, d_in), what="the weight of Linear(d_in, d_out)")
        self.output = output
        self.layers = [Linear(d_in, d_out, rng) for d_in, d_out in itertools.pairwise(widths)]

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The output, ``(N, in) -> (N, out)``; ValueError if ``x`` is not ``in`` wide."""
        self._pre: list[np.ndarray] = []  # pre-activations of the hidden layers, (N, hidden)
        for layer in self.layers[:-1]:
            self._pre.append(layer(x))
            x = _relu(self._pre[-1])
        out = self.layers[-1](x)  # (N, out)
        if self.output == "sigmoid":
            out = self._out = 1.0 / (1.0 + np.exp(-out))
        return out

    def backward(self, dout: np.ndarray) -> np.ndarray:
        """Add the gradients of every layer; return the gradient of ``x``, ``(N, in)``."""
        if self.output == "sigmoid":
            dout = dout * self._out * (1.0 - self._out)
        dout = self.layers[-1].backward(dout)
        for layer, pre in zip(self.layers[-2::-1], self._pre[::-1], strict=True):
            dout = layer.backward(_relu_backward(dout, pre))
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
