"""The import paths of sinpe 0.1 that moved into the wings still work for one release,
with a DeprecationWarning that names the new home (sinpe/_moved.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from sinpe import _moved


def _fresh(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a new interpreter, every warning shown once, as a user would."""
    return subprocess.run(
        [sys.executable, "-W", "always::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_an_old_module_path_warns_and_forwards_to_its_new_home(old):
    homes = _moved.MOVED[old]
    run = _fresh(f"import sinpe.{old} as m; print(sorted(m.__all__))")
    assert run.returncode == 0, run.stderr
    assert f"sinpe.{old} moved to {homes[0]}" in run.stderr
    assert "<string>" in run.stderr  # the warning points at the caller's line
    names = eval(run.stdout)  # our own printed list
    for name in names:
        owner = next(m for m in map(importlib.import_module, homes) if hasattr(m, name))
        assert name in owner.__all__


def test_an_old_name_is_the_same_object():
    run = _fresh(
        "from sinpe import nn\nimport sinpe.lab.nn, sinpe.experiments as e, sinpe.lab.context\n"
        "assert nn.TokenModel is sinpe.lab.nn.TokenModel\n"
        "assert e.extend_context is sinpe.lab.context.extend_context\n"
        "from sinpe.checkpoint import inspect_tensor\n"
        "import sinpe.checkpoint.tensors as t\nassert inspect_tensor is t.inspect_tensor\n"
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.count("DeprecationWarning") == 3


def test_new_paths_do_not_warn_and_unknown_names_still_fail():
    run = _fresh("import sinpe.lab.nn, sinpe.checkpoint.cli, sinpe.lab.probes")
    assert run.returncode == 0 and run.stderr == ""
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        importlib.import_module("sinpe.lab").nope  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("sinpe.not_a_module")
