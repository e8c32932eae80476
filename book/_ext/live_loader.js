/* The live cells' loader: the one script a live page holds, inline (live_cells.py
   writes it into the page's head without this comment and the indentation, so it
   must not hold multi-line strings). Under each cell that the extension marked with
   the class sinpe-run-N it puts Run, Edit and Reset, named for the cell ("Run cell
   6"), and a status line; the first click fetches the rest, _static/live.js, and
   hands it the click (a failed fetch is tried again on the next click). The script
   is in the page's head: it waits for the page, and wires it once if met twice. */
(() => {
  let runner;
  const load = () =>
    (runner ||= new Promise((resolve, reject) => {
      const tag = document.head.appendChild(document.createElement("script"));
      tag.onload = () => resolve(window.sinpeLive);
      tag.onerror = () => {
        runner = 0;
        reject(Error("live.js did not load"));
      };
      tag.src = document.documentElement.dataset.content_root + "_static/live.js";
    }));
  const make = (parent, tag, name, text) => {
    const element = parent.appendChild(document.createElement(tag));
    element.className = name;
    element.textContent = text || "";
    return element;
  };
  const wire = () => {
    if (document.querySelector(".sinpe-live-run")) return;
    make(document.head, "style", "",
      ".sinpe-live button{font:inherit;margin:.3rem .4rem 0 0;padding:.2rem .8rem;" +
      "border:1px solid var(--pst-color-border);border-radius:.25rem;" +
      "background:var(--pst-color-surface);color:inherit}.sinpe-live :disabled{opacity:.6}" +
      ".sinpe-live span,.sinpe-live-note{font-size:.85rem}");
    for (const cell of document.querySelectorAll("[class*=sinpe-run-]")) {
      const controls = document.createElement("div");
      const index = (controls.dataset.cell = cell.className.match(/sinpe-run-(\d+)/)[1]);
      controls.className = "sinpe-live";
      for (const name of ["Run", "Edit", "Reset"]) {
        const button = make(controls, "button", "sinpe-live-" + name.toLowerCase(), name);
        button.type = "button";
        button.disabled = name == "Reset";
        button.ariaLabel = name + " cell " + index;
        button.onclick = () =>
          load().then(
            (live) => live[name.toLowerCase()](cell, controls),
            (error) => (status.textContent = "Could not run: " + error.message),
          );
      }
      const status = make(controls, "span", "sinpe-live-status");
      status.role = "status";
      cell.querySelector(".cell_input").after(controls);
    }
  };
  addEventListener("DOMContentLoaded", wire);
})();
