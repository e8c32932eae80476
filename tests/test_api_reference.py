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
* every page is in the table of contents (the book builds only those);
* every module's entry ends with the chapters that import it ("Used in chapters 2
  and 6."), generated at build time by ``book/_ext/api_reference.py`` from the
  chapters' code: nothing typed, so nothing to go stale.

Each check is a function of text and modules, and is shown failing on a bad example.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import textwrap
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


@pytest.fixture(scope="module")
def extension(root):
    """book/_ext/api_reference.py, the Sphinx extension, loaded as Sphinx loads it."""
    path = root / "book" / "_ext" / "api_reference.py"
    spec = importlib.util.spec_from_file_location("api_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_used_in_lines_read_as_a_sentence_with_links(extension):
    numbers = {"book/ch02_rotation": 2, "book/ch06_rope_alibi": 6, "book/ch04_x": 4}
    titles = {"book/claims_ledger": "Claims ledger"}
    used_in = extension.used_in
    assert used_in(["book/ch06_rope_alibi"], numbers, titles) == (
        "Used in chapter :doc:`6 </book/ch06_rope_alibi>`."
    )
    assert used_in(["book/ch02_rotation", "book/ch04_x", "book/ch06_rope_alibi"], numbers, {}) == (
        "Used in chapters :doc:`2 </book/ch02_rotation>`, :doc:`4 </book/ch04_x>` and "
        ":doc:`6 </book/ch06_rope_alibi>`."
    )
    assert used_in(["book/ch02_rotation", "book/claims_ledger"], numbers, titles) == (
        "Used in chapter :doc:`2 </book/ch02_rotation>` and "
        ":doc:`claims ledger </book/claims_ledger>`."
    )
    assert used_in([], numbers, titles) == ""


def _chapter(imports: str) -> str:
    """A MyST notebook whose one code cell is ``imports``."""
    return textwrap.dedent("""\
        ---
        jupytext:
          text_representation:
            extension: .md
            format_name: myst
            format_version: 0.13
        kernelspec:
          display_name: Python 3 (ipykernel)
          language: python
          name: python3
        ---

        # A chapter

        ```{code-cell} ipython3
        %matplotlib inline
        {imports}
        ```
        """).replace("{imports}", imports)


def test_a_module_a_chapter_imports_gets_that_chapter(extension, tmp_path):
    """On a made-up book: each chapter signs exactly the modules its own code imports
    or reaches (``sinpe.table`` is ``sinpe.core``'s), numbered as the TOC numbers it."""
    book = tmp_path / "book"
    book.mkdir()
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: Chapters\n    numbered: true\n"
        "    chapters:\n      - file: book/ch07_later\n      - file: book/ch01_first\n"
    )
    (book / "ch01_first.md").write_text(_chapter("from sinpe.rope import apply_rope"))
    (book / "ch07_later.md").write_text(_chapter("import sinpe\nsinpe.table(4, 8)"))
    lines = extension.signposts(tmp_path)
    assert lines["sinpe.rope"] == "Used in chapter :doc:`2 </book/ch01_first>`."
    assert lines["sinpe.core"] == "Used in chapter :doc:`1 </book/ch07_later>`."
    assert lines["sinpe"] == "Used in chapter :doc:`1 </book/ch07_later>`."
    assert "sinpe.alibi" not in lines and "sinpe.lab.nn" not in lines


def test_the_reference_signs_the_modules_the_chapters_import(extension, root):
    lines = extension.signposts(root)
    assert set(lines) <= {"sinpe"} | {f"sinpe.{name}" for name in sinpe.SUBMODULES} | {
        "sinpe._validation", "sinpe._trig"
    }  # fmt: skip
    assert ":doc:`6 </book/ch06_rope_alibi>`" in lines["sinpe.rope"]
    assert "claims ledger </book/claims_ledger>" in lines["sinpe.claims"]
    assert "sinpe.checkpoint.files" not in lines  # no chapter reads a file itself
    # autodoc's hook: a module's docstring gains its line, a function's does not
    docstring = ["The summary."]
    extension.add_signpost(lines, None, "module", "sinpe.rope", None, {}, docstring)
    assert docstring == ["The summary.", "", lines["sinpe.rope"]]
    extension.add_signpost(lines, None, "function", "sinpe.rope", None, {}, docstring)
    assert len(docstring) == 3
