"""Mutants anchored by syntax, not text (issue 38): find a pattern in one function, apply it.

A mutant names a file of sinpe/, a *scope* -- the qualified name of the function or
class it changes (``"positional_encoding"``, ``"MultiHeadAttention.backward"``, ``""``
for module level) -- an original pattern and its mutated replacement, both Python
source: one expression, or one or more statements. The pattern is matched against the
scope's syntax tree, not its text: formatting, comments and the local variables' names
do not matter (a local of the scope in the pattern matches any local, consistently, and
the mutated code is renamed the same way), while the parameters, the globals, the
attributes and the constants must be the same. The pattern must occur exactly once in
the scope, so other functions of the file, and their order, never matter either.

Applying a mutant replaces the source segment of the matched node(s) only (checked
against the tree the replacement should give), so the rest of the file keeps its
formatting; when a segment cannot be replaced alone (an operator precedence, a one-line
body) the scope is re-written from its tree with ``ast.unparse``.
"""

from __future__ import annotations

import ast
import builtins
import copy
import functools
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class BadMutant(ValueError):
    """A mutant that does not locate exactly once, or whose mutation does not apply."""


@dataclass(frozen=True)
class Mutant:
    file: str  # under sinpe/
    scope: str  # qualified function or class name, "" for module level
    original: str  # an expression or statements, occurring once in the scope
    mutated: str
    description: str
    # When the pattern occurs several times in the scope (symmetric code: the row and
    # the column halves), which one (1-based, in source order) and of how many.
    occurrence: int = 1
    occurrences: int = 1


@dataclass
class Match:
    """Where a pattern sits: one expression node, or ``count`` statements of a body."""

    node: ast.AST  # the expression, or the node owning the statement list
    field: str = ""  # for statements: the list field (body, orelse, ...) of ``node``
    start: int = 0
    count: int = 0
    names: dict[str, str] | None = None  # pattern's local name -> the scope's


# --- scopes --------------------------------------------------------------------------


def qualified_defs(tree: ast.Module) -> Iterator[tuple[str, Scope]]:
    """Every function and class with its qualified name (``Class.method``, ``outer.inner``)."""

    def walk(node: ast.AST, prefix: str) -> Iterator[tuple[str, Scope]]:
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt | ast.excepthandler | ast.match_case):
                continue  # no def inside an expression
            if isinstance(child, DEFS):
                name = f"{prefix}{child.name}"
                yield name, child
                yield from walk(child, f"{name}.")
            else:
                yield from walk(child, prefix)

    yield from walk(tree, "")


def scope_node(tree: ast.Module, scope: str) -> Scope:
    if not scope:
        return tree
    found = [node for name, node in qualified_defs(tree) if name == scope]
    if len(found) != 1:
        raise BadMutant(f"scope {scope!r} is defined {len(found)} times")
    return found[0]


def parameters(node: ast.AST) -> set[str]:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return set()
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return {arg.arg for arg in every if arg is not None}


def local_names(scope: Scope) -> set[str]:
    """The names a function binds, its parameters excepted (they are its public
    vocabulary); none for a module or a class (their names are reached from outside)."""
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return set()
    bound: set[str] = set()
    declared: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg) and node is not None:
            bound.add(node.arg)
        elif isinstance(node, DEFS) and node is not scope:
            bound.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).partition(".")[0])
        elif isinstance(node, ast.Global | ast.Nonlocal):
            declared.update(node.names)
    return bound - parameters(scope) - declared


def occurring(scope: ast.AST) -> set[str]:
    """Every name a scope reads, binds or takes as an argument."""
    return {
        node.id if isinstance(node, ast.Name) else node.arg
        for node in ast.walk(scope)
        if isinstance(node, ast.Name | ast.arg)
    }


def scope_locals(tree: ast.Module, scope: str) -> set[str]:
    """The locals of a scope and of the functions around it (a closure's free names)."""
    parts = scope.split(".") if scope else []
    outer = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    names: set[str] = set()
    for name, node in qualified_defs(tree):
        if name in outer:
            names |= local_names(node)
    return names


