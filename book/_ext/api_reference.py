"""Sphinx extension for the sinpe book's API reference (book/api/): constants' docs.

autodoc documents a constant by its ``#:`` comment, looked up in the module it is
documented under. The names the chapters use, ``sinpe.LAYOUTS`` or
``sinpe.CONVENTIONS``, are assigned in a submodule and only imported into ``sinpe``,
so autodoc finds no comment there and falls back to the docstring of the value's
type (``int([x]) -> integer`` ...). This takes the comment from the module that
assigns the name instead, and makes a constant with no comment anywhere a warning
(an error in the strict build), so every documented constant says what it is.

It also ends each module's entry with the chapters that use the module: "Used in
chapters 2 and 6.", each number a link, computed at build time from the chapters' own
imports (``scripts/changed_chapters.py``), as d2l generates its "Defined in" pointers.
Nothing is typed, so a new chapter appears under the modules it imports.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
from pathlib import Path

from sphinx.pycode import ModuleAnalyzer
from sphinx.util import logging
from sphinx.util.docstrings import prepare_docstring

logger = logging.getLogger(__name__)


def defining_comment(name: str, value: object) -> list[str] | None:
    """The ``#:`` comment of ``name`` in the loaded ``sinpe`` module that assigns ``value``."""
    for module_name, module in sorted(sys.modules.items()):
        if not module_name.startswith("sinpe") or getattr(module, name, None) is not value:
            continue
        analyzer = ModuleAnalyzer.for_module(module_name)
        comment = analyzer.find_attr_docs().get(("", name))
        if comment:
            return list(comment)
    return None


def document_constant(app, what, name, obj, options, lines):
    """autodoc-process-docstring: a constant's comment instead of its type's docstring."""
    if what != "data" or inspect.isclass(obj) or not lines:
        return
    type_doc = inspect.getdoc(type(obj))
    if type_doc is None or lines[: len(prepare_docstring(type_doc))] != prepare_docstring(type_doc):
        return
    comment = defining_comment(name.rpartition(".")[2], obj)
    if comment is None:
        logger.warning("%s has no #: comment to document it", name, type="autodoc")
        comment = []
    lines[:] = comment


def used_in(chapters: list[str], numbers: dict[str, int], titles: dict[str, str]) -> str:
    """The signpost of a module: ``Used in chapters 2 and 6.`` in reST, each chapter a
    :rst:role:`doc` link; a page without a number (the claims ledger) by its title.

    ``chapters`` are docnames (``book/ch02_rotation``); empty gives ``""``.
    """
    numbered = sorted((name for name in chapters if name in numbers), key=numbers.get)
    links = [f":doc:`{numbers[name]} </{name}>`" for name in numbered]
    if links:
        links[0] = ("chapter " if len(links) == 1 else "chapters ") + links[0]
    others = [name for name in chapters if name not in numbers]
    links += [f":doc:`{titles[name].lower()} </{name}>`" for name in others]
    if not links:
        return ""
    listed = links[0] if len(links) == 1 else f"{', '.join(links[:-1])} and {links[-1]}"
    return f"Used in {listed}."


def signposts(root: Path) -> dict[str, str]:
    """``{module: its "Used in" line}`` for every ``sinpe`` module a chapter imports."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    book = importlib.import_module("scripts.book")
    changed = importlib.import_module("scripts.changed_chapters")
    chapters = book.chapters(root)
    docname = {path: path.relative_to(root).with_suffix("").as_posix() for path in chapters}
    titles = {docname[path]: book.title(path) for path in chapters}
    numbers = book.numbers(root)
    return {
        module: used_in([docname[path] for path in paths], numbers, titles)
        for module, paths in changed.chapter_uses(chapters).items()
    }


def add_signpost(lines_by_module: dict[str, str], app, what, name, obj, options, lines):
    """autodoc-process-docstring: a module's entry ends with its "Used in" line."""
    line = lines_by_module.get(name) if what == "module" else None
    if line:
        lines.extend(["", line])


def connect_signposts(app) -> None:
    """builder-inited: read the chapters' imports once, then sign every module's entry."""
    handler = functools.partial(add_signpost, signposts(Path(app.confdir)))
    app.connect("autodoc-process-docstring", handler, priority=900)


def setup(app):
    # Before napoleon (priority 500), which reads the comment as a docstring.
    app.connect("autodoc-process-docstring", document_constant, priority=100)
    app.connect("builder-inited", connect_signposts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
