"""The reader's edition of every notebook: the chapter as it reads on the web page, in
plain Jupyter, JupyterLab, VS Code or Colab, with nothing but ``sinpe`` installed.

The executed twins (``book/*.ipynb``) are written in MyST, which only the book's Sphinx
build renders. This script turns each twin into ``notebooks/<name>.ipynb``:

* MyST becomes Markdown that every notebook front end renders: glued values written in,
  cross-references as "Figure 3.2", "(1.4)", "Theorem 2.1" or a section's title linking
  to the web page, citations as "(Vaswani et al., 2017)", admonitions, theorems and
  exercises as headed blocks; solutions and "Answer" boxes folded with ``<details>``
  (a solution's code cells collapsed), figure captions in a Markdown cell below the
  figure (folded too when the figure's output is), the figure's alt text on its image
  (``metadata["image/png"]["alt"]``, as nbconvert and IPython's ``Image`` put it);
* cells hidden on the web page are collapsed (``jupyter.source_hidden`` and Colab's form
  view, ``# @title``), and so are folded outputs (``hide-output``: the answer of a
  "Predict, then run" box; ``jupyter.outputs_hidden``, and ``collapsed`` for the
  classic Notebook); cells that show nothing
  (bookkeeping: glue, verdicts) move up past the Markdown before them, to sit right
  after the code cell they serve (moving a code cell past Markdown never changes what
  runs, or in which order);
* a first cell installs ``sinpe`` when the kernel lacks it (:func:`install_cell`), its
  first line its title, collapsed to that line.

Numbers and anchors come from the book's own build (``_build/.doctrees``), so the
reader's edition says "Figure 3.2" exactly where the web page does. ``make twins``
writes the editions after the twins and the HTML build; ``make twins-check`` fails when
one is out of date::

    python -m scripts.reader_edition build    # write notebooks/*.ipynb
    python -m scripts.reader_edition check    # fail if any is out of date
"""

from __future__ import annotations

import argparse
import ast
import copy
import pickle
import posixpath
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml

from scripts import notebook_zips as zips

ROOT = Path(__file__).resolve().parent.parent
BOOK = ROOT / "book"
#: Where the reader's editions live (committed: Colab and Binder open them from here).
READER = ROOT / "notebooks"
ENVIRONMENT = ROOT / "_build" / ".doctrees" / "environment.pickle"

#: Prefix of glue records in a cell's outputs (myst-nb's convention, sinpe.claims.glue).
RECORD = "application/papermill.record/"

#: MyST that must not survive into a reader's edition (tests/test_reader_edition.py).
MYST_LEFTOVERS = re.compile(
    r"\{[a-z][\w:-]*\}`|^\s*[:`]{3,}\s*\{|^\([\w-]+\)=\s*$|^\$\$[ \t]*\([\w-]+\)\s*$",
    re.M,
)


def install_cell() -> str:
    """The first cell of every reader's edition: sinpe, if this kernel lacks it.

    Its first line says what it does: the one line a reader sees, where the front end
    collapses the cell (``jupyter.source_hidden``; Colab's form view shows the title),
    and the first of 13 short ones where it does not.
    """
    return f'''# @title Install sinpe if this kernel lacks it (the wheel beside, or PyPI)
import importlib.util
import pathlib
import subprocess
import sys

wheel = pathlib.Path("{zips.wheel_name()}").resolve()
source = f" @ {{wheel.as_uri()}}" if wheel.exists() else "=={zips.version()}"
if importlib.util.find_spec("sinpe") is None:
    sinpe = f"sinpe[{",".join(zips.EXTRAS)}]{{source}}"
    pip = [sys.executable, "-m", "pip", "install", "--quiet", sinpe]
    subprocess.run(pip, check=True)
    importlib.invalidate_caches()'''


# ---------------------------------------------------------------------------------------
# What the built book knows: numbers, titles and anchors of everything a chapter cites.


