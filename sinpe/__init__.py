"""sinpe: the sinusoidal positional encoding of the Transformer, tested.

The core (this namespace) needs only NumPy:

- :func:`frequencies`, :func:`wavelengths` -- the ladder of angular frequencies.
- :func:`positional_encoding` -- the table, for any finite real positions.
- :func:`table` -- the same for consecutive positions, fast (angle addition).
- :func:`component` -- one entry from its scalar (0- or 1-indexed) formula.
- :func:`add_positional_encoding` -- ``x * sqrt(d_model) + PE`` for embeddings.
- :func:`shift_matrix` -- the rotation ``M_k`` with ``PE(p + k) = M_k PE(p)``.
- :func:`layout_permutation`, :func:`convert_layout` -- interleaved <-> concat.
- :func:`encode` and :data:`CONVENTIONS` -- tables as real code bases compute
  them (paper, tensor2tensor, whisper, fairseq, hf-marian, marian-nmt,
  guided-diffusion).

The other modules load on first use, so ``sinpe.rope.apply_rope`` works after a
plain ``import sinpe``; ``sinpe.symbolic`` and ``sinpe.plotting`` need the
``symbolic`` and ``plot`` extras and say so when they are missing. Two wings sit
beside the encoding: :mod:`sinpe.lab`, the NumPy Transformer the chapters train, and
:mod:`sinpe.checkpoint`, the ``sinpe inspect`` tool.
"""

import functools
import importlib

from sinpe._precision import PrecisionWarning
from sinpe._validation import LAYOUTS
from sinpe.conventions import (
    CONVENTIONS,
    Convention,
    encode,
    fairseq_embedding,
    fairseq_positions,
)
from sinpe.core import (
    TABLE_BLOCK,
    add_positional_encoding,
    component,
    convert_layout,
    frequencies,
    layout_permutation,
    positional_encoding,
    shift_matrix,
    table,
    wavelengths,
)

__version__ = "0.1.0"


@functools.cache
def _submodules() -> tuple[str, ...]:
    """``SUBMODULES``, found on first use: ``sinpe inspect`` starts without the walk."""
    import pkgutil

    return tuple(
        sorted(
            info.name.removeprefix("sinpe.")
            for info in pkgutil.walk_packages(__path__, "sinpe.")
            if not any(part.startswith("_") for part in info.name.split("."))
        )
    )


#: Every public module on disk, by its name under ``sinpe`` (``"rope"``, ``"lab.nn"``,
#: ``"checkpoint.cli"``): the encoding's modules, then the two wings ``lab`` (the NumPy
#: model lab) and ``checkpoint`` (the checkpoint tool) with theirs. A new module is
#: listed (and swept, documented, ...) by existing. Read as ``sinpe.SUBMODULES`` (the
#: walk runs on first use).
SUBMODULES: tuple[str, ...]


def __getattr__(name: str) -> object:
    if name == "SUBMODULES":
        return _submodules()
    if name in _submodules():
        return importlib.import_module(f"sinpe.{name}")
    raise AttributeError(f"module 'sinpe' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "SUBMODULES", *(n for n in _submodules() if "." not in n)})


__all__ = [
    "CONVENTIONS",
    "LAYOUTS",
    "TABLE_BLOCK",
    "Convention",
    "PrecisionWarning",
    "add_positional_encoding",
    "component",
    "convert_layout",
    "encode",
    "fairseq_embedding",
    "fairseq_positions",
    "frequencies",
    "layout_permutation",
    "positional_encoding",
    "shift_matrix",
    "table",
    "wavelengths",
]
