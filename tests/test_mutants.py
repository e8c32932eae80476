"""The mutants of scripts/mutants.py are anchored by syntax (issue 38): they locate on
the tree as it is, and still locate after a refactor that renames local variables and
reorders functions (shown on a copy of the tree); a mutant that no longer locates is a
bad mutant (exit status 2), never a silent kill. The mutants are not run here.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys

import pytest

from scripts import mutants
from scripts.locate import BadMutant, Mutant, apply, local_names, locate, qualified_defs

CORE = """
import numpy as np


def frequencies(d_model, *, base):
    half = d_model // 2
    exponents = -2 * np.arange(half) / d_model
    return base ** exponents


def shifted(d_model, *, base):
    half = d_model // 2
    return base ** (-2 * np.arange(half) / d_model)
"""


def test_every_mutant_locates_exactly_once_and_applies():
    assert mutants.check_mutants(mutants.selected(None)) == []


def test_a_pattern_matches_whatever_its_locals_are_called():
    mutant = Mutant("x.py", "frequencies", "-2 * np.arange(half) / d_model",
                    "-1 * np.arange(half) / d_model", "exponent i/d")  # fmt: skip
    renamed = CORE.replace("half", "pairs")
    assert "-1 * np.arange(pairs) / d_model" in apply(renamed, mutant)
    # The other function is another scope; formatting elsewhere is untouched.
    assert apply(renamed, mutant).replace("-1 *", "-2 *") == renamed


def test_parameters_globals_and_attributes_are_not_wildcards():
    for original in ("-2 * np.arange(half) / width", "-2 * numpy.arange(half) / d_model",
                     "-2 * np.zeros(half) / d_model"):  # fmt: skip
        with pytest.raises(BadMutant, match="occurs 0 times"):
            locate(ast.parse(CORE), Mutant("x.py", "frequencies", original, "0", "?"))


def test_a_pattern_that_occurs_twice_names_its_occurrence():
    twice = Mutant("x.py", "", "d_model // 2", "d_model // 3", "pairs")
    with pytest.raises(BadMutant, match="occurs 2 times, not 1"):
        apply(CORE, twice)
    second = Mutant("x.py", "", "d_model // 2", "d_model // 3", "pairs", 2, 2)
    changed = apply(CORE, second)
    assert changed.index("d_model // 3") > changed.index("def shifted")


def test_mutated_code_may_not_read_a_local_the_pattern_does_not_bind():
    # After a rename, such a name would be unbound: a NameError "kill" tells nothing.
    mutant = Mutant("x.py", "frequencies", "base ** exponents", "base ** halves", "?")
    with pytest.raises(BadMutant, match="does not bind"):
        apply(CORE, mutant)


class RenameLocals(ast.NodeTransformer):
    """Every local variable of a function (its parameters kept) gets a new name."""

    def __init__(self, names: set[str]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names:
            node.id += "_renamed"
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        if node.arg in self.names:
            node.arg += "_renamed"
        return node


def refactored(source: str, scopes: set[str]) -> tuple[str, int]:
    """``source`` with the locals of every scope in ``scopes`` renamed and the functions
    and classes at the top level (and the methods of each class) in reverse order."""
    tree = ast.parse(source)
    renamed = 0
    for name, node in qualified_defs(tree):
        if name in scopes and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            nested = {sub.name for sub in ast.walk(node) if isinstance(sub, ast.FunctionDef)}
            names = local_names(node) - nested
            renamed += len(names)
            RenameLocals(names).visit(node)
    for owner in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        spots = [i for i, s in enumerate(owner.body) if isinstance(s, ast.FunctionDef)]
        defs = [owner.body[i] for i in spots]
        for i, node in zip(spots, reversed(defs), strict=True):
            owner.body[i] = node
    return ast.unparse(tree) + "\n", renamed


@pytest.fixture(scope="module")
def refactored_tree(tmp_path_factory, root):
    copy = tmp_path_factory.mktemp("refactored")
    shutil.copytree(root / "sinpe", copy / "sinpe")
    renamed = 0
    for file in {mutant.file for mutant in mutants.MUTANTS}:
        scopes = {mutant.scope for mutant in mutants.MUTANTS if mutant.file == file}
        path = copy / "sinpe" / file
        text, count = refactored(path.read_text(encoding="utf-8"), scopes)
        path.write_text(text, encoding="utf-8")
        renamed += count
    return copy, renamed


def test_every_mutant_still_locates_after_a_refactor(refactored_tree, root):
    copy, renamed = refactored_tree
    assert renamed > 300  # the refactor did rename (the mutated scopes' locals)
    core = (copy / "sinpe" / "core.py").read_text(encoding="utf-8")
    assert core != (root / "sinpe" / "core.py").read_text(encoding="utf-8")
    assert mutants.check_mutants(mutants.selected(None), copy) == []


def test_a_mutant_that_no_longer_locates_is_a_bad_mutant(tmp_path, root, monkeypatch, capsys):
    shutil.copytree(root / "sinpe", tmp_path / "sinpe")
    (number, mutant), *_ = mutants.selected(["frequencies: exponent i/d instead of 2i/d"])
    path = tmp_path / "sinpe" / mutant.file
    source = path.read_text(encoding="utf-8")
    match = locate(ast.parse(source), mutant)
    lines = source.splitlines(keepends=True)
    line = match.node.lineno - 1  # the code changed under the mutant: -2 becomes -3
    lines[line] = lines[line].replace("-2", "-3")
    path.write_text("".join(lines), encoding="utf-8")
    problems = mutants.check_mutants([(number, mutant)], tmp_path)
    assert problems == [f"#{number} {mutant.description}: core.py:frequencies: the pattern "
                        "'-2' occurs 0 times, not 1"]  # fmt: skip
    monkeypatch.setattr(mutants, "ROOT", tmp_path)
    assert mutants.main(["--only", mutant.description, "--list"]) == 2
    assert "bad mutants" in capsys.readouterr().err


def test_every_mutant_names_a_killer_that_pytest_collects(root):
    """The committed killers (tests/data/mutant_killers.json) make a fresh clone's run as
    quick as the next: each listed mutant has one, and each is a test pytest finds."""
    killers = json.loads(mutants.KILLED_BY.read_text(encoding="utf-8"))
    unrecorded = [
        mutant.description for mutant in mutants.MUTANTS if mutants.key(mutant) not in killers
    ]
    assert not unrecorded, f"run python -m scripts.mutants --only ... for: {unrecorded}"
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    result = subprocess.run(
        [*command, *sorted(set(killers.values()))], cwd=root, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-2000:]


def test_every_mutmut_survivor_has_a_verdict(root):
    # tests/mutmut_triage.md: one row per survivor of the scheduled mutmut run (issue 38)
    text = (root / "tests" / "mutmut_triage.md").read_text()
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \|", line)]
    verdicts = {}
    for row in rows:
        number, diff, verdict, why = (cell.strip() for cell in row.strip("|").split(" | "))
        assert "→" in diff and verdict in {"test added", "equivalent", "accepted"} and why, row
        verdicts[int(number)] = verdict
    assert len(verdicts) == len(rows)
    count, names = re.search(r"The (\d+) survivors of the second run are (.+)\.", text).groups()
    left = [int(name) for name in re.findall(r"\d+", names)]
    assert len(left) == int(count) and re.search(rf"\| with them [^\n]*\| {count} \| 0 \|", text)
    assert all(verdicts[number] != "test added" for number in left)
    workflow = (root / ".github" / "workflows" / "scheduled.yml").read_text()
    version = re.search(r"mutmut==([\d.]+)", workflow).group(1)
    assert f"mutmut {version}," in text  # a new pin means a new run and a new triage