@dataclass
class Book:
    """Cross-reference targets of the built book, read from Sphinx's environment."""

    env: object
    url: str

    @classmethod
    def load(cls, path: Path = ENVIRONMENT) -> Book:
        if not path.exists():
            raise FileNotFoundError(f"{path} is missing: build the book first (make book)")
        with path.open("rb") as handle:
            return cls(pickle.load(handle), zips.book_url())

    def link(self, text: str, docname: str, anchor: str = "") -> str:
        target = f"{self.url}{docname}.html" + (f"#{anchor}" if anchor else "")
        return f"[{text}]({target})"

    def _label(self, label: str) -> tuple[str, str, str]:
        """(docname, anchor, title) of a label: a section's, a figure's, a theorem's."""
        std = self.env.domaindata["std"]
        if label in std["labels"]:
            return std["labels"][label]
        if label in std["anonlabels"]:
            return (*std["anonlabels"][label], "")
        for docname, kinds in self.env.toc_fignumbers.items():
            if any(label in numbers for numbers in kinds.values()):
                return docname, label, ""
        raise KeyError(f"unknown label {label!r}")

    def number(self, docname: str, anchor: str) -> tuple[str, str]:
        """("Figure", "3.2") for a numbered object of the page ``docname``."""
        names = {"figure": "Figure", "displaymath": "", "table": "Table", "code-block": "Listing"}
        for kind, numbers in self.env.toc_fignumbers.get(docname, {}).items():
            if anchor in numbers:
                word = names.get(kind, kind.replace("-", " ").capitalize())
                return word, ".".join(map(str, numbers[anchor]))
        raise KeyError(f"{anchor!r} has no number on {docname}")

    def numbered(self, label: str) -> str:
        docname, anchor = self._label(label)[:2]
        word, number = self.number(docname, anchor)
        return self.link(f"{word} {number}", docname, anchor)

    def ref(self, label: str, text: str | None = None) -> str:
        docname, anchor, title = self._label(label)
        if not (text or title):
            raise ValueError(f"{{ref}}`{label}` needs a title: the label has none")
        return self.link(text or title, docname, anchor)

    def doc_title(self, docname: str) -> str:
        return self.env.titles[docname].astext()

    def equation(self, label: str) -> str:
        docname, _number = self.env.domaindata["math"]["objects"][label]
        anchor = f"equation-{label}"
        return self.link(f"({self.number(docname, anchor)[1]})", docname, anchor)

    def equation_number(self, label: str) -> str:
        docname, _number = self.env.domaindata["math"]["objects"][label]
        return self.number(docname, f"equation-{label}")[1]

    def term(self, text: str) -> str:
        shown, _, term = _explicit(text)
        for (kind, name), (docname, anchor) in self.env.domaindata["std"]["objects"].items():
            if kind == "term" and name.lower() == term.lower():
                return self.link(shown, docname, anchor)
        raise KeyError(f"unknown glossary term {term!r}")

    def python(self, name: str, call: bool) -> str:
        shown, _, target = _explicit(name)
        entry = self.env.domaindata["py"]["objects"][target.lstrip("~")]
        return self.link(f"`{shown}{'()' if call else ''}`", entry.docname, entry.node_id)

    def cite(self, keys: str, textual: bool) -> str:
        found = {c.key: c for c in self.env.domaindata["cite"]["citations"]}
        parts = []
        for key in (key.strip() for key in keys.split(",")):
            citation = found[key]
            label = citation.formatted_entry.label  # "Vaswani et al., 2017"
            if textual:
                who, _, year = label.rpartition(", ")
                label = f"{who} ({year})"
            docname = citation.bibliography_key.docname
            parts.append(self.link(label, docname, citation.citation_id))
        return "; ".join(parts) if textual else f"({'; '.join(parts)})"


def _explicit(text: str) -> tuple[str, str, str]:
    """MyST's ``title <target>`` (or a bare target): (shown, has_title, target)."""
    match = re.fullmatch(r"(.*?)\s*<([^<>]+)>", text.strip(), re.S)
    if match:
        return match.group(1), "title", match.group(2)
    return text.strip(), "", text.strip()


# ---------------------------------------------------------------------------------------
# Glue: the values the executed twin recorded.


def glued(notebook) -> dict[str, dict]:
    """Each glue key of an executed notebook and its data (MIME prefix removed)."""
    found = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            record = output.get("metadata", {}).get("scrapbook")
            if record:
                prefix = len(record.get("mime_prefix", ""))
                found[record["name"]] = {k[prefix:]: v for k, v in output["data"].items()}
    return found


