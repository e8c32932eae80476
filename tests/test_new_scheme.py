"""A new in-attention scheme needs three files and one registration line (issues 31, 38).

In a copy of the repository, a throwaway scheme is added as a newcomer would add
xPos or T5's bias: its module (``sinpe/throwaway.py``, declaring ``ATTENTION``), its
test file (declaring its hostile examples and its mutants), its line in the registry
(``sinpe.lab.nn.ATTENTION_SCHEMES``, which the discovery test of ``tests/test_lists.py``
requires: it fails, naming the module, until the line is there) and its API entry. A
fresh interpreter on that copy then finds it everywhere, with no other list edited:

* selectable: ``TokenModel(encoding="throwaway")`` builds, runs forward and backward,
  and its attention's gradients pass ``training.check_gradients``;
* swept: the hostile sweep lists the module and calls its function with every hostile
  value;
* mutated: the mutant runner collects the mutant its test file declares, with the test
  files to run for it;
* documented: the API reference check names the module and its function as missing
  until the API page has their entries.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

MODULE = '''\
"""A throwaway scheme: a penalty -|i - j| / 4 on every head's scores."""

from __future__ import annotations

import numpy as np

from sinpe._schemes import AttentionScheme
from sinpe._validation import check_count, check_entries

__all__ = ["distance_bias"]


def distance_bias(n_heads: int, length: int) -> np.ndarray:
    """Bias ``-|i - j| / 4`` of shape ``(n_heads, length, length)``."""
    heads = check_count(n_heads, "n_heads")
    length = check_count(length, "length")
    check_entries((heads, length, length), what="the bias")
    distance = np.abs(np.arange(length)[:, None] - np.arange(length)[None, :])
    return np.broadcast_to(-distance / 4.0, (heads, length, length)).copy()


