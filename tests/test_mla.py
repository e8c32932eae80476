"""sinpe.mla (decoupled RoPE in DeepSeek's MLA) against transformers' released code.

The released forward is re-typed in tests/sources.py (``deepseek_v3_scores``); the
algebra is checked by SymPy and must refuse a score that rotates the content part.
"""

from __future__ import annotations

import numpy as np
import pytest

from sinpe import mla
from sinpe.rope import apply_rope
from sinpe.symbolic import IdentityError
from tests import sources

HOSTILE_EXAMPLES = {
    "sinpe.mla.decoupled_scores": {
        "q_nope": [[1.0, 2.0], [0.5, -1.0]],
        "q_rope": [[1.0, 0.0], [0.0, 1.0]],
        "k_nope": [[0.3, 0.1], [2.0, 1.0]],
        "k_rope": [[1.0, 1.0], [0.5, 0.0]],
        "positions": [0.0, 3.0],
    },
    "sinpe.mla.absorbed_scores": {
        "q_nope": [[1.0, 2.0], [0.5, -1.0]],
        "w_uk": [[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]],
        "latent": [[0.3, 0.1, 1.0], [2.0, 1.0, 0.0]],
        "q_rope": [[1.0, 0.0], [0.0, 1.0]],
        "k_rope": [[1.0, 1.0], [0.5, 0.0]],
        "positions": [0.0, 3.0],
    },
}

#: A small MLA head layout, DeepSeek-V3's shape scaled down (its config: 128 heads,
#: qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128, kv_lora_rank 512).
HEADS, NOPE, ROPE, V, RANK = 3, 6, 4, 5, 8


def _released(interleave: bool):
    rng = np.random.default_rng(0)
    tokens = 5
    q_states = rng.normal(size=(tokens, HEADS * (NOPE + ROPE)))
    compressed = rng.normal(size=(tokens, RANK + ROPE))
    kv_b = rng.normal(size=(HEADS * (NOPE + V), RANK))
    positions = np.array([0, 1, 2, 7, 30])
    scores = sources.deepseek_v3_scores(
        q_states, compressed, kv_b, positions, HEADS, NOPE, ROPE, V,
        rope_theta=100.0, rope_interleave=interleave,
    )  # fmt: skip
    latent = compressed[:, :RANK] / np.sqrt((compressed[:, :RANK] ** 2).mean(-1) + 1e-6)[:, None]
    return q_states, compressed, kv_b, positions, scores, latent


@pytest.mark.parametrize("interleave", [True, False])
def test_decoupled_and_absorbed_scores_are_the_released_ones(interleave):
    q_states, compressed, kv_b, positions, released, latent = _released(interleave)
    layout = "interleaved" if interleave else "concat"
    k_rope = compressed[:, RANK:]
    for head in range(HEADS):
        q = q_states[:, head * (NOPE + ROPE) : (head + 1) * (NOPE + ROPE)]
        w_uk = kv_b[head * (NOPE + V) : head * (NOPE + V) + NOPE]
        k_nope = latent @ w_uk.T
        ours = mla.decoupled_scores(
            q[:, :NOPE], q[:, NOPE:], k_nope, k_rope, positions, base=100.0, layout=layout
        )
        # transformers' inv_freq is float32 (rope_inv_freq): relative 1e-7 in theta
        np.testing.assert_allclose(ours, released[head], rtol=1e-6, atol=1e-6)
        cached = mla.absorbed_scores(
            q[:, :NOPE], w_uk, latent, q[:, NOPE:], k_rope, positions, base=100.0, layout=layout
        )
        np.testing.assert_allclose(cached, ours, rtol=1e-12, atol=1e-12)
    wrong = "concat" if interleave else "interleaved"
    head_0 = mla.decoupled_scores(
        q_states[:, :NOPE], q_states[:, NOPE : NOPE + ROPE], latent @ kv_b[:NOPE].T,
        k_rope, positions, base=100.0, layout=wrong,
    )  # fmt: skip
    assert not np.allclose(head_0, released[0])


def test_rotating_the_content_keys_breaks_absorption():
    # With the content parts rotated too, no single matrix reproduces the scores:
    # the absorbed form (which cannot rotate) misses the change with the offset.
    rng = np.random.default_rng(1)
    q_nope, w_uk, latent = rng.normal(size=(4, 6)), rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    zero = np.zeros((4, 2))
    positions = np.array([0.0, 1.0, 5.0, 9.0])
    rotated_q = apply_rope(q_nope, positions, base=10.0)
    rotated_k = apply_rope(latent @ w_uk.T, positions, base=10.0)
    coupled = rotated_q @ rotated_k.T
    absorbed = mla.absorbed_scores(q_nope, w_uk, latent, zero, zero, positions, base=10.0)
    assert not np.allclose(coupled, absorbed)
    assert np.allclose(np.diag(coupled), np.diag(absorbed))  # equal at offset 0 only


def test_the_rope_part_depends_on_the_offset_only():
    rng = np.random.default_rng(2)
    q_nope, k_nope = rng.normal(size=(2, 3, 4))
    q_rope, k_rope = rng.normal(size=(2, 3, 6))
    here = mla.decoupled_scores(q_nope, q_rope, k_nope, k_rope, [2.0, 5.0, 11.0])
    moved = mla.decoupled_scores(q_nope, q_rope, k_nope, k_rope, [102.0, 105.0, 111.0])
    np.testing.assert_allclose(here, moved, atol=1e-9)


def test_the_identity_holds_and_refuses_a_coupled_score():
    proof = mla.verify_decoupled_rope()
    assert proof.name == "decoupled rope"
    assert proof.objects["absorbed"].shape == (2, 2)
    assert mla.verify_decoupled_rope(width=4, rope_dim=4).name == "decoupled rope"
    with pytest.raises(IdentityError, match="W_UK cannot be absorbed"):
        mla.verify_decoupled_rope(mla.coupled_score)

    def forgets_the_rope_part(c_q, c_kv, q_r, k_r, w_uq, w_uk, m, n):
        return ((w_uq * c_q).T * (w_uk * c_kv))[0, 0]

    with pytest.raises(IdentityError, match="is not c_q"):
        mla.verify_decoupled_rope(forgets_the_rope_part)


def test_a_rotation_between_the_weights_changes_with_the_offset():
    proof = mla.verify_rotation_between()
    assert proof.name == "rotation between"
    with pytest.raises(IdentityError, match="does not change with the position"):
        mla.verify_rotation_between(lambda vector, position: vector)


def test_bad_shapes_are_refused_clearly():
    one = np.ones((2, 2))
    with pytest.raises(ValueError, match="one row per token"):
        mla.decoupled_scores(one, one, np.ones((3, 2)), one, [0, 1])
    with pytest.raises(ValueError, match="same even width"):
        mla.decoupled_scores(one, one, one, np.ones((2, 4)), [0, 1])
    with pytest.raises(ValueError, match="one position per token"):
        mla.decoupled_scores(one, one, one, one, [0, 1, 2])
    with pytest.raises(ValueError, match="w_uk must have shape"):
        mla.absorbed_scores(one, np.ones((2, 3)), one, one, one, [0, 1])


MUTANTS = [
    (
        "mla.py",
        "absorbed_scores",
        "(q_c @ weight) @ cache.T",
        "(q_c @ weight) @ cache[::-1].T",
        "the cached latents read in the wrong token order",
    ),
    (
        "mla.py",
        "_rope_part",
        "apply_rope(k_rope, positions, base=base, layout=layout)",
        "apply_rope(k_rope, positions[::-1], base=base, layout=layout)",
        "the shared key rotated by the wrong positions",
    ),
]
