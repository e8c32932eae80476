"""Throwaway (issue 38): text mutants (file, original, mutated, description) to syntax ones.

Delete once every branch of issue 38 has merged.

For each text mutant, the file is mutated as text, both versions are parsed, and the two
trees are compared: the smallest expression or run of statements that differs, widened
until it occurs once in its scope and names every local the mutated code reads, becomes
the pattern. The conversion is checked: applying the new mutant must give the same tree
as the text replacement did.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from scripts.locate import (
    DEFS,
    BadMutant,
    Mutant,
    apply,
    matches,
    position,
    qualified_defs,
    scope_locals,
)

ROOT = Path(__file__).resolve().parent.parent

IDENTITY = "lambda function: function"  # a decorator dropped: the function itself

Path_ = list[tuple[str, int | None]]


def get(node: ast.AST, path: Path_) -> ast.AST:
    for field, index in path:
        value = getattr(node, field)
        node = value[index] if index is not None else value
    return node


def diff(a: object, b: object, path: Path_) -> tuple | None:
    """None if equal; ("node", path) or ("run", path_to_owner, field, lo, hi_a, hi_b)."""
    if type(a) is not type(b) or not isinstance(a, ast.AST):
        return None if a == b and type(a) is type(b) else ("node", path)
    found = []
    for field in a._fields:
        x, y = getattr(a, field, None), getattr(b, field, None)
        if isinstance(x, list):
            statements = any(isinstance(v, ast.stmt) for v in [*x, *y])
            if len(x) != len(y):
                if field == "decorator_list" and len(x) == len(y) + 1:
                    lo = 0
                    while lo < len(y) and ast.dump(x[lo]) == ast.dump(y[lo]):
                        lo += 1
                    found.append(("undecorate", [*path, (field, lo)]))
                    continue
                if not statements:
                    return ("node", path)
                lo = 0
                while lo < min(len(x), len(y)) and ast.dump(x[lo]) == ast.dump(y[lo]):
                    lo += 1
                suffix = 0
                while suffix < min(len(x), len(y)) - lo and ast.dump(
                    x[len(x) - 1 - suffix]
                ) == ast.dump(y[len(y) - 1 - suffix]):
                    suffix += 1
                found.append(("run", path, field, lo, len(x) - suffix, len(y) - suffix))
                continue
            items = []
            for i, (xi, yi) in enumerate(zip(x, y, strict=True)):
                d = diff(xi, yi, [*path, (field, i)])
                if d:
                    items.append((i, d))
            if statements and len(items) > 1:
                lo, hi = items[0][0], items[-1][0] + 1
                found.append(("run", path, field, lo, hi, hi))
            else:
                found.extend(d for _, d in items)
        else:
            d = diff(x, y, [*path, (field, None)])
            if d:
                found.append(d)
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    return ("node", path)


def scope_of(tree: ast.Module, path: Path_) -> tuple[str, int]:
    """Qualified name of the innermost def strictly above the path's end, and its depth."""
    names = {id(node): name for name, node in qualified_defs(tree)}
    scope, depth = "", 0
    node: ast.AST = tree
    for step, (field, index) in enumerate(path):
        if isinstance(node, DEFS):
            scope, depth = names[id(node)], step
        value = getattr(node, field)
        node = value[index] if index is not None else value
    return scope, depth


def candidates(t0: ast.Module, t1: ast.Module, d: tuple):
    """Patterns from the smallest outwards: (path_to_node | run, original, mutated)."""
    if d[0] == "run":
        _, path, field, lo, hi_a, hi_b = d
        a, b = get(t0, path), get(t1, path)
        xs, ys = getattr(a, field), getattr(b, field)
        # widen a run: one statement more on each side at a time
        while True:
            if hi_a > lo:  # the path into the run: its scope is the owner, if a def
                yield [*path, (field, lo)], xs[lo:hi_a], ys[lo:hi_b]
            if lo == 0 and hi_a == len(xs):
                break
            lo, hi_a, hi_b = max(lo - 1, 0), min(hi_a + 1, len(xs)), min(hi_b + 1, len(ys))
        path = list(path)
    elif d[0] == "undecorate":
        yield d[1], get(t0, d[1]), ast.parse(IDENTITY, mode="eval").body
        return
    else:
        path = list(d[1])
    while path:
        node0, node1 = get(t0, path), get(t1, path)
        if isinstance(node0, ast.expr) and isinstance(node1, ast.expr):
            yield path, node0, node1
        elif isinstance(node0, ast.stmt) and isinstance(node1, ast.stmt):
            yield path, [node0], [node1]
            field, index = path[-1]
            if index is not None:  # widen to neighbouring statements of the same body
                owner0, owner1 = get(t0, path[:-1]), get(t1, path[:-1])
                xs, ys = getattr(owner0, field), getattr(owner1, field)
                for width in range(1, len(xs)):
                    lo, hi = max(index - width, 0), min(index + 1 + width, len(xs))
                    for a, b in ((index, hi), (lo, index + 1), (lo, hi)):
                        if b - a > 1:
                            yield path, xs[a:b], ys[a:b]
        path = path[:-1]


