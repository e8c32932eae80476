"""The built book in a real browser (headless Chromium): `make browser`, part of `make test`.

Needs `_build/html` (`make book`) and Debian's `chromium`. Without a browser the
tests skip with a hint, except under CI=true, where a missing browser fails.
Screenshots of every page go to `_build/screenshots/`.

One browser serves the whole session, and every page is visited once at each width
(the `visits` fixture, several pages at a time): each visit runs every per-page check,
and the tests below assert over what the visits found, one kind of check per test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import site_check

pytestmark = pytest.mark.browser

DESKTOP, PHONE = site_check.DESKTOP, site_check.PHONE
CHAPTER_ONE = Path("book/ch01_definition.html")


CHAPTERS = sorted(
    Path("book") / path.with_suffix(".html").name
    for path in (Path(__file__).resolve().parents[1] / "book").glob("ch[0-9][0-9]_*.md")
)


def _is_figure_problem(problem: str) -> bool:
    return problem.startswith("figure ")


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_every_page_renders_cleanly(site, width, visits, screenshots):
    """Every page at a desktop's and a phone's width: screenshots in _build/screenshots/."""
    all_pages = site_check.pages(site)
    assert len(all_pages) >= 3
    problems = [
        f"{relative} at {width} px: {problem}"
        for relative in all_pages
        for problem in visits[relative, width].problems
        if not _is_figure_problem(problem)
    ]
    assert problems == []
    taken = list((screenshots / str(width)).glob("*" + site_check.SCREENSHOT_SUFFIX))
    assert len(taken) >= len(all_pages)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_every_figure_is_whole_sharp_and_legible(site, width, visits):
    """Issue 30: every figure and the animation wholly on the screen, without a sideways
    scroll, as a 2x image, its smallest text shown at MIN_FIGURE_TEXT_PX or more."""
    problems = [
        f"{relative} at {width} px: {problem}"
        for relative in site_check.pages(site)
        for problem in visits[relative, width].problems
        if _is_figure_problem(problem)
    ]
    assert problems == []


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda chapter: chapter.stem)
def test_the_chapter_opens_on_a_picture(chapter, visits):
    """Issue 30: each chapter shows a figure within its first screen at 1280 px, before
    its first display formula."""
    assert len(CHAPTERS) >= 8
    facts = visits[chapter, DESKTOP].facts
    top, screen = facts["firstFigureTop"], facts["screenHeight"]
    assert top is not None, "no figure at all"
    assert top < screen, f"the first figure starts at {top:.0f} px, below the {screen} px screen"
    assert facts["figureBeforeFormula"], "a display formula comes before the first figure"


def test_no_prediction_is_given_away(site, visits):
    """Issue 30: after each "Predict, then run" box, no output is shown before its
    "Answer", and that Answer is folded (a dropdown the reader opens)."""
    problems, boxes = [], 0
    for relative in site_check.pages(site):
        for box in visits[relative, DESKTOP].facts.get("predictions", []):
            boxes += 1
            where = f"{relative}: {box['prompt']!r}"
            if not box["answered"]:
                problems.append(f"{where}: no Answer box follows")
            elif not box["answerFolded"]:
                problems.append(f"{where}: the Answer is not folded")
            problems += [f"{where}: shown before the Answer: {out}" for out in box["shownOutputs"]]
    assert boxes >= 10
    assert problems == []


def test_math_is_typeset_on_chapter_one(visits):
    assert visits[CHAPTER_ONE, DESKTOP].facts["formulasTypeset"] > 20


def test_search_finds_a_word_from_chapter_one(chromium, base):
    async def search():
        context = await chromium.context(DESKTOP)
        page = await context.new_page()
        await page.goto(base + "search.html?q=interleaved", wait_until="load")
        hits = page.locator("ul.search li a")
        await hits.first.wait_for(timeout=20_000)
        targets = [await hit.get_attribute("href") for hit in await hits.all()]
        await context.close()
        return targets

    targets = chromium.run(search())
    assert any("ch01_definition" in target for target in targets), targets


def test_search_finds_a_number_and_quotes_the_text(chromium, base):
    """Issue 41: "10000" found nothing (Sphinx's search drops all-digit terms), and the
    excerpts for "rotary" began with the theme's header ("...Repository")."""

    async def search(query):
        context = await chromium.context(DESKTOP)
        page = await context.new_page()
        await page.goto(base + f"search.html?q={query}", wait_until="load")
        hits = page.locator("ul.search li")
        await hits.first.wait_for(timeout=20_000)
        await page.wait_for_function(  # Sphinx's status line once every hit is listed
            "document.querySelector('#search-results')?.textContent.includes('finished')"
        )
        found = [
            (await hit.locator("a").first.get_attribute("href"), await hit.inner_text())
            for hit in await hits.all()
        ]
        await context.close()
        return found

    numbers = chromium.run(search("10000"))
    assert any("ch01_definition" in target for target, _ in numbers), numbers
    rotary = chromium.run(search("rotary"))
    assert any("ch06_rope_alibi" in target for target, _ in rotary), rotary
    for _, text in rotary:
        for header in ("Repository", "Open issue", "Download"):
            assert header not in text, text


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
<div class="cell_output" id="scrolled" style="overflow-x: auto; width: 300px"><img
  src="wide.png" alt="a figure in a box that scrolls" style="width: 600px"></div>
<div class="cell_output"><img src="wide.png" alt="a figure off the screen"
  style="width: 300px; position: relative; left: 1100px"></div>
<div class="admonition"><p class="admonition-title">Predict, then run</p><p>What is 6 x 7?</p></div>
<div class="cell_output"><pre>42, printed before the answer</pre></div>
<div class="admonition dropdown"><p class="admonition-title">Answer</p><p>42.</p></div>
<div class="admonition"><p class="admonition-title">Predict, then run</p><p>Unanswered?</p></div>
<h3>A heading that skips h2</h3>
<h4 style="font-size: 40px">A heading larger than the title, and long enough for three lines</h4>
<div class="cell_output"><pre
  style="white-space: pre-wrap; width: 150px">column  column  column  column
1.0     2.0     3.0     4.0</pre></div>
<script>console.error("something broke");</script>
<img src="http://example.org/outside.png" alt="a figure from outside the book">
<a href="nowhere.html">a dead link</a> <a href="#no-such-anchor">a dead anchor</a>
</article></body></html>
"""

# MathJax's list of the formulas it typeset (what the check reads on a real page).
BROKEN_MATHJAX = r"""<script>window.MathJax = {startup: {promise: Promise.resolve(),
  document: {math: [{display: true, math: "\\begin{aligned}\n[pe]_{2i} &= 1\\end{aligned}"},
                    {display: true, math: "\\begin{aligned}\n{[pe]}_{2i} &= 1\\end{aligned}"}]}}};
</script>"""

CLEAN_PAGE = """<!DOCTYPE html><html><head><title>clean</title>
<style>.folded > :not(.admonition-title) { visibility: hidden; height: 0; }</style>
</head><body><article>
<h1>A clean page</h1><h2>Section</h2><p>Plain text, code: <code>$$</code>.</p>
<div class="cell_output"><picture data-font-pt="10"><source media="(max-width: 600px)"
  srcset="narrow.png" width="300" height="100"><img src="wide.png" alt="a figure"
  style="width: 700px; max-width: 100%"></picture></div>
<mjx-container display="true">x</mjx-container>
<div class="admonition"><p class="admonition-title">Predict, then run</p><p>What is 6 x 7?</p></div>
<div class="cell"><details class="hide below-input"><summary>Show output</summary>
  <div class="cell_output"><pre>42, folded</pre></div></details></div>
<div class="admonition dropdown folded"><p class="admonition-title">Answer</p><p>42.</p></div>
<a href="#top">up</a><span id="top"></span>
</article></body></html>
"""


def _png(width: int, height: int) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, format="png")
    return buffer.getvalue()


def test_checker_fails_a_broken_page_and_passes_a_clean_one(chromium, tmp_path):
    page = BROKEN_PAGE.replace("<head>", "<head>" + BROKEN_MATHJAX)
    page = page.replace(
        "<pre>an output", '<pre style="white-space: pre; width: 80px; overflow: auto">an output'
    )
    (tmp_path / "broken.html").write_text(page)
    (tmp_path / "small.png").write_bytes(_png(800, 400))  # 1x, and shown at a quarter
    (tmp_path / "clean.html").write_text(CLEAN_PAGE)
    (tmp_path / "wide.png").write_bytes(_png(1400, 400))
    (tmp_path / "narrow.png").write_bytes(_png(600, 200))

    async def check(base):
        found = {}
        for width in (DESKTOP, PHONE):
            context = await chromium.context(width)
            for name in ("broken", "clean"):
                found[name, width] = await site_check.visit(context, base + f"{name}.html")
            await context.close()
        return found

    with site_check.serve(tmp_path) as base:
        visits = chromium.run(check(base))
    broken, clean = visits["broken", DESKTOP].problems, visits["clean", DESKTOP].problems
    report = "\n".join(broken)
    assert "formula loses its left side: \\begin{aligned}\n[pe]_{2i}" in report
    assert report.count("formula loses its left side") == 1  # the braced one is fine
    assert "the page scrolls sideways" in report
    assert "wider than the screen (2" in report and "div in #too-wide: a block wider" in report
    assert "cut off (" in report and "an output line much too long" in report
    assert "figure not sharp on 2x screens (800 px for 800 CSS px): small.png" in report
    assert "figure text 3.5 CSS px < 9: small.png" in report
    assert "figure needs a sideways scroll (600 px in a 300 px box): wide.png" in report
    assert "figure not whole on the screen (" in report and "of 1280 px): wide.png" in report
    facts = visits["broken", DESKTOP].facts
    assert facts["firstFigureTop"] is not None and facts["figureBeforeFormula"] is False
    answered, unanswered = facts["predictions"]
    assert answered["shownOutputs"] == ["42, printed before the answer"]
    assert answered["answered"] and not answered["answerFolded"]
    assert not unanswered["answered"]
    facts = visits["clean", DESKTOP].facts
    assert facts["figureBeforeFormula"] is True
    assert facts["predictions"] == [
        {"prompt": "What is 6 x 7?", "answered": True, "answerFolded": True, "shownOutputs": []}
    ]
    # On a phone the <picture> shows its phone variant: 300 CSS px, 2x, legible.
    assert visits["clean", PHONE].problems == []
    assert "image did not load: missing.png" in report
    assert "raw TeX left in the text" in report
    assert "traceback in a cell: Traceback: ZeroDivisionError" in report
    assert "stderr output in a cell" in report
    assert "meant to raise" not in report
    assert "heading level jumps from h1 to h3" in report
    assert "heading larger than the title (40 > " in report
    assert "printed table wraps (30 > " in report
    assert "heading takes " in "\n".join(visits["broken", PHONE].problems)
    assert "formula wider than its column (900 > 200 px) in #wide-formula" in report
    assert "console error: something broke" in report
    assert "request leaves the book (not offline): http://example.org/outside.png" in report
    assert "image did not load: http://example.org/outside.png" in report  # (never fetched)
    assert clean == []
    dead = site_check.broken_links(tmp_path)
    assert "broken.html: nowhere.html (no such file)" in dead
    assert "broken.html: #no-such-anchor (no such anchor)" in dead
    assert not [problem for problem in dead if problem.startswith("clean.html")]


def test_claims_ledger_shows_a_verdict_and_a_working_link_per_claim(visits, root):
    from sinpe import claims

    recorded = claims.read_verdicts(sorted((root / "book").glob("ch*.ipynb")))
    shown, targets = {}, {}
    for row in visits[Path("book/claims_ledger.html"), DESKTOP].facts["ledgerRows"]:
        assert len(row["links"]) == 1 and len(row["verdicts"]) == 1, row
        chapter, claim = row["links"][0].split("#claim-")
        shown[claim] = row["verdicts"][0].strip()
        targets.setdefault(chapter, []).append(claim)
    for chapter, claims_there in targets.items():  # each link leads to its cell
        ids = visits[Path("book") / chapter, DESKTOP].facts["claimIds"]
        for claim in claims_there:
            assert ids.count(f"claim-{claim}") == 1, (chapter, claim)
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


def test_no_serious_accessibility_findings(site, visits):
    """axe-core (bundled, offline) on every page at desktop width: no serious or
    critical finding."""
    problems = []
    for relative in site_check.pages(site):
        found = visits[relative, DESKTOP].accessibility
        if found is None:
            problems.append(f"{relative}: not audited (its visit failed)")
        problems += [f"{relative}: {problem}" for problem in found or []]
    assert problems == []


def test_the_audit_finds_low_contrast_and_an_unlabelled_control(chromium, tmp_path):
    (tmp_path / "bad.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><title>bad</title></head><body><main>'
        '<p style="color: #999; background: #fff">grey on white</p>'
        '<input type="range"></main></body></html>'
    )
    (tmp_path / "good.html").write_text(
        '<!DOCTYPE html><html lang="en"><head><title>good</title></head><body><main>'
        '<p>black on white</p><input type="range" aria-label="frame"></main></body></html>'
    )

    async def audit(base):
        context = await chromium.context(DESKTOP)
        found = {}
        for name in ("bad", "good"):
            visit = await site_check.visit(context, base + f"{name}.html", audit=True)
            found[name] = visit.accessibility
        await context.close()
        return found

    with site_check.serve(tmp_path) as base:
        found = chromium.run(audit(base))
    assert any("color-contrast" in problem for problem in found["bad"]), found
    assert any("label" in problem for problem in found["bad"]), found
    assert found["good"] == []


def test_copy_buttons_copy_code_not_outputs_or_prompts(site, visits):
    facts = visits[CHAPTER_ONE, DESKTOP].facts
    assert facts["copyButtonsOnCode"] > 5 and facts["copyButtonsOnOutputs"] == 0
    script = (site / "_static" / "copybutton.js").read_text()
    assert "div:not(.output) > div.highlight pre" in script
    assert r"'>>> |\\.\\.\\. |\\$ ', true" in script  # prompts (regex) are not copied


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_chapter_one_shows_a_picture_on_the_first_screen(width, visits):
    """Issue 18: a newcomer meets a picture before scrolling (the binary odometer)."""
    facts = visits[CHAPTER_ONE, width].facts
    top, screen = facts["firstPictureTop"], facts["screenHeight"]
    assert top is not None and top < 0.8 * screen, (top, screen)


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_the_clock_hands_move(width, visits):
    """Issue 18: the clock-hands animation plays in the static page, without a kernel.

    Each visit scrolls it into view and waits for its next frame (no time asserted; the
    timeout only ends a run where it never moves)."""
    frames = visits[Path("book/ch03_seeing.html"), width].facts["animations"]
    assert frames.get("clock") is not None, frames  # None: it never moved
    assert frames["clock"] >= 20


# --- The sliders (book/_ext/sliders.py, issue 41): each moved with the keyboard, and
# what it then draws compared with sinpe's numbers.


def _sliders_extension(root):
    import importlib.util

    spec = importlib.util.spec_from_file_location("sliders", root / "book/_ext/sliders.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def _press(figure, name: str, key: str, times: int = 1) -> None:
    control = figure.locator(f'input[type="range"][name="{name}"]')
    await control.focus()
    for _ in range(times):
        await control.press(key)


async def _attribute(figure, selector: str, name: str) -> float:
    return float(await figure.locator(selector).first.get_attribute(name))


async def _data(figure, name: str, page, expected: str | None = None) -> str:
    """``data-<name>`` of the figure; with ``expected``, once it has that value (the
    aliasing search runs after the drawing)."""
    if expected is not None:
        handle = await figure.element_handle()
        await page.wait_for_function(
            "([el, name, value]) => el.dataset[name] === value", arg=[handle, name, expected]
        )
    import re

    return await figure.get_attribute("data-" + re.sub("([A-Z])", r"-\1", name).lower())


async def _move_ladder(page, figure, config) -> list[str]:
    import sinpe
    from sinpe import geometry

    found = []
    for base in (10000.0, 100.0):
        if base == 100.0:
            await _press(figure, "base", "ArrowLeft", 2)  # 10000 -> 1000 -> 100
        far = geometry.aliasing(config["context"], 128, base=base, far=config["far"])
        await _data(figure, "farOffset", page, str(far.far_offset))
        assert await _data(figure, "looksLike", page) == str(far.looks_like)
        text = await figure.locator(".sinpe-slider-readout").last.inner_text()
        assert f"{far.far_offset:,} is the closest" in text, text
        found.append(f"base {base:.0f}: far offset {far.far_offset}")
    await _press(figure, "width", "ArrowRight")  # 128 -> 256
    longest = float(sinpe.wavelengths(256, base=100.0)[-1])
    await page.wait_for_function(
        "([el, v]) => Math.abs(Number(el.dataset.longest) - v) < 1e-6",
        arg=[await figure.element_handle(), longest],
    )
    return found


async def _move_rope_pair(page, figure, config) -> list[str]:
    import numpy as np

    from sinpe.rope import apply_rope

    q, k, theta, key = config["q"], config["k"], config["theta"], config["key"]
    scores = []
    for shift, gap, presses in ((0, 2, ()), (5, 2, (("shift", 5),)), (5, 3, (("gap", 1),))):
        for name, times in presses:
            await _press(figure, name, "ArrowRight", times)
        n, m = key + shift, key + shift + gap
        q_m = apply_rope(q, m, frequencies=[theta])
        k_n = apply_rope(k, n, frequencies=[theta])
        for vector, expected in (("q", q_m), ("k", k_n)):
            drawn = [
                await _attribute(figure, f'line[data-vector="{vector}"]', axis)
                for axis in ("x2", "y2")
            ]
            assert np.allclose(drawn, expected, atol=1e-12), (vector, m, n, drawn)
        score = float(await _data(figure, "score", page))
        assert abs(score - float(q_m @ k_n)) < 1e-9
        scores.append(score)
    assert abs(scores[0] - scores[1]) < 1e-9 and abs(scores[1] - scores[2]) > 0.01, scores
    return [f"score {score:.4f}" for score in scores]


async def _move_shift_pairs(page, figure, config) -> list[str]:
    import numpy as np

    import sinpe
    from sinpe import geometry

    found = []
    for p, k, name in ((1, 2, None), (4, 2, "position"), (4, 3, "shift")):
        if name == "position":
            await _press(figure, "position", "ArrowRight", 3)
        elif name == "shift":
            await _press(figure, "shift", "ArrowRight")
        d_model = config["width"]
        there = sinpe.positional_encoding(p + k, d_model, base=config["base"])
        for pair in (0, d_model // 2 - 1):
            dot = figure.locator(f'circle[data-pair="{pair}"]')
            drawn = [float(await dot.get_attribute(axis)) for axis in ("cx", "cy")]
            assert np.allclose(drawn, there[2 * pair : 2 * pair + 2], atol=1e-12), (p, k, pair)
        expected = float(geometry.dot_product_by_offset(k, d_model, base=config["base"]))
        assert abs(float(await _data(figure, "dot", page)) - expected) < 1e-9, (p, k)
        found.append(f"p {p}, k {k}: {expected:.4f}")
    return found


async def _move_heatmap(page, figure, config) -> list[str]:
    import numpy as np

    import sinpe

    found = []
    for width, base, press in ((128, 10000.0, None), (126, 10000.0, "width"), (126, 100.0, "base")):
        if press == "width":
            await _press(figure, "width", "ArrowLeft")
        elif press == "base":
            await _press(figure, "base", "ArrowLeft", 2)
        positions, rows = np.arange(1, config["positions"] + 1), config["rows"]
        table = sinpe.positional_encoding(positions, width, base=base).T
        bottom = float(np.abs(np.diff(table, axis=1)).mean(axis=1)[:rows].mean())
        assert abs(float(await _data(figure, "bottom", page)) - bottom) < 1e-9, (width, base)
        assert int(await figure.locator("canvas").get_attribute("height")) == width
        text = await figure.locator(".sinpe-slider-readout").inner_text()
        assert f"components 1\N{EN DASH}{rows} {bottom:.2f}" in text, text
        found.append(f"d {width}, base {base:.0f}: {bottom:.2f}")
    return found


MOVES = {
    "ladder": _move_ladder,
    "rope-pair": _move_rope_pair,
    "shift-pairs": _move_shift_pairs,
    "heatmap": _move_heatmap,
}


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_every_slider_moves_its_figure(root, site, chromium, base, width):
    """Issue 41: each slider of the book, moved with the keyboard, redraws its figure
    with sinpe's numbers (its drawn coordinates and readouts)."""
    kinds = _sliders_extension(root).KINDS
    assert set(MOVES) == set(kinds)
    where = {}
    for relative in site_check.pages(site):
        text = (site / relative).read_text()
        for kind in kinds:
            if f'data-kind="{kind}"' in text:
                where.setdefault(kind, relative)
    assert set(where) == set(kinds), f"no page has the sliders {set(kinds) - set(where)}"

    async def move():
        context = await chromium.context(width)
        page = await context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        found = {}
        try:
            for kind, relative in sorted(where.items()):
                await page.goto(base + relative.as_posix(), wait_until="load")
                figure = page.locator(f'figure.sinpe-slider[data-kind="{kind}"]')
                await figure.locator("input[type=range]").first.wait_for()
                found[kind] = await MOVES[kind](page, figure, kinds[kind])
        finally:
            await context.close()
        return found, errors

    found, errors = chromium.run(move())
    assert errors == []
    assert set(found) == set(kinds)
