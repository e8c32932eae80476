"""A new chapter touches at most five files (issue 38), shown on a copy of the tree.

A throwaway chapter, ``book/ch99_throwaway.md`` (the house style in small: the glue
cell, an opening picture, the "you will learn" box, a "Predict, then run" box with its
folded answer, one glued number, a summary), is added as a contributor adds one:

1. its line in ``_toc.yml``, after the last numbered chapter;
2. its twin, ``python -m scripts.notebooks build book/ch99_throwaway.md``;
3. the book, ``jupyter-book build`` (what ``make twins`` runs), which numbers it;
4. its reader's edition, ``python -m scripts.reader_edition build``.

Then every check that looks at the chapter list passes on the copy: the twins in sync,
the reader's editions in step with the build, nbval of the new twin, and the test files
that iterate over the chapters or compare lists (:data:`CHAPTER_TESTS`), which see the
new chapter (its parametrized cases run). Everything generated from the chapter list
has it: the weekly workflow's twins, the seconds table (not measured yet), the API
reference's "Used in" lines, the chapters a change affects. And ``git status`` on the
copy names exactly the four files (the ledger would be the fifth, for a chapter that
records verdicts). Before its ``_toc.yml`` line, the TOC check fails and names it.

A book build and a kernel take minutes, not the seconds of ``make unit``: the test is
marked ``slow`` and runs in ``make test``'s ``new-chapter`` stage (``make new-chapter``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

NAME = "ch99_throwaway"

CHAPTER = """\
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

(ch-throwaway)=
# A throwaway chapter

A chapter added to show what a new chapter touches: one picture, one number.

```{code-cell} ipython3
:tags: [remove-cell]

from sinpe.claims import glue  # quotes computed numbers in the prose
```

```{code-cell} ipython3
---
tags: [hide-input]
mystnb:
  figure:
    caption: |
      The first sine of the table, $d = 8$, at positions 0 to 15.
    name: fig-throwaway-sine
  image:
    alt: A wave of dots between minus 1 and 1 against positions 0 to 15.
---
import matplotlib.pyplot as plt
import numpy as np

import sinpe
from sinpe import plotting

plotting.style()
positions = np.arange(16)
fig, ax = plotting.figure(width=4.6, height=2.4)
ax.plot(positions, sinpe.positional_encoding(positions, 8)[:, 0], "o-",
        color=plotting.COLORS[0])
ax.set_xlabel("position $p$")
ax.set_ylabel(r"$\\sin \\omega_0 p$")
plt.show()
```

:::{admonition} In this chapter you will learn
:class: tip

- that a new chapter is five files at most.
:::

:::{admonition} Predict, then run
:class: tip

How large is the first entry of position 1? Decide before you run the cell.
:::

```{code-cell} ipython3
import numpy as np
import sinpe
```

```{code-cell} ipython3
:tags: [hide-output]

first = sinpe.positional_encoding(np.arange(2), 8)[1, 0]
print(first)
```

:::{admonition} Answer
:class: dropdown

It is $\\sin 1$, printed in the next sentence.
:::

```{code-cell} ipython3
:tags: [remove-input]

assert abs(first - np.sin(1.0)) < 1e-15
glue("throwaway-first", sinpe.claims.settled(first, ".3f", slack=1e-15), display=False)
```

The first entry of position 1 is {glue:text}`throwaway-first`.

## Summary

- One picture and one glued number, {glue:text}`throwaway-first`.
"""

#: The test files that iterate over the chapters or compare lists with them, run on
#: the copy (``-k`` leaves out what neither reads the chapters nor is quick).
CHAPTER_TESTS = [
    "tests/test_twins.py",
    "tests/test_book_pages.py",
    "tests/test_claims.py",
    "tests/test_predict_then_run.py",
    "tests/test_visible_code_names.py",
    "tests/test_reader_edition.py",
    "tests/test_figures.py",
    "tests/test_glossary.py",
    "tests/test_lists.py",
    "tests/test_api_reference.py",
    "tests/test_book_extensions.py",
    "tests/test_site_config.py",
    "tests/test_make_tools.py",
    "tests/test_layout.py",
    "tests/test_pointers.py",
]
#: Slow tests of those files that read no chapter list (a wheel build, a kernel, the
#: mutants' test files).
NOT_ABOUT_CHAPTERS = "not install_cell and not the_run_stops and not every_mutated_module"

#: What the copy's own tools must report about the new chapter, in a fresh interpreter.
SEEN = f"""\
import sys
from pathlib import Path

sys.path.insert(0, "book/_ext")
import api_reference, chapter_seconds
from scripts import book, changed_chapters

