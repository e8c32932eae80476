"""The API reference (book/api/*.md) covers every public name of sinpe, in seconds.

The pages are written by hand, one autodoc directive per name, grouped as the book
is; the build fills them from the docstrings. These checks read the pages without
building them, so a public function added without a reference entry fails
`make unit`, and so does an entry left behind for a name that is gone:

* every module of ``sinpe`` has its ``automodule`` directive;
* every name of every module's ``__all__`` has a directive, under the module's name
  (``sinpe.rope.apply_rope``), or under the package's (``sinpe.positional_encoding``)
  for what ``sinpe`` re-exports;
* every name a directive documents exists;
* every page is in the table of contents (the book builds only those).

Each check is a function of text and modules, and is shown failing on a bad example.
"""

from __future__ import annotations

import importlib
import re
import types
from collections.abc import Iterable

import pytest

import sinpe

#: An autodoc or Python-domain directive, in an {eval-rst} block or as a MyST directive.
DIRECTIVE = re.compile(
    r"^(?:\.\. |```\{)(auto(?:module|function|class|exception|data|attribute|method)"
    r"|py:\w+)(?:::|\})[ \t]*(\S+)",
    re.MULTILINE,
)


def directives(text: str) -> list[tuple[str, str]]:
    """The (directive, documented name) pairs of one page."""
    return DIRECTIVE.findall(text)


def public_modules() -> list[types.ModuleType]:
    """``sinpe`` and every submodule it loads on demand."""
    return [sinpe] + [importlib.import_module(f"sinpe.{name}") for name in sinpe.SUBMODULES]


def missing_entries(
    modules: Iterable[types.ModuleType], pairs: Iterable[tuple[str, str]]
) -> list[str]:
    """Modules without ``automodule`` and public names without a directive, by full name."""
    pairs = list(pairs)
    modules_documented = {name for directive, name in pairs if directive == "automodule"}
    documented = {name for directive, name in pairs if directive != "automodule"}
    missing = []
    for module in modules:
        if module.__name__ not in modules_documented:
            missing.append(f"automodule {module.__name__}")
        for name in module.__all__:
            if f"{module.__name__}.{name}" in documented:
                continue
            reexported = name in sinpe.__all__ and getattr(sinpe, name) is getattr(module, name)
            if reexported and f"sinpe.{name}" in documented:
                continue
            missing.append(f"{module.__name__}.{name}")
    return missing


def unknown_entries(pairs: Iterable[tuple[str, str]]) -> list[str]:
    """Documented names that do not exist (a renamed or removed function)."""
    unknown = []
    for directive, name in pairs:
        if directive == "automodule":
            try:
                importlib.import_module(name)
            except ImportError:
                unknown.append(name)
            continue
        module_name, _, attribute = name.rpartition(".")
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            unknown.append(name)
            continue
        if not hasattr(module, attribute):
            unknown.append(name)
    return unknown


def pages_outside_toc(pages: Iterable[str], toc: str) -> list[str]:
    """Pages (``book/api/encoding``) that no ``file:`` entry of the TOC lists."""
    listed = set(re.findall(r"^\s*-?\s*file:\s*(\S+)", toc, flags=re.MULTILINE))
    return [page for page in pages if page not in listed]


@pytest.fixture(scope="module")
def api_pages(root) -> dict[str, str]:
    pages = {
        path.relative_to(root).with_suffix("").as_posix(): path.read_text(encoding="utf-8")
        for path in sorted((root / "book" / "api").glob("*.md"))
    }
    assert pages, "no API reference pages in book/api/"
    return pages


@pytest.fixture(scope="module")
def api_directives(api_pages) -> list[tuple[str, str]]:
    return [pair for text in api_pages.values() for pair in directives(text)]


def test_every_public_name_has_a_reference_entry(api_directives):
    assert missing_entries(public_modules(), api_directives) == []


def test_every_reference_entry_exists(api_directives):
    assert unknown_entries(api_directives) == []


def test_every_reference_page_is_in_the_toc(root, api_pages):
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    assert pages_outside_toc(api_pages, toc) == []


def test_the_checks_fail_on_bad_examples():
    page = """
```{eval-rst}
.. automodule:: sinpe.fake

.. autofunction:: sinpe.fake.documented
.. autodata:: sinpe.TABLE_BLOCK
```

```{autofunction} sinpe.fake.also_documented
```
"""
    pairs = directives(page)
    assert ("autofunction", "sinpe.fake.also_documented") in pairs
    fake = types.ModuleType("sinpe.fake")
    fake.__all__ = ["documented", "also_documented", "new_helper"]
    fake.documented = fake.also_documented = fake.new_helper = lambda: None
    # a helper added to __all__ without a reference entry
    assert missing_entries([fake], pairs) == ["sinpe.fake.new_helper"]
    # a module without automodule
    bare = types.ModuleType("sinpe.bare")
    bare.__all__ = []
    assert missing_entries([bare], pairs) == ["automodule sinpe.bare"]
    # a re-exported name counts under the package's name, only if it is the same object
    core = importlib.import_module("sinpe.core")
    assert "sinpe.core.TABLE_BLOCK" not in missing_entries([core], pairs)
    assert "sinpe.core.table" in missing_entries([core], pairs)
    # an entry for a name that does not exist
    stale = [("autofunction", "sinpe.core.no_such_function"), ("automodule", "sinpe.gone")]
    assert unknown_entries(stale) == ["sinpe.core.no_such_function", "sinpe.gone"]
    # a page the TOC does not list
    toc = "parts:\n  - chapters:\n      - file: book/api/encoding\n"
    assert pages_outside_toc(["book/api/encoding", "book/api/new"], toc) == ["book/api/new"]
