"""The checkpoint tool: what the position tensors of a file are (``sinpe inspect``).

:mod:`~sinpe.checkpoint.files` reads tensors lazily (NumPy, safetensors, PyTorch),
:mod:`~sinpe.checkpoint.tables` recognises a sinusoidal table (its convention, base and
bugs), :mod:`~sinpe.checkpoint.tensors` judges each position tensor of a file, and
:mod:`~sinpe.checkpoint.cli` is the command. The modules load on first use.
"""

from sinpe._lazy import lazy

__all__: list[str] = []  # the wing's names live in its modules

__getattr__ = lazy(__name__)
