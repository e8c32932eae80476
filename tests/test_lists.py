"""One source for every list (issue 31).

The package lists its modules once (``sinpe.SUBMODULES``) and its position schemes
once (``sinpe.nn.ENCODINGS``); tests, the wheel probe, the hostile sweep and the
mutant runner read those instead of keeping copies. These tests check that the one
list is right and that what depends on it cannot drift silently.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys

import pytest

import sinpe
from sinpe import nn


def _script(root, name):
    spec = importlib.util.spec_from_file_location(name, root / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def mutants(root):
    return _script(root, "mutants")


def test_submodules_name_every_public_module_on_disk():
    on_disk = {
        info.name for info in pkgutil.iter_modules(sinpe.__path__) if not info.name.startswith("_")
    }
    assert set(sinpe.SUBMODULES) == on_disk
    assert len(sinpe.SUBMODULES) == len(set(sinpe.SUBMODULES))


def test_every_mutant_quotes_a_line_of_the_source(mutants):
    """A mutant whose original snippet no longer occurs (exactly once) tests nothing."""
    assert mutants.check_snippets(mutants.selected(None)) == []


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
        "_validation", "images"
    }  # fmt: skip
    # alibi: the oracles before test_reported_bugs, whose alibi_slopes(10**9) would
    # allocate gigabytes under a mutant without the limit.
    alibi = mutants.test_files("alibi.py")
    assert alibi.index("tests/test_oracles.py") < alibi.index("tests/test_reported_bugs.py")


def test_encodings_are_the_added_and_the_in_attention_schemes():
    assert set(nn.ENCODINGS) == set(nn.ADDED_ENCODINGS) | set(nn.ATTENTION_ENCODINGS)
    assert len(nn.ENCODINGS) == len(set(nn.ENCODINGS))
