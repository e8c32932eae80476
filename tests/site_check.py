"""Check the built book the way a reader sees it: in headless Chromium.

Used by tests/test_site.py. The helpers here know nothing about pytest, so the
same checks can be pointed at any folder of HTML (the tests do so with a page
that is broken on purpose).
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

#: Flags that keep Debian's Chromium off the network (see shared notes: toolchain.md).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
]

INSTALL_HINT = (
    "no Chromium found: install Debian's browser with `sudo apt-get install chromium` "
    "(or point SINPE_CHROMIUM at a Chrome/Chromium binary); no browser download is needed"
)

#: Folders of the build that hold assets, not pages.
NOT_PAGES = ("_static", "_sources", "_images", "_sphinx_design_static", ".doctrees")


def find_chromium() -> str | None:
    """Path of a Chromium/Chrome binary, or None."""
    candidates = [os.environ.get("SINPE_CHROMIUM"), "chromium", "chromium-browser", "chrome"]
    for candidate in candidates:
        if candidate and (found := shutil.which(candidate)):
            return found
    return None


def pages(site: Path) -> list[Path]:
    """Every HTML page of a built site (index.html is only a redirect)."""
    found = []
    for path in sorted(site.rglob("*.html")):
        relative = path.relative_to(site)
        top = relative.parts[0]
        if top in NOT_PAGES or top.startswith(".") or relative == Path("index.html"):
            continue
        found.append(relative)
    return found


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve ``site`` on a free loopback port; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


#: Widths the browser test reads every page at: a desktop and a phone (CSS px).
DESKTOP, PHONE = 1280, 390

#: Smallest text a figure may show, in CSS px, given the style's smallest font in points
#: (sinpe.plotting.MIN_FONT_SIZE) and that figures are 2x PNGs of 100 CSS px per inch.
MIN_FIGURE_TEXT_PX = 10.0

# Runs inside the page once it has loaded; returns a list of problems.
PAGE_CHECKS_JS = r"""
async ({minFontPt, minTextPx}) => {
  const problems = [];
  const article = document.querySelector("article") || document.body;
  const viewport = document.documentElement.clientWidth;
  const phone = viewport < 600;
  const label = (el) => {
    const at = el.closest("[id]");
    return `${el.tagName.toLowerCase()} in #${at ? at.id : "?"}: ` +
      (el.innerText || el.textContent || "").trim().split("\n")[0].slice(0, 60);
  };

  // Images: load them all now, then each must have pixels.
  const images = [...document.images];
  images.forEach((img) => { img.loading = "eager"; });
  const settled = (img) => new Promise((done) => {
    img.addEventListener("load", done);
    img.addEventListener("error", done);
  });
  await Promise.all(images.map((img) => (img.complete ? null : settled(img))));
  for (const img of images) {
    if (!img.complete || img.naturalWidth === 0) {
      problems.push(`image did not load: ${img.getAttribute("src")}`);
    }
  }
  for (const img of article.querySelectorAll("img")) {
    if (!(img.getAttribute("alt") || "").trim()) {
      problems.push(`image without alt text: ${img.getAttribute("src")}`);
    }
  }

  // MathJax: every formula typeset, and no raw TeX left in the visible text.
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  const formulas = article.querySelectorAll("span.math, div.math").length;
  const typeset = article.querySelectorAll("mjx-container").length;
  if (formulas > 0 && typeset < formulas) {
    problems.push(`MathJax typeset ${typeset} of ${formulas} formulas`);
  }
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => node.parentElement.closest("pre, code, script, style, mjx-container")
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  let text = "";
  while (walker.nextNode()) { text += walker.currentNode.nodeValue + " "; }
  for (const raw of ["$$", "\\begin{", "\\(", "\\[", "\\frac"]) {
    const at = text.indexOf(raw);
    if (at >= 0) {
      const context = text.slice(Math.max(0, at - 30), at + 40).trim();
      problems.push(`raw TeX left in the text: ...${context}...`);
    }
  }

  // Display formulas fit the text column: a wider one scrolls, hiding part of it.
  for (const shown of article.querySelectorAll('mjx-container[display="true"]')) {
    if (shown.scrollWidth > shown.clientWidth + 2) {
      const where = (shown.closest("[id]") || {}).id || "?";
      problems.push(`formula wider than its column (${shown.scrollWidth} > ` +
                    `${shown.clientWidth} px) in #${where}`);
    }
  }
  // A display line that starts with "[" right after \begin{aligned} is read as
  // aligned's optional argument: its left-hand side silently disappears.
  const items = (window.MathJax && MathJax.startup && MathJax.startup.document &&
                 MathJax.startup.document.math) || [];
  for (const item of items) {
    if (/\\begin\{(aligned|alignedat|gathered|split)\}\s*\[/.test(item.math || "")) {
      problems.push(`formula loses its left side: ${item.math.trim().slice(0, 60)}`);
    }
  }

  // Nothing is wider than the screen, except inside a box that scrolls sideways
  // (code listings, and figures on a phone, scroll on purpose).
  if (document.documentElement.scrollWidth > viewport + 1) {
    problems.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ` +
                  `${viewport} px)`);
  }
  const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const reported = new Set();
  for (const el of article.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= viewport + 1 || el.closest("mjx-assistive-mml")) {
      continue;  // (MathJax's copy of a formula for screen readers is never shown)
    }
    let parent = el.parentElement, contained = false;
    while (parent && parent !== document.body) {
      if (reported.has(parent) || (scrolls(parent) &&
          parent.getBoundingClientRect().right <= viewport + 1)) { contained = true; break; }
      parent = parent.parentElement;
    }
    if (!contained) {
      reported.add(el);
      problems.push(`wider than the screen (${Math.round(box.right)} > ${viewport} px): ` +
                    label(el));
    }
  }
  // ... and nothing is cut off inside its column: outputs wrap, tables and theorem
  // boxes fit, and on a desktop no code cell hides text behind a scroll bar.
  const cut = ["div.cell_output pre", "table", "div.proof", "div.admonition"];
  if (!phone) cut.push("div.cell_input pre");
  for (const el of article.querySelectorAll(cut.join(", "))) {
    const box = el.closest(".pst-scrollable-table-container") || el;
    if (el.scrollWidth > el.clientWidth + 2 || box.scrollWidth > box.clientWidth + 2) {
      problems.push(`cut off (${Math.max(el.scrollWidth, box.scrollWidth)} > ` +
                    `${Math.min(el.clientWidth, box.clientWidth)} px): ${label(el)}`);
    }
  }

  // Figures: 2x PNGs (sharp on 2x screens), shown large enough that the style's
  // smallest text stays legible.
  for (const img of article.querySelectorAll("div.cell_output img")) {
    const shown = img.getBoundingClientRect().width;
    if (!img.naturalWidth || !shown) continue;
    const cssWidth = parseFloat(img.style.width) || Number(img.getAttribute("width")) ||
      img.naturalWidth;
    if (img.naturalWidth < 2 * cssWidth - 2) {
      problems.push(`figure not sharp on 2x screens (${img.naturalWidth} px for ` +
                    `${cssWidth} CSS px): ${img.getAttribute("src")}`);
    }
    const textPx = minFontPt * (100 / 72) * (shown / cssWidth);
    if (textPx < minTextPx) {
      problems.push(`figure text ${textPx.toFixed(1)} CSS px < ${minTextPx}: ` +
                    `${img.getAttribute("src")}`);
    }
  }

  // Executed cells: no tracebacks, no stderr, except in cells meant to raise.
  const allowed = ".tag_raises-exception";
  const outputs = article.querySelectorAll(".output.traceback, .output.error, .output.stderr");
  for (const output of outputs) {
    if (!output.closest(allowed)) {
      const kind = output.classList.contains("stderr") ? "stderr output" : "traceback";
      problems.push(`${kind} in a cell: ${output.innerText.slice(0, 120)}`);
    }
  }

  // Headings: one h1, and no level skipped on the way down.
  const levels = [...article.querySelectorAll("h1, h2, h3, h4, h5, h6")]
    .map((h) => Number(h.tagName[1]));
  if (levels.filter((level) => level === 1).length !== 1) {
    problems.push(`expected exactly one h1, found ${levels.filter((l) => l === 1).length}`);
  }
  for (let i = 1; i < levels.length; i++) {
    if (levels[i] > levels[i - 1] + 1) {
      problems.push(`heading level jumps from h${levels[i - 1]} to h${levels[i]}`);
    }
  }
  return problems;
}
"""


def check_page(context, url: str, screenshot: Path | None = None) -> list[str]:
    """Open ``url`` in a new page of the Playwright ``context``; list what is wrong."""
    problems: list[str] = []
    page = context.new_page()
    base = urlsplit(url)

    def on_console(message):
        if message.type == "error":
            problems.append(f"console error: {message.text}")

    def on_request(route):
        target = urlsplit(route.request.url)
        if target.scheme in ("http", "https") and target.netloc != base.netloc:
            problems.append(f"request leaves the book (not offline): {route.request.url}")
            route.abort()
        else:
            route.continue_()

    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on(
        "requestfailed",
        lambda request: problems.append(f"request failed: {request.url} ({request.failure})"),
    )
    page.route("**/*", on_request)
    response = page.goto(url, wait_until="load")
    if response is None or not response.ok:
        problems.append(f"page did not load: HTTP {response.status if response else '?'}")
    else:
        from sinpe.plotting import MIN_FONT_SIZE

        arguments = {"minFontPt": MIN_FONT_SIZE, "minTextPx": MIN_FIGURE_TEXT_PX}
        problems.extend(page.evaluate(PAGE_CHECKS_JS, arguments))
    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(screenshot), full_page=True)
    page.close()
    return problems


class _Anchors(HTMLParser):
    """Collects the ids and the ``<a href>`` targets of one HTML file."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attributes.get(key):
                self.ids.add(attributes[key])
        if tag == "a" and attributes.get("href"):
            self.links.append(attributes["href"])


@functools.cache
def _parse(path: Path) -> _Anchors:
    parser = _Anchors()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def broken_links(site: Path) -> list[str]:
    """Internal links whose file or anchor does not exist, as 'page: href' strings."""
    problems = []
    for relative in pages(site):
        page = site / relative
        for href in _parse(page).links:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
                continue
            target_url = urljoin(relative.as_posix(), unquote(parts.path)) if parts.path else ""
            target = site / target_url if target_url else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{relative}: {href} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in _parse(target).ids:
                    problems.append(f"{relative}: {href} (no such anchor)")
    return problems


#: axe-core rules not counted, each with why. Only "serious" and "critical" findings
#: fail the audit; this list is for those that cannot be fixed in the book.
AXE_IGNORED: dict[str, str] = {
    # (none today) "region", "some content is not in a landmark", is reported for the
    # theme's light/dark logo pair on every page; it is a "moderate" finding, so it
    # does not count anyway.
}


def accessibility_problems(page) -> list[str]:
    """Serious and critical axe-core findings on an open Playwright ``page``."""
    from axe_playwright_python.sync_playwright import Axe

    response = Axe().run(page).response
    problems = []
    for violation in response["violations"]:
        if violation["impact"] not in ("serious", "critical"):
            continue
        if violation["id"] in AXE_IGNORED:
            continue
        for node in violation["nodes"]:
            target = " ".join(map(str, node["target"]))
            problems.append(f"{violation['impact']} {violation['id']}: {target}")
    return problems