def _plain(text: str) -> str:
    """myst-nb's {glue:text}: the text/plain value, quotes of a string removed."""
    try:
        return str(ast.literal_eval(text))
    except (SyntaxError, ValueError):
        return text


# ---------------------------------------------------------------------------------------
# MyST to Markdown.

FENCE = re.compile(r"^(?P<fence>:{3,}|`{3,})\{(?P<name>[\w:-]+)\}[ \t]*(?P<arg>.*)$")
ROLE = re.compile(r"\{(?P<name>[a-z][\w:-]*)\}`(?P<text>[^`]*)`")
LABEL = re.compile(r"^\((?P<label>[\w-]+)\)=[ \t]*$")
LABELLED_MATH = re.compile(r"^\$\$[ \t]*\((?P<label>[\w-]+)\)[ \t]*$")
BADGE = re.compile(r"^bdg-")


@dataclass
class Directive:
    name: str
    argument: str
    options: dict[str, str]
    body: str


def _directives(text: str) -> Iterator[str | Directive]:
    """Split MyST text into plain runs of lines and (possibly nested) directives."""
    lines = text.split("\n")
    plain: list[str] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            plain.append(lines[index])
            index += 1
            continue
        fence = match.group("fence")
        end = index + 1
        depth = 1
        while end < len(lines):
            stripped = lines[end].strip()
            inner = FENCE.match(stripped)
            if inner and inner.group("fence") == fence:
                depth += 1
            elif stripped == fence:
                depth -= 1
                if depth == 0:
                    break
            end += 1
        if plain:
            yield "\n".join(plain)
            plain = []
        body = lines[index + 1 : end]
        options: dict[str, str] = {}
        if body and body[0].strip() == "---":
            close = body.index("---", 1)
            options = yaml.safe_load("\n".join(body[1:close])) or {}
            body = body[close + 1 :]
        else:
            while body and re.match(r"^:[\w-]+:", body[0]):
                key, _, value = body.pop(0)[1:].partition(":")
                options[key] = value.strip()
        yield Directive(
            match.group("name"), match.group("arg").strip(), options, "\n".join(body).strip("\n")
        )
        index = end + 1
    if plain:
        yield "\n".join(plain)


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _folded(summary: str, body: str) -> str:
    # A blank line after <summary> and before </details>: the body is read as Markdown.
    return f"<details>\n<summary>{summary}</summary>\n\n{body}\n\n</details>"


