"""A wing's modules load on first use (sinpe/_lazy.py), and a name that is no module
of the wing is an AttributeError, as for any module."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


def test_a_wing_s_module_loads_on_first_use_and_only_then():
    code = (
        "import sys, sinpe\n"
        "assert 'sinpe.lab.nn' not in sys.modules\n"
        "model = sinpe.lab.nn.TokenModel\n"
        "import sinpe.lab.nn\n"
        "assert model is sinpe.lab.nn.TokenModel\n"
        "assert sinpe.checkpoint.tensors.inspect_tensor\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0 and run.stderr == "", run.stderr


@pytest.mark.parametrize("wing", ["sinpe.lab", "sinpe.checkpoint"])
def test_a_name_that_is_no_module_is_an_attribute_error(wing):
    with pytest.raises(AttributeError, match=f"module '{wing}' has no attribute 'nope'"):
        importlib.import_module(wing).nope  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"{wing}.not_a_module")


def test_an_import_error_inside_a_module_is_not_hidden(tmp_path, monkeypatch):
    """A module of the wing that fails to import says why (its missing import), not
    "no attribute"."""
    from sinpe import _lazy

    package = tmp_path / "wing"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "broken.py").write_text("import not_installed_anywhere\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="not_installed_anywhere"):
        _lazy.lazy("wing")("broken")
