"""Decoupled RoPE in multi-head latent attention (MLA: DeepSeek-V2 and V3), as released.

MLA caches one small latent ``c`` per token instead of every head's key and value; a
head's content key is ``W_UK c`` (transformers' ``kv_b_proj``). A score ``q^T W_UK c``
can then be computed as ``(W_UK^T q)^T c``: the up-projection is *absorbed* into the
query, and the keys are never formed. A rotation between the two would break this:
``(R_m q)^T R_n W_UK c = q^T R_(n-m) W_UK c`` puts a matrix that changes with every
offset between ``q`` and ``W_UK`` (DeepSeek-V2, section 2.1.3: "RoPE is incompatible
with low-rank KV compression"). So MLA leaves the content part unrotated and carries
position in a separate small sub-vector of each query (``qk_rope_head_dim`` entries)
and one key of that width shared by all heads, rotated by RoPE: the score is the sum
of a position-free content part and a RoPE part that depends on the offset.

The scores are those of transformers' ``DeepseekV3Attention.forward``
(``src/transformers/models/deepseek_v3/modeling_deepseek_v3.py``, huggingface/transformers
commit 00b676f8f0489b88652a31d70751cc540dd06305), and SymPy (imported on call, as
:mod:`sinpe.symbolic`) checks the split.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from sinpe._validation import BASE, LAYOUT, POSITIONS, Width, check_float_array, constrained
from sinpe.rope import apply_rope

if TYPE_CHECKING:  # SymPy only for the proofs
    import sympy as sp

    from sinpe.symbolic import VerifiedIdentity

__all__ = [
    "absorbed_scores",
    "coupled_score",
    "decoupled_score",
    "decoupled_scores",
    "verify_decoupled_rope",
    "verify_rotation_between",
]


def _rows(values: npt.ArrayLike, name: str, tokens: int | None = None) -> np.ndarray:
    array = check_float_array(values, name, ndim=2).astype(np.float64)
    if tokens is not None and array.shape[0] != tokens:
        raise ValueError(
            f"{name} must have one row per token ({tokens}, as the queries), "
            f"got shape {array.shape}"
        )
    return array


def _rope_part(
    q_rope: np.ndarray, k_rope: np.ndarray, positions: npt.ArrayLike, base: float, layout: str
) -> np.ndarray:
    positions = np.asarray(positions)  # checked by the caller's rule
    if q_rope.shape[1] != k_rope.shape[1] or q_rope.shape[1] % 2:
        raise ValueError(
            f"q_rope and k_rope must have the same even width (qk_rope_head_dim), got "
            f"{q_rope.shape[1]} and {k_rope.shape[1]}"
        )
    if positions.shape != (q_rope.shape[0],):
        raise ValueError(
            f"positions must hold one position per token, shape ({q_rope.shape[0]},), "
            f"got {positions.shape}"
        )
    q_rot = apply_rope(q_rope, positions, base=base, layout=layout)
    k_rot = apply_rope(k_rope, positions, base=base, layout=layout)
    return np.asarray(q_rot @ k_rot.T)


@constrained(positions=POSITIONS, base=BASE, layout=LAYOUT)
def decoupled_scores(
    q_nope: npt.ArrayLike,
    q_rope: npt.ArrayLike,
    k_nope: npt.ArrayLike,
    k_rope: npt.ArrayLike,
    positions: npt.ArrayLike,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
) -> np.ndarray:
    """One MLA head's scores ``q_t . k_s`` for every pair of tokens, as released.

    ``query = cat(q_nope, RoPE(q_rope))`` and ``key = cat(k_nope, RoPE(k_rope))``, so
    the score is ``q_nope . k_nope + RoPE(q_rope, p_t) . RoPE(k_rope, p_s)``: only the
    ``qk_rope_head_dim`` entries turn. ``layout`` as :func:`sinpe.rope.apply_rope`:
    DeepSeek-V3's config sets ``rope_interleave`` (transformers then reorders each
    rotated vector to the concat layout, which leaves every dot product as the
    interleaved rotation gives it). The released ``scaling`` (``qk_head_dim ** -0.5``,
    times YaRN's ``mscale ** 2``) and the causal mask come after.

    Parameters
    ----------
    q_nope, k_nope : array_like of real, shape (T, qk_nope_head_dim)
        The content parts of the head's queries and keys (``q_pass``, ``k_pass``).
    q_rope : array_like of real, shape (T, qk_rope_head_dim)
        The head's rotated sub-vectors, before the rotation.
    k_rope : array_like of real, shape (T, qk_rope_head_dim)
        The key sub-vector shared by all heads, before the rotation.
    positions : array_like of real, shape (T,)
        The tokens' positions (``position_ids``).
    base : float, optional
        RoPE's base (DeepSeek-V3: 10000, with YaRN's frequencies in the release).
    layout : {"interleaved", "concat"}, optional
        The pairing of the rotated entries.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(T, T)``: row ``t`` (query), column ``s`` (key).

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.mla import decoupled_scores
    >>> one = np.ones((2, 2))
    >>> decoupled_scores(one, one, one, one, [0, 0]).tolist()  # 2 + 2 at no offset
    [[4.0, 4.0], [4.0, 4.0]]
    """
    q_c = _rows(q_nope, "q_nope")
    tokens = q_c.shape[0]
    k_c = _rows(k_nope, "k_nope", tokens)
    if q_c.shape[1] != k_c.shape[1]:
        raise ValueError(
            f"q_nope and k_nope must have the same width (qk_nope_head_dim), got "
            f"{q_c.shape[1]} and {k_c.shape[1]}"
        )
    rope = _rope_part(
        _rows(q_rope, "q_rope", tokens), _rows(k_rope, "k_rope", tokens), positions, base, layout
    )
    return np.asarray(q_c @ k_c.T) + rope


@constrained(positions=POSITIONS, base=BASE, layout=LAYOUT)
def absorbed_scores(
    q_nope: npt.ArrayLike,
    w_uk: npt.ArrayLike,
    latent: npt.ArrayLike,
    q_rope: npt.ArrayLike,
    k_rope: npt.ArrayLike,
    positions: npt.ArrayLike,
    *,
    base: float = 10000.0,
    layout: str = "interleaved",
) -> np.ndarray:
    """The scores of :func:`decoupled_scores` from the cache, with ``W_UK`` absorbed.

    The content keys are ``k_nope = latent @ w_uk.T`` (one head's rows of
    ``kv_b_proj``); here they are never formed: the query is moved into the latent
    space once, ``q_nope @ w_uk``, and met with the cached ``latent`` (the normalized
    ``c_KV``) directly. The RoPE part needs the cached, rotated ``k_rope`` as before:
    per token the cache holds ``kv_lora_rank + qk_rope_head_dim`` numbers (512 + 64
    in DeepSeek-V3) for all heads.

    Parameters
    ----------
    q_nope : array_like of real, shape (T, qk_nope_head_dim)
    w_uk : array_like of real, shape (qk_nope_head_dim, kv_lora_rank)
        The head's key up-projection.
    latent : array_like of real, shape (T, kv_lora_rank)
        The cached latents.
    q_rope, k_rope, positions, base, layout
        As :func:`decoupled_scores`.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(T, T)``.

    Examples
    --------
    >>> import numpy as np
    >>> from sinpe.mla import absorbed_scores, decoupled_scores
    >>> rng = np.random.default_rng(0)
    >>> q, w, c, qr, kr = (rng.normal(size=s) for s in
    ...                    [(3, 4), (4, 2), (3, 2), (3, 2), (3, 2)])
    >>> here = absorbed_scores(q, w, c, qr, kr, [0, 1, 2])
    >>> np.allclose(here, decoupled_scores(q, qr, c @ w.T, kr, [0, 1, 2]))
    True
    """
    q_c = _rows(q_nope, "q_nope")
    tokens = q_c.shape[0]
    weight = _rows(w_uk, "w_uk")
    cache = _rows(latent, "latent", tokens)
    if weight.shape != (q_c.shape[1], cache.shape[1]):
        raise ValueError(
            f"w_uk must have shape (qk_nope_head_dim, kv_lora_rank) = "
            f"({q_c.shape[1]}, {cache.shape[1]}), got {weight.shape}"
        )
    rope = _rope_part(
        _rows(q_rope, "q_rope", tokens), _rows(k_rope, "k_rope", tokens), positions, base, layout
    )
    return np.asarray((q_c @ weight) @ cache.T) + rope


# --- the algebra, with SymPy -----------------------------------------------------------

#: A symbolic score: ``score(c_q, c_kv, q_r, k_r, w_uq, w_uk, m, n)`` of SymPy columns
#: and matrices, the query at position ``m`` and the key at ``n``.
Score = Callable[..., "sp.Expr"]


def decoupled_score(c_q, c_kv, q_r, k_r, w_uq, w_uk, m, n):  # type: ignore[no-untyped-def]
    """MLA's score, symbolically: ``(W_UQ c_q) . (W_UK c_kv) + RoPE(q_r, m) . RoPE(k_r, n)``.

    DeepSeek-V2's Eqs. 13, 10 and 14 to 17 for one head (``q_r`` stands for
    ``W_QR c_q``, ``k_r`` for ``W_KR h``); the rotation is :func:`sinpe.symbolic.rope`.

    Examples
    --------
    >>> import sympy as sp
    >>> from sinpe.mla import decoupled_score
    >>> x = sp.Matrix([1, 0])
    >>> m, n = sp.symbols("m n", real=True)
    >>> decoupled_score(x, x, x, x, sp.eye(2), sp.eye(2), m, n)
    sin(m)*sin(n) + cos(m)*cos(n) + 1
    """
    from sinpe.symbolic import rope

    content = ((w_uq * c_q).T * (w_uk * c_kv))[0, 0]
    return content + (rope(q_r, m).T * rope(k_r, n))[0, 0]


def coupled_score(c_q, c_kv, q_r, k_r, w_uq, w_uk, m, n):  # type: ignore[no-untyped-def]
    """The score with RoPE applied to the content parts too (what MLA avoids).

    ``RoPE(W_UQ c_q, m) . RoPE(W_UK c_kv, n) + RoPE(q_r, m) . RoPE(k_r, n)``: a wrong
    input for :func:`verify_decoupled_rope`, which must refuse it.
    """
    from sinpe.symbolic import rope

    content = (rope(w_uq * c_q, m).T * rope(w_uk * c_kv, n))[0, 0]
    return content + (rope(q_r, m).T * rope(k_r, n))[0, 0]


_SMALL = Width(high=4, hint="such as 2 (exact expressions grow fast)")


def _symbols(width: int, rope_dim: int):  # type: ignore[no-untyped-def]
    import sympy as sp

    def column(name: str, size: int) -> sp.Matrix:
        return sp.Matrix(sp.symbols(f"{name}0:{size}", real=True))

    w_uq = sp.Matrix(width, width, sp.symbols(f"u0:{width * width}", real=True))
    w_uk = sp.Matrix(width, width, sp.symbols(f"w0:{width * width}", real=True))
    m, n = sp.symbols("m n", real=True)
    return (
        column("c", width),
        column("l", width),
        column("a", rope_dim),
        column("b", rope_dim),
        w_uq,
        w_uk,
        m,
        n,
    )


@constrained(width=_SMALL, rope_dim=_SMALL)
def verify_decoupled_rope(
    score: Score = decoupled_score, *, width: int = 2, rope_dim: int = 2
) -> VerifiedIdentity:
    """Theorem: MLA's score is a position-free content part, absorbed, plus a relative part.

    For symbolic latents ``c_q``, ``c_kv`` (``width`` entries, even, at most 4),
    weights ``W_UQ``, ``W_UK`` (square), rotated sub-vectors ``q_r``, ``k_r``
    (``rope_dim`` entries, likewise) and
    positions ``m``, ``n``, SymPy checks that ``score`` (default :func:`decoupled_score`)

    1. equals ``c_q^T (W_UQ^T W_UK) c_kv + q_r^T R_(n-m) k_r``: its content part goes
       through one matrix, the product of the two weights, with no position in it;
    2. changes with the positions only through ``n - m``.

    A score that rotates the content part (:func:`coupled_score`) fails step 1 and
    raises :class:`sinpe.symbolic.IdentityError`. Named ``"decoupled rope"``;
    ``objects["absorbed"]`` is ``W_UQ^T W_UK``.

    Examples
    --------
    >>> from sinpe import mla
    >>> mla.verify_decoupled_rope().name
    'decoupled rope'
    >>> mla.verify_decoupled_rope(mla.coupled_score)
    Traceback (most recent call last):
    ...
    sinpe.symbolic.IdentityError: the content part depends on the positions: W_UK cannot ...
    """
    import sympy as sp

    from sinpe.symbolic import IdentityError, VerifiedIdentity, _is_zero, rope

    c_q, c_kv, q_r, k_r, w_uq, w_uk, m, n = _symbols(width, rope_dim)
    absorbed = w_uq.T * w_uk
    content = (c_q.T * absorbed * c_kv)[0, 0]
    relative = (q_r.T * rope(k_r, n - m))[0, 0]  # q_r^T R_(n-m) k_r
    full = score(c_q, c_kv, q_r, k_r, w_uq, w_uk, m, n)
    zero = sp.zeros(rope_dim, 1)
    latent_part = score(c_q, c_kv, zero, zero, w_uq, w_uk, m, n)
    if not _is_zero(sp.diff(latent_part, m)) or not _is_zero(sp.diff(latent_part, n)):
        raise IdentityError(
            "the content part depends on the positions: W_UK cannot be absorbed into "
            "W_UQ (a rotation lies between them)"
        )
    if not _is_zero(full - content - relative):
        raise IdentityError("the score is not c_q^T W_UQ^T W_UK c_kv + q_r^T R_(n-m) k_r")
    if not _is_zero(sp.diff(full, m) + sp.diff(full, n)):  # pragma: no cover - by step 1
        raise IdentityError("the score changes when m and n move together")
    statements = (
        sp.Eq(
            sp.Symbol(r"\mathrm{score}(m, n)"),
            sp.Symbol(
                r"c_Q^\mathsf{T} (W^{UQ\mathsf{T}} W^{UK})\, c^{KV}"
                r" + q^{R\mathsf{T}} R_{n-m}\, k^R"
            ),
            evaluate=False,
        ),
    )
    return VerifiedIdentity("decoupled rope", statements, {"absorbed": absorbed})


@constrained(width=_SMALL)
def verify_rotation_between(
    rope_fn: Callable[..., sp.Matrix] | None = None, *, width: int = 2
) -> VerifiedIdentity:
    """Theorem: a rotation left between the weights is ``R_(n-m)``, which changes with the offset.

    ``(R_m W_q x)^T (R_n W_k y) = x^T W_q^T R_(n-m) W_k y`` for symbolic ``W_q``,
    ``W_k``, ``x``, ``y`` (``width`` entries, even), and the middle matrix
    ``W_q^T R_(n-m) W_k`` depends on ``m`` (so no single matrix can replace it: the
    weights cannot be absorbed into one). ``rope_fn(vector, position)`` is the rotation
    (default :func:`sinpe.symbolic.rope`); one that does not turn has a constant middle
    matrix and raises :class:`sinpe.symbolic.IdentityError`. Named ``"rotation
    between"``; ``objects["between"]`` is the middle matrix.

    Examples
    --------
    >>> from sinpe import mla
    >>> mla.verify_rotation_between().name
    'rotation between'
    """
    import sympy as sp

    from sinpe.symbolic import IdentityError, VerifiedIdentity, _matrix_is_zero, rope

    turn = rope if rope_fn is None else rope_fn
    *_, w_q, w_k, m, n = _symbols(width, 2)
    eye = sp.eye(width)
    # R_m as a matrix: its columns are the turned basis vectors
    r_m = sp.Matrix.hstack(*(turn(eye[:, j], m) for j in range(width)))
    r_n = sp.Matrix.hstack(*(turn(eye[:, j], n) for j in range(width)))
    r_offset = sp.Matrix.hstack(*(turn(eye[:, j], n - m) for j in range(width)))
    between = w_q.T * r_m.T * r_n * w_k
    if not _matrix_is_zero(between - w_q.T * r_offset * w_k):
        raise IdentityError("R_m^T R_n is not R_(n-m): the rotation is not a RoPE")
    if _matrix_is_zero(sp.diff(between, m)):
        raise IdentityError(
            "the matrix between the weights does not change with the position: "
            "nothing stops the weights from being absorbed"
        )
    statements = (
        sp.Eq(
            sp.Symbol(r"(R_m W_q x)^\mathsf{T} (R_n W_k y)"),
            sp.Symbol(r"x^\mathsf{T} \left(W_q^\mathsf{T} R_{n-m} W_k\right) y"),
            evaluate=False,
        ),
    )
    return VerifiedIdentity("rotation between", statements, {"between": between})