@dataclass
class Converter:
    """Turns a chapter's MyST Markdown into CommonMark, with the book's numbers."""

    book: Book
    docname: str
    glue: dict[str, dict]

    def __post_init__(self) -> None:
        self.in_solution = ""  # the summary of the solution being folded, if any

    # Roles ----------------------------------------------------------------------------

    def role(self, name: str, text: str) -> str:
        roles: dict[str, Callable[[str], str]] = {
            "glue:text": lambda t: _plain(self.glue[t]["text/plain"]),
            "glue": lambda t: _plain(self.glue[t]["text/plain"]),
            "glue:md": lambda t: self.markdown(self.glue[t.removesuffix(":myst")]["text/markdown"]),
            "numref": self.book.numbered,
            "prf:ref": self.book.numbered,
            "eq": self.book.equation,
            "ref": lambda t: self.book.ref(
                _explicit(t)[2], _explicit(t)[0] if _explicit(t)[1] else None
            ),
            "doc": self._doc,
            "term": self.book.term,
            "py:func": lambda t: self.book.python(t, call=True),
            "py:mod": lambda t: self.book.python(t, call=False),
            "py:class": lambda t: self.book.python(t, call=False),
            "py:data": lambda t: self.book.python(t, call=False),
            "cite": lambda t: self.book.cite(t, textual=False),
            "cite:p": lambda t: self.book.cite(t, textual=False),
            "cite:t": lambda t: self.book.cite(t, textual=True),
            "book-download": self._download,
            "math": lambda t: f"${t}$",
        }
        if BADGE.match(name):
            return f"**{text}**"
        if name not in roles:
            raise ValueError(f"{self.docname}: no Markdown for the MyST role {{{name}}}")
        return roles[name](text)

    def _doc(self, text: str) -> str:
        shown, titled, target = _explicit(text)
        docname = posixpath.normpath(posixpath.join(posixpath.dirname(self.docname), target))
        return self.book.link(shown if titled else self.book.doc_title(docname), docname)

    def _download(self, text: str) -> str:
        shown, _, target = _explicit(text)
        return f"[{shown}]({self.book.url}_downloads/{target})"

    def inline(self, text: str) -> str:
        return ROLE.sub(lambda m: self.role(m.group("name"), m.group("text")), text)

    # Blocks ---------------------------------------------------------------------------

    def markdown(self, text: str) -> str:
        """A whole Markdown cell (or glued Markdown) converted."""
        return "\n".join(
            self.plain(part) if isinstance(part, str) else self.directive(part)
            for part in _directives(text)
        ).strip("\n")

    def plain(self, text: str) -> str:
        out: list[str] = []
        lines = text.split("\n")
        index = 0
        while index < len(lines):
            line = lines[index]
            if LABEL.match(line):
                index += 1
                continue
            # Definition lists: "term" then ": definition" (continued by indented lines).
            if index + 1 < len(lines) and lines[index + 1].startswith(": ") and line.strip():
                definition = [lines[index + 1][2:]]
                index += 2
                while index < len(lines) and lines[index].startswith("  "):
                    definition.append(lines[index].strip())
                    index += 1
                out.append(f"- **{line.strip()}**: " + " ".join(definition))
                continue
            label = LABELLED_MATH.match(line)
            if label:
                # The closing "$$ (label)" of a numbered display: the number as a \tag.
                out.append(rf"\tag{{{self.book.equation_number(label.group('label'))}}}")
                out.append("$$")
                index += 1
                continue
            out.append(line)
            index += 1
        return self.inline("\n".join(out))

    def directive(self, block: Directive) -> str:
        name, title = block.name, self.inline(block.argument)
        body = self.markdown(block.body) if block.body else ""
        label = block.options.get("label") or block.options.get("name")
        if name == "admonition":
            if "dropdown" in block.options.get("class", ""):
                return _folded(f"<b>{title}</b>", body)
            return _quote(f"**{title}**\n\n{body}")
        if name in ("note", "tip", "important", "warning", "caution", "attention", "hint"):
            return _quote(
                f"**{name.capitalize()}: {title}**\n\n{body}"
                if title
                else f"**{name.capitalize()}**\n\n{body}"
            )
        if name == "dropdown":
            return _folded(f"<b>{title}</b>", body)
        if name in (
            "exercise",
            "prf:theorem",
            "prf:definition",
            "prf:lemma",
            "prf:proposition",
            "prf:corollary",
        ):
            word, number = self.book.number(self.docname, label)
            heading = f"**{word} {number}**" + (f" ({title})" if title else "")
            return _quote(f"{heading}\n\n{body}")
        if name == "prf:proof":
            return _quote(f"*Proof.* {body} ∎")
        if name == "solution-start":
            word, number = self.book.number(self.docname, block.argument)
            return f"\x00<b>Solution to {word} {number}</b>\x00"
        if name == "solution-end":
            return "\x00\x00"
        if name == "glue:math":
            latex = self.glue[block.argument]["text/latex"].strip().strip("$")
            return f"$$\n{latex.removeprefix(chr(92) + 'displaystyle').strip()}\n$$"
        if name == "glue:md":
            return self.markdown(self.glue[block.argument]["text/markdown"])
        if name == "slider":
            # The web page draws it with JavaScript (book/_ext/sliders.py): here, a sentence.
            page = self.book.link("the book's web page", self.docname, f"slider-{title}")
            return f"*On {page}, sliders move this figure.* {body}"
        if name == "literalinclude":
            return f"```{block.options.get('language', '')}\n{self.include(block)}\n```"
        raise ValueError(f"{self.docname}: no Markdown for the MyST directive {{{name}}}")

    def include(self, block: Directive) -> str:
        from sphinx.pycode import ModuleAnalyzer

        path = (BOOK / Path(self.docname).relative_to("book").parent / block.argument).resolve()
        lines = path.read_text(encoding="utf-8").split("\n")
        if "pyobject" in block.options:
            _kind, start, end = ModuleAnalyzer.for_file(str(path), "").find_tags()[
                block.options["pyobject"]
            ]
            lines = lines[start - 1 : end - 1]
        elif block.options:
            raise ValueError(f"literalinclude options {sorted(block.options)} not supported")
        return "\n".join(lines).rstrip("\n")

    def cell(self, text: str) -> str:
        """A Markdown cell. A solution can span cells: each piece of it is folded."""
        pieces = re.split("\x00(.*?)\x00", self.markdown(text))
        out = []
        for position, piece in enumerate(pieces):
            if position % 2:  # the start of a solution (its summary) or its end ("")
                self.in_solution = piece
                if piece and not "".join(pieces[position + 1 :: 2]).strip("\n"):
                    # A solution that is all code: say where it is, folded too.
                    out.append(_folded(piece, "The folded code cell below is the solution."))
            elif piece.strip("\n"):
                piece = piece.strip("\n")
                out.append(_folded(self.in_solution, piece) if self.in_solution else piece)
        return "\n\n".join(out)


