"""Live cells on the built book, in headless Chromium (issue 41): `make browser`.

On each chapter that ``live_chapters`` names, as a reader uses it: every shown cell
that runs in the page (not tagged ``not-in-page``) is Run, in order, and prints what the
book stored for it (the text exactly; a figure cell shows a figure); a cell edited to an
odd width shows sinpe's own ValueError message, not a traceback; Reset brings the stored
output back; nothing of the live cells is fetched before the first Run (the loader is
inline), SymPy only by a page whose cells import it, and nothing from anywhere but the
site itself. The chapters run
at once (``live_seconds.AT_ONCE``: one per core), one page and one Pyodide worker each,
in one browser. The seconds of the
first Run (Pyodide's start included), of the later ones and of each chapter are
printed, not asserted.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
import site_check

from scripts import live_seconds

pytestmark = pytest.mark.browser

live_chapters = live_seconds.live_chapters


#: An edit to an odd width, with its own imports (not every chapter imports ``sinpe``).
ODD = "import numpy as np\nimport sinpe\n\nsinpe.positional_encoding(np.arange(4), 7)"
#: The tag of a cell whose stored text the machine decides (nbval does not compare it
#: either): the page runs it, and its text is printed, not compared.
MACHINE_DEPENDENT = "nbval-ignore-output"

#: The text of a cell's output area, "" if it has none (a cell that stored no output).
OUTPUT_TEXT = "c => (c.querySelector(':scope > .cell_output') || {innerText: ''}).innerText"
#: Pyodide's start and a chapter's cells, run one after another, every chapter at once,
#: on 2 shared cores.
RUN_TIMEOUT_MS = 600_000


def stored(root: Path, chapter: str) -> dict[int, dict]:
    """What the twin stored for each code cell: its text (stdout, last value), its
    stderr, whether it drew a figure, and whether its text depends on the machine."""
    notebook = json.loads((root / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    found = {}
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        text, stderr, figure = "", "", False
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream" and output["name"] == "stdout":
                text += "".join(output["text"])
            if output["output_type"] == "stream" and output["name"] == "stderr":
                stderr += "".join(output["text"])
            data = output.get("data", {})
            figure = figure or "image/png" in data
            if output["output_type"] == "execute_result" and "text/plain" in data:
                text += "".join(data["text/plain"])
        tags = cell.get("metadata", {}).get("tags", [])
        found[index] = {
            "text": text,
            "stderr": stderr,
            "figure": figure,
            "machine": MACHINE_DEPENDENT in tags,
        }
    return found


async def use(chromium, base: str, chapter: str, runnable: list[int]) -> dict:
    """Run each of ``runnable`` in the chapter's page, then edit, run and reset the first:
    what the page showed and did, by name (each filled in as it is seen)."""
    seen: dict = {"requests": [], "errors": [], "warnings": [], "found": {}, "seconds": {}}
    requests, found, seconds = seen["requests"], seen["found"], seen["seconds"]
    context = await chromium.context(site_check.PHONE)
    context.on("request", lambda request: requests.append(request.url))
    page = await context.new_page()
    page.on("pageerror", lambda error: seen["errors"].append(str(error)))
    page.on(
        "console", lambda m: m.text.startswith("live cells:") and seen["warnings"].append(m.text)
    )
    try:
        await page.goto(base + chapter + ".html", wait_until="load")
        await page.locator("button.sinpe-live-run").first.wait_for(state="attached")
        seen["before_run"] = list(requests)  # the page as read: its loader made the buttons
        for index in runnable:
            controls = page.locator(f'div.sinpe-live[data-cell="{index}"]')
            if not await controls.is_visible():  # a solution's cell: open the solution
                await controls.evaluate(
                    "c => c.closest('.dropdown')"
                    ".querySelector(':scope > .admonition-title > .toggle-button').click()"
                )
                await controls.wait_for()
            run = controls.get_by_role("button", name=f"Run cell {index}", exact=True)
            cell = page.locator(".cell", has=controls)
            await run.click()
            await page.wait_for_function(
                "cell => cell.dataset.liveSeconds !== undefined",
                arg=await cell.element_handle(),
                timeout=RUN_TIMEOUT_MS,
            )
            seconds[index] = float(await cell.get_attribute("data-live-seconds"))
            output = cell.locator(".sinpe-live-output")
            found[index] = {
                "stdout": await output.locator("pre.sinpe-live-stdout").all_text_contents(),
                "stderr": await output.locator("pre.sinpe-live-stderr").all_text_contents(),
                "texts": await output.locator("pre.sinpe-live-text").all_text_contents(),
                "errors": await output.locator("pre.sinpe-live-error").all_text_contents(),
                "images": await output.locator("img").count(),
            }
        # Edit the first cell to an odd width: sinpe's message, then Reset.
        first = runnable[0]
        controls = page.locator(f'div.sinpe-live[data-cell="{first}"]')
        cell = page.locator(".cell", has=controls)
        await controls.get_by_role("button", name=f"Reset cell {first}", exact=True).click()
        seen["stored_html"] = await cell.evaluate(OUTPUT_TEXT)
        await controls.get_by_role("button", name=f"Edit cell {first}", exact=True).click()
        editor = cell.locator("textarea.sinpe-live-editor")
        await editor.fill(ODD)
        await cell.evaluate("cell => delete cell.dataset.liveSeconds")
        await editor.press("Shift+Enter")
        await page.wait_for_function(
            "cell => cell.dataset.liveSeconds !== undefined",
            arg=await cell.element_handle(),
            timeout=RUN_TIMEOUT_MS,
        )
        seen["odd_error"] = await cell.locator("pre.sinpe-live-error").all_text_contents()
        await controls.get_by_role("button", name=f"Reset cell {first}", exact=True).click()
        seen["reset_html"] = await cell.evaluate(OUTPUT_TEXT)
        seen["still_editing"] = await cell.locator("textarea.sinpe-live-editor").count()
    finally:
        await context.close()
    return seen


@pytest.fixture(scope="module")
def runs(chromium, base, site):
    """Every live chapter run at once, one page each: {chapter: what use() found}."""
    chapters = live_chapters()

    gate = asyncio.Semaphore(live_seconds.AT_ONCE)

    async def timed(chapter):
        async with gate:
            started = time.perf_counter()
            result = await use(chromium, base, chapter, runnable(site, chapter))
            return result, time.perf_counter() - started

    async def every():
        return await asyncio.gather(*(timed(c) for c in chapters), return_exceptions=True)

    started = time.perf_counter()
    done = chromium.run(every())
    print(f"\nall {len(chapters)} live chapters at once: {time.perf_counter() - started:.1f} s")
    found = {}
    for chapter, result in zip(chapters, done, strict=True):
        if isinstance(result, BaseException):
            found[chapter] = result
            continue
        print(f"{chapter}: {result[1]:.1f} s")
        found[chapter] = result[0]
    return found


def imports(sources: list[str]) -> tuple[set[str], set[str]]:
    """The top-level modules that ``sources`` import, and those they may import: theirs
    and every import of the sinpe modules they reach (scripts/changed_chapters.py)."""
    import ast

    from scripts import changed_chapters

    def top(tree: ast.AST) -> set[str]:
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.partition(".")[0])
        return names

    code = changed_chapters.parse_cells(sources)
    reachable = top(code)
    for name in changed_chapters.closure(changed_chapters.imported_modules(code)):
        path = changed_chapters._module_path(name)
        reachable |= top(ast.parse(path.read_text(encoding="utf-8")))
    return top(code), reachable


def test_some_live_chapter_imports_a_package_the_worker_loads_on_import(root, site):
    """So that the "every page that imports it fetches it" check above is exercised."""
    later = json.loads((site / "_static/live/manifest.json").read_text())["on_import"]
    assert any(
        imports([cell["source"] for cell in live_seconds.cells(live_seconds.notebook(c, root))])[0]
        & set(later)
        for c in live_chapters()
    )


def runnable(site: Path, chapter: str) -> list[int]:
    """The shown cells the chapter's page runs, as its cells' file gives them."""
    page_json = json.loads((site / f"_static/live/pages/{Path(chapter).name}.json").read_text())
    return [cell["index"] for cell in page_json["cells"] if cell["shown"] and cell["runnable"]]


@pytest.mark.parametrize("chapter", live_chapters())
def test_a_live_chapter_runs_edits_and_resets_in_the_page(root, site, base, runs, chapter):
    expected = stored(root, chapter)
    twin = live_seconds.cells(live_seconds.notebook(chapter, root))
    # the page runs the shown cells the chapter's tags leave, and at least one
    shown = runnable(site, chapter)
    assert shown == [c["index"] for c in twin if c["shown"] and c["runnable"]]
    assert shown
    if isinstance(runs[chapter], BaseException):
        raise runs[chapter]
    seen = runs[chapter]
    found, seconds, odd_error = seen["found"], seen["seconds"], seen["odd_error"]
    print(f"\nfirst Run (cell {shown[0]}, Pyodide's start included): {seconds[shown[0]]:.1f} s")
    for index in shown[1:]:
        print(f"cell {index}: {seconds[index]:.2f} s")
    assert seen["errors"] == []
    assert seen["warnings"] == [], "a cell (or a hidden cell above it) failed in the page"
    for index in shown:
        got, want = found[index], expected[index]
        assert got["errors"] == [], f"cell {index}: {got['errors']}"
        assert (got["images"] > 0) == want["figure"], f"cell {index}: figure"
        # (nothing more on stderr than the twin shows: no note of Matplotlib's font cache)
        assert "".join(got["stderr"]) == want["stderr"], f"cell {index}: {got['stderr']}"
        text = "".join(got["stdout"]) + "".join(got["texts"])
        if want["machine"]:
            print(f"cell {index} ({MACHINE_DEPENDENT}), in the page:\n{text}")
            assert text.strip(), f"cell {index}: printed nothing"
            continue
        assert text == want["text"], f"cell {index}"
    assert len(odd_error) == 1
    assert odd_error[0].startswith("ValueError: ") and "Traceback" not in odd_error[0]
    assert "d_model" in odd_error[0] and "even" in odd_error[0], odd_error[0]
    assert seen["reset_html"] == seen["stored_html"] and seen["still_editing"] == 0
    # Until the first Run the page fetches nothing of the live cells (its loader is
    # inline); the Run fetches the rest of the script, then Pyodide.
    assert [url for url in seen["before_run"] if "/_static/live" in url] == []
    assert base + "_static/live.js" in seen["requests"]
    # A package the worker unpacks on first import (SymPy, mpmath) is fetched by every
    # page whose cells import it, and by no page whose cells and the sinpe modules they
    # reach never import it.
    manifest = json.loads((site / "_static/live/manifest.json").read_text())
    page = json.loads((site / f"_static/live/pages/{Path(chapter).name}.json").read_text())
    ran = [c["source"] for c in page["cells"] if c["runnable"] and c["index"] <= shown[-1]]
    imported, reachable = imports(ran)
    later = manifest["on_import"]
    fetched = {wheel for wheels in later.values() for wheel in wheels}
    fetched = {wheel for wheel in fetched if base + "_static/live/" + wheel in seen["requests"]}
    # (the worker's requests are seen: it fetched the first wheel it loads at its start)
    assert base + "_static/live/" + manifest["wheels"][0] in seen["requests"]
    for module in imported & set(later):
        assert set(later[module]) <= fetched, module
    assert fetched <= {wheel for module in reachable & set(later) for wheel in later[module]}
    outside = [
        url for url in seen["requests"] if not url.startswith(base) and not url.startswith("data:")
    ]
    assert outside == []
