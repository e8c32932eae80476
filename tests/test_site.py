"""The built book in a real browser (headless Chromium): `make browser`, part of `make test`.

Needs `_build/html` (`make book`) and Debian's `chromium`. Without a browser the
tests skip with a hint, except under CI=true, where a missing browser fails.
Screenshots of every page go to `_build/screenshots/`.
"""

from __future__ import annotations

import os
import shutil

import pytest
import site_check

pytestmark = pytest.mark.browser


@pytest.fixture(scope="session")
def site(root):
    built = root / "_build" / "html"
    if not (built / "book" / "intro.html").exists():
        pytest.fail("the book is not built: run `make book` first")
    return built


@pytest.fixture(scope="session")
def browser():
    executable = site_check.find_chromium()
    if executable is None:
        if os.environ.get("CI") == "true":
            pytest.fail(site_check.INSTALL_HINT)
        pytest.skip(site_check.INSTALL_HINT)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=site_check.CHROMIUM_ARGS
        )
        yield launched
        launched.close()


@pytest.fixture
def context(browser):
    opened = browser.new_context(viewport={"width": site_check.DESKTOP, "height": 900})
    yield opened
    opened.close()


@pytest.fixture
def phone(browser):
    opened = browser.new_context(
        viewport={"width": site_check.PHONE, "height": 844}, device_scale_factor=2
    )
    yield opened
    opened.close()


@pytest.fixture(scope="session")
def screenshots(root):
    folder = root / "_build" / "screenshots"
    shutil.rmtree(folder, ignore_errors=True)
    return folder


@pytest.mark.parametrize("width", [site_check.DESKTOP, site_check.PHONE])
def test_every_page_renders_cleanly(site, width, request, screenshots):
    """Every page at a desktop's and a phone's width: screenshots in _build/screenshots/."""
    browser_context = request.getfixturevalue("context" if width == site_check.DESKTOP else "phone")
    folder = screenshots / str(width)
    all_pages = site_check.pages(site)
    assert len(all_pages) >= 3
    problems = []
    with site_check.serve(site) as base:
        for relative in all_pages:
            shot = folder / (relative.with_suffix("").as_posix().replace("/", "__") + ".png")
            url = base + relative.as_posix()
            for problem in site_check.check_page(browser_context, url, shot):
                problems.append(f"{relative} at {width} px: {problem}")
    assert problems == []
    assert len(list(folder.glob("*.png"))) >= len(all_pages)


def test_math_is_typeset_on_chapter_one(site, context):
    with site_check.serve(site) as base:
        page = context.new_page()
        page.goto(base + "book/ch01_definition.html", wait_until="load")
        page.evaluate("() => MathJax.startup.promise")
        assert page.locator("mjx-container").count() > 20
        page.close()


def test_search_finds_a_word_from_chapter_one(site, context):
    with site_check.serve(site) as base:
        page = context.new_page()
        page.goto(base + "search.html?q=interleaved", wait_until="load")
        hits = page.locator("ul.search li a")
        hits.first.wait_for(timeout=20_000)
        targets = [hits.nth(i).get_attribute("href") for i in range(hits.count())]
        page.close()
    assert any("ch01_definition" in target for target in targets), targets


def test_internal_links_and_anchors_resolve(site):
    assert site_check.broken_links(site) == []


def test_download_menu_offers_ipynb_and_md(site):
    html = (site / "book" / "ch01_definition.html").read_text()
    assert "_sources/book/ch01_definition.ipynb" in html
    assert "_sources/book/ch01_definition.md" in html
    assert (site / "_sources" / "book" / "ch01_definition.md").exists()


BROKEN_PAGE = r"""<!DOCTYPE html><html><head><title>broken</title></head><body><article>
<h1>A broken page</h1>
<p>Raw display math $$x^2$$ and \begin{align} a \end{align} were never typeset.</p>
<img src="missing.png" alt="a missing figure">
<div class="cell"><div class="output traceback"><pre>Traceback: ZeroDivisionError</pre></div></div>
<div class="cell"><div class="output stderr"><pre>RuntimeWarning: overflow</pre></div></div>
<div class="cell tag_raises-exception">
  <div class="output traceback"><pre>meant to raise</pre></div>
</div>
<div id="wide-formula"><mjx-container display="true"
  style="display: block; width: 200px; overflow-x: auto"><span
  style="display: inline-block; width: 900px">a formula too wide</span></mjx-container></div>
<div class="cell_output"><pre>an output line much too long for its box, cut off</pre></div>
<div id="too-wide" style="width: 2000px">a block wider than the screen</div>
<div class="cell_output"><img src="small.png" alt="a figure shown tiny"
  style="width: 800px; max-width: 200px"></div>
<h3>A heading that skips h2</h3>
<script>console.error("something broke");</script>
<a href="nowhere.html">a dead link</a> <a href="#no-such-anchor">a dead anchor</a>
</article></body></html>
"""

