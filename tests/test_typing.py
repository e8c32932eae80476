"""The package is typed (issue 38): ``@constrained`` keeps each signature, for
:func:`inspect.signature` and for the type checker that ``make lint`` runs (mypy), which
reports a misspelled keyword and a wrong return type in code that calls sinpe."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import sinpe
from sinpe._validation import D_MODEL, Integer, constrained

ROOT = Path(__file__).resolve().parents[1]


def decorated() -> dict[str, object]:
    """Every function and method of sinpe that declares its arguments with @constrained."""
    found = {}
    for name in sinpe.SUBMODULES:
        module = importlib.import_module(f"sinpe.{name}")
        for member in vars(module).values():
            if inspect.getmodule(member) is not module:
                continue
            members = [member, *vars(member).values()] if inspect.isclass(member) else [member]
            for function in members:
                if hasattr(function, "constraints"):
                    found[f"{module.__name__}.{function.__qualname__}"] = function
    return found


def mypy(tmp_path: Path, code: str) -> str:
    """mypy's report on ``code`` (a file of its own) calling the sinpe of this checkout."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(code, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--no-incremental", "--config-file", "/dev/null"]
    command += ["--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"), str(snippet)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    return run.stdout + run.stderr


def test_decorated_functions_show_their_real_signatures():
    found = decorated()
    assert {"sinpe.core.positional_encoding", "sinpe.symbolic.VerifiedIdentity.latex"} <= set(found)
    for name, function in found.items():
        original = inspect.unwrap(function)
        assert original is not function, name
        assert inspect.signature(function) == inspect.signature(original), name


def test_a_rule_must_name_a_parameter():
    def width(d_model: int) -> int:
        return d_model

    with pytest.raises(TypeError, match=r"width has no arguments \['d_mdoel'\]"):
        constrained(d_mdoel=D_MODEL)(width)
    with pytest.raises(TypeError, match=r"has no arguments \['rest'\]"):  # *args is not one

        @constrained(rest=Integer())
        def collect(*rest: int) -> tuple[int, ...]:
            return rest


def test_arguments_are_bound_as_python_binds_them():
    @constrained(count=Integer(0), width=D_MODEL)
    def made_up(count: int, width: int = 4, *, scale: float = 1.0) -> tuple[int, int, float]:
        return count, width, scale

    assert made_up(3) == (3, 4, 1.0)
    assert made_up(count=2, width=6) == made_up(2, 6) == (2, 6, 1.0)
    with pytest.raises(TypeError, match=r"made_up\(\) got an unexpected keyword .*'widht'"):
        made_up(1, widht=6)
    with pytest.raises(TypeError, match=r"made_up\(\) missing a required argument: 'count'"):
        made_up()
    with pytest.raises(ValueError, match="width must be even"):
        made_up(1, 5)

    @constrained(width=D_MODEL)  # a positional-only argument: passed by position
    def positional(count: int, /, width: int = 4, *rest: int) -> tuple[int, ...]:
        return count, width, *rest

    assert positional(1) == (1, 4) and positional(1, 6, 7) == (1, 6, 7)
    with pytest.raises(ValueError, match="width must be even"):
        positional(1, 5)


def test_the_checker_reports_a_misspelled_keyword_and_a_wrong_return_type(tmp_path):
    report = mypy(
        tmp_path,
        "import numpy as np\nimport sinpe\n\n"
        "sinpe.positional_encoding(np.arange(3), 8, bsae=1.0)\n\n\n"
        "def width() -> int:\n    return sinpe.positional_encoding(np.arange(3), 8)\n\n\n"
        "reveal_type(sinpe.positional_encoding)\n",
    )
    assert re.search(r'snippet.py:4: error: Unexpected keyword argument "bsae"', report), report
    assert "snippet.py:8: error: Incompatible return value type" in report, report
    revealed = re.search(r'Revealed type is "def \((.*)\) -> ', report)
    assert revealed, report
    # The checker sees the parameters inspect.signature sees, in order, by name.
    seen = re.findall(r"(?:^|, )(?:\*, )?(\w+):", revealed[1])
    assert seen == list(inspect.signature(sinpe.positional_encoding).parameters), seen


def test_the_checker_passes_a_correct_call(tmp_path):
    report = mypy(
        tmp_path,
        "import numpy as np\nimport sinpe\n\n\n"
        "def table() -> np.ndarray:\n"
        "    return sinpe.positional_encoding(np.arange(3), 8, base=100.0, layout='concat')\n",
    )
    assert "Success: no issues found" in report, report


def test_the_package_says_it_is_typed():
    """py.typed ships in the wheel (tests/test_wheel.py installs one and finds it typed)."""
    assert (Path(sinpe.__file__).parent / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["sinpe"]
    assert "Typing :: Typed" in config["project"]["classifiers"]
