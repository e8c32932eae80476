"""How long each chapter cell runs in the page's Pyodide, and which cells run there.

``python -m scripts.live_seconds measure [book/chNN_topic ...]`` (default: the chapters
``live_chapters`` names) opens the built book (``_build/html``) in headless Chromium,
starts the live cells' worker (``_static/live-worker.js``, Pyodide from the site) and
runs every code cell of each chapter's twin, hidden ones included, in order, as the
page does; it writes each cell's seconds into ``book/_live/seconds.json`` (with the
machine and the date), keyed by the cell's index and the sha256 of its source.

A cell does not run in the page, and carries the tag :data:`TAG` in its chapter, when
its source needs what a browser lacks (:data:`LACKS`: PyTorch, subprocesses, threads,
the network; such a cell is not run), when it took more than :data:`LIMIT` seconds
there (stopped at :data:`CAP`), or when it stopped with an error there. The page
skips a tagged cell, so after one the measurement starts a fresh worker and runs the
cells before it again, without it: a cell that needs what a skipped one computed is
measured as the page would run it, and stops with an error. ``tests/test_live_seconds.py``
keeps the tags and the measurement in agreement, without timing anything; the note a
tagged cell shows (:func:`reason`) is written by book/_ext/live_cells.py from the same
record.

The seconds are those of one run on whatever machine measured (``machine`` in the
file); :data:`AT_ONCE` chapters are measured at a time, each in its own worker.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import hashlib
import json
import os
import platform
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The committed measurement.
RECORD = ROOT / "book" / "_live" / "seconds.json"
#: The tag of a cell that does not run in the page.
TAG = "not-in-page"
#: A cell that runs longer than this in the page, in seconds, does not run there.
LIMIT = 10.0
#: Where the measurement stops a cell, in seconds: such a cell is "more than CAP".
CAP = 60.0
#: What a browser lacks: a cell whose source matches one of these (a regular expression
#: each) is not run in the page, nor measured.
LACKS = {
    "PyTorch": r"\bimport torch\b|\bfrom torch\b",
    "a subprocess": r"\bsubprocess\b",
    "threads or processes": r"\bthreading\b|\bmultiprocessing\b|\bconcurrent\.futures\b",
    "the network": r"\burllib\b|\brequests\.get\b",
}
#: Tags with which a page does not show a cell's source: such cells run hidden, first.
HIDDEN_TAGS = (
    "remove-cell",
    "remove_cell",
    "remove-input",
    "remove_input",
    "hide-input",
    "hide-cell",
)
#: Chapters run at once, each in its own page and worker (here and in tests/test_live.py):
#: one per core, since a worker runs on one (SINPE_LIVE_AT_ONCE overrides it). On 2
#: cores, 6 chapters took 54 s two at a time, 56 s all at once and 71 s one by one.
AT_ONCE = int(os.environ.get("SINPE_LIVE_AT_ONCE", os.cpu_count() or 2))


def source_of(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def cells(notebook: dict) -> list[dict]:
    """The code cells of ``notebook`` as the page's script reads them, in order:
    ``index``, ``source``, ``shown`` and ``runnable`` (not tagged :data:`TAG`)."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        found.append(
            {
                "index": index,
                "source": source_of(cell),
                "shown": not any(tag in HIDDEN_TAGS for tag in tags),
                "runnable": TAG not in tags,
            }
        )
    return found


def digest(source: str) -> str:
    """The key a measurement holds its cell's source by: an edited cell has none."""
    return hashlib.sha256(source.encode()).hexdigest()[:16]


def lacks(source: str) -> str | None:
    """What a browser lacks that ``source`` needs (a name of :data:`LACKS`), or None."""
    return next((what for what, pattern in LACKS.items() if re.search(pattern, source)), None)


def reason(source: str, measured: dict | None) -> str | None:
    """Why the cell of ``source`` does not run in the page, as its note says it after
    "runs in Colab or the download: ", or None if it runs there. ``measured`` is the
    cell's entry in the record (None: not measured)."""
    if (what := lacks(source)) is not None:
        return f"it needs {what}, which a browser lacks"
    if measured is None:
        return None
    if measured.get("error"):
        error = measured["error"]
        module = re.match(r"ModuleNotFoundError: .*?(?:named '([\w.]+)'|needs (\w+))", error)
        if module:
            return f"it needs {module.group(1) or module.group(2)}, which the page does not load"
        if error.startswith("NameError"):  # a name a skipped cell above defines
            return "it needs what a cell above computes, which does not run in the page"
        return f"in the page it stops with {error}"
    if measured.get("stopped"):
        return f"more than {measured['seconds']:.0f} s in the page"
    if measured["seconds"] > LIMIT:
        return f"{measured['seconds']:.0f} s in the page"
    return None


def load(path: Path = RECORD) -> dict:
    """The record: ``{"chapters": {stem: {str(index): entry}}, ...}`` (empty if none)."""
    if not path.is_file():
        return {"chapters": {}}
    return json.loads(path.read_text(encoding="utf-8"))


