"""What test files declare as data, read without importing them.

A new module's test file can bring its own mutants (``MUTANTS``, collected by
``scripts/mutants.py``) and its own hostile-sweep cases (``HOSTILE_EXAMPLES``,
collected by ``tests/test_hostile.py``), so that adding a module touches no list
elsewhere. Both are top-level assignments of Python literals.
"""

from __future__ import annotations

import ast
from pathlib import Path


def declared(folder: Path, name: str) -> list:
    """The value of every top-level ``name = <literal>`` in ``folder``'s test files."""
    found = []
    for path in sorted(folder.glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if name not in text:
            continue
        for node in ast.parse(text).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else getattr(node, "target", 0)
            if isinstance(target, ast.Name) and target.id == name:
                found.append(ast.literal_eval(node.value))
    return found
