"""Live cells on the built book, in headless Chromium (issue 41): `make browser`.

On each chapter that ``live_chapters`` names (chapter 1 first), as a reader uses it:
every shown cell that runs in the page is Run, in order, and prints what the book
stored for it (the text exactly; a figure cell shows a figure); a cell edited to an odd
width shows sinpe's own ValueError message, not a traceback; Reset brings the stored
output back; and nothing is fetched from anywhere but the site itself. The seconds of
the first Run (Pyodide's start included) and of the later ones are printed, not
asserted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import site_check

pytestmark = pytest.mark.browser


def live_chapters() -> list[str]:
    """The chapters with live cells, as _config.yml names them (the one list)."""
    import yaml

    config = yaml.safe_load((Path(__file__).resolve().parents[1] / "_config.yml").read_text())
    return config["sphinx"]["config"]["live_chapters"]


ODD = "sinpe.positional_encoding(np.arange(4), 7)"
#: The text of a cell's output area, "" if it has none (a cell that stored no output).
OUTPUT_TEXT = "c => (c.querySelector(':scope > .cell_output') || {innerText: ''}).innerText"
#: Pyodide's start and chapter 1's cells, run one after another, on 2 shared cores.
RUN_TIMEOUT_MS = 300_000


def stored(root: Path, chapter: str) -> dict[int, dict]:
    """What the twin stored for each code cell: its text (stdout, last value), its
    stderr and whether it drew a figure."""
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
        found[index] = {"text": text, "stderr": stderr, "figure": figure}
    return found


@pytest.mark.parametrize("chapter", live_chapters())
def test_a_live_chapter_runs_edits_and_resets_in_the_page(root, site, chromium, base, chapter):
    page_json = json.loads((site / f"_static/live/pages/{Path(chapter).name}.json").read_text())
    expected = stored(root, chapter)
    runnable = [cell["index"] for cell in page_json["cells"] if cell["shown"] and cell["runnable"]]
    assert len(runnable) >= 10

    async def use() -> dict:
        """What the reader's page showed and did, by name (each filled in as it is seen)."""
        seen: dict = {"requests": [], "errors": [], "warnings": [], "found": {}, "seconds": {}}
        requests, found, seconds = seen["requests"], seen["found"], seen["seconds"]
        context = await chromium.context(site_check.PHONE)
        context.on("request", lambda request: requests.append(request.url))
        page = await context.new_page()
        page.on("pageerror", lambda error: seen["errors"].append(str(error)))
        page.on(
            "console",
            lambda m: m.text.startswith("live cells:") and seen["warnings"].append(m.text),
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

    seen = chromium.run(use())
    found, seconds, odd_error = seen["found"], seen["seconds"], seen["odd_error"]
    print(
        f"\nfirst Run (cell {runnable[0]}, Pyodide's start included): {seconds[runnable[0]]:.1f} s"
    )
    for index in runnable[1:]:
        print(f"cell {index}: {seconds[index]:.2f} s")
    assert seen["errors"] == []
    assert seen["warnings"] == [], "a cell (or a hidden cell above it) failed in the page"
    for index in runnable:
        got, want = found[index], expected[index]
        assert got["errors"] == [], f"cell {index}: {got['errors']}"
        assert "".join(got["stdout"]) + "".join(got["texts"]) == want["text"], f"cell {index}"
        # (nothing more on stderr than the twin shows: no note of Matplotlib's font cache)
        assert "".join(got["stderr"]) == want["stderr"], f"cell {index}: {got['stderr']}"
        assert (got["images"] > 0) == want["figure"], f"cell {index}: figure"
    assert len(odd_error) == 1
    assert odd_error[0].startswith("ValueError: ") and "Traceback" not in odd_error[0]
    assert "d_model" in odd_error[0] and "even" in odd_error[0], odd_error[0]
    assert seen["reset_html"] == seen["stored_html"] and seen["still_editing"] == 0
    # Until the first Run the page fetches nothing of the live cells (its loader is
    # inline); the Run fetches the rest of the script, then Pyodide.
    assert [url for url in seen["before_run"] if "/_static/live" in url] == []
    assert base + "_static/live.js" in seen["requests"]
    # A package the worker unpacks on first import (SymPy) is fetched by the pages whose
    # cells import it, and only by them.
    manifest = json.loads((site / "_static/live/manifest.json").read_text())
    sources = "\n".join(cell["source"] for cell in page_json["cells"])
    for wheels in {tuple(wheels) for wheels in manifest["on_import"].values()}:
        modules = [module for module, its in manifest["on_import"].items() if tuple(its) == wheels]
        imported = any(f"import {module}" in sources for module in modules)
        fetched = [wheel for wheel in wheels if base + "_static/live/" + wheel in seen["requests"]]
        assert fetched == (list(wheels) if imported else []), modules
    outside = [
        url for url in seen["requests"] if not url.startswith(base) and not url.startswith("data:")
    ]
    assert outside == []
