"""Check the built book the way a reader sees it: in headless Chromium.

Used by tests/test_site.py. The helpers here know nothing about pytest, so the
same checks can be pointed at any folder of HTML (the tests do so with a page
that is broken on purpose).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

from scripts.browser import (  # noqa: F401 (serve, INSTALL_HINT: the tests use them from here)
    CHROMIUM_ARGS,
    INSTALL_HINT,
    OFFLINE,
    find_chromium,
    serve,
)

#: Folders of the build that hold assets, not pages.
NOT_PAGES = ("_static", "_sources", "_images", "_sphinx_design_static", ".doctrees")


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


#: Widths the browser test reads every page at: a desktop and a phone (CSS px).
DESKTOP, PHONE = 1280, 390

#: Smallest text a figure may show, in CSS px (issue 30: 9 on a phone), estimated from
#: the figure's smallest font in points (its ``data-font-pt``, written from what
#: sinpe.plotting records; else the style's sinpe.plotting.MIN_FONT_SIZE), its 100 CSS
#: px per inch and the width it is shown at.
MIN_FIGURE_TEXT_PX = 9.0

#: What the checks count as a figure: images and drawings in cell outputs and figures,
#: and the animation's player (frames and controls).
FIGURES = (
    "div.cell_output img, div.cell_output svg, div.cell_output canvas, figure img, "
    "figure svg, figure canvas, div.animation"
)

# Runs inside the page once it has loaded; returns a list of problems.
PAGE_CHECKS_JS = r"""
async ({minFontPt, minTextPx, figuresSelector}) => {
  const MAX_HEADING_LINES = 2;
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

  // Printed tables keep their columns: a run of two or more lines whose fields are set
  // apart by two or more spaces must not wrap in its box (issue 41: three tables broke
  // at 390 px, though their lines were within the 54 characters book.css once assumed).
  for (const pre of article.querySelectorAll("div.cell_output pre")) {
    const style = getComputedStyle(pre);
    const inner = pre.clientWidth - parseFloat(style.paddingLeft) -
      parseFloat(style.paddingRight);
    if (!inner || style.whiteSpace === "pre") continue;
    const probe = document.createElement("span");
    probe.style.whiteSpace = "pre";
    probe.textContent = "0".repeat(100);
    pre.appendChild(probe);
    const fits = Math.floor(inner / (probe.getBoundingClientRect().width / 100));
    probe.remove();
    let run = [];
    for (const line of [...pre.textContent.split("\n"), ""]) {
      if (/\S {2,}\S/.test(line.trim())) { run.push(line); continue; }
      const wide = run.length >= 2 ? run.filter((row) => row.trimEnd().length > fits) : [];
      if (wide.length) {
        problems.push(`printed table wraps (${wide[0].trimEnd().length} > ${fits} ` +
                      `characters): ${label(pre)}`);
      }
      run = [];
    }
  }

  // Headings: no section title larger than the page's title, and none that fills the
  // screen (issue 41: H2s at 34 px under a 24.8 px H1 on a phone, titles of 3-5 lines).
  const title = article.querySelector("h1");
  const titlePx = title ? parseFloat(getComputedStyle(title).fontSize) : Infinity;
  for (const heading of article.querySelectorAll("h2, h3, h4")) {
    const style = getComputedStyle(heading);
    const size = parseFloat(style.fontSize);
    const lineHeight = parseFloat(style.lineHeight) || 1.2 * size;
    const lines = Math.round(heading.getBoundingClientRect().height / lineHeight);
    if (size > titlePx + 0.5) {
      problems.push(`heading larger than the title (${size} > ${titlePx} px): ` +
                    label(heading));
    }
    if (phone && lines > MAX_HEADING_LINES) {
      problems.push(`heading takes ${lines} lines on a phone: ${label(heading)}`);
    }
  }

  // Figures: 2x PNGs (sharp on 2x screens), shown large enough that their smallest
  // text stays legible. A <picture> shows its phone variant on a phone: its own size.
  for (const img of article.querySelectorAll("div.cell_output img")) {
    const shown = img.getBoundingClientRect().width;
    if (!img.naturalWidth || !shown) continue;
    const picture = img.closest("picture");
    const source = picture && [...picture.querySelectorAll("source")].find(
      (candidate) => new URL(candidate.srcset, document.baseURI).href === img.currentSrc);
    const cssWidth = (source && Number(source.getAttribute("width"))) ||
      parseFloat(img.style.width) || Number(img.getAttribute("width")) || img.naturalWidth;
    const name = (img.currentSrc || img.src).split("/").pop();
    if (img.naturalWidth < 2 * cssWidth - 2) {
      problems.push(`figure not sharp on 2x screens (${img.naturalWidth} px for ` +
                    `${cssWidth} CSS px): ${name}`);
    }
    const fontPt = parseFloat(picture && picture.dataset.fontPt) || minFontPt;
    const textPx = fontPt * (100 / 72) * (shown / cssWidth);
    if (textPx < minTextPx) {
      problems.push(`figure text ${textPx.toFixed(1)} CSS px < ${minTextPx}: ${name}`);
    }
  }

  // ... and whole on the screen: no figure (image, drawing, the animation's player)
  // runs off the screen or needs a sideways scroll in a box of its own.
  const scrollsX = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  for (const figure of article.querySelectorAll(figuresSelector)) {
    const box = figure.getBoundingClientRect();
    if (box.width === 0 || figure.closest("mjx-container")) continue;
    const name = figure.tagName === "IMG" ? (figure.currentSrc || figure.src).split("/").pop()
      : label(figure);
    if (box.left < -1 || box.right > viewport + 1) {
      problems.push(`figure not whole on the screen (${Math.round(box.left)} to ` +
                    `${Math.round(box.right)} of ${viewport} px): ${name}`);
      continue;
    }
    for (let parent = figure.parentElement; parent && parent !== article;
         parent = parent.parentElement) {
      if (scrollsX(parent) && parent.scrollWidth > parent.clientWidth + 2) {
        problems.push(`figure needs a sideways scroll (${parent.scrollWidth} px in a ` +
                      `${parent.clientWidth} px box): ${name}`);
        break;
      }
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


#: What the topic tests read on particular pages (chapter one's formulas, copy buttons
#: and first picture, the ledger's rows, the claims' anchors), read on every page in
#: the same visit once MathJax is done: {name: value}.
PAGE_FACTS_JS = r"""
(figuresSelector) => {
  const picture = document.querySelector("article img");
  const all = (root, selector) => [...root.querySelectorAll(selector)];
  const article = document.querySelector("article") || document.body;
  const after = (a, b) => Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
  // Shown to the reader now: laid out, not hidden, not inside a closed <details>
  // (myst-nb's hide-output) or a folded dropdown (sphinx-togglebutton: visibility).
  const shown = (el) => el.getClientRects().length > 0 &&
    el.checkVisibility({visibilityProperty: true, opacityProperty: true}) &&
    !el.closest("details:not([open])");
  // The first figure the reader sees, and whether it comes before the first display
  // formula.
  const figure = all(article, figuresSelector).find(shown);
  const formula = all(article, 'mjx-container[display="true"]').find(shown);
  // Each "Predict, then run" box: the outputs shown between it and its "Answer", and
  // whether that Answer is folded.
  const boxes = all(article, "div.admonition");
  const title = (box) => {
    const heading = box.querySelector(":scope > .admonition-title");
    return heading ? heading.textContent.trim() : "";
  };
  const predictions = boxes.filter((box) => title(box).startsWith("Predict, then run"))
    .map((box) => {
      const next = boxes.find((other) => after(box, other) &&
        (title(other).startsWith("Answer") || title(other).startsWith("Predict, then run")));
      const answer = next && title(next).startsWith("Answer") ? next : null;
      const end = next || null;
      const outputs = all(article, "div.cell_output")
        .filter((out) => after(box, out) && (!end || after(out, end)) && shown(out) &&
                         (out.textContent.trim() || out.querySelector("img, svg, canvas")))
        .map((out) => {
          const image = out.querySelector("img");
          return image ? `a figure (${(image.alt || "").slice(0, 50)})`
            : (out.innerText || "").trim().split("\n")[0].slice(0, 60);
        });
      const body = answer ? all(answer, ":scope > :not(.admonition-title)") : [];
      return {
        prompt: (box.innerText || "").replace(/\s+/g, " ")
          .replace(/^Predict, then run\s*/, "").slice(0, 60),
        answered: Boolean(answer),
        answerFolded: Boolean(answer) && body.length > 0 && !body.some(shown),
        shownOutputs: outputs,
      };
    });
  return {
    firstFigureTop: figure ? figure.getBoundingClientRect().top : null,
    figureBeforeFormula: figure ? (!formula || after(figure, formula)) : null,
    predictions: predictions,
    formulasTypeset: all(document, "mjx-container").length,
    copyButtonsOnCode: all(document, ".cell_input button.copybtn").length,
    copyButtonsOnOutputs: all(document, ".cell_output button.copybtn").length,
    firstPictureTop: picture ? picture.getBoundingClientRect().top : null,
    screenHeight: window.innerHeight,
    claimIds: all(document, '[id^="claim-"]').map((el) => el.id),
    ledgerRows: all(document, "table tbody tr")
      .filter((row) => row.querySelector(".sd-badge"))
      .map((row) => ({
        links: all(row, "a.reference.internal[href*='#claim-']").map((a) => a.getAttribute("href")),
        verdicts: all(row, ".sd-badge").map((badge) => badge.textContent),
      })),
  };
}
"""

#: Viewports of the two widths; the phone's screen has 2 device pixels per CSS px.
VIEWPORTS = {
    DESKTOP: {"viewport": {"width": DESKTOP, "height": 900}},
    PHONE: {"viewport": {"width": PHONE, "height": 844}, "device_scale_factor": 2},
}

#: Generous ceiling for any one wait (a load, a ready signal): it only ends a run
#: where the signal never comes, and is never what a test measures.
TIMEOUT_MS = 120_000


@dataclasses.dataclass
class Visit:
    """What one visit of one page at one width found."""

    #: Console errors, failed or outside requests, and PAGE_CHECKS_JS's findings.
    problems: list[str] = dataclasses.field(default_factory=list)
    #: Serious and critical axe-core findings (None: the page was not audited).
    accessibility: list[str] | None = None
    #: PAGE_FACTS_JS's answers, plus "animations": {name: frames, or None if it never moved}.
    facts: dict = dataclasses.field(default_factory=dict)
    #: What a chapter's desktop visit, cache empty, fetched until MathJax had typeset the page
    #: and no request was in flight: {URL path: bytes received, headers included}.
    loads: dict[str, int] = dataclasses.field(default_factory=dict)


class Chromium:
    """One headless Chromium for a whole test session.

    Playwright's async API runs on an event loop of this object's own, so that one
    browser can read several pages at once while the tests stay plain functions:
    ``chromium.run(coroutine)`` waits for a coroutine's result.
    """

    def __init__(self, executable: str) -> None:
        from playwright.async_api import async_playwright

        self.loop = asyncio.new_event_loop()
        self._playwright = self.run(async_playwright().start())
        self.browser = self.run(
            self._playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        )

    def run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    async def context(self, width: int):
        """A new browser context (own cookies, own viewport) at ``width``."""
        opened = await self.browser.new_context(**VIEWPORTS[width], proxy=OFFLINE)
        opened.set_default_timeout(TIMEOUT_MS)
        return opened

    def close(self) -> None:
        self.run(self.browser.close())
        self.run(self._playwright.stop())
        self.loop.close()


async def visit(
    context, url: str, screenshot: Path | None = None, audit: bool = False, measure: bool = False
) -> Visit:
    """Open ``url`` once in a new page of ``context`` and run every per-page check.

    In order: load; wait for MathJax's and the copy buttons' own ready signals; if
    ``measure`` (in a context of its own: cache empty), wait for the fonts and every
    request in flight, and note what was fetched (:attr:`Visit.loads`); read
    PAGE_FACTS_JS; play each animation until it moves; PAGE_CHECKS_JS; a full-page
    screenshot; and, if ``audit``, axe-core. Console errors and requests are watched
    throughout.
    """
    found = Visit()
    page = await context.new_page()
    finished, in_flight = [], set()
    base = urlsplit(url)
    watching = True  # what the page does by itself (not what axe does: see below)

    def problem(text: str) -> None:
        if watching:
            found.problems.append(text)

    def on_console(message):
        if message.type == "error":
            problem(f"console error: {message.text}")

    def on_request(request):
        in_flight.add(request)
        target = urlsplit(request.url)
        if target.scheme in ("http", "https") and target.netloc != base.netloc:
            problem(f"request leaves the book (not offline): {request.url}")

    page.on("request", on_request)
    page.on("console", on_console)
    page.on("pageerror", lambda error: problem(f"page error: {error}"))

    def on_finished(request):
        in_flight.discard(request)
        finished.append(request)

    capturing = False  # the full-page screenshot is being taken

    def on_failed(request):
        in_flight.discard(request)
        if capturing and request.failure == "net::ERR_ABORTED":
            # Chromium lays the page out at its full height to capture it, and on the
            # way may start a figure's phone variant (<source media>) that it cancels
            # when the capture ends: the browser's own cancel, not the page's fault.
            # Every image the page shows was loaded and checked before.
            return
        problem(f"request failed: {request.url} ({request.failure})")

    page.on("requestfinished", on_finished)
    page.on("requestfailed", on_failed)
    try:
        response = await page.goto(url, wait_until="load")
        if response is None or not response.ok:
            problem(f"page did not load: HTTP {response.status if response else '?'}")
        else:
            await _ready(page, problem)
            if measure:
                await _settled(page, in_flight)
                further = set(await page.evaluate(FURTHER_DOWN_JS, FIRST_SCREENS_PX))
                received = await _received(finished)
                found.loads = {path: n for path, n in received.items() if path not in further}
            found.facts = await page.evaluate(PAGE_FACTS_JS, FIGURES)
            found.facts["animations"] = await _play_animations(page)
            from sinpe.plotting import MIN_FONT_SIZE

            arguments = {
                "minFontPt": MIN_FONT_SIZE,
                "minTextPx": MIN_FIGURE_TEXT_PX,
                "figuresSelector": FIGURES,
            }
            found.problems.extend(await page.evaluate(PAGE_CHECKS_JS, arguments))
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            capturing = True
            await page.screenshot(path=str(screenshot), full_page=True, **SCREENSHOT)
            await _settled(page, in_flight)  # what the capture started has ended
            capturing = False
        if audit:
            # axe reads the style sheets again for its own rules, and resolves the
            # theme's `@import "../basic.css"` against the wrong folder: its 404 is
            # not the page's. (The audit was a separate visit, unwatched, before.)
            watching = False
            found.accessibility = await accessibility_problems(page)
    finally:
        await page.close()
    return found


#: How far below the window a lazy image counts as on the first screens, in CSS px:
#: Chrome's distance on a fast (4G) connection, at which it starts fetching one. Each
#: browser picks its own (measured: Debian's chromium 156 fetches down to 1250 px below
#: the window, its headless shell, which has no estimate of the network, down to about
#: 3000 px), so what a cold visit weighs is counted at this one distance.
FIRST_SCREENS_PX = 1250

#: The URL paths of the images that are shown only by lazy <img> tags more than
#: ``margin`` px below the first window: what a reader's browser fetches on scrolling.
FURTHER_DOWN_JS = """
(margin) => {
  const limit = window.innerHeight + margin, further = new Set(), near = new Set();
  for (const img of document.images) {
    const source = img.currentSrc || img.src;
    if (!source) continue;
    const path = new URL(source, location.href).pathname;
    const top = img.getBoundingClientRect().top + window.scrollY;
    (img.loading === "lazy" && top > limit ? further : near).add(path);
  }
  return [...further].filter((path) => !near.has(path));
}
"""


async def _settled(page, in_flight: set) -> None:
    """Wait until the page's fonts are loaded and none of its requests is in flight.

    (Playwright's "networkidle" waits for 500 ms without a request instead: a fixed
    wait, which on 11 chapters cost the sweep about 3 s.)"""
    deadline = asyncio.get_running_loop().time() + TIMEOUT_MS / 1000
    while True:
        await page.evaluate("async () => { await document.fonts.ready; }")
        if not in_flight:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"requests still in flight: {sorted(r.url for r in in_flight)}")
        await asyncio.sleep(0.01)


async def _received(requests) -> dict[str, int]:
    """{URL path: bytes received} of finished requests (body and headers)."""
    received: dict[str, int] = {}
    for request in list(requests):
        sizes = await request.sizes()
        path = urlsplit(request.url).path
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        received[path] = received.get(path, 0) + size
    return received


async def _ready(page, problem) -> None:
    """Wait for the page's own signals: MathJax has typeset, copy buttons are added."""
    await page.evaluate(
        "async () => { if (window.MathJax && MathJax.startup && MathJax.startup.promise)"
        " await MathJax.startup.promise; }"
    )
    from playwright.async_api import TimeoutError

    code = "div:not(.output) > div.highlight pre"  # (copybutton.js's COPYBUTTON_SELECTOR)
    try:
        await page.wait_for_function(
            f"() => !document.querySelector({code!r}) || document.querySelector('button.copybtn')"
        )
    except TimeoutError:
        problem("code cells but no copy button")


async def _play_animations(page) -> dict[str, int | None]:
    """Scroll each animation (matplotlib's HTML widget) into view: it must start by
    itself. Its number of frames, or None where no next frame came."""
    from playwright.async_api import TimeoutError

    frames: dict[str, int | None] = {}
    for image in await page.locator("img[id^='_anim_img']").all():
        name = (await image.get_attribute("id")).removeprefix("_anim_img")
        await image.scroll_into_view_if_needed()
        first = await image.get_attribute("src")
        try:
            await page.wait_for_function(
                "([id, first]) => document.getElementById(id).getAttribute('src') !== first",
                arg=[f"_anim_img{name}", first],
            )
        except TimeoutError:
            frames[name] = None
            continue
        frames[name] = int(await page.locator(f"#_anim_slider{name}").get_attribute("max")) + 1
    if frames:
        await page.evaluate("() => window.scrollTo(0, 0)")
    return frames


#: How the full-page screenshots (kept for people, uploaded by CI) are saved: one pixel
#: per CSS pixel, as JPEG. Measured on ch04 (1280 x 17231 px): PNG 1.8-2.9 s and 2.7 MB,
#: JPEG at quality 80 about 1.4 s and 2 MB; the screenshots were a quarter of the sweep.
SCREENSHOT = {"scale": "css", "type": "jpeg", "quality": 80}
SCREENSHOT_SUFFIX = ".jpg"

#: Pages read at once. Measured on 2 cores (make browser, 48 visits, axe on the 24 at
#: 1280 px, full chromium): 2 at a time 2 min 02 s, 3 at a time 2 min 04 s, 4 at a time
#: 2 min 25 s; the sweep alone in the headless shell, runs alternated: 2 at a time 88
#: and 89 s, 3 at a time 96 and 85 s. The audits keep both cores busy, so more at once
#: only queue; one per core.
AT_ONCE = max(2, os.cpu_count() or 2)


def is_chapter(relative: Path) -> bool:
    """Whether a page of the site is a chapter (book/chNN_*.html)."""
    return relative.parent == Path("book") and re.fullmatch(r"ch\d\d_.+", relative.stem) is not None


async def sweep(
    chromium: Chromium, site: Path, base: str, screenshots: Path, at_once: int = AT_ONCE
) -> dict[tuple[Path, int], Visit]:
    """Visit every page of ``site`` (served at ``base``) once at each width, ``at_once``
    pages at a time, and audit the desktop visits: {(page, width): Visit}.
    Screenshots go to ``screenshots/<width>/``."""
    # The visits of a width share a context, except a chapter's desktop visit, which has
    # one of its own: it starts with an empty cache, and measures what a reader's first
    # visit fetches (Visit.loads).
    contexts = {width: await chromium.context(width) for width in VIEWPORTS}
    # Longest first, so that no long page is left to run alone at the end: a visit
    # costs about the page's number of tags, and twice that when audited.
    tags = {
        relative: (site / relative).read_text(errors="replace").count("<")
        for relative in pages(site)
    }
    jobs = [(relative, width) for width in VIEWPORTS for relative in tags]
    jobs.sort(key=lambda job: -tags[job[0]] * (2 if job[1] == DESKTOP else 1))
    pending = iter(jobs)  # shared by the workers: each job is taken once
    visits: dict[tuple[Path, int], Visit] = {}

    async def worker():
        for relative, width in pending:
            name = relative.with_suffix("").as_posix().replace("/", "__") + SCREENSHOT_SUFFIX
            url = base + relative.as_posix()
            cold = width == DESKTOP and is_chapter(relative)
            context = await chromium.context(width) if cold else contexts[width]
            try:
                found = await visit(
                    context,
                    url,
                    screenshots / str(width) / name,
                    audit=width == DESKTOP,
                    measure=cold,
                )
            except Exception as error:  # one page's failure must not hide the others'
                found = Visit(problems=[f"the visit failed: {error!r}"])
            finally:
                if cold:
                    await context.close()
            visits[relative, width] = found

    try:
        await asyncio.gather(*(worker() for _ in range(at_once)))
    finally:
        for opened in contexts.values():
            await opened.close()
    return visits


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


async def accessibility_problems(page) -> list[str]:
    """Serious and critical axe-core findings on an open Playwright ``page`` (axe is
    injected once, then run with axe-playwright-python's default options)."""
    from axe_playwright_python.async_playwright import Axe

    response = (await Axe().run(page)).response
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
