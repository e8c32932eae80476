"""Sphinx extension for the sinpe book's API reference (book/api/): constants' docs.

autodoc documents a constant by its ``#:`` comment, looked up in the module it is
documented under. The names the chapters use, ``sinpe.LAYOUTS`` or
``sinpe.CONVENTIONS``, are assigned in a submodule and only imported into ``sinpe``,
so autodoc finds no comment there and falls back to the docstring of the value's
type (``int([x]) -> integer`` ...). This takes the comment from the module that
assigns the name instead, and makes a constant with no comment anywhere a warning
(an error in the strict build), so every documented constant says what it is.
"""

from __future__ import annotations

import inspect
import sys

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


def setup(app):
    # Before napoleon (priority 500), which reads the comment as a docstring.
    app.connect("autodoc-process-docstring", document_constant, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
