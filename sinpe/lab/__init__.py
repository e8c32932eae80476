"""The model lab: a Transformer in NumPy, trained and probed by the chapters.

Its modules load on first use: ``sinpe.lab.nn`` works after ``import sinpe``.
"""

from sinpe._lazy import lazy

__all__: list[str] = []  # the wing's names live in its modules

__getattr__ = lazy(__name__)
