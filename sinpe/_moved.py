"""Import paths of sinpe 0.1 that moved into the wings, kept for one release.

``import sinpe.nn`` (or ``from sinpe import nn``) still works and gives the module's
new home, :mod:`sinpe.lab.nn`, with a ``DeprecationWarning`` that names it. They go
in sinpe 0.3.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import types
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

#: Old module name under ``sinpe`` -> its new home (several: the module was split).
MOVED: dict[str, tuple[str, ...]] = {
    "nn": ("sinpe.lab.nn",),
    "training": ("sinpe.lab.training",),
    "tasks": ("sinpe.lab.tasks",),
    "inspection": ("sinpe.lab.probes",),
    "pytorch_record": ("sinpe.lab.pytorch_record",),
    "experiments": ("sinpe.lab.training", "sinpe.lab.probes", "sinpe.lab.context"),
    "checks": ("sinpe.checkpoint.tables",),
    "cli": ("sinpe.checkpoint.cli",),
    "files": ("sinpe.checkpoint.files",),
}

#: The names ``sinpe.experiments`` had, each now in one of its new homes.
_EXPERIMENTS = ("token_accuracy", "attention_peak", "equivariance_gap", "extend_context")


class _Moved:
    """Finds ``sinpe.<old>`` and loads a module that forwards to the new one (a meta path
    finder and loader by their protocols: ``importlib.abc`` would cost ``sinpe inspect``
    the import of ``importlib.resources`` and ``tempfile`` at start-up)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        old = fullname.removeprefix("sinpe.")
        if fullname.startswith("sinpe.") and old in MOVED:
            return importlib.util.spec_from_loader(fullname, cast("Loader", self))
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        homes = MOVED[module.__name__.removeprefix("sinpe.")]
        warnings.warn(
            f"{module.__name__} moved to {' and '.join(homes)} in sinpe 0.2; "
            f"the old path goes in sinpe 0.3",
            DeprecationWarning,
            stacklevel=_caller(),
        )
        targets = [importlib.import_module(home) for home in homes]
        names = _EXPERIMENTS if len(targets) > 1 else vars(targets[0])["__all__"]
        for name in names:
            module.__dict__[name] = next(
                getattr(target, name) for target in targets if hasattr(target, name)
            )
        module.__dict__["__all__"] = list(names)


def _caller() -> int:
    """The stacklevel of the first frame outside sinpe and the import machinery (which
    ``warnings`` itself skips when it counts the levels)."""
    frame: types.FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        internal = (
            "importlib" in frame.f_code.co_filename and "_bootstrap" in frame.f_code.co_filename
        )
        if not internal:
            if name.partition(".")[0] not in ("sinpe", "importlib"):
                return level
            level += 1
        frame = frame.f_back
    return level


if not any(isinstance(finder, _Moved) for finder in sys.meta_path):
    sys.meta_path.append(_Moved())


def lazy(package: str, moved: dict[str, str] | None = None) -> Callable[[str], object]:
    """A wing's module ``__getattr__``: ``package.<name>`` imported on first use, and the
    names of ``moved`` forwarded to their new module with a ``DeprecationWarning``."""

    def __getattr__(name: str) -> object:
        if moved and name in moved:
            warnings.warn(
                f"{package}.{name} moved to {moved[name]}.{name} in sinpe 0.2; "
                f"the old path goes in sinpe 0.3",
                DeprecationWarning,
                stacklevel=2,
            )
            value = getattr(importlib.import_module(moved[name]), name)
            sys.modules[package].__dict__[name] = value  # warned once, as for a module
            return value
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