def module_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level, and the builtins."""
    names = set(dir(builtins))
    for node in tree.body:
        for sub in ast.walk(node) if not isinstance(node, DEFS) else [node]:
            if isinstance(sub, DEFS):
                names.add(sub.name)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                names.add(sub.id)
            elif isinstance(sub, ast.alias):
                names.add((sub.asname or sub.name).partition(".")[0])
    return names


# --- patterns ------------------------------------------------------------------------


def parse_pair(original: str, mutated: str) -> tuple[str, list[ast.stmt], list[ast.stmt]]:
    """``("expr", ...)`` when both sides are one expression, else ``("stmts", ...)``."""
    try:
        before = ast.parse(textwrap.dedent(original)).body
        after = ast.parse(textwrap.dedent(mutated)).body
    except SyntaxError as error:
        raise BadMutant(f"pattern does not parse: {error}") from error
    if not before:
        raise BadMutant("empty original pattern")
    single = len(before) == len(after) == 1
    if single and isinstance(before[0], ast.Expr) and isinstance(after[0], ast.Expr):
        return "expr", before, after
    return "stmts", before, after


class Matcher:
    """Structural equality of a pattern and a node of the scope, local names aside."""

    def __init__(self, locals_: set[str], occurring: set[str]):
        self.locals, self.occurring = locals_, occurring

    def names(self, p: str, t: str, mapping: dict[str, str]) -> bool:
        if t not in self.locals:
            return p == t and mapping.get(p, t) == t
        if p != t and p in self.occurring - self.locals and p not in mapping:
            return False  # a name the scope still uses is itself, not a renamed local
        if mapping.get(p, t) != t:
            return False
        if any(q != p and target == t for q, target in mapping.items()):
            return False
        mapping[p] = t
        return True

    def same(self, p: object, t: object, mapping: dict[str, str]) -> bool:
        if isinstance(p, list):
            return (
                isinstance(t, list)
                and len(p) == len(t)
                and all(self.same(a, b, mapping) for a, b in zip(p, t, strict=True))
            )
        if not isinstance(p, ast.AST):
            return type(p) is type(t) and p == t
        if type(p) is not type(t):
            return False
        for field in p._fields:
            a, b = getattr(p, field, None), getattr(t, field, None)
            if field == "type_comment":
                continue
            if (isinstance(p, ast.Name) and field == "id") or (
                isinstance(p, ast.arg) and field == "arg"
            ):
                if not self.names(a, b, mapping):  # type: ignore[arg-type]
                    return False
            elif not self.same(a, b, mapping):
                return False
        return True


def statement_lists(scope: ast.AST) -> Iterator[tuple[ast.AST, str, list[ast.stmt]]]:
    for node in ast.walk(scope):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield node, field, value


def matches(tree: ast.Module, mutant: Mutant) -> list[Match]:
    scope = scope_node(tree, mutant.scope)
    kind, before, _ = parse_pair(mutant.original, mutant.mutated)
    matcher = Matcher(scope_locals(tree, mutant.scope), occurring(scope))
    found = []
    if kind == "expr":
        pattern = before[0].value  # type: ignore[attr-defined]
        for node in ast.walk(scope):
            mapping: dict[str, str] = {}
            if isinstance(node, ast.expr) and matcher.same(pattern, node, mapping):
                found.append(Match(node, names=mapping))
        return found
    for owner, field, body in statement_lists(scope):
        for start in range(len(body) - len(before) + 1):
            mapping = {}
            if matcher.same(before, body[start : start + len(before)], mapping):
                found.append(Match(owner, field, start, len(before), mapping))
    return found


def position(match: Match) -> tuple[int, int]:
    node = getattr(match.node, match.field)[match.start] if match.field else match.node
    return node.lineno, node.col_offset  # type: ignore[attr-defined]


def locate(tree: ast.Module, mutant: Mutant) -> Match:
    """The one place the mutant changes, or :class:`BadMutant`."""
    found = sorted(matches(tree, mutant), key=position)
    if len(found) != mutant.occurrences:
        where = f"{mutant.file}:{mutant.scope or '<module>'}"
        raise BadMutant(
            f"{where}: the pattern {mutant.original!r} occurs {len(found)} times, "
            f"not {mutant.occurrences}"
        )
    return found[mutant.occurrence - 1]


# --- applying ------------------------------------------------------------------------


class Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.mapping.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.mapping.get(node.arg, node.arg)
        return node


def offsets(source: bytes) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def span(lines: list[int], first: ast.AST, last: ast.AST) -> tuple[int, int]:
    start = lines[first.lineno - 1] + first.col_offset  # type: ignore[attr-defined]
    end = lines[last.end_lineno - 1] + last.end_col_offset  # type: ignore[attr-defined]
    return start, end


def unbound(replacement: list[ast.stmt], scope: Scope, tree: ast.Module, renamed: set) -> set:
    """Names the mutated code reads that neither the scope nor the module binds."""
    known = occurring(scope) | module_names(tree) | renamed
    made = {
        node.id
        for node in ast.walk(ast.Module(body=replacement, type_ignores=[]))
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)
    } | {
        node.arg
        for node in ast.walk(ast.Module(body=replacement, type_ignores=[]))
        if isinstance(node, ast.arg)
    }
    read = {
        node.id
        for node in ast.walk(ast.Module(body=replacement, type_ignores=[]))
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    return read - known - made


def apply(source: str, mutant: Mutant) -> str:
    """``source`` (the text of ``mutant.file``) with the mutant applied."""
    tree = _parsed(source)
    match = locate(tree, mutant)
    scope = scope_node(tree, mutant.scope)
    kind, _, after = parse_pair(mutant.original, mutant.mutated)
    mapping = match.names or {}
    after = [Rename(mapping).visit(node) for node in after]
    missing = unbound(after, scope, tree, set(mapping.values()))
    if missing:
        raise BadMutant(
            f"{mutant.file}:{mutant.scope}: the mutated code reads {sorted(missing)}, "
            "which the scope does not bind (a local missing from the original pattern?)"
        )
    raw = source.encode("utf-8")
    lines = offsets(raw)
    # The tree the mutated scope must parse to, built by substitution on a copy.
    target_scope = copy.deepcopy(scope)
    if kind == "expr":
        texts = [ast.unparse(after[0].value)]  # type: ignore[attr-defined]
        texts.append(f"({texts[0]})")
        start, end = span(lines, match.node, match.node)
        old = match.node
        new_value = after[0].value  # type: ignore[attr-defined]
        index = [n for n in ast.walk(scope) if isinstance(n, ast.expr)].index(old)  # type: ignore[arg-type]
        twin = [n for n in ast.walk(target_scope) if isinstance(n, ast.expr)][index]
        _replace_node(target_scope, twin, copy.deepcopy(new_value))
    else:
        body = getattr(match.node, match.field)
        first, last = body[match.start], body[match.start + match.count - 1]
        start, end = span(lines, first, last)
        indent = " " * first.col_offset
        whole = match.count == len(body)
        statements = after or ([ast.Pass()] if whole else [])
        text = "\n".join(ast.unparse(statement) for statement in statements)
        texts = [textwrap.indent(text, indent).removeprefix(indent)]
        owners = [n for n in ast.walk(scope)]
        twin_owner = [n for n in ast.walk(target_scope)][owners.index(match.node)]
        twin_body = getattr(twin_owner, match.field)
        twin_body[match.start : match.start + match.count] = copy.deepcopy(statements)
    wanted = ast.dump(target_scope)
    for text in texts:
        candidate = (raw[:start] + text.encode("utf-8") + raw[end:]).decode("utf-8")
        try:
            if ast.dump(scope_node(ast.parse(candidate), mutant.scope)) == wanted:
                return candidate
        except (SyntaxError, BadMutant):
            pass
    # Fallback: the scope re-written from its tree (formatting inside the scope lost).
    if isinstance(target_scope, ast.Module):
        return ast.unparse(target_scope) + "\n"
    first_line = min([target_scope.lineno, *(d.lineno for d in target_scope.decorator_list)])
    start = lines[first_line - 1]
    end = lines[target_scope.end_lineno - 1] + target_scope.end_col_offset  # type: ignore[operator]
    indent = " " * target_scope.col_offset
    text = textwrap.indent(ast.unparse(target_scope), indent)
    candidate = (raw[:start] + text.encode("utf-8") + raw[end:]).decode("utf-8")
    if ast.dump(scope_node(ast.parse(candidate), mutant.scope)) != wanted:
        raise BadMutant(f"{mutant.file}:{mutant.scope}: the mutation does not apply cleanly")
    return candidate


@functools.lru_cache(maxsize=8)
def _parsed(source: str) -> ast.Module:
    # A file's tree, parsed once for all its mutants; only read, never changed.
    return ast.parse(source)


def _replace_node(root: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(root):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if item is old:
                        value[i] = new
                        return
    raise BadMutant("internal: node to replace not found")
