"""What README.md and CONTRIBUTING.md point at exists (issue 38: "stale pointers go").

Every backticked pointer outside code blocks is resolved: a path (``book/api/``,
``scripts/notebooks.py``, or a file name such as ``bbm.sty`` found under some folder),
a test file named without its folder (``test_twins``), a make target (``make check``),
a tool (``python -m scripts.layout``) and a name of the package (``sinpe.lab.nn``,
``sinpe.claims.settled``). Placeholders (``chNN_topic.md``, ``sinpe/x.py``) and what
the build writes (``_build/...``) are not pointers. Each rule is shown failing.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import warnings
from pathlib import Path

import pytest

DOCUMENTS = ("README.md", "CONTRIBUTING.md")

#: How a name ends when it is a file (``.venv`` and bare extensions like ``.npz`` are not).
FILE = re.compile(r"[\w./-]*\w\.(py|md|yml|yaml|toml|ipynb|cfg|json|txt|lock|in|cff|sty|bib|css)$")
#: Placeholders and outputs of a run, never files of the repository.
NOT_POINTERS = re.compile(r"NN|\(|\*|\.\.\.|<|\bx\.py$|\btest_x\b|^_build/|^\.venv|^/|=|^image/")

#: Files named in the documents that live outside the repository, with where they are.
ELSEWHERE = {
    "requirements.txt": "inside the notebook zips (scripts/notebook_zips.py writes it)",
    "objects.inv": "the generic name of a Sphinx inventory (book/_inventories/ ships two)",
    "params.json": "a file of a Meta model folder, which sinpe inspect reads",
    "model.safetensors.index.json": "a file of a Hugging Face model folder (sinpe inspect)",
}


def inline_code(text: str) -> list[str]:
    """The backticked spans of a Markdown text, fenced code blocks left out."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    return re.findall(r"`([^`\n]+)`", text)


def tracked(root: Path) -> set[str]:
    """Every file git tracks or would track, and every folder that holds one."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout.split()  # fmt: skip
    folders = {f"{'/'.join(name.split('/')[:end])}/" for name in files
               for end in range(1, name.count("/") + 1)}  # fmt: skip
    return set(files) | folders


def _makefile_targets(root: Path) -> set[str]:
    text = (root / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([\w.-]+):", text, flags=re.M))


def _resolves(name: str) -> bool:
    """``sinpe.x.y``: a module, or an attribute of the longest module prefix; a path of
    sinpe 0.1 that moved (it warns) is stale too."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", DeprecationWarning)
                found = importlib.import_module(".".join(parts[:end]))
        except DeprecationWarning:
            return False
        except ImportError:
            continue
        for attribute in parts[end:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def stale(pointers: list[str], files: set[str], targets: set[str]) -> list[str]:
    """The pointers among ``pointers`` that point at nothing."""
    found = []
    for span in pointers:
        word = (span.split() or [""])[0]
        if span.startswith("make "):
            if any(target not in targets for target in span.split()[1:] if "=" not in target):
                found.append(span)
        elif match := re.match(r"python -m (scripts\.\w+)", span):
            if f"{match.group(1).replace('.', '/')}.py" not in files:
                found.append(span)
        elif re.fullmatch(r"test_\w+", span):
            if f"tests/{span}.py" not in files:
                found.append(span)
        elif re.fullmatch(r"sinpe(\.\w+)+", span):
            if not _resolves(span):
                found.append(span)
        elif ("/" in word or FILE.search(word)) and not NOT_POINTERS.search(word):
            if word in ELSEWHERE or word.startswith(("http:", "https:")):
                continue
            ends = [name for name in files if name == word or name.endswith(f"/{word}")]
            if not ends:
                found.append(span)
    return found


@pytest.fixture(scope="module")
def repository(root):
    return tracked(root), _makefile_targets(root)


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_pointer_of_the_document_exists(root, document, repository):
    spans = inline_code((root / document).read_text(encoding="utf-8"))
    assert len(spans) > 50
    assert stale(spans, *repository) == []


def test_a_stale_pointer_of_each_kind_is_caught(repository):
    pointers = [
        "tests/test_install_cells.py", "test_install_cells", "book/chapters/", "gone.sty",
        "make chapters", "python -m scripts.nothing", "sinpe.nn.TokenModel", "sinpe.core.nope",
    ]  # fmt: skip
    assert stale(pointers, *repository) == pointers
    fine = [
        "tests/test_twins.py", "test_twins", "book/api/", "bbm.sty", "static/book.css",
        "make check", "make lock LOCK_ARGS=x", "python -m scripts.layout --write",
        "sinpe.lab.nn", "sinpe.claims.settled", "book/chNN_topic.md", "sinpe/x.py",
        "_build/html", ".npz", "np.sin", "requirements.txt", "scripts/notebooks.py build",
    ]  # fmt: skip
    assert stale(fine, *repository) == []
