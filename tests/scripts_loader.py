"""The one loader of the tools in scripts/ for the tests (they are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module, loaded afresh as ``python scripts/<name>.py`` sees it.

    Registered in ``sys.modules`` under ``name`` (its dataclasses look their module up),
    and run with scripts/ first on ``sys.path``, so that it imports its siblings as it
    does when run (``notebook_zips`` imports ``lockfile``) whatever was imported before.
    """
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(SCRIPTS))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPTS))
    return module
