/* Live cells of the sinpe book: what the first Run or Edit fetches. The loader inline in
   the page (book/_ext/live_loader.js) made the buttons and calls window.sinpeLive's
   run, edit or reset, which this defines. They fetch the page's cells
   (_static/live/pages/<page>.json) and, on Run, start the worker (live-worker.js),
   which loads Pyodide and the wheels of _static/live/ (manifest.json), all from this
   site. Each Run first runs, once and in order, every earlier cell of the page not yet
   run (hidden set-up cells included), silently. */
(function () {
  "use strict";

  const script = document.currentScript;
  const base = new URL("live/", script.src);
  const sheet = document.head.appendChild(document.createElement("link"));
  sheet.rel = "stylesheet"; // the editor's and the outputs' styles
  sheet.href = new URL("live.css", script.src);
  const page = location.pathname.split("/").pop().replace(/\.html$/, "");
  let cells = null; // [{index, source, shown, runnable}]
  let worker = null;
  let ready = null; // Promise of the worker's "ready"
  let ranUpTo = -1; // the index of the last cell run in order
  let next = 0;
  const waiting = new Map();
  let queue = Promise.resolve();

  function loadCells() {
    if (!cells) {
      cells = fetch(new URL("pages/" + page + ".json", base))
        .then((response) => {
          if (!response.ok) throw new Error("no live cells for " + page + " (" + response.status + ")");
          return response.json();
        })
        .then((data) => data.cells);
    }
    return cells;
  }

  function call(message) {
    const id = next++;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      worker.postMessage(Object.assign({ id: id }, message));
    });
  }

  function startWorker(status) {
    if (!ready) {
      worker = new Worker(new URL("live-worker.js", script.src));
      ready = new Promise((resolve, reject) => {
        worker.onmessage = (event) => {
          const message = event.data;
          if (message.type === "progress") {
            document.querySelectorAll(".sinpe-live-status.sinpe-live-loading").forEach((line) => {
              line.textContent = message.text;
            });
          } else if (message.type === "ready") {
            resolve();
          } else if (message.type === "failed") {
            reject(new Error(message.text));
          } else if (waiting.has(message.id)) {
            waiting.get(message.id)(message);
            waiting.delete(message.id);
          }
        };
      });
      worker.postMessage({ type: "init", base: base.href });
    }
    status.classList.add("sinpe-live-loading");
    return ready.finally(() => status.classList.remove("sinpe-live-loading"));
  }

  function outputArea(cell) {
    let area = cell.querySelector(":scope > .cell_output");
    if (!area) {
      area = document.createElement("div");
      area.className = "cell_output docutils container";
      cell.appendChild(area);
    }
    return area;
  }

  function show(cell, result) {
    const area = outputArea(cell);
    if (!("stored" in cell.dataset)) {
      cell.sinpeStored = Array.from(area.childNodes);
      cell.dataset.stored = "";
    }
    const live = document.createElement("div");
    live.className = "sinpe-live-output";
    if (result.stdout) live.appendChild(block("stdout", result.stdout));
    if (result.stderr) live.appendChild(block("stderr", result.stderr));
    for (const text of result.texts || []) live.appendChild(block("text", text));
    if (result.error) live.appendChild(block("error", result.error));
    for (const png of result.images || []) {
      const image = document.createElement("img");
      image.src = "data:image/png;base64," + png;
      image.alt = "The figure this cell drew, run in the page";
      live.appendChild(image);
    }
    area.replaceChildren(live);
  }

  function block(kind, text) {
    const pre = document.createElement("pre");
    pre.className = "sinpe-live-" + kind;
    pre.textContent = text;
    return pre;
  }

  function editor(cell) {
    return cell.querySelector("textarea.sinpe-live-editor");
  }

  async function run(cell, controls) {
    const index = Number(controls.dataset.cell);
    const status = controls.querySelector(".sinpe-live-status");
    const runButton = controls.querySelector(".sinpe-live-run");
    runButton.disabled = true;
    status.textContent = "Loading Python…";
    const started = performance.now();
    try {
      const all = await loadCells();
      await startWorker(status);
      const task = queue.then(async () => {
        for (const earlier of all) {
          if (earlier.index >= index) break;
          if (earlier.index <= ranUpTo || !earlier.runnable) continue;
          status.textContent = "Running the cells above, once…";
          const result = await call({ type: "run", source: earlier.source, silent: true });
          if (result.error) console.warn("live cells: cell " + earlier.index + ": " + result.error);
          ranUpTo = earlier.index;
        }
        const own = all.find((c) => c.index === index);
        const source = editor(cell) ? editor(cell).value : own.source;
        status.textContent = "Running…";
        const result = await call({ type: "run", source: source, silent: false });
        ranUpTo = Math.max(ranUpTo, index);
        return result;
      });
      queue = task.catch(() => undefined);
      const result = await task;
      show(cell, result);
      const seconds = (performance.now() - started) / 1000;
      cell.dataset.liveSeconds = seconds.toFixed(2);
      status.textContent = (result.error ? "Stopped with an error" : "Ran") + " in " + seconds.toFixed(1) + " s";
      controls.querySelector(".sinpe-live-reset").disabled = false;
    } catch (error) {
      status.textContent = "Could not run: " + error.message;
    } finally {
      runButton.disabled = false;
    }
  }

  async function edit(cell, controls) {
    if (editor(cell)) {
      editor(cell).focus();
      return;
    }
    const all = await loadCells();
    const own = all.find((c) => c.index === Number(controls.dataset.cell));
    const input = cell.querySelector(".cell_input");
    const area = document.createElement("textarea");
    area.className = "sinpe-live-editor";
    area.value = own.source;
    area.spellcheck = false;
    area.rows = Math.min(30, own.source.split("\n").length + 1);
    area.setAttribute("aria-label", "Code of cell " + own.index + " (Shift+Enter runs it)");
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.shiftKey) {
        event.preventDefault();
        run(cell, controls);
      }
    });
    input.hidden = true;
    input.after(area);
    controls.querySelector(".sinpe-live-reset").disabled = false;
    area.focus();
  }

  function reset(cell, controls) {
    const area = editor(cell);
    if (area) {
      area.remove();
      cell.querySelector(".cell_input").hidden = false;
    }
    if ("stored" in cell.dataset) {
      outputArea(cell).replaceChildren(...cell.sinpeStored);
      if (!cell.sinpeStored.length) outputArea(cell).remove();
      delete cell.dataset.stored;
    }
    controls.querySelector(".sinpe-live-status").textContent = "";
    controls.querySelector(".sinpe-live-reset").disabled = true;
  }

  window.sinpeLive = { run: run, edit: edit, reset: reset };
})();
