"""Sphinx extension: show a chapter's figure on a page that has no code (the intro).

```{chapter-figure} fig-heatmap
The caption, in MyST (it may cite the figure with {numref}`fig-heatmap`).
```

The figure is the very output of the chapter's cell, read from its executed twin
(``book/*.ipynb``, the cell whose ``mystnb.figure.name`` is the argument): the same
PNG, its alt text (``mystnb.image.alt``) and its phone variant
(:func:`sinpe.plotting.narrow_png`, served as book_assets' ``<picture>``). Nothing is
drawn twice and nothing is typed twice; an unknown name fails the build.

At read time the image is a ``data:`` URI (Sphinx's ``DataURIExtractor`` writes it to a
file for the PDF); on HTML pages a post-transform writes the PNG and its phone variant
to ``_images`` instead, so the page stays light and the browser caches both.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

from sinpe.plotting import FONT_KEY, NARROW_KEY

#: The class of a chapter figure's image until the HTML post-transform has placed it.
CLASS = "sinpe-chapter-figure"


def find_figure(book: Path, name: str) -> dict:
    """``{"png", "alt", "metadata", "twin"}`` of the figure named ``name`` in a twin."""
    for twin in sorted(book.glob("*.ipynb")):
        notebook = json.loads(twin.read_text(encoding="utf-8"))
        for cell in notebook.get("cells", []):
            mystnb = cell.get("metadata", {}).get("mystnb", {})
            if mystnb.get("figure", {}).get("name") != name:
                continue
            for output in cell.get("outputs", []):
                png = (output.get("data") or {}).get("image/png")
                if png:
                    return {
                        "png": png,
                        "alt": " ".join(mystnb.get("image", {}).get("alt", "").split()),
                        "metadata": (output.get("metadata") or {}).get("image/png") or {},
                        "twin": twin,
                    }
            raise ExtensionError(f"figure {name!r} in {twin.name} has no PNG output")
    raise ExtensionError(f"no executed twin in {book} has a figure named {name!r}")


class ChapterFigure(SphinxDirective):
    """``{chapter-figure} NAME``: the chapter's figure NAME, captioned by the content."""

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        book = Path(self.env.srcdir) / "book"
        found = find_figure(book, self.arguments[0])
        self.env.note_dependency(str(found["twin"]))
        if not found["alt"]:
            raise self.error(f"figure {self.arguments[0]!r} has no alt text in its twin")
        image = nodes.image(
            uri="data:image/png;base64," + found["png"],
            alt=found["alt"],
            classes=[CLASS],
        )
        image["sinpe_metadata"] = found["metadata"]
        for side in ("width", "height"):  # the 1x size, as myst-nb sizes the chapter's
            if side in found["metadata"]:
                image[side] = f"{found['metadata'][side]}px"
        # A container, not a figure: the chapter numbers the figure; here it would get a
        # number of its own ("Fig. 1") that no chapter has.
        shown = nodes.container("", nodes.paragraph("", "", image), classes=[CLASS])
        if self.content:
            self.state.nested_parse(self.content, self.content_offset, shown)
            for paragraph in shown.children[1:]:
                paragraph["classes"].append("caption")
        return [shown]


class ChapterFigureFiles(SphinxPostTransform):
    """On HTML pages, each chapter figure as files in ``_images``, with its phone variant."""

    default_priority = 9  # before book_assets' PhoneFigures (10), which leaves them alone
    formats = ("html",)

    def _write(self, png: bytes, suffix: str = "") -> str:
        name = f"{hashlib.sha256(png).hexdigest()}{suffix}.png"
        folder = Path(self.app.outdir) / self.app.builder.imagedir
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(png)
        return name

    def run(self, **kwargs) -> None:
        from book_assets import picture  # the <picture> node of the chapters' figures

        page = self.app.builder.get_target_uri(self.env.docname)
        for image in list(self.document.findall(nodes.image)):
            if CLASS not in image["classes"]:
                continue
            png = base64.b64decode(image["uri"].split(",", 1)[1])
            uri = relative_uri(page, f"{self.app.builder.imagedir}/{self._write(png)}")
            image["uri"] = uri
            image["candidates"] = {"*": uri}
            metadata = image.attributes.pop("sinpe_metadata", {})
            wrapper = picture(font_pt=metadata.get(FONT_KEY))
            narrow = metadata.get(NARROW_KEY)
            if narrow:
                name = self._write(base64.b64decode(narrow["data"]), "-narrow")
                wrapper["narrow"] = name
                wrapper["narrow_width"] = narrow["width"]
                wrapper["narrow_height"] = narrow["height"]
            image["classes"].append("no-scaled-link")
            image.replace_self(wrapper)
            wrapper += image


def setup(app):
    app.setup_extension("book_assets")
    app.add_directive("chapter-figure", ChapterFigure)
    app.add_post_transform(ChapterFigureFiles)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
