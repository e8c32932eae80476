"""Sphinx extension for the sinpe book: offline MathJax and ``.md`` downloads.

* MathJax 3 is served from the book's own ``_static/mathjax`` (copied from the
  ``django-static-mathjax`` wheel pinned in requirements.lock), so formulas typeset
  without network -- for readers offline and for the browser test in CI.
* ``static/book.css``: wide display formulas scroll instead of being cut off.
* ``static/search_fixes.js``, on the search page: numbers are searched for, and
  excerpts quote the chapter's text, not the theme's header.
* References are labelled "Author et al., year", the way the chapters cite them
  (``bibtex_reference_style: author_year``), instead of pybtex's "[VSP+17]".
* Chapters are built from their executed ``.ipynb`` twins; the MyST ``.md`` each
  twin was generated from is copied next to the ``.ipynb`` under ``_sources`` and
  offered in the page's download menu.
* Downloads for the reader in ``_downloads/``: the book as one PDF (``make pdf``),
  copied when it has been built, and the reader's editions of the notebooks as two
  self-contained zips with the ``sinpe`` wheel (``scripts/notebook_zips.py``), written
  at every HTML build. The role
  ``{book-download}`text <file>``` links one of them, and is plain text where the
  file is not there (a build without TeX has no PDF), so no link is ever dead.
* A chapter's Colab and Binder buttons and its ``.ipynb`` download give its reader's
  edition (``notebooks/``, ``scripts/reader_edition.py``), which runs and reads right
  outside the book; the page itself is built from the twin.
* In the PDF, an animation (``sinpe.plotting.animation_html``, which LaTeX cannot
  play) shows its last frame, instead of ``<IPython.core.display.HTML object>``.
* A figure with a phone variant (``sinpe.plotting.narrow_png``, kept in its output's
  metadata) is served as a ``<picture>``: the variant on screens up to 600 px wide,
  the figure itself elsewhere. Its smallest font size goes into ``data-font-pt``, for
  the browser test's estimate of the size its text is shown at.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import posixpath
import re
import shutil
import sys
from pathlib import Path

from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.nodes import split_explicit_title
from sphinx.util.osutil import relative_uri

# The keys of a figure's output metadata that sinpe.plotting writes (style's inline hook).
from sinpe.plotting import FONT_KEY, NARROW_KEY

logger = logging.getLogger(__name__)

#: MathJax's es5 distribution: its loader (``mathjax_path`` in _config.yml), its core,
#: and the components the loader fetches (``mathjax3_config``) or loads on demand.
MATHJAX_PARTS = ("startup.js", "core.js", "input", "output", "ui", "a11y", "sre", "adaptors")


def mathjax_root() -> Path:
    """Directory of MathJax's es5 build inside the installed django-static-mathjax."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "MathJax is not installed: `pip install -r requirements.lock` "
            "(it ships in django-static-mathjax)"
        )
    root = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
    if not (root / "startup.js").exists():
        raise RuntimeError(f"no startup.js under {root}")
    return root


def copy_mathjax(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / "_static" / "mathjax"
    source = mathjax_root()
    for part in MATHJAX_PARTS:
        origin = source / part
        if origin.is_dir():
            shutil.copytree(origin, target / part, dirs_exist_ok=True)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target / part)


def _myst_source(app, pagename: str) -> Path | None:
    source = Path(app.srcdir) / f"{pagename}.md"
    twin = Path(app.srcdir) / f"{pagename}.ipynb"
    return source if source.exists() and twin.exists() else None


def add_markdown_download(app, pagename, templatename, context, doctree) -> None:
    """Offer the MyST ``.md`` beside the ``.ipynb`` in the download menu."""
    if _myst_source(app, pagename) is None:
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].insert(
                1,
                {
                    "type": "link",
                    "url": f"{context['pathto']('_sources', 1)}/{pagename}.md",
                    "text": ".md",
                    "icon": "fas fa-code",
                    "tooltip": "Download the MyST Markdown notebook",
                    "label": "download-myst-button",
                },
            )


def _edition_of(app, pagename: str) -> Path | None:
    """Where the reader's edition of a MyST notebook page is (``notebooks/<name>.ipynb``),
    written or still to be written: ``make twins`` writes it after this build."""
    path = Path(app.confdir) / "notebooks" / f"{Path(pagename).name}.ipynb"
    return path if _myst_source(app, pagename) is not None else None


