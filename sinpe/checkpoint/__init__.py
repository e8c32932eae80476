"""The checkpoint tool: what the position tensors of a file are (``sinpe inspect``).

Its modules load on first use.
"""

from sinpe._lazy import lazy

__all__: list[str] = []  # the wing's names live in its modules

__getattr__ = lazy(__name__)