ATTENTION = AttentionScheme("Throwaway", year=2099, bias=distance_bias)
'''

TEST = """\
from sinpe import throwaway

HOSTILE_EXAMPLES = {"sinpe.throwaway.distance_bias": {"n_heads": 2, "length": 3}}

MUTANTS = [
    ("throwaway.py", "distance_bias", "-distance / 4.0", "distance / 4.0",
     "distance_bias: sign"),
]


def test_distance_bias():
    assert throwaway.distance_bias(1, 2).tolist() == [[[0.0, -0.25], [-0.25, 0.0]]]
"""

API_ENTRY = """
```{eval-rst}
.. automodule:: sinpe.throwaway

.. autofunction:: sinpe.throwaway.distance_bias
```
"""

#: What every check on the copy starts with: its imports and a loader of test files.
CHECK = """\
import importlib.util
import sys
from pathlib import Path

import numpy as np

from sinpe import throwaway
from sinpe.lab import nn, training


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


"""

#: What the new scheme's two files make work, each part printing its name.
WORKS = """\
# Selectable, and attention adds its bias: the scores differ from those of the same
# weights without a scheme by exactly distance_bias.
assert "throwaway" in nn.ENCODINGS and "throwaway" in nn.ATTENTION_ENCODINGS
config = nn.ModelConfig(vocab=7, d_model=8, n_heads=2, d_ff=16, encoding="throwaway", seed=1)
model = nn.TokenModel(config)
tokens = np.array([[1, 2, 3, 4], [4, 3, 2, 1]])
logits = model(tokens)
model.backward(np.ones_like(logits))
assert np.isfinite(model.head.grads["weight"]).all()
rng = np.random.default_rng(0)
x = rng.normal(size=(2, 4, 8))
biased = nn.MultiHeadAttention(config, np.random.default_rng(3))
plain = nn.MultiHeadAttention(nn.ModelConfig(d_model=8, n_heads=2), np.random.default_rng(3))
biased(x)
plain(x)
difference = biased.attention_scores - plain.attention_scores
assert np.allclose(difference, throwaway.distance_bias(2, 4)), difference
errors = training.check_gradients(biased, x)
assert max(errors.values()) < 1e-6, errors
print("selectable")

# Swept: the hostile sweep lists the module, and covers its function from the test
# file's HOSTILE_EXAMPLES.
hostile = load(Path("tests/test_hostile.py"), "test_hostile")
assert "sinpe.throwaway" in hostile.MODULES
hostile.test_every_public_callable_is_covered()
name = "sinpe.throwaway.distance_bias"
hostile._run(name, None, "")
for param in hostile.CASES[name].params():
    for value in hostile.HOSTILE:
        hostile._run(name, param, value)
print("swept")

# Mutated: the runner collects the test file's mutant, whose snippet is in the module.
from scripts import mutants

chosen = mutants.selected(["throwaway"])
assert [mutant.description for _, mutant in chosen] == ["distance_bias: sign"], chosen
assert mutants.check_mutants(chosen) == []
assert mutants.test_files("throwaway.py")[0] == "tests/test_throwaway.py"
print("mutated")
"""

#: What the documentation lacks: the reference check names it.
DOCUMENTED = """\
api = load(Path("tests/test_api_reference.py"), "test_api_reference")
pages = [path.read_text(encoding="utf-8") for path in sorted(Path("book/api").glob("*.md"))]
pairs = [pair for text in pages for pair in api.directives(text)]
print("missing:", api.missing_entries(api.public_modules(), pairs))
"""


def _copy(root, target):
    ignore = shutil.ignore_patterns("__pycache__", "benchmarks", "*.npz")
    for folder in ("sinpe", "tests", "scripts", "book/api"):
        shutil.copytree(root / folder, target / folder, ignore=ignore)
    return target


def _check(copy, *parts):
    result = subprocess.run(
        [sys.executable, "-c", "\n".join([CHECK, *parts])],
        cwd=copy,
        env=dict(
            os.environ,
            # the package and the tools (scripts), and the tests' helpers, as pytest finds them
            PYTHONPATH=os.pathsep.join(str(copy / part) for part in ("", "tests")),
            PYTHONDONTWRITEBYTECODE="1",
        ),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.splitlines()


#: The registration, added to the registry's line in sinpe/lab/nn.py.
REGISTERED = "registry(rope=rope.ATTENTION, alibi=alibi.ATTENTION"


def _discovery(copy):
    """The discovery test of tests/test_lists.py, run on the copy: its failure text."""
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
         "tests/test_lists.py", "-k", "in_attention_schemes"],
        cwd=copy, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return result.returncode, result.stdout


def test_a_new_scheme_is_selectable_swept_mutated_and_documented(root, tmp_path):
    copy = _copy(root, tmp_path / "repo")
    (copy / "sinpe" / "throwaway.py").write_text(MODULE, encoding="utf-8")
    (copy / "tests" / "test_throwaway.py").write_text(TEST, encoding="utf-8")
    # Declared but not registered: the discovery test fails and says so.
    code, out = _discovery(copy)
    assert code == 1 and "throwaway" in out, out[-2000:]
    nn_py = copy / "sinpe" / "lab" / "nn.py"
    source = nn_py.read_text(encoding="utf-8")
    assert source.count(REGISTERED) == 1
    from_module = "from sinpe import alibi, rope\n"
    source = source.replace(from_module, "from sinpe import alibi, rope, throwaway\n")
    nn_py.write_text(
        source.replace(REGISTERED, REGISTERED + ", throwaway=throwaway.ATTENTION"),
        encoding="utf-8",
    )
    assert _discovery(copy)[0] == 0
    # Two files: everything but the documentation works, which the check reports.
    assert _check(copy, WORKS, DOCUMENTED) == [
        "selectable",
        "swept",
        "mutated",
        "missing: ['automodule sinpe.throwaway', 'sinpe.throwaway.distance_bias']",
    ]
    # The third file, its API page (here an entry on an existing page): nothing missing.
    page = copy / "book" / "api" / "models.md"
    page.write_text(page.read_text(encoding="utf-8") + API_ENTRY, encoding="utf-8")
    assert _check(copy, DOCUMENTED) == ["missing: []"]


def test_the_throwaway_files_are_all_that_changed(root):
    """The copy above differs from the repository by its three files and the registry
    line only: no other list in the package, the tests or the scripts names it."""
    for folder in ("sinpe", "tests", "scripts"):
        for path in (root / folder).rglob("*.py"):
            if path.name not in ("test_new_scheme.py", "test_new_chapter.py"):  # the demos
                assert "throwaway" not in path.read_text(encoding="utf-8"), path