def _reader_edition(app, pagename: str) -> Path | None:
    """The reader's edition of a page, if it has one already."""
    path = _edition_of(app, pagename)
    return path if path is not None and path.is_file() else None


def launch_reader_editions(app, pagename, templatename, context, doctree) -> None:
    """Colab and Binder open the reader's edition, which runs anywhere, not the twin;
    a new chapter's too, whose edition the build that numbers its figures precedes."""
    edition = _edition_of(app, pagename)
    if edition is None:
        return
    twin, reader = f"{pagename}.ipynb", f"notebooks/{edition.name}"
    for button in context.get("header_buttons", []):
        if button.get("label") == "launch-buttons":
            for launch in button["buttons"]:
                if twin not in launch.get("url", ""):
                    raise RuntimeError(f"launch button {launch.get('url')!r} does not open {twin}")
                launch["url"] = launch["url"].replace(twin, reader)


def copy_markdown_sources(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for docname in app.env.found_docs:
        source = _myst_source(app, docname)
        if source is not None:
            target = Path(app.outdir) / "_sources" / f"{docname}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            # The page's ".ipynb" download: the reader's edition, which reads right in
            # Jupyter, instead of the MyST twin the page is built from.
            edition = _reader_edition(app, docname)
            if edition is not None:
                shutil.copy2(edition, target.with_suffix(".ipynb"))


STATIC = Path(__file__).resolve().parent / "static"


class AuthorYearLabels(BaseLabelStyle):
    """Labels such as "Vaswani et al., 2017", as the chapters' author-year citations."""

    def format_labels(self, sorted_entries):
        seen: dict[str, int] = {}
        for entry in sorted_entries:
            people = entry.persons.get("author", [])
            # "{Sun Microsystems}": braces keep a corporate author whole; not shown
            last = [" ".join(person.last_names).strip("{}") for person in people]
            if len(last) > 2:
                names = f"{last[0]} et al."
            elif len(last) == 2:
                names = f"{last[0]} and {last[1]}"
            else:
                names = last[0] if last else entry.key
            label = f"{names}, {entry.fields.get('year', 'n.d.')}"
            seen[label] = seen.get(label, 0) + 1
            yield label if seen[label] == 1 else f"{label}{'abcdefgh'[seen[label] - 1]}"


class AuthorYearStyle(UnsrtStyle):
    """pybtex's ``unsrt`` entries, sorted by author and year, with :class:`AuthorYearLabels`."""

    default_label_style = "sinpe-author-year"
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.labels", "sinpe-author-year", AuthorYearLabels)
register_plugin("pybtex.style.formatting", "sinpe-author-year", AuthorYearStyle)


def add_static_files(app):
    app.config.html_static_path.append(str(STATIC))
    app.add_css_file("book.css")


#: Loaded on the search page only, after Sphinx's searchtools.js (deferred): numbers are
#: searched for, and excerpts come from the chapter's text, not the theme's header.
SEARCH_FIXES = "search_fixes.js"


def add_search_fixes(app, pagename, templatename, context, doctree) -> None:
    if pagename == "search":
        app.add_js_file(SEARCH_FIXES, defer="defer")


#: Where the HTML build serves the reader's downloads.
DOWNLOADS = "_downloads"
#: The PDF of `make pdf`: ``latex.latex_documents.targetname`` in _config.yml, copied by
#: the Makefile to _build/pdf/ (beside _build/html/).
PDF = "sinpe-book.pdf"


def _notebook_zips(app):
    """The module scripts/notebook_zips.py (the repository, ``app.confdir``, importable)."""
    root = str(app.confdir)
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("scripts.notebook_zips")


def publish_downloads(app) -> None:
    """Put the PDF (when built) and the notebook zips into ``_downloads/``, before any
    page is written: :class:`ResolveBookDownloads` links only the files that are there."""
    if app.builder.format != "html":
        return
    target = Path(app.outdir) / DOWNLOADS
    target.mkdir(parents=True, exist_ok=True)
    pdf = Path(app.outdir).parent / "pdf" / PDF
    if pdf.is_file():
        shutil.copy2(pdf, target / PDF)
    else:  # no stale copy: the PDF is served only while _build/pdf has it
        (target / PDF).unlink(missing_ok=True)
        logger.info(f"{PDF} is not built (`make pdf`): the book does not link it")
    zips = _notebook_zips(app)
    zips.write_zips(target, url=app.config.html_baseurl)


class book_download(nodes.inline):
    """A link to a file of ``_downloads/``; resolved by :class:`ResolveBookDownloads`."""


def book_download_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{book-download}`the book as a PDF <sinpe-book.pdf>```: a file of _downloads/
    (or the one file a pattern such as ``sinpe-*.whl`` matches there)."""
    _, title, filename = split_explicit_title(text)
    env = inliner.document.settings.env
    env.book_download_docs = getattr(env, "book_download_docs", set()) | {env.docname}
    node = book_download(rawtext, title, filename=filename)
    return [node], []


class ResolveBookDownloads(SphinxPostTransform):
    """A link where the HTML build serves the file, plain text anywhere else."""

    default_priority = 10

    def run(self, **kwargs) -> None:
        builder = self.app.builder
        for node in list(self.document.findall(book_download)):
            text = node.astext()
            # A pattern names a file whose name carries the version: sinpe-*.whl.
            served = sorted((Path(self.app.outdir) / DOWNLOADS).glob(node["filename"]))
            if builder.format == "html" and len(served) == 1 and served[0].is_file():
                filename = served[0].name
                uri = relative_uri(
                    builder.get_target_uri(self.env.docname), f"{DOWNLOADS}/{filename}"
                )
                link = nodes.reference("", text, refuri=uri, internal=True, classes=["download"])
                node.replace_self(link)
            else:
                node.replace_self(nodes.inline(text, text))


def purge_book_downloads(app, env, docname) -> None:
    getattr(env, "book_download_docs", set()).discard(docname)


def merge_book_downloads(app, env, docnames, other) -> None:
    env.book_download_docs = getattr(env, "book_download_docs", set()) | (
        getattr(other, "book_download_docs", set()) & set(docnames)
    )


def rewrite_book_downloads(app, env, added, changed, removed) -> list[str]:
    """Pages with a download link are written at every build: the PDF may come or go."""
    return sorted(getattr(env, "book_download_docs", set()) - set(removed))


#: A frame of Matplotlib's ``to_jshtml`` player: ``frames[23] = "data:image/png;base64,..."``.
ANIMATION_FRAME = re.compile(r'frames\[(\d+)\] = "data:image/png;base64,([A-Za-z0-9+/=]+)"')
ANIMATION_ALT = re.compile(r'<img id="_anim_img\w*"[^>]*? alt="([^"]*)"')


class AnimationStill(SphinxPostTransform):
    """In the PDF, an animation's output is its last frame and a note.

    The LaTeX builder cannot show the player (``text/html``), so myst-nb would fall back
    to the output's ``text/plain``, ``<IPython.core.display.HTML object>``. Runs before
    myst-nb's ``SelectMimeType`` (priority 4) picks the MIME type of each output.
    """

    default_priority = 3
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            html = "".join(
                raw.astext()
                for child in bundle.children
                if child.get("mime_type") == "text/html"
                for raw in child.findall(nodes.raw)
            )
            frames = ANIMATION_FRAME.findall(html)
            if not frames:
                continue
            png = base64.b64decode(max(frames, key=lambda frame: int(frame[0]))[1])
            filename = f"animation-{hashlib.sha256(png).hexdigest()[:16]}.png"
            (Path(self.app.outdir) / filename).write_bytes(png)
            alt = ANIMATION_ALT.search(html)
            image = nodes.image(
                uri=filename,
                candidates={"*": filename},
                alt=alt.group(1) if alt else "the last frame of an animation",
                width="100%",
            )
            note = nodes.paragraph(
                "",
                "",
                nodes.emphasis(
                    text="An animation in the HTML version of the book; here, its last frame."
                ),
            )
            bundle.replace_self([nodes.paragraph("", "", image), note])


#: Screens that get a figure's phone variant (book.css's phone rules: the same width).
NARROW_MEDIA = "(max-width: 600px)"


class picture(nodes.General, nodes.Element):
    """A figure's image with its phone variant (``narrow``: a file in ``_images``)."""


def visit_picture(self, node) -> None:
    font = f' data-font-pt="{node["font_pt"]}"' if node.get("font_pt") else ""
    self.body.append(f'<picture class="sinpe-figure"{font}>')
    if node.get("narrow"):
        source = posixpath.join(self.builder.imgpath, node["narrow"])
        self.body.append(
            f'<source media="{NARROW_MEDIA}" srcset="{source}" '
            f'width="{node["narrow_width"]}" height="{node["narrow_height"]}">'
        )


def depart_picture(self, node) -> None:
    self.body.append("</picture>")


def _figure_metadata(path: Path) -> dict[str, dict]:
    """{sha256 of a figure's PNG: the sinpe metadata of its output} of one notebook."""
    found = {}
    for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
        for output in cell.get("outputs", []):
            png = (output.get("data") or {}).get("image/png")
            metadata = (output.get("metadata") or {}).get("image/png") or {}
            if png and (NARROW_KEY in metadata or FONT_KEY in metadata):
                digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
                found[digest] = metadata
    return found


class PhoneFigures(SphinxPostTransform):
    """Each figure of a chapter in a :class:`picture`, with its phone variant.

    myst-nb names a figure's file by the sha256 of its PNG, which finds the figure's
    output in the page's notebook; runs after myst-nb has picked each output's MIME
    type (priority 4).
    """

    default_priority = 10
    formats = ("html",)

    def run(self, **kwargs) -> None:
        source = Path(self.env.doc2path(self.env.docname))
        if source.suffix != ".ipynb":
            return
        figures = None
        for image in list(self.document.findall(nodes.image)):
            digest = Path(image["uri"]).stem
            if not re.fullmatch(r"[0-9a-f]{64}", digest):
                continue
            figures = _figure_metadata(source) if figures is None else figures
            metadata = figures.get(digest)
            if metadata is None:
                continue
            wrapper = picture(font_pt=metadata.get(FONT_KEY))
            narrow = metadata.get(NARROW_KEY)
            if narrow:
                png = base64.b64decode(narrow["data"])
                name = f"{hashlib.sha256(png).hexdigest()}-narrow.png"
                folder = Path(self.app.outdir) / self.app.builder.imagedir
                folder.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(png)
                wrapper["narrow"] = name
                wrapper["narrow_width"] = narrow["width"]
                wrapper["narrow_height"] = narrow["height"]
            # (not wrapped in a link to the full-size file: a <source> must be the
            # <img>'s sibling for the browser to pick it)
            image["classes"].append("no-scaled-link")
            image.replace_self(wrapper)
            wrapper += image


_SIGNATURE_LIST = re.compile(
    r'(<span class="sig-paren">\(</span>\s*)<dl>(.*?)</dl>(\s*<span class="sig-paren">\))', re.S
)


def _signature_lines(match: re.Match) -> str:
    lines = match[2].replace("<dd>", '<div class="sig-param-line">').replace("</dd>", "</div>")
    return f'{match[1]}<div class="sig-params">{lines}</div>{match[3]}'


def accessible_markup(app, pagename, templatename, context, doctree) -> None:
    """Fix two pieces of generated markup that the axe audit reports as serious.

    * docutils marks the reference list ``role="list"`` and each entry with the
      deprecated ``doc-biblioentry`` role, whose children axe then reports as not
      allowed in a list: without the roles it is an ordinary group of entries.
    * Sphinx writes a signature broken over lines (``python_maximum_signature_line_length``,
      so that signatures fit a phone) as a ``<dl>`` of ``<dd>`` without ``<dt>``
      inside the signature's ``<dt>``: the same lines as ``<div>`` elements.
    """
    body = context.get("body", "")
    if "citation-list" in body:
        body = body.replace(
            '<div role="list" class="citation-list">', '<div class="citation-list">'
        )
        body = body.replace(' role="doc-biblioentry"', "")
    if 'class="sig-paren"' in body:
        body = _SIGNATURE_LIST.sub(_signature_lines, body)
    context["body"] = body


def setup(app):
    app.connect("builder-inited", add_static_files)
    app.connect("builder-inited", publish_downloads)
    app.add_node(book_download)
    app.add_role("book-download", book_download_role)
    app.add_post_transform(ResolveBookDownloads)
    app.add_post_transform(AnimationStill)
    app.add_node(picture, html=(visit_picture, depart_picture))
    app.add_post_transform(PhoneFigures)
    app.connect("env-purge-doc", purge_book_downloads)
    app.connect("env-merge-info", merge_book_downloads)
    app.connect("env-get-outdated", rewrite_book_downloads)
    app.connect("html-page-context", add_markdown_download, priority=600)
    app.connect("html-page-context", launch_reader_editions, priority=600)
    app.connect("html-page-context", accessible_markup)
    app.connect("html-page-context", add_search_fixes)
    app.connect("build-finished", copy_mathjax)
    app.connect("build-finished", copy_markdown_sources)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
