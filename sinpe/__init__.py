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
"""

from sinpe._validation import LAYOUTS, PrecisionWarning
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