def entry(record: dict, chapter: str, cell: dict) -> dict | None:
    """The measurement of ``cell`` of ``chapter`` (a docname), if it is of this source."""
    found = record["chapters"].get(Path(chapter).name, {}).get(str(cell["index"]))
    if found is None or found["sha256"] != digest(cell["source"]):
        return None
    return found


def live_chapters(root: Path = ROOT) -> list[str]:
    """The chapters with live cells, as _config.yml names them (the one list)."""
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    return config["sphinx"]["config"]["live_chapters"]


def notebook(chapter: str, root: Path = ROOT) -> dict:
    return json.loads((root / f"{chapter}.ipynb").read_text(encoding="utf-8"))


# --- the measurement, in Chromium ------------------------------------------------------

#: In a page of the site: a worker of the live cells, started, and a cell run in it
#: with a ceiling (the worker is ended at the ceiling; a new one is started next time).
DRIVER_JS = r"""
() => {
  const base = new URL("/_static/live/", location.href).href;
  let worker = null, next = 0;
  const waiting = new Map();
  window.sinpeMeasure = {
    async start() {
      if (worker) worker.terminate();
      worker = new Worker(new URL("/_static/live-worker.js", location.href).href);
      const ready = new Promise((resolve, reject) => {
        worker.onmessage = (event) => {
          const m = event.data;
          if (m.type === "ready") resolve();
          else if (m.type === "failed") reject(new Error(m.text));
          else if (waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); }
        };
      });
      worker.postMessage({ type: "init", base: base });
      const started = performance.now();
      await ready;
      return (performance.now() - started) / 1000;
    },
    async run(source, capSeconds) {
      const id = next++;
      const started = performance.now();
      const done = new Promise((resolve) => waiting.set(id, resolve));
      worker.postMessage({ id: id, type: "run", source: source, silent: true });
      let timer;
      const ceiling = new Promise((resolve) => {
        timer = setTimeout(() => resolve(null), capSeconds * 1000);
      });
      const result = await Promise.race([done, ceiling]);
      clearTimeout(timer);
      const seconds = (performance.now() - started) / 1000;
      if (result === null) {
        worker.terminate();
        worker = null;
        waiting.delete(id);
        return { seconds: seconds, stopped: true };
      }
      return { seconds: seconds, error: result.error, stdout: result.stdout,
               texts: result.texts };
    },
  };
}
"""


async def measure_chapter(browser, base: str, chapter: str, report) -> dict:
    """Every code cell of ``chapter`` run as its page runs it: ``{str(index): entry}``."""
    context = await browser.new_context(proxy=_offline())
    context.set_default_timeout(600_000)
    page = await context.new_page()
    await page.goto(base + "book/intro.html", wait_until="load")
    await page.evaluate(DRIVER_JS)
    found: dict[str, dict] = {}
    kept: list[str] = []  # the sources the page's state holds, in order
    fresh = False  # False: the worker must be (re)started, and `kept` run again
    try:
        for cell in cells(notebook(chapter)):
            key, source = str(cell["index"]), cell["source"]
            if (what := lacks(source)) is not None:
                found[key] = {"sha256": digest(source), "lacks": what}
                continue
            if not fresh:
                start = await page.evaluate("() => window.sinpeMeasure.start()")
                for earlier in kept:
                    await page.evaluate(
                        "([s, c]) => window.sinpeMeasure.run(s, c)", [earlier, 10 * CAP]
                    )
                report(f"{chapter}: a worker started ({start:.1f} s), {len(kept)} cells run again")
                fresh = True
            result = await page.evaluate("([s, c]) => window.sinpeMeasure.run(s, c)", [source, CAP])
            measured = {"sha256": digest(source), "seconds": round(result["seconds"], 2)}
            if result.get("stopped"):
                measured["stopped"] = True
            elif result.get("error"):
                measured["error"] = result["error"]
            found[key] = measured
            report(
                f"{chapter} cell {key}: {result['seconds']:.2f} s"
                + (" (stopped)" if result.get("stopped") else "")
                + (f" ({result['error']})" if result.get("error") else "")
            )
            if reason(source, measured) is None:
                kept.append(source)
            else:
                fresh = False  # the page skips this cell: the state must not hold it
    finally:
        await context.close()
    return found


def _offline() -> dict:
    from scripts.browser import OFFLINE

    return OFFLINE


def machine(chromium: str) -> str:
    """The machine a measurement is of: cores, architecture, Chromium's and Pyodide's versions."""
    pins = json.loads((ROOT / "book" / "_live" / "assets.json").read_text(encoding="utf-8"))
    return (
        f"{os.cpu_count()} cores (shared), {platform.machine()}, Chromium {chromium}, "
        f"Pyodide {pins['pyodide']['version']}"
    )


