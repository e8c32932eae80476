"""A wing's modules imported on first use: ``sinpe.lab.nn`` after ``import sinpe``."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def lazy(package: str) -> Callable[[str], object]:
    """The module ``__getattr__`` of ``package``: ``package.<name>`` imported on first use."""

    def __getattr__(name: str) -> object:
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