root = Path.cwd()
assert book.main(["twins"]) == 0
rows = chapter_seconds.rows(chapter_seconds.book_chapters(root), {{}})
print([row for row in rows if "{NAME}" in row[0]])
print(api_reference.signposts(root)["sinpe.plotting"].count("{NAME}"))
affected = changed_chapters.affected({{"book/{NAME}.md"}}, book.chapters())
print([path.stem for path in affected])
"""


def _start(copy: Path, *command: str) -> subprocess.Popen:
    return subprocess.Popen(
        command,
        cwd=copy,
        env=dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait(process: subprocess.Popen, check: bool = True) -> subprocess.CompletedProcess:
    stdout, stderr = process.communicate(timeout=900)
    result = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    if check:
        assert result.returncode == 0, (process.args, stdout[-3000:], stderr[-3000:])
    return result


def _run(copy: Path, *command: str, check: bool = True) -> subprocess.CompletedProcess:
    return _wait(_start(copy, *command), check=check)


def _copy(root: Path, target: Path) -> Path:
    """The files git tracks or would track (the work as it is), in a repository of its own."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout.split("\0")  # fmt: skip
    for name in filter(None, listed):
        if (root / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, target / name)
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "the tree as it is"]):
        subprocess.run(
            ["git", "-c", "user.name=sinpe", "-c", "user.email=sinpe@localhost", *command],
            cwd=target, check=True, capture_output=True,
        )  # fmt: skip
    return target


def add_to_toc(toc: str, name: str) -> str:
    """``toc`` with ``book/<name>`` after the last numbered chapter (``- file: book/chNN_``)."""
    lines = toc.splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if re.match(r"\s*- file: book/ch\d\d_", line))
    indent = lines[last][: lines[last].index("-")]
    return "".join([*lines[: last + 1], f"{indent}- file: book/{name}\n", *lines[last + 1 :]])


def test_add_to_toc_puts_the_chapter_after_the_last_numbered_one():
    toc = (
        "parts:\n  - numbered: true\n    chapters:\n      - file: book/ch01_a\n"
        "      - file: book/ch02_b\n  - chapters:\n      - file: book/api/x\n"
    )
    assert add_to_toc(toc, "ch99_new").splitlines()[4:6] == [
        "      - file: book/ch02_b",
        "      - file: book/ch99_new",
    ]


def _status(copy: Path) -> list[str]:
    out = _run(copy, "git", "status", "--porcelain", "--untracked-files=all").stdout
    return sorted(out.splitlines())


def test_a_new_chapter_touches_five_files_at_most(root, tmp_path):
    copy = _copy(root, tmp_path / "repo")
    python = sys.executable
    (copy / "book" / f"{NAME}.md").write_text(CHAPTER, encoding="utf-8")
    _run(copy, python, "-m", "scripts.notebooks", "build", f"book/{NAME}.md")

    # Not yet in the TOC: the check that every chapter is there fails, naming it.
    toc_check = _run(copy, python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                     "tests/test_twins.py", "-k", "in_the_toc", check=False)  # fmt: skip
    assert toc_check.returncode == 1 and NAME in toc_check.stdout, toc_check.stdout[-2000:]
    toc = copy / "_toc.yml"
    toc.write_text(add_to_toc(toc.read_text(encoding="utf-8"), NAME), encoding="utf-8")

    # make twins for the one chapter: its twin (above), the book, its reader's edition.
    # The book builds on one core while the other checks the twins and runs nbval on the
    # new one (they read only the twins, which the build does not write).
    jupyter_book = str(Path(python).parent / "jupyter-book")
    build = _start(copy, jupyter_book, "build", ".", "-W", "-n", "--keep-going", "--quiet")

    # The checks of the chapter list: twins in sync, editions in step, nbval of the twin.
    chapters = len(_run(copy, python, "-m", "scripts.book", "twins").stdout.split())
    checked = _run(copy, python, "-m", "scripts.notebooks", "check").stdout
    assert f"{chapters} chapters checked, 0 problems" in checked
    _run(copy, python, "-m", "scripts.notebooks", "validate", f"book/{NAME}.ipynb")
    _wait(build)
    _run(copy, python, "-m", "scripts.reader_edition", "build")
    _run(copy, python, "-m", "scripts.reader_edition", "check")
    tests = _run(copy, python, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-n", "2",
                 "-k", NOT_ABOUT_CHAPTERS, *CHAPTER_TESTS)  # fmt: skip
    assert f"[{NAME}]" in tests.stdout  # the chapter-parametrized checks ran on it

    # What is generated from the chapter list has the new chapter.
    seen = _run(copy, python, "-c", SEEN).stdout.splitlines()
    number = len(re.findall(r"- file: book/ch\d\d_", toc.read_text(encoding="utf-8")))
    assert f"book/{NAME}.ipynb" in seen[:-3] and seen[-4] == "book/claims_ledger.ipynb"
    assert seen[-3] == str([(f"book/{NAME}", f"{number} A throwaway chapter", "not measured yet")])
    assert seen[-2] == "1"  # "Used in ... 9" under sinpe.plotting, which it imports
    assert seen[-1] == str([NAME, "claims_ledger"])
    html = (copy / "_build" / "html" / "book" / f"{NAME}.html").read_text(encoding="utf-8")
    assert f"notebooks/{NAME}.ipynb" in html  # its Colab and Binder buttons

    # Exactly these files changed: the .md, its twin, its reader's edition, _toc.yml.
    assert _status(copy) == [
        " M _toc.yml",
        f"?? book/{NAME}.ipynb",
        f"?? book/{NAME}.md",
        f"?? notebooks/{NAME}.ipynb",
    ]