# ---------------------------------------------------------------------------------------
# Notebooks.


#: Id suffix of the Markdown cell that carries a figure's caption, below the figure.
CAPTION = "-caption"


def _visible(outputs: list) -> bool:
    """Whether a cell shows anything: outputs other than glue records without display."""
    return any(
        not output.get("metadata", {}).get("scrapbook", {}).get("mime_prefix") for output in outputs
    )


def _fold_outputs(cell) -> None:
    """Fold a code cell's outputs: ``jupyter.outputs_hidden`` (JupyterLab, Notebook 7)
    and ``collapsed`` (the classic Notebook and front ends that follow it)."""
    cell.metadata.setdefault("jupyter", {})["outputs_hidden"] = True
    cell.metadata["collapsed"] = True


def _carry_alt(cell, alt: str) -> None:
    """The book's alt text on each image a cell shows, where nbconvert's HTML export and
    IPython's ``Image(alt=...)`` put it (``metadata["image/png"]["alt"]``), and on the
    cell (nbconvert's fallback)."""
    alt = " ".join(alt.split())
    if not alt:
        return
    for output in cell.outputs:
        for mime in output.get("data", {}):
            if mime.startswith("image/"):
                output.setdefault("metadata", {}).setdefault(mime, {})["alt"] = alt
    cell.metadata["alt"] = alt


def _hide_source(cell, title: str) -> None:
    cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
    cell.metadata["cellView"] = "form"  # Colab: the title, not the code
    cell.source = f"# @title {title}\n" + cell.source


def edition(twin: Path, book: Book):
    """The reader's edition of one executed twin (a new notebook; the twin is untouched)."""
    notebook = nbformat.read(twin, as_version=4)
    docname = f"book/{twin.stem}"
    convert = Converter(book, docname, glued(notebook))
    cells = [nbformat.v4.new_code_cell(install_cell(), id="reader-install")]
    cells[0].metadata.update({"jupyter": {"source_hidden": True}, "cellView": "form"})
    for cell in notebook.cells:
        cell = copy.deepcopy(cell)
        tags = cell.metadata.get("tags", [])
        if cell.cell_type == "markdown":
            cell.source = convert.cell(cell.source)
            cell.metadata.pop("tags", None)
            if cell.source.strip():
                cells.append(cell)
            continue
        mystnb = cell.metadata.pop("mystnb", {})
        figure = mystnb.get("figure")
        _carry_alt(cell, mystnb.get("image", {}).get("alt", ""))
        if convert.in_solution:
            _fold_outputs(cell)
            _hide_source(cell, re.sub("<.*?>", "", convert.in_solution) + ": code")
        bookkeeping = ("remove-cell" in tags or "remove-input" in tags) and not _visible(
            cell.outputs
        )
        if "remove-cell" in tags or "remove-input" in tags:
            _hide_source(
                cell,
                "Bookkeeping (hidden on the web page)"
                if bookkeeping
                else "Code hidden on the web page",
            )
        elif "hide-input" in tags or "hide-cell" in tags:
            _hide_source(cell, "Code (folded on the web page)")
        folded_output = bool({"remove-output", "hide-output", "hide-cell"} & set(tags))
        if folded_output:
            _fold_outputs(cell)
        cell.metadata["tags"] = [t for t in tags if t.startswith(("nbval", "raises"))]
        if not cell.metadata["tags"]:
            del cell.metadata["tags"]
        if bookkeeping:
            # Up past the Markdown before it, to follow the code cell it serves.
            spot = len(cells)
            while (
                spot > 1
                and cells[spot - 1].cell_type == "markdown"
                and not cells[spot - 1].id.endswith(CAPTION)
            ):
                spot -= 1
            cells.insert(spot, cell)
        else:
            cells.append(cell)
        if figure:
            word, number = book.number(docname, figure["name"])
            caption = convert.inline(" ".join(figure["caption"].split()))
            text = f"**{word} {number}.** {caption}"
            if folded_output:  # folded with its figure: it may answer a question
                summary = f"<summary><b>{word} {number}</b></summary>"
                text = f"<details>\n{summary}\n\n{text}\n\n</details>"
            cells.append(nbformat.v4.new_markdown_cell(text, id=cell.id + CAPTION))
    notebook.cells = cells
    notebook.metadata.pop("jupytext", None)
    nbformat.validate(notebook)
    return notebook


