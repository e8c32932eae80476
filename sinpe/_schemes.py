"""How a position scheme acts inside attention, declared by its own module.

A module of ``sinpe`` that defines a module-level ``ATTENTION =
AttentionScheme(...)`` is an in-attention scheme: :mod:`sinpe.nn` finds it here
(no list to edit), accepts its module name as ``encoding=`` of
:class:`sinpe.nn.TokenModel`, and :class:`sinpe.nn.MultiHeadAttention` calls its
hooks. ``sinpe/rope.py`` and ``sinpe/alibi.py`` are the two examples.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: A module declares a scheme with this assignment at the start of a line.
_DECLARATION = re.compile(r"^ATTENTION\s*(?::[^=\n]*)?=", re.MULTILINE)


@dataclass(frozen=True)
class AttentionScheme:
    """The hooks :class:`sinpe.nn.MultiHeadAttention` calls for one scheme.

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


def attention_schemes() -> dict[str, AttentionScheme]:
    """``{"none": NONE, module name: its ATTENTION, ...}``, oldest scheme first.

    The modules are found by reading the package's sources, so only the schemes
    (NumPy-only modules) are imported, never the optional ``plotting`` or ``symbolic``.
    """
    import sinpe  # the package, already initialised when sinpe.nn asks

    folder = Path(__file__).parent
    found = {}
    for name in sinpe.SUBMODULES:
        if _DECLARATION.search((folder / f"{name}.py").read_text(encoding="utf-8")):
            found[name] = importlib.import_module(f"sinpe.{name}").ATTENTION
    ordered = sorted(found.items(), key=lambda item: (item[1].year, item[0]))
    return {"none": NONE, **dict(ordered)}
