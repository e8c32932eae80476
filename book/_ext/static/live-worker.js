/* The worker of the sinpe book's live cells (static/live.js): Pyodide, from this site.

   "init" loads Pyodide from <base> (pyodide.js, its WebAssembly and standard library),
   then every wheel manifest.json names, by URL, in its order (dependencies first:
   scripts/live_assets.py read them from pyodide-lock.json); the wheels of a package in
   its "on_import" (SymPy) are fetched and unpacked only when a cell first imports it
   (an import hook, with a synchronous request, which a worker may make). "run" executes a cell's
   source in one namespace per page and answers with its stdout, stderr, the value of
   its last line, its figures (Matplotlib's Agg, PNG) and, on an exception, its message
   line ("ValueError: ..."), not the traceback. */
"use strict";

let pyodide = null;

const PRELUDE = `
import base64, contextlib, importlib, io, os, sys, sysconfig, traceback, warnings, zipfile
from js import XMLHttpRequest
os.environ["MPLBACKEND"] = "Agg"
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from pyodide.code import eval_code

plt.show = lambda *args, **kwargs: None


class _OnImport:
    """Unpacks a package's wheels (manifest.json's on_import) at its first import."""

    def __init__(self, base, wheels):
        self.base, self.wheels, self.unpacked = base, wheels, set()

    def find_spec(self, name, path=None, target=None):
        for file_name in self.wheels.get(name, []):
            if file_name in self.unpacked:
                continue
            request = XMLHttpRequest.new()
            request.open("GET", self.base + file_name, False)
            request.responseType = "arraybuffer"
            try:
                request.send()
            except Exception as error:  # offline: say so, and try again on the next import
                raise ImportError(f"{name}: could not fetch {file_name} ({error})") from error
            if request.status != 200:
                raise ImportError(f"{name}: could not fetch {file_name} (HTTP {request.status})")
            with zipfile.ZipFile(io.BytesIO(request.response.to_bytes())) as wheel:
                wheel.extractall(sysconfig.get_path("purelib"))
            self.unpacked.add(file_name)
            importlib.invalidate_caches()
        self.wheels.pop(name, None)  # all unpacked: the usual finders find it now
        return None


sys.meta_path.insert(0, _OnImport(LIVE_BASE, ON_IMPORT.to_py()))
namespace = {"__name__": "__main__"}
shown = []


def _display(*objects, raw=False, **kwargs):
    for thing in objects:
        if raw:
            continue  # a glue record: the page shows it in the prose
        if hasattr(thing, "savefig"):
            continue  # a figure: collected after the cell
        if hasattr(thing, "_repr_markdown_"):
            shown.append(thing._repr_markdown_())
        else:
            shown.append(repr(thing))


import IPython.core.display_functions as _functions
import IPython.display as _ipython_display

_functions.display = _display
_ipython_display.display = _display


def run_cell(source):
    out, err = io.StringIO(), io.StringIO()
    shown.clear()
    result = {"stdout": "", "stderr": "", "texts": [], "images": [], "error": None}
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("default")
                value = eval_code(source, namespace)
            if value is not None:
                shown.append(value._repr_markdown_() if hasattr(value, "_repr_markdown_") else repr(value))
        except BaseException as error:
            lines = traceback.format_exception_only(type(error), error)
            result["error"] = lines[-1].strip() if lines else type(error).__name__
    for number in plt.get_fignums():
        figure = plt.figure(number)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", bbox_inches="tight")
        result["images"].append(base64.b64encode(buffer.getvalue()).decode())
    plt.close("all")
    result["stdout"], result["stderr"], result["texts"] = out.getvalue(), err.getvalue(), list(shown)
    return result
`;

async function init(base) {
  const progress = (text) => postMessage({ type: "progress", text: text });
  progress("Loading Python (Pyodide)…");
  importScripts(base + "pyodide.js");
  pyodide = await loadPyodide({ indexURL: base });
  const manifest = await (await fetch(base + "manifest.json")).json();
  const total = manifest.wheels.length;
  let loaded = 0;
  progress("Loading packages: 0 of " + total + "…");
  await pyodide.loadPackage(
    manifest.wheels.map((name) => base + name),
    {
      messageCallback: (text) => {
        if (text.startsWith("Loaded")) return;
        loaded += 1;
        progress("Loading packages: " + Math.min(loaded, total) + " of " + total + "…");
      },
      errorCallback: (text) => progress(text),
    },
  );
  progress("Starting NumPy and Matplotlib…");
  pyodide.globals.set("LIVE_BASE", base);
  pyodide.globals.set("ON_IMPORT", manifest.on_import || {});
  await pyodide.runPythonAsync(PRELUDE);
  postMessage({ type: "ready" });
}

onmessage = async (event) => {
  const message = event.data;
  if (message.type === "init") {
    try {
      await init(message.base);
    } catch (error) {
      postMessage({ type: "failed", text: String(error && error.message ? error.message : error) });
    }
    return;
  }
  if (message.type === "run") {
    const runCell = pyodide.globals.get("run_cell");
    const proxy = runCell(message.source);
    const result = proxy.toJs({ dict_converter: Object.fromEntries });
    proxy.destroy();
    runCell.destroy();
    postMessage(Object.assign({ id: message.id }, result));
  }
};
