"""One source for every list (issue 31).

The package lists its modules once (``sinpe.SUBMODULES``) and its position schemes
once (``sinpe.lab.nn.ENCODINGS``); tests, the wheel probe, the hostile sweep and the
mutant runner read those instead of keeping copies. These tests check that the one
list is right and that what depends on it cannot drift silently. Which chapters use
a module is not typed anywhere either: the API reference generates it
(tests/test_api_reference.py).
"""

from __future__ import annotations

import importlib

import pytest

import sinpe
from sinpe.lab import nn


@pytest.fixture(scope="module")
def mutants():
    from scripts import mutants

    return mutants


def test_submodules_name_every_public_module_on_disk(root):
    """Every module and wing of sinpe/ whose path has no private part, found on disk."""
    package = root / "sinpe"
    on_disk = {
        path.relative_to(package).with_suffix("").as_posix().removesuffix("/__init__")
        for path in package.rglob("*.py")
    }
    public = {name.replace("/", ".") for name in on_disk if not any(
        part.startswith("_") for part in name.split("/"))}  # fmt: skip
    assert set(sinpe.SUBMODULES) == public
    assert {"lab", "lab.nn", "checkpoint", "checkpoint.cli", "rope"} <= public
    assert len(sinpe.SUBMODULES) == len(set(sinpe.SUBMODULES))


def test_every_mutated_module_has_tests_found_for_it(mutants, root):
    for file in {mutant.file for mutant in mutants.MUTANTS}:
        assert (root / "sinpe" / file).is_file(), file
        found = mutants.test_files(file)
        assert found, f"no test file uses sinpe/{file}"
        assert not set(found) & mutants.NOT_PER_MUTANT


def test_the_test_files_of_a_module_are_the_ones_that_use_it(mutants):
    uses = mutants.modules_used
    assert uses("from sinpe import alibi, symbolic as sym\nsinpe.table(4, 8)") == {
        "alibi", "symbolic", "core"
    }  # fmt: skip
    assert uses("from sinpe.rope import apply_rope\nimport sinpe.fourier as f") == {
        "rope", "fourier"
    }  # fmt: skip
    assert uses("from sinpe import (\n    PrecisionWarning,\n    images,\n)") == {
        "_precision", "images"
    }  # fmt: skip
    # alibi: the oracles before test_reported_bugs, whose alibi_slopes(10**9) would
    # allocate gigabytes under a mutant without the limit.
    alibi = mutants.test_files("alibi.py")
    assert alibi.index("tests/test_oracles.py") < alibi.index("tests/test_reported_bugs.py")


def test_encodings_are_the_added_and_the_in_attention_schemes():
    assert set(nn.ENCODINGS) == set(nn.ADDED_ENCODINGS) | set(nn.ATTENTION_ENCODINGS)
    assert len(nn.ENCODINGS) == len(set(nn.ENCODINGS))


def test_in_attention_schemes_are_the_modules_that_declare_attention():
    """nn registers the schemes by name (an explicit list, sinpe/_schemes.py); importing
    every module finds the modules that declare one, and each must be registered."""
    declared = {
        name
        for name in sinpe.SUBMODULES
        if hasattr(importlib.import_module(f"sinpe.{name}"), "ATTENTION")
    }
    assert declared == set(nn.ATTENTION_ENCODINGS) - {"none"}
    assert {"rope", "alibi"} <= declared
    for name in declared:
        scheme = nn.ATTENTION_SCHEMES[name]
        assert scheme is importlib.import_module(f"sinpe.{name}").ATTENTION
        assert scheme.rotate or scheme.bias, name