def twins() -> list[Path]:
    return sorted(BOOK.glob("*.ipynb"))


def render(notebook) -> str:
    return nbformat.writes(notebook) + "\n"


def editions(book: Book) -> dict[str, str]:
    """File name -> text of every reader's edition (executed: the zips clear the fresh one)."""
    return {twin.name: render(edition(twin, book)) for twin in twins()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "check"))
    args = parser.parse_args(argv)
    book = Book.load()
    wanted = editions(book)
    if args.command == "build":
        READER.mkdir(exist_ok=True)
        for name, text in wanted.items():
            (READER / name).write_text(text, encoding="utf-8")
            print(f"wrote {(READER / name).relative_to(ROOT)}")
        return 0
    problems = [
        f"notebooks/{name} is out of date: run `make twins`"
        for name, text in wanted.items()
        if not (READER / name).exists() or (READER / name).read_text() != text
    ]
    problems += [
        f"notebooks/{name} has no twin in book/: remove it"
        for name in sorted({p.name for p in READER.glob("*.ipynb")} - set(wanted))
    ]
    problems += dead_links(wanted, book.url) + launch_problems(wanted)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(wanted)} reader's editions checked, {len(problems)} problems")
    return 1 if problems else 0


HTML = ROOT / "_build" / "html"


def dead_links(texts: dict[str, str], url: str) -> list[str]:
    """Links of the editions into the book whose page or anchor the built book lacks."""
    problems = []
    pages: dict[str, str] = {}
    for name, text in texts.items():
        for target in sorted(
            set(re.findall(re.escape(url) + r"([^)\s\"#]+)(?:#([^)\s\"]+))?", text))
        ):
            page, anchor = target
            if page.startswith("_downloads/"):
                continue
            if page not in pages:
                path = HTML / page
                pages[page] = path.read_text(encoding="utf-8") if path.is_file() else ""
            if not pages[page]:
                problems.append(f"notebooks/{name}: links {page}, which the book does not have")
            elif anchor and f'id="{anchor}"' not in pages[page]:
                problems.append(f"notebooks/{name}: no #{anchor} on {page}")
    return problems


def launch_problems(texts: dict[str, str]) -> list[str]:
    """Chapter pages whose Colab or Binder button does not open the reader's edition."""
    problems = []
    for name in texts:
        page = (HTML / "book" / name).with_suffix(".html")
        html = page.read_text(encoding="utf-8") if page.is_file() else ""
        if "colab.research.google.com/github/" not in html or f"notebooks/{name}" not in html:
            problems.append(
                f"{page.relative_to(ROOT)}: its launch buttons do not open notebooks/{name}"
            )
        elif f"book/{name}" in html.replace(f"_sources/book/{name}", ""):
            problems.append(f"{page.relative_to(ROOT)}: still links the twin book/{name}")
    return problems


if __name__ == "__main__":
    sys.exit(main())
