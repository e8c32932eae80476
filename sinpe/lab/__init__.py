"""The model lab: a Transformer in NumPy, trained and probed by the chapters.

:mod:`~sinpe.lab.nn` (the layers, forward and backward written out),
:mod:`~sinpe.lab.training` (the optimiser, the loop, accuracy, the gradient check),
:mod:`~sinpe.lab.tasks` (toy tasks where position is everything),
:mod:`~sinpe.lab.probes` (what trained models do with positions),
:mod:`~sinpe.lab.context` (a RoPE model stretched to a longer context) and
:mod:`~sinpe.lab.pytorch_record` (PyTorch's layer, recorded). The modules load on
first use: ``sinpe.lab.nn`` works after ``import sinpe``.
"""

from sinpe._lazy import lazy

__all__: list[str] = []  # the wing's names live in its modules

__getattr__ = lazy(__name__)