def text(node) -> str:
    if isinstance(node, list):
        return "\n".join(ast.unparse(n) for n in node)
    return ast.unparse(node)


def convert(file: str, original: str, mutated: str, description: str) -> Mutant:
    source = (ROOT / "sinpe" / file).read_text()
    assert source.count(original) == 1, (file, original)
    changed = source.replace(original, mutated, 1)
    t0, t1 = ast.parse(source), ast.parse(changed)
    wanted = ast.dump(t1)
    d = diff(t0, t1, [])
    assert d, (file, description)
    fallback = None
    for path, before, after in candidates(t0, t1, d):
        scope, _ = scope_of(t0, path)
        mutant = Mutant(file, scope, text(before), text(after), description)
        try:
            ast.parse(mutant.original), ast.parse(mutant.mutated)
        except SyntaxError:  # a slice alone
            continue
        local = scope_locals(t0, scope)
        read = {n.id for n in ast.walk(ast.parse(mutant.mutated)) if isinstance(n, ast.Name)}
        have = {n.id for n in ast.walk(ast.parse(mutant.original)) if isinstance(n, ast.Name)}
        if (read & local) - have:
            continue
        try:
            found = sorted(matches(t0, mutant), key=position)
        except BadMutant:
            continue
        if not found:
            continue
        anchor = before[0] if isinstance(before, list) else before
        index = [
            i
            for i, m in enumerate(found)
            if (getattr(m.node, m.field)[m.start] if m.field else m.node) is anchor
        ]
        if not index:
            continue
        if len(found) > 1:
            mutant = Mutant(
                file, scope, mutant.original, mutant.mutated, description, index[0] + 1, len(found)
            )
        try:
            result = apply(source, mutant)
        except BadMutant:
            continue
        if not (d[0] == "undecorate" or ast.dump(ast.parse(result)) == wanted):
            continue
        if len(found) == 1 and len(mutant.original) <= 160:
            return mutant
        if fallback is None and (len(found) > 1 or len(mutant.original) > 160):
            fallback = mutant
        if len(found) == 1:
            return (
                fallback if fallback and len(fallback.original) < len(mutant.original) else mutant
            )
    if fallback:
        return fallback
    raise SystemExit(f"cannot convert {file}: {description}")


def literal(mutant: Mutant) -> str:
    fields = [mutant.file, mutant.scope, mutant.original, mutant.mutated, mutant.description]
    extra = (
        f"        occurrence={mutant.occurrence},\n        occurrences={mutant.occurrences},\n"
        if mutant.occurrences > 1
        else ""
    )
    return "    M(\n" + "".join(f"        {value!r},\n" for value in fields) + extra + "    ),\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m scripts.convert_mutants OLD.py``: OLD.py is a text-format
    scripts/mutants.py (``git show main:scripts/mutants.py > /tmp/old.py``); prints the
    converted list to paste into MUTANTS, and the before/after counts."""
    old = Path((argv or sys.argv[1:])[0]).read_text(encoding="utf-8")
    old = old.replace("MUTANTS += declared_in_tests()", "")
    namespace: dict = {"__name__": "old_mutants"}
    exec(compile(old, "old_mutants", "exec"), namespace)
    texts = namespace["MUTANTS"]
    out = [convert(m.file, m.original, m.mutated, m.description) for m in texts]
    assert [m.description for m in out] == [m.description for m in texts]
    print("".join(literal(m) for m in out))
    print(f"{len(texts)} text mutants -> {len(out)} syntax mutants", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
