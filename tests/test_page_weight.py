"""What a reader's browser downloads to open a chapter with an empty cache: at most 2.5 MB.

Run with the browser tests (`make browser`) on the built book (`make book`):

* every file a chapter page makes the browser fetch as it opens, as named in its HTML
  (scripts, stylesheets, icons, the images not marked ``loading="lazy"``), summed from
  `_build/html` without a browser: a heavy script or image fails the day it is linked;
* what headless Chromium fetches when it opens the page with an empty cache, until
  MathJax has typeset it, its fonts are loaded and no request is in flight, which
  adds what the page loads by itself (MathJax's components and fonts, the stylesheets'
  fonts, the figures of the first screens); and none of it is Font Awesome's script or
  icon fonts, which the book replaces by the few icons it shows
  (book/_ext/page_weight.py).

The figures further down load as the reader scrolls to them (``loading="lazy"``), and
are not counted: those more than ``site_check.FIRST_SCREENS_PX`` (Chrome's distance on a
fast connection) below the first window, whichever distance the browser under test
fetches them at. Sizes are of the files as served, uncompressed: a server that
compresses sends less.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

import pytest
import site_check

pytestmark = pytest.mark.browser

#: The most a chapter page may download, cold (issue 30), in bytes.
BUDGET = 2_500_000
#: Font Awesome's script and the theme's whole icon fonts: never fetched.
WHOLE_ICON_FONT = ("/_static/scripts/fontawesome.js", "/_static/vendor/fontawesome/")
#: The most that the subset of the icon fonts the book serves instead may weigh.
ICON_SUBSET = 10_000


def chapters(site: Path) -> list[Path]:
    return sorted((site / "book").glob("ch[0-9][0-9]_*.html"))


class _Resources(HTMLParser):
    """The URLs of the files an HTML page makes the browser fetch as it opens."""

    #: (tag, attribute) pairs that fetch a file; <link> only for these rel values.
    FETCHING: ClassVar = {
        ("script", "src"),
        ("img", "src"),
        ("source", "src"),
        ("video", "poster"),
        ("audio", "src"),
        ("iframe", "src"),
        ("link", "href"),
    }
    LINK_RELS: ClassVar = {"stylesheet", "preload", "modulepreload", "icon", "shortcut icon"}

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        attributes = dict(attrs)
        if tag == "link" and attributes.get("rel", "").lower() not in self.LINK_RELS:
            return
        if tag == "img" and attributes.get("loading") == "lazy":
            return  # fetched when the reader scrolls near it
        for name, value in attributes.items():
            if (tag, name) in self.FETCHING and value:
                self.urls.append(value)
        if tag in ("img", "source") and attributes.get("srcset"):
            self.urls += [part.split()[0] for part in attributes["srcset"].split(",")]


def referenced_files(page: Path, site: Path) -> set[Path]:
    """The local files ``page`` references (data: URLs are part of the page itself)."""
    parser = _Resources()
    parser.feed(page.read_text(encoding="utf-8"))
    files = set()
    for url in parser.urls:
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        target = (page.parent / unquote(parts.path)).resolve()
        assert target.is_relative_to(site.resolve()), f"{page.name} reaches outside: {url}"
        files.add(target)
    return files


def test_a_heavy_file_is_caught(tmp_path):
    """The static measure counts scripts, stylesheets, eager images and icons, not links."""
    (tmp_path / "book").mkdir()
    for name, size in [("big.js", 3000), ("style.css", 200), ("fig.png", 50), ("next.html", 7)]:
        (tmp_path / name).write_bytes(b"x" * size)
    page = tmp_path / "book" / "ch01_x.html"
    page.write_text(
        '<link rel="stylesheet" href="../style.css?v=1"><link rel="next" href="../next.html">'
        '<script src="../big.js"></script><img src="../fig.png" alt="">'
        '<img src="data:image/png;base64,AAAA" alt=""><a href="../next.html">next</a>'
        '<img loading="lazy" src="../later.png" alt="">'
        '<script src="https://example.org/remote.js"></script>'
    )
    found = {path.name for path in referenced_files(page, tmp_path)}
    assert found == {"big.js", "style.css", "fig.png"}


def test_what_a_chapter_names_fits_the_budget(site):
    pages = chapters(site)
    assert len(pages) >= 8
    weights = {}
    for page in pages:
        files = referenced_files(page, site)
        missing = sorted(str(path.relative_to(site)) for path in files if not path.is_file())
        assert missing == [], f"{page.name} references files that are not built: {missing}"
        relative = ["/" + path.relative_to(site).as_posix() for path in files]
        assert not [path for path in relative if path.startswith(WHOLE_ICON_FONT)], page.name
        weights[page.name] = page.stat().st_size + sum(path.stat().st_size for path in files)
    too_heavy = {name: weight for name, weight in weights.items() if weight > BUDGET}
    assert too_heavy == {}, f"more than {BUDGET} bytes named by the page: {too_heavy}"


def test_a_cold_visit_counts_lazy_images_on_the_first_screens_only(chromium, tmp_path):
    """Lazy figures within FIRST_SCREENS_PX below the window count, further ones do not,
    whichever distance the browser fetches them at; an eager image counts anywhere."""
    from test_site import _png

    window = site_check.VIEWPORTS[site_check.DESKTOP]["viewport"]["height"]
    near, far = window + 500, window + site_check.FIRST_SCREENS_PX + 500
    blocks = [
        f'<img loading="lazy" src="near.png" style="position:absolute;top:{near}px" alt="">',
        f'<img loading="lazy" src="far.png" style="position:absolute;top:{far}px" alt="">',
        f'<img src="eager.png" style="position:absolute;top:{far}px;left:200px" alt="">',
    ]
    (tmp_path / "page.html").write_text(
        f'<!DOCTYPE html><html lang="en"><title>t</title><body style="height:{far + 5000}px">'
        + "".join(blocks) + "</body></html>"
    )  # fmt: skip
    for name in ("near", "far", "eager"):
        (tmp_path / f"{name}.png").write_bytes(_png(40, 40))

    async def cold():
        context = await chromium.context(site_check.DESKTOP)
        try:
            return await site_check.visit(context, base + "page.html", measure=True)
        finally:
            await context.close()

    with site_check.serve(tmp_path) as base:
        found = chromium.run(cold())
    assert not [text for text in found.problems if text.startswith("request failed")]
    assert {"/near.png", "/eager.png"} <= set(found.loads)
    assert "/far.png" not in found.loads


# Runs in the page once it has loaded: waits for MathJax to typeset it.
@pytest.fixture(scope="module")
def cold_loads(site, visits):
    """{chapter page name: {URL path: bytes received}}: each chapter opened at the
    desktop width with an empty cache, in the browser test's own visit of it
    (site_check.visit: until MathJax has typeset the page, its fonts are loaded and
    no request is in flight)."""
    loads = {page.name: visits[page.relative_to(site), site_check.DESKTOP].loads
             for page in chapters(site)}  # fmt: skip
    assert all(loads.values()), "a desktop visit measured nothing"
    return loads


def test_a_cold_chapter_transfers_at_most_the_budget(cold_loads):
    assert len(cold_loads) >= 8
    totals = {name: sum(received.values()) for name, received in cold_loads.items()}
    too_heavy = {
        name: (total, sorted(cold_loads[name].items(), key=lambda item: -item[1])[:5])
        for name, total in totals.items()
        if total > BUDGET
    }
    assert too_heavy == {}, f"more than {BUDGET} bytes, with the 5 largest files: {too_heavy}"


def test_icons_come_without_the_whole_icon_font(cold_loads):
    fetched = {path: size for received in cold_loads.values() for path, size in received.items()}
    assert [path for path in fetched if path.startswith(WHOLE_ICON_FONT)] == []
    # The icons' stylesheet, and the small subset of the font the theme's CSS draws from.
    assert "/_static/icons.css" in fetched
    subsets = {path: size for path, size in fetched.items() if path.startswith("/_static/icons/")}
    assert subsets
    assert {path: size for path, size in subsets.items() if size > ICON_SUBSET} == {}
    assert any(path.startswith("/_static/mathjax/") for path in fetched)  # MathJax still runs