# MathJax's list of the formulas it typeset (what the check reads on a real page).
BROKEN_MATHJAX = r"""<script>window.MathJax = {startup: {promise: Promise.resolve(),
  document: {math: [{display: true, math: "\\begin{aligned}\n[pe]_{2i} &= 1\\end{aligned}"},
                    {display: true, math: "\\begin{aligned}\n{[pe]}_{2i} &= 1\\end{aligned}"}]}}};
</script>"""

CLEAN_PAGE = """<!DOCTYPE html><html><head><title>clean</title></head><body><article>
<h1>A clean page</h1><h2>Section</h2><p>Plain text, code: <code>$$</code>.</p>
<a href="#top">up</a><span id="top"></span>
</article></body></html>
"""


def _png(width: int, height: int) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, format="png")
    return buffer.getvalue()


def test_checker_fails_a_broken_page_and_passes_a_clean_one(context, tmp_path):
    page = BROKEN_PAGE.replace("<head>", "<head>" + BROKEN_MATHJAX)
    page = page.replace(
        "<pre>an output", '<pre style="white-space: pre; width: 80px; overflow: auto">an output'
    )
    (tmp_path / "broken.html").write_text(page)
    (tmp_path / "small.png").write_bytes(_png(800, 400))  # 1x, and shown at a quarter
    (tmp_path / "clean.html").write_text(CLEAN_PAGE)
    with site_check.serve(tmp_path) as base:
        broken = site_check.check_page(context, base + "broken.html")
        clean = site_check.check_page(context, base + "clean.html")
    report = "\n".join(broken)
    assert "formula loses its left side: \\begin{aligned}\n[pe]_{2i}" in report
    assert report.count("formula loses its left side") == 1  # the braced one is fine
    assert "the page scrolls sideways" in report
    assert "wider than the screen (2" in report and "div in #too-wide: a block wider" in report
    assert "cut off (" in report and "an output line much too long" in report
    assert "figure not sharp on 2x screens (800 px for 800 CSS px): small.png" in report
    assert "figure text 3.5 CSS px < 10: small.png" in report
    assert "image did not load: missing.png" in report
    assert "raw TeX left in the text" in report
    assert "traceback in a cell: Traceback: ZeroDivisionError" in report
    assert "stderr output in a cell" in report
    assert "meant to raise" not in report
    assert "heading level jumps from h1 to h3" in report
    assert "formula wider than its column (900 > 200 px) in #wide-formula" in report
    assert "console error: something broke" in report
    assert clean == []
    dead = site_check.broken_links(tmp_path)
    assert "broken.html: nowhere.html (no such file)" in dead
    assert "broken.html: #no-such-anchor (no such anchor)" in dead
    assert not [problem for problem in dead if problem.startswith("clean.html")]


def test_claims_ledger_shows_a_verdict_and_a_working_link_per_claim(site, context, root):
    from sinpe import claims

    recorded = claims.read_verdicts(sorted((root / "book").glob("ch*.ipynb")))
    shown, targets = {}, {}
    with site_check.serve(site) as base:
        page = context.new_page()
        page.goto(base + "book/claims_ledger.html", wait_until="load")
        rows = page.locator("table tbody tr").filter(has=page.locator(".sd-badge"))
        for index in range(rows.count()):
            row = rows.nth(index)
            href = row.locator("a.reference.internal[href*='#claim-']").get_attribute("href")
            chapter, claim = href.split("#claim-")
            shown[claim] = row.locator(".sd-badge").text_content().strip()
            targets.setdefault(chapter, []).append(claim)
        for chapter, claims_there in targets.items():  # each link leads to its cell
            page.goto(base + "book/" + chapter, wait_until="load")
            for claim in claims_there:
                assert page.locator(f"#claim-{claim}").count() == 1, (chapter, claim)
        page.close()
    assert shown == {claim: verdict.verdict for claim, verdict in recorded.items()}