async def _measure(chapters: list[str], site: Path) -> dict[str, dict]:
    from playwright.async_api import async_playwright

    from scripts.browser import CHROMIUM_ARGS, INSTALL_HINT, find_chromium, serve

    executable = find_chromium()
    if executable is None:
        raise SystemExit(INSTALL_HINT)
    gate = asyncio.Semaphore(AT_ONCE)
    with serve(site) as base:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS
            )

            async def one(chapter: str) -> dict:
                async with gate:
                    found = await measure_chapter(
                        browser, base, chapter, lambda text: print(text, flush=True)
                    )
                write({chapter: found}, browser.version)  # each as it ends: a stopped run keeps it
                return found

            results = await asyncio.gather(*(one(chapter) for chapter in chapters))
            await browser.close()
    return dict(zip(chapters, results, strict=True))


def write(measured: dict[str, dict], chromium: str, path: Path = RECORD) -> None:
    """The chapters of ``measured`` into the record, the others kept as they were."""
    record = load(path)
    record["_comment"] = (
        "Seconds of each code cell in the page's Pyodide, keyed by cell index (sha256: "
        "of its source); written by `python -m scripts.live_seconds measure`, read by "
        "book/_ext/live_cells.py and tests/test_live_seconds.py."
    )
    record["machine"] = machine(chromium)
    record["date"] = datetime.datetime.now(datetime.UTC).date().isoformat()
    record["limit"], record["cap"] = LIMIT, CAP
    for chapter, found in measured.items():
        record["chapters"][Path(chapter).name] = found
    record["chapters"] = dict(sorted(record["chapters"].items()))
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def retag(markdown: str, tagged: dict[int, bool]) -> str:
    """``markdown`` (a MyST chapter) with :data:`TAG` on its ``k``-th code cell exactly
    when ``tagged[k]`` (code cells counted from 0; a cell not in ``tagged`` is kept)."""
    lines = markdown.split("\n")
    out: list[str] = []
    k, i = -1, 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith("```{code-cell}"):
            continue
        k += 1
        if k not in tagged:
            continue
        want = tagged[k]
        if i < len(lines) and lines[i].startswith(":tags:"):
            tags = _tags(lines[i].partition(":tags:")[2])
            i += 1
            tags = _with(tags, want)
            if tags:
                out.append(f":tags: [{', '.join(tags)}]")
            elif i < len(lines) and lines[i] == "":
                i += 1  # the options' blank line goes with them
        elif i < len(lines) and lines[i] == "---":
            out.append(lines[i])
            i += 1
            block = []
            while lines[i] != "---":
                block.append(lines[i])
                i += 1
            at = next((n for n, text in enumerate(block) if text.startswith("tags:")), None)
            tags = _with(_tags(block[at].partition("tags:")[2]) if at is not None else [], want)
            if at is not None:
                del block[at]
            if tags:
                block.insert(0 if at is None else at, f"tags: [{', '.join(tags)}]")
            out.extend(block)
        elif want:
            out += [f":tags: [{TAG}]", ""]  # options, then a blank line, as the book writes
    return "\n".join(out)


def _tags(text: str) -> list[str]:
    return [tag.strip() for tag in text.strip().strip("[]").split(",") if tag.strip()]


def _with(tags: list[str], want: bool) -> list[str]:
    kept = [tag for tag in tags if tag != TAG]
    return [*kept, TAG] if want else kept


def tag(chapter: str, record: dict, root: Path = ROOT) -> list[int]:
    """Write :data:`TAG` into the chapter's ``.md`` where the record says the page cannot
    run a cell, and take it off elsewhere; the indices of the cells it changed."""
    found = cells(notebook(chapter, root))
    want = {
        k: reason(cell["source"], entry(record, chapter, cell)) is not None
        for k, cell in enumerate(found)
    }
    changed = [cell["index"] for k, cell in enumerate(found) if want[k] == cell["runnable"]]
    path = root / f"{chapter}.md"
    path.write_text(retag(path.read_text(encoding="utf-8"), want), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "command",
        choices=["measure", "tag"],
        help="measure: run the cells, write the record; tag: write the tags it implies",
    )
    parser.add_argument("chapters", nargs="*", help="docnames, e.g. book/ch04_transformer")
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html")
    args = parser.parse_args(argv)
    chapters = [chapter.removesuffix(".md") for chapter in args.chapters] or live_chapters()
    if args.command == "tag":
        record = load()
        for chapter in chapters:
            changed = tag(chapter, record)
            print(f"{chapter}: {len(changed)} cells retagged {changed}; rebuild its twin")
        return 0
    if not (args.site / "_static" / "live" / "manifest.json").is_file():
        print(f"{args.site} has no live cells' runtime: build the book first", file=sys.stderr)
        return 1
    measured = asyncio.run(_measure(chapters, args.site))
    for chapter in chapters:
        book = notebook(chapter)
        for cell in cells(book):
            why = reason(cell["source"], measured[chapter].get(str(cell["index"])))
            tagged = not cell["runnable"]
            if (why is not None) != tagged:
                what = "tag it" if why else "untag it"
                print(f"{chapter} cell {cell['index']}: {what} {TAG!r} ({why or 'runs'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
