"""How a position scheme acts inside attention, declared by its own module.

A module of ``sinpe`` that defines a module-level ``ATTENTION =
AttentionScheme(...)`` is an in-attention scheme once :data:`sinpe.lab.nn.ATTENTION_SCHEMES`
registers it (one line there; ``tests/test_lists.py`` fails for a module that declares a
scheme and is not registered): :class:`sinpe.lab.nn.TokenModel` then accepts its module
name as ``encoding=``, and :class:`sinpe.lab.nn.MultiHeadAttention` calls its hooks.
``sinpe/rope.py`` and ``sinpe/alibi.py`` are the two examples.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class AttentionScheme:
    """The hooks :class:`sinpe.lab.nn.MultiHeadAttention` calls for one scheme.

    ``rotate(x, positions, frequencies=...)`` turns queries and keys ``(B, H, T, Dh)``
    by their positions; it must be a rotation of pairs of entries (so the head width
    is even and its transpose is ``rotate(x, -positions, ...)``, which the backward
    pass uses), and takes the ``frequencies`` of ``MultiHeadAttention`` (None for its
    default). ``bias(n_heads, length)`` is added to the scores, shape ``(H, T, T)``.
    ``year`` orders the schemes as published (ties by name).
    """

    label: str
    year: int
    rotate: Callable[..., np.ndarray] | None = None
    bias: Callable[[int, int], np.ndarray] | None = None


#: No position information inside attention.
NONE = AttentionScheme("no position information", year=0)


def registry(**schemes: AttentionScheme) -> dict[str, AttentionScheme]:
    """``{"none": NONE, name: scheme, ...}``, the schemes oldest first (ties by name)."""
    ordered = sorted(schemes.items(), key=lambda item: (item[1].year, item[0]))
    return {"none": NONE, **dict(ordered)}