def test_references_are_labelled_as_the_text_cites_them(site):
    # Issue 18: the text cites "Vaswani et al. (2017)", so the references page must not
    # label the entry "[VSP+17]".
    import re

    references = (site / "book" / "references.html").read_text()
    labels = re.findall(
        r'<span class="label"><span class="fn-bracket">\[</span>([^<]*)<', references
    )
    assert len(labels) >= 10
    for label in labels:
        assert re.fullmatch(r"[^{}+]+, (\d{4}[a-h]?|n\.d\.)", label), label
    intro = (site / "book" / "intro.html").read_text()
    anchors = re.findall(r'href="references.html#[^"]*"[^>]*>(.*?)</a>', intro)
    cited = [re.sub(r"<[^>]+>", "", text) for text in anchors]
    full = [text for text in cited if re.search(r", \d{4}", text)]  # "[Vaswani et al., 2017]"
    assert len(full) >= 5, cited
    assert set(full) <= set(labels), sorted(set(full) - set(labels))


def test_no_serious_accessibility_findings(site, context):
    """axe-core (bundled, offline) on every page: no serious or critical finding."""
    problems = []
    with site_check.serve(site) as base:
        for relative in site_check.pages(site):
            page = context.new_page()
            page.goto(base + relative.as_posix(), wait_until="load")
            page.evaluate("() => window.MathJax && MathJax.startup.promise")
            problems += [f"{relative}: {p}" for p in site_check.accessibility_problems(page)]
            page.close()
    assert problems == []


def test_the_audit_finds_low_contrast_and_an_unlabelled_control(context, tmp_path):
    (tmp_path / "bad.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><title>bad</title></head><body><main>'
        '<p style="color: #999; background: #fff">grey on white</p>'
        '<input type="range"></main></body></html>'
    )
    (tmp_path / "good.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><title>good</title></head><body><main>'
        '<p>black on white</p><input type="range" aria-label="frame"></main></body></html>'
    )
    with site_check.serve(tmp_path) as base:
        found = {}
        for name in ("bad", "good"):
            page = context.new_page()
            page.goto(base + f"{name}.html", wait_until="load")
            found[name] = site_check.accessibility_problems(page)
            page.close()
    assert any("color-contrast" in problem for problem in found["bad"]), found
    assert any("label" in problem for problem in found["bad"]), found
    assert found["good"] == []


def test_copy_buttons_copy_code_not_outputs_or_prompts(site, context):
    with site_check.serve(site) as base:
        page = context.new_page()
        page.goto(base + "book/ch01_definition.html", wait_until="load")
        page.wait_for_selector("button.copybtn", state="attached")
        on_code = page.locator(".cell_input button.copybtn").count()
        on_outputs = page.locator(".cell_output button.copybtn").count()
        page.close()
    assert on_code > 5 and on_outputs == 0
    script = (site / "_static" / "copybutton.js").read_text()
    assert "div:not(.output) > div.highlight pre" in script
    assert r"'>>> |\\.\\.\\. |\\$ ', true" in script  # prompts (regex) are not copied


@pytest.mark.parametrize("width", [site_check.DESKTOP, site_check.PHONE])
def test_chapter_one_shows_a_picture_on_the_first_screen(site, width, request):
    """Issue 18: a newcomer meets a picture before scrolling (the binary odometer)."""
    browser_context = request.getfixturevalue("context" if width == site_check.DESKTOP else "phone")
    with site_check.serve(site) as base:
        page = browser_context.new_page()
        page.goto(base + "book/ch01_definition.html", wait_until="load")
        top, screen = page.evaluate(
            "() => [document.querySelector('article img').getBoundingClientRect().top,"
            " window.innerHeight]"
        )
        page.close()
    assert top < 0.8 * screen, (top, screen)


def test_the_clock_hands_move(site, context):
    """Issue 18: the clock-hands animation plays in the static page, without a kernel."""
    with site_check.serve(site) as base:
        page = context.new_page()
        page.goto(base + "book/ch03_seeing.html", wait_until="load")
        frame = page.locator("#_anim_imgclock")
        frame.scroll_into_view_if_needed()
        first = frame.get_attribute("src")
        # It starts by itself once in view: wait for the next frame (no time asserted;
        # the timeout only ends a run where it never moves).
        page.wait_for_function(
            "(first) => document.getElementById('_anim_imgclock').src !== first",
            arg=first,
            timeout=60_000,
        )
        slider = page.locator("#_anim_sliderclock")
        frames = int(slider.get_attribute("max")) + 1
        page.close()
    assert frames >= 20
