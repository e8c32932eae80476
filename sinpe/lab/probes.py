"""Looking inside trained models: what a head does with each pair, and what a table became.

A head scores query ``t`` against key ``s`` with ``x_t . G x_s``, where ``G`` is its
query-key form (:func:`query_key_form`). Restricted to the sinusoids, ``G`` acts on each
(sin, cos) pair through a 2 x 2 block, and every 2 x 2 block is a rotation part plus a
reflection part (:func:`pair_blocks`): the first scores a function of ``s - t`` (look
``k`` back), the second of ``s + t`` (look at the mirror image). Throughout, ``model``
is a :class:`sinpe.lab.nn.TokenModel` and ``tokens`` a ``(B, T)`` integer array of its
ids; a measurement runs ``model.forward`` once (its caches are then those of ``tokens``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sinpe._threads import one_blas_thread
from sinpe._validation import (
    BASE,
    D_MODEL,
    LAYOUT,
    POSITIONS,
    Instance,
    Integer,
    Real,
    check_entries,
    check_float_array,
    check_integer_array,
    check_real_array,
    constrained,
)
from sinpe.core import frequencies, layout_permutation
from sinpe.lab import nn

__all__ = [
    "PairBlocks",
    "attention_entropy",
    "attention_on",
    "attention_peak",
    "equivariance_gap",
    "linear_probe",
    "pair_blocks",
    "position_probes",
    "position_spectrum",
    "principal_angles",
    "query_key_form",
    "shift_rotation_residual",
    "unseen_phases",
]

#: A layer or a head, counted from 0, and a positive count (narrowed in the bodies).
_INDEX, _COUNT = Integer(0, hint="such as 0"), Integer(hint="such as 4")
_RIDGE = Real(0.0, closed="neither", hint="e.g. 1e-3")


class PairBlocks(NamedTuple):
    """The 2 x 2 blocks of a query-key form, pair by pair (:func:`pair_blocks`).

    A named tuple of four float64 arrays of shape ``(d_model // 2,)``.

    Parameters
    ----------
    rotation : numpy.ndarray
        Size ``rho_i >= 0`` of the rotation part of block ``i``.
    rotation_angle : numpy.ndarray
        Its angle ``theta_i`` in ``(-pi, pi]``: the part scores ``rho_i cos(w_i (s - t)
        - theta_i)``. A head that looks ``k`` back has ``theta_i = -k w_i``, the angle
        of Chapter 2's ``M_(-k)``.
    reflection : numpy.ndarray
        Size ``sigma_i >= 0`` of the reflection part.
    reflection_angle : numpy.ndarray
        Its angle ``psi_i``: the part scores ``sigma_i cos(w_i (s + t) - psi_i)``;
        reversing ``L`` tokens needs ``psi_i = (L - 1) w_i``.
    """

    rotation: np.ndarray
    rotation_angle: np.ndarray
    reflection: np.ndarray
    reflection_angle: np.ndarray


@constrained(model=Instance(nn.TokenModel), layer=_INDEX, head=_INDEX)
def query_key_form(model: nn.TokenModel, *, layer: int = 0, head: int = 0) -> np.ndarray:
    """The bilinear form ``G`` of one head: it scores query ``t`` on key ``s`` as ``x_t . G x_s``.

    ``G = W_Q,h^T W_K,h / (sqrt(d_head) * temperature)``, shape ``(D, D)``, float64,
    from the head's rows of ``in_proj_weight``; ``layer`` and ``head`` count from 0. It
    leaves out the bias terms and RoPE or ALiBi. For a post-LN model with an added
    encoding, ``PE(t) . G PE(s)`` is the part of the score that depends on positions only.

    Examples
    --------
    With the queries' rows set to the identity and the keys' to twice it, a
    head of width 2 scores ``x_t . 2 x_s / sqrt(2)``:

    >>> import numpy as np
    >>> from sinpe.lab import nn
    >>> from sinpe.lab.probes import query_key_form
    >>> model = nn.TokenModel(nn.ModelConfig(vocab=4, d_model=2, n_heads=1, d_ff=4, n_layers=1))
    >>> weight = model.layers[0].self_attn.params["in_proj_weight"]
    >>> weight[:2], weight[2:4] = np.eye(2), 2 * np.eye(2)
    >>> query_key_form(model).round(6).tolist()
    [[1.414214, 0.0], [0.0, 1.414214]]
    """
    attention = _attention(model, layer)
    heads = attention.n_heads
    if head >= heads:
        raise ValueError(f"head must be below the layer's {heads} heads (from 0), got {head}")
    weight = attention.params["in_proj_weight"].astype(np.float64)  # (3D, D)
    width = weight.shape[1]
    head_width = width // heads
    rows = slice(head * head_width, (head + 1) * head_width)
    queries, keys = weight[:width][rows], weight[width : 2 * width][rows]  # (Dh, D) each
    return queries.T @ keys / (math.sqrt(head_width) * attention.temperature)


def _attention(model: nn.TokenModel, layer: int) -> nn.MultiHeadAttention:
    """The attention of ``model``'s layer ``layer`` (its rule's range narrowed to the model)."""
    if model.n_layers == 0:
        raise ValueError("model has no layers, so no attention to read")
    if layer >= model.n_layers:
        raise ValueError(f"layer must be below the model's {model.n_layers} layers, got {layer}")
    return model.layers[layer].self_attn


@constrained(layout=LAYOUT)
def pair_blocks(form: npt.ArrayLike, *, layout: str = "interleaved") -> PairBlocks:
    """Split each (sin, cos) pair's 2 x 2 block of a form into a rotation and a reflection.

    For pair ``i`` with ``u(t) = (sin w_i t, cos w_i t)`` and block
    ``B = [[a, b], [c, d]]`` (rows: query coordinates, columns: key coordinates),

    ``u(t) . B u(s) = rho cos(w_i (s - t) - theta) + sigma cos(w_i (s + t) - psi)``

    with ``rho e^(i theta) = ((a + d) + i (c - b)) / 2`` and
    ``sigma e^(i psi) = ((d - a) + i (b + c)) / 2``: the rotation part depends on the
    offset ``s - t`` only, the reflection part on ``s + t``. Blocks between two
    different pairs are not read.

    Parameters
    ----------
    form : array_like of real, shape (D, D)
        A bilinear form on encodings (:func:`query_key_form`); ``D`` even.
    layout : {"interleaved", "concat"}, optional
        Where pair ``i`` sits: entries ``(2i, 2i + 1)``, or ``(i, i + D / 2)``.

    Examples
    --------
    Chapter 2's ``M_1`` for one pair (``w = 1``) as the form, ``B = M_(-1)^T``: a head
    that looks one position back, rotation angle ``-1``:

    >>> import numpy as np
    >>> from sinpe.lab.probes import pair_blocks
    >>> c, s = np.cos(1.0), np.sin(1.0)
    >>> blocks = pair_blocks([[c, s], [-s, c]])
    >>> float(blocks.rotation[0]), round(float(blocks.rotation_angle[0]), 12)
    (1.0, -1.0)
    >>> float(blocks.reflection[0])
    0.0
    """
    matrix = check_real_array(form, name="form")
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"form must be a square (D, D) array, got shape {matrix.shape}")
    width = D_MODEL(matrix.shape[0], "the side D of form")
    # column of the form holding concat entry j: sines are j < D/2, cosines the rest
    where = layout_permutation(width, layout, "concat")
    sines, cosines = where[: width // 2], where[width // 2 :]
    half_form = matrix / 2  # halved first: a + d of two huge entries cannot overflow
    a, b = half_form[sines, sines], half_form[sines, cosines]
    c, d = half_form[cosines, sines], half_form[cosines, cosines]
    rotation = (a + d) + 1j * (c - b)  # rho e^(i theta)
    reflection = (d - a) + 1j * (b + c)  # sigma e^(i psi)
    return PairBlocks(
        np.abs(rotation), np.angle(rotation), np.abs(reflection), np.angle(reflection)
    )


def attention_entropy(weights: npt.ArrayLike) -> np.ndarray:
    """Entropy, in nats, of each row of attention weights ``(..., T_keys)``.

    ``0`` when a query looks at one key only, ``ln n`` when it spreads evenly over ``n``
    keys; zero (masked) weights add nothing. Rows must sum to 1 (within 1e-6), e.g.
    ``attention_weights`` of :class:`sinpe.lab.nn.MultiHeadAttention`.

    Examples
    --------
    >>> from sinpe.lab.probes import attention_entropy
    >>> attention_entropy([[1.0, 0.0], [0.5, 0.5]]).round(6).tolist()   # 0 and ln 2
    [0.0, 0.693147]
    """
    rows = _check_weights(weights)
    safe = np.where(rows > 0, rows, 1.0)
    return np.sum(rows * -np.log(safe), axis=-1) + 0.0  # + 0.0: no -0.0 for one-hot rows


def attention_on(weights: npt.ArrayLike, keys: npt.ArrayLike) -> np.ndarray:
    """The weight each query puts on one chosen key: ``weights[..., t, keys[t]]``.

    ``weights`` as :func:`attention_entropy`, shape ``(..., T, T_keys)``; ``keys`` holds
    one key index per query, e.g. ``np.maximum(np.arange(T) - 1, 0)`` for the previous token.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.lab.probes import attention_on
    >>> weights = np.array([[1.0, 0.0], [0.25, 0.75]])
    >>> attention_on(weights, [0, 0]).tolist()   # both queries' weight on key 0
    [1.0, 0.25]
    """
    rows = _check_weights(weights)
    if rows.ndim < 2:
        raise ValueError(f"weights must have a query axis and a key axis, got shape {rows.shape}")
    queries, width = rows.shape[-2:]
    chosen = check_integer_array(
        keys, "keys", ndim=1, minimum=0, below=width, hint="np.maximum(np.arange(T) - 1, 0)"
    )
    if chosen.shape != (queries,):
        raise ValueError(
            f"keys must hold one key per query, shape ({queries},), got {chosen.shape}"
        )
    picked = np.broadcast_to(chosen[:, None], (*rows.shape[:-1], 1))  # (..., T, 1)
    return np.take_along_axis(rows, picked, -1)[..., 0]


def _check_weights(weights: npt.ArrayLike) -> np.ndarray:
    """Attention weights: finite, non-negative, each row summing to 1."""
    rows = check_float_array(weights, "weights").astype(np.float64)
    if rows.ndim == 0 or rows.shape[-1] == 0:
        raise ValueError(f"weights must have at least one key per row, got shape {rows.shape}")
    if (rows < 0).any() or not np.allclose(rows.sum(axis=-1), 1.0, rtol=0.0, atol=1e-6):
        raise ValueError(
            "weights must be non-negative and each row must sum to 1 (a softmax output); "
            "pass attention_weights, not attention_scores"
        )
    return rows


@constrained(
    trained_length=Integer(hint="such as 16"), d_model=D_MODEL, base=BASE, positions=POSITIONS
)
def unseen_phases(
    positions: npt.ArrayLike, d_model: int, *, trained_length: int, base: float = 10000.0
) -> np.ndarray:
    """Which pairs turn, at each position, to an angle never met in training.

    Pair ``i`` at position ``p`` is at the angle ``w_i p`` (mod 2 pi). Training on
    positions ``0 .. trained_length - 1`` shows the angles ``w_i q``; an angle is
    *unseen* when it is more than half a step from each of them, the step being the
    turn ``w_i`` measured on the circle (a turn beyond pi looks like a smaller one the
    other way). Fast pairs go round within the training length and leave no gap; a
    slow pair sees only an arc, and everything past its end is new.

    Returns a boolean array of shape ``(N, d_model // 2)`` for ``N`` positions (1-d).

    Examples
    --------
    One pair with ``w = 1``, trained on positions 0 and 1 (angles 0 and 1 rad):
    position 2 (2 rad) is a whole step past the arc; 1.4 is within half a step.

    >>> from sinpe.lab.probes import unseen_phases
    >>> unseen_phases([1.4, 2.0], 2, trained_length=2)[:, 0].tolist()
    [False, True]
    """
    where = np.asarray(positions)  # float64, checked by its rule
    if where.ndim != 1:
        raise ValueError(f"positions must be 1-d, got shape {where.shape}")
    omega = frequencies(d_model, base=base)  # (P,)
    # complex128 (two float64 entries) and two temporaries of that size
    check_entries(
        (where.size, omega.size, trained_length, 6), what="positions x pairs x trained_length x 6"
    )
    seen = np.arange(trained_length, dtype=np.float64)
    # distance on the circle between each checked angle and each trained one: (N, P, L)
    gaps = np.angle(np.exp(1j * omega[None, :, None] * (where[:, None, None] - seen)))
    nearest = np.abs(gaps).min(axis=-1)  # (N, P)
    turn = np.mod(omega, 2 * np.pi)
    return nearest > np.minimum(turn, 2 * np.pi - turn) / 2  # half a step on the circle


def position_spectrum(table: npt.ArrayLike) -> np.ndarray:
    """How a position table's power is spread over frequencies along the positions.

    Each column of the ``(T >= 2, D)`` table is centred and Fourier transformed; the
    squared magnitudes, summed over columns, are returned as shares of the whole at
    ``j = 0 .. T // 2`` cycles per ``T`` positions (``+-j`` counted together; 0 at
    ``j = 0``). A random table spreads its power evenly; a smooth one, such as the
    sinusoidal table over a long window, puts it at low frequencies. A table constant
    along positions raises ValueError.

    Examples
    --------
    One channel that goes round twice in 8 positions: all its power at 2 cycles.

    >>> import numpy as np
    >>> from sinpe.lab.probes import position_spectrum
    >>> column = np.cos(2 * np.pi * 2 * np.arange(8) / 8)[:, None]
    >>> position_spectrum(column).round(12).tolist()
    [0.0, 0.0, 1.0, 0.0, 0.0]
    """
    rows = _check_table(table)
    centred = rows - rows.mean(axis=0)
    peak = np.abs(centred).max()
    if peak > 0:
        centred = centred / peak  # the shares do not depend on the scale; no overflow
    power = (np.abs(np.fft.rfft(centred, axis=0)) ** 2).sum(axis=1)
    # each bin strictly between 0 and the Nyquist frequency stands for two (+- j)
    power[1 : (rows.shape[0] + 1) // 2] *= 2
    total = power.sum()
    if not total > 0:
        raise ValueError("table does not vary along positions, so it has no spectrum")
    return power / total


@constrained(offset=_COUNT)
def shift_rotation_residual(table: npt.ArrayLike, *, offset: int = 1) -> float:
    """How far the step from row ``p`` to row ``p + offset`` is from one fixed rotation.

    The best orthogonal ``Q`` (orthogonal Procrustes: ``Q = U V^T`` from the SVD of
    ``X^T Y``) sends the rows ``X = table[:-offset]`` as near as it can to
    ``Y = table[offset:]``; the result is ``|X Q - Y| / |Y|`` (Frobenius norms). It
    is 0 for the sinusoidal table, where ``Q`` is Chapter 2's ``M_offset``; about 0.5
    for 16 independent Gaussian rows of width 32, and more when the rows' lengths
    differ. ``table`` is ``(T >= 2, D)``; ``1 <= offset < T``.

    Examples
    --------
    >>> import numpy as np, sinpe
    >>> from sinpe.lab.probes import shift_rotation_residual
    >>> table = sinpe.positional_encoding(np.arange(32), 8)
    >>> shift_rotation_residual(table) < 1e-12
    True
    >>> shift_rotation_residual([[1.0], [2.0]])   # 1 -> 2 is a stretch; the best is 1 -> 1
    0.5
    """
    rows = _check_table(table)
    if offset >= len(rows):
        raise ValueError(f"offset must be below the table's {len(rows)} rows, got {offset}")
    peak = np.abs(rows).max()
    rows = rows / peak if peak > 0 else rows  # the residual is scale-free; no overflow
    before, after = rows[:-offset], rows[offset:]
    scale = np.linalg.norm(after)
    if not scale > 0:
        raise ValueError("table[offset:] is all zero; there is nothing to rotate to")
    left, _, right = np.linalg.svd(before.T @ after)
    return float(np.linalg.norm(before @ (left @ right) - after) / scale)


def _check_table(table: npt.ArrayLike) -> np.ndarray:
    """A (T >= 2, D >= 1) table of finite reals, as float64."""
    rows = check_real_array(table, name="table")
    if rows.ndim != 2 or rows.shape[0] < 2 or rows.shape[1] < 1:
        raise ValueError(
            f"table must have shape (T >= 2, D >= 1), one row per position, got {rows.shape}"
        )
    return rows


@one_blas_thread
def principal_angles(first: npt.ArrayLike, second: npt.ArrayLike) -> np.ndarray:
    """Principal angles, in degrees, between the spans of the rows of two matrices.

    ``first`` ``(m, D)`` and ``second`` ``(n, D)`` each span a subspace of R^D (say the
    learned token embeddings and the encodings of the trained positions); the angles
    are ``arccos`` of the singular values of ``Q1^T Q2``, ``Q1`` and ``Q2`` orthonormal
    bases of the two spans (Björck and Golub's method), smallest first:
    ``min(rank1, rank2)`` of them. 90 everywhere: orthogonal subspaces; 0: a shared
    direction. Rows of exactly zero span nothing; a matrix of zeros raises.

    Examples
    --------
    >>> import numpy as np
    >>> principal_angles([[1.0, 0, 0]], [[1.0, 1.0, 0]]).round(6).tolist()
    [45.0]
    >>> principal_angles(np.eye(3)[:2], np.eye(3)[2:]).tolist()
    [90.0]
    """
    bases = []
    for name, values in (("first", first), ("second", second)):
        rows = check_float_array(values, name, ndim=2).astype(np.float64)
        if rows.shape[0] == 0 or rows.shape[1] == 0:
            raise ValueError(f"{name} must be a non-empty (rows, D) array, got {rows.shape}")
        _, sizes, right = np.linalg.svd(rows, full_matrices=False)
        rank = int(np.sum(sizes > sizes.max() * max(rows.shape) * np.finfo(float).eps))
        if sizes.max() == 0.0 or rank == 0:
            raise ValueError(f"{name} spans nothing: its rows are all zero")
        bases.append(right[:rank])  # (rank, D), orthonormal rows
    if bases[0].shape[1] != bases[1].shape[1]:
        raise ValueError(
            f"first and second must have rows of the same width D, got "
            f"{bases[0].shape[1]} and {bases[1].shape[1]}"
        )
    cosines = np.linalg.svd(bases[0] @ bases[1].T, compute_uv=False)
    return np.degrees(np.arccos(np.clip(cosines, -1.0, 1.0)))


@one_blas_thread
@constrained(ridge=_RIDGE)
def linear_probe(
    features: npt.ArrayLike,
    labels: npt.ArrayLike,
    test_features: npt.ArrayLike,
    test_labels: npt.ArrayLike,
    *,
    ridge: float = 1e-3,
) -> float:
    """Held-out accuracy of a least-squares linear classifier (a "linear probe").

    Each feature is standardised on the training rows (a constant one only centred),
    then ``W`` is fitted to the one-hot labels by ridge regression, ``(Z^T Z / N +
    ridge I) W = Z^T (Y - mean Y) / N`` (the intercept, mean ``Y``, is not penalised).
    A test row gets the label with the largest output; labels never seen in training
    count as errors. Runs with one BLAS thread (the matrices are small).

    Parameters
    ----------
    features, test_features : array_like of real, shapes (N, F) and (M, F)
        Training (``N >= 1``) and held-out rows.
    labels, test_labels : array_like of int, shapes (N,) and (M,)
        Their classes (any integers).
    ridge : float, optional
        Penalty (> 0) on the standardised weights; it keeps the fit unique when
        features are collinear (as LayerNorm's outputs are).

    Examples
    --------
    Four classes from the signs of two of three random features:

    >>> import numpy as np
    >>> x = np.random.default_rng(0).normal(size=(200, 3))
    >>> y = (x[:, 0] > 0).astype(int) + 2 * (x[:, 1] > 0)
    >>> linear_probe(x[:100], y[:100], x[100:], y[100:]) > 0.8
    True
    """
    x = check_float_array(features, "features", ndim=2).astype(np.float64)
    z_test = check_float_array(test_features, "test_features", ndim=2).astype(np.float64)
    if x.shape[0] == 0 or x.shape[1] != z_test.shape[1]:
        raise ValueError(
            f"features must be (N, F) and test_features (M, F) arrays with N >= 1, "
            f"got {x.shape} and {z_test.shape}"
        )
    y = check_integer_array(labels, "labels", ndim=1, hint="np.array([0, 1, 1, 0])")
    y_test = check_integer_array(test_labels, "test_labels", ndim=1, hint="np.array([0, 1])")
    if y.shape != x.shape[:1] or y_test.shape != z_test.shape[:1]:
        raise ValueError(
            f"labels must give one label per row of features: got {y.shape[0]} labels for "
            f"{x.shape[0]} rows and {y_test.shape[0]} test labels for {z_test.shape[0]} rows"
        )
    classes, codes = np.unique(y, return_inverse=True)
    with np.errstate(all="ignore"):  # overflow is reported below, in words
        mean = x.mean(axis=0)
        spread = x.std(axis=0)
        # A constant column varies only by the rounding of its mean: only centre it.
        spread[spread <= 1e-12 * np.abs(mean)] = 1.0
        z = (x - mean) / spread  # (N, F)
        z_new = (z_test - mean) / spread  # (M, F)
    if not (np.isfinite(spread).all() and np.isfinite(z).all() and np.isfinite(z_new).all()):
        raise ValueError(
            "standardising the features overflows float64 (entries near 1e154 or beyond); "
            "rescale the features"
        )
    targets = np.eye(classes.size)[codes]  # (N, C)
    offset = targets.mean(axis=0)
    gram = z.T @ z / len(z) + ridge * np.eye(z.shape[1])  # (F, F)
    weights = np.linalg.solve(gram, z.T @ (targets - offset) / len(z))  # (F, C)
    scores = z_new @ weights + offset  # (M, C)
    return float(np.mean(classes[scores.argmax(axis=1)] == y_test))


@one_blas_thread
@constrained(n_train=_COUNT, max_offset=_COUNT, ridge=_RIDGE)
def position_probes(
    states: npt.ArrayLike, *, n_train: int, max_offset: int, ridge: float = 1e-3
) -> tuple[float, float]:
    """How well a position, and an offset, can be read linearly from hidden states.

    Parameters
    ----------
    states : array_like, shape (B, T, D)
        Hidden states of ``B`` sequences (one entry of
        :meth:`sinpe.lab.nn.TokenModel.hidden_states`); the first ``n_train`` fit the
        probes, the others (``0 < n_train < B``) test them.
    max_offset : int
        The offset probe classifies ``i - j`` for ``0 < |i - j| <= max_offset`` (offset
        0 would give itself away).
    ridge : float, optional
        As :func:`linear_probe`.

    Returns
    -------
    (float, float)
        Held-out accuracy of the **absolute** probe (position ``t`` from ``h_t``) and of
        the **offset** probe (``i - j`` from the outer product ``(h_i, 1) (h_j, 1)^T``,
        a bilinear form of the two states as an attention score is; a linear function
        of their difference could not read an offset even from the bare sinusoids).

    Examples
    --------
    Five token vectors in random order, with and without the sinusoids added
    (chance is 1/12 for the position, about 1/5 for the offset):

    >>> import numpy as np
    >>> from sinpe.core import positional_encoding
    >>> rng = np.random.default_rng(0)
    >>> content = rng.normal(size=(5, 16))[rng.integers(0, 5, size=(40, 12))]  # (B, T, D)
    >>> position_probes(content + 2 * positional_encoding(np.arange(12), 16),
    ...                 n_train=30, max_offset=3)
    (1.0, 1.0)
    >>> [accuracy < 0.3 for accuracy in position_probes(content, n_train=30, max_offset=3)]
    [True, True]
    """
    h = check_float_array(states, "states", ndim=3).astype(np.float64)
    batch, length, width = h.shape
    if batch < 2 or length < 2 or width < 1:
        raise ValueError(
            f"states must have shape (B, T, D) with B >= 2 sequences, T >= 2 positions and "
            f"D >= 1, got {h.shape}"
        )
    if n_train >= batch:
        raise ValueError(f"n_train must be below the batch size B = {batch}, got {n_train}")
    if max_offset >= length:
        raise ValueError(f"max_offset must be below the length T = {length}, got {max_offset}")
    pairs_per_sequence = int(np.sum(length - np.arange(1, max_offset + 1))) * 2
    check_entries((batch, pairs_per_sequence, (width + 1) ** 2), what="the offset probe's pairs")
    train, test = h[:n_train], h[n_train:]
    positions = np.arange(length)

    def absolute(part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return part.reshape(-1, width), np.tile(positions, len(part))

    gaps = np.abs(positions[:, None] - positions)  # (T, T)
    first, second = np.nonzero((gaps > 0) & (gaps <= max_offset))

    def offset(part: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        augmented = np.concatenate([part, np.ones((len(part), length, 1))], axis=-1)
        left = augmented[:, first].reshape(-1, width + 1)  # (b P, D+1): h_i, 1
        right = augmented[:, second].reshape(-1, width + 1)  # (b P, D+1): h_j, 1
        pairs = left[:, :, None] * right[:, None, :]  # (b P, D+1, D+1)
        return pairs.reshape(len(left), -1), np.tile(first - second, len(part))

    return (
        linear_probe(*absolute(train), *absolute(test), ridge=ridge),
        linear_probe(*offset(train), *offset(test), ridge=ridge),
    )


@constrained(layer=_INDEX)
def attention_peak(model: nn.TokenModel, tokens: np.ndarray, *, layer: int = 0) -> float:
    """Mean over queries of the largest attention weight in ``layer``, for ``tokens``.

    In ``[1 / T, 1]``: ``1 / T`` when every query spreads its attention evenly over
    the ``T`` tokens, 1 when each looks at one token only (a saturated softmax).
    Averaged over batch, heads and queries; no mask.

    Examples
    --------
    Identical tokens and no position information: attention is uniform, ``1 / 6``:

    >>> import numpy as np
    >>> from sinpe.lab import nn
    >>> config = nn.ModelConfig(d_model=8, n_heads=2, d_ff=16, n_layers=1, encoding="none")
    >>> model = nn.TokenModel(config)
    >>> round(attention_peak(model, np.zeros((2, 6), dtype=int)), 6)
    0.166667
    """
    ids = nn._checked_tokens(model, tokens)
    attention = _attention(model, layer)
    model.forward(ids)
    weights = attention.attention_weights
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
    >>> from sinpe.lab import nn
    >>> reverse = np.array([3, 2, 1, 0])
    >>> config = nn.ModelConfig(vocab=4, d_model=4, n_heads=2, d_ff=8, n_layers=0)
    >>> equivariance_gap(nn.TokenModel(config), np.array([[0, 1, 2, 3]]), reverse) > 0.1
    True
    """
    ids = nn._checked_tokens(model, tokens)
    order = check_integer_array(permutation, "permutation", ndim=1, hint="np.array([1, 0, 2])")
    if not np.array_equal(np.sort(order), np.arange(ids.shape[1])):
        raise ValueError(
            f"permutation must hold each of 0 .. {ids.shape[1] - 1} exactly once (one per "
            f"token position), got {order.tolist()[:10]}"
        )
    outputs = model.forward(ids)
    return float(np.max(np.abs(outputs[:, order] - model.forward(ids[:, order]))))
