"""The checkpoint tool: what the position tensors of a file are (``sinpe inspect``).

:mod:`~sinpe.checkpoint.files` reads tensors lazily (NumPy, safetensors, PyTorch),
:mod:`~sinpe.checkpoint.tables` recognises a sinusoidal table (its convention, base and
bugs), :mod:`~sinpe.checkpoint.tensors` judges each position tensor of a file, and
:mod:`~sinpe.checkpoint.cli` is the command. The modules load on first use.
"""

from sinpe._moved import lazy

__all__: list[str] = []  # the wing's names live in its modules

#: The names of sinpe 0.1's module ``sinpe.checkpoint``, now in ``sinpe.checkpoint.tensors``.
_MOVED = dict.fromkeys(("Finding", "inspect_tensor", "position_tensors"), f"{__name__}.tensors")

__getattr__ = lazy(__name__, _MOVED)
