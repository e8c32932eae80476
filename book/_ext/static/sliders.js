/* Sliders of the sinpe book: figures the reader moves, drawn on SVG or canvas, no kernel.

   book/_ext/sliders.py writes each one as <figure class="sinpe-slider" data-kind=...
   data-config=...> (its controls, the book's colours); this file draws it. The formulas
   below re-implement sinpe's (frequencies, the encoding, distance and dot product by
   offset, aliasing, a RoPE turn): tests/test_sliders.py runs them in node on a grid of
   parameters and holds them to sinpe's numbers, so the page cannot drift from the
   package. In node this file exports the formulas and draws nothing. */
(function () {
  "use strict";

  // ---- The formulas ------------------------------------------------------------------

  /** w_i = base ** (-2 i / d), i < d / 2 (sinpe.frequencies). */
  function frequencies(d, base) {
    const w = [];
    for (let i = 0; i < d / 2; i++) w.push(Math.pow(base, (-2 * i) / d));
    return w;
  }

  /** [sin w_0 p, cos w_0 p, sin w_1 p, ...] (sinpe.positional_encoding, interleaved). */
  function encoding(p, w) {
    const row = [];
    for (const wi of w) row.push(Math.sin(p * wi), Math.cos(p * wi));
    return row;
  }

  /** 2 pi / w_i (sinpe.wavelengths). */
  function wavelengths(w) {
    return w.map((wi) => (2 * Math.PI) / wi);
  }

  /** |PE(p + delta) - PE(p)| = 2 sqrt(sum sin^2(delta w_i / 2)) (geometry.distance_by_offset). */
  function distanceByOffset(delta, w) {
    let sum = 0;
    for (const wi of w) {
      const s = Math.sin((delta * wi) / 2);
      sum += s * s;
    }
    return 2 * Math.sqrt(sum);
  }

  /** PE(p) . PE(p + delta) = sum cos(delta w_i) (geometry.dot_product_by_offset). */
  function dotByOffset(delta, w) {
    let sum = 0;
    for (const wi of w) sum += Math.cos(delta * wi);
    return sum;
  }

  /** Among offsets far .. context - 1, the one nearest offset 0, and the smallest offset
   * at least as far apart (geometry.aliasing). */
  function aliasing(context, w, far) {
    const distances = new Float64Array(context);
    let best = -1;
    for (let delta = 1; delta < context; delta++) {
      distances[delta] = distanceByOffset(delta, w);
      if (delta >= far && (best < 0 || distances[delta] < distances[best])) best = delta;
    }
    let looksLike = 1;
    while (distances[looksLike] < distances[best]) looksLike++;
    return { farOffset: best, distance: distances[best], looksLike: looksLike };
  }

  /** One pair [x, y] turned by position * theta (sinpe.rope.apply_rope of one pair). */
  function rotate(pair, position, theta) {
    const angle = position * theta, c = Math.cos(angle), s = Math.sin(angle);
    return [pair[0] * c - pair[1] * s, pair[0] * s + pair[1] * c];
  }

  /** The mean step per position of the rows of pe(1..positions), averaged over the first
   * and the last `rows` components (chapter 3's heatmap claim). */
  function meanChanges(w, positions, rows) {
    const table = [];
    for (let p = 1; p <= positions; p++) table.push(encoding(p, w));
    const change = [];
    for (let j = 0; j < 2 * w.length; j++) {
      let sum = 0;
      for (let p = 1; p < positions; p++) sum += Math.abs(table[p][j] - table[p - 1][j]);
      change.push(sum / (positions - 1));
    }
    const mean = (part) => part.reduce((a, b) => a + b, 0) / part.length;
    return { bottom: mean(change.slice(0, rows)), top: mean(change.slice(-rows)) };
  }

  const formulas = {
    frequencies, encoding, wavelengths, distanceByOffset, dotByOffset, aliasing, rotate,
    meanChanges,
  };
  if (typeof module === "object" && module.exports) {
    module.exports = formulas;
    return;
  }

  // ---- Drawing -----------------------------------------------------------------------

  const SVG = "http://www.w3.org/2000/svg";
  let made = 0;

  function el(name, attributes, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  function text(parent, x, y, content, attributes) {
    const node = el("text", Object.assign({ x: x, y: y }, attributes || {}), parent);
    node.textContent = content;
    return node;
  }

  /** "65,536"; "6.28" for small values; "6.3e6" style avoided: grouped digits. */
  function grouped(value, digits) {
    return value.toLocaleString("en-US", {
      minimumFractionDigits: digits, maximumFractionDigits: digits,
    });
  }

  /** The figure's controls: one labelled range input per parameter, its value shown. */
  function controls(figure, specs, redraw) {
    const box = document.createElement("div");
    box.className = "sinpe-slider-controls";
    const read = {};
    for (const spec of specs) {
      const id = `sinpe-slider-${++made}`;
      const row = document.createElement("div");
      row.className = "sinpe-slider-control";
      const label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = spec.label;
      const input = document.createElement("input");
      input.type = "range";
      input.id = id;
      input.name = spec.name;
      const values = spec.values;
      Object.assign(input, { min: 0, max: values.length - 1, step: 1 });
      input.value = String(values.indexOf(spec.value));
      const output = document.createElement("output");
      output.htmlFor = id;
      const show = () => {
        const shown = spec.digits === undefined ? grouped(read[spec.name], 0)
          : read[spec.name].toFixed(spec.digits);
        output.textContent = shown;
        input.setAttribute("aria-valuetext", `${spec.label} ${shown}`);
      };
      read[spec.name] = spec.value;
      input.addEventListener("input", () => {
        read[spec.name] = values[Number(input.value)];
        show();
        redraw(read);
      });
      show();
      row.append(label, input, output);
      box.appendChild(row);
    }
    const caption = figure.querySelector("figcaption");
    figure.insertBefore(box, caption ? caption.nextSibling : figure.firstChild);
    return read;
  }

  function readout(figure) {
    const node = document.createElement("p");
    node.className = "sinpe-slider-readout";
    node.setAttribute("aria-live", "polite");
    figure.appendChild(node);
    return node;
  }

  function panel(figure, width, height, label) {
    const svg = el("svg", {
      viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label,
      class: "sinpe-slider-plot",
    });
    figure.appendChild(svg);
    return svg;
  }

  /** Axes of a plot box: a frame, tick labels and axis titles. */
  function axes(svg, box, ticks, titles) {
    el("rect", {
      x: box.left, y: box.top, width: box.right - box.left, height: box.bottom - box.top,
      fill: "none", stroke: "currentColor", "stroke-opacity": 0.5,
    }, svg);
    for (const [x, label] of ticks.x) {
      text(svg, x, box.bottom + 14, label, { "text-anchor": "middle" });
    }
    for (const [y, label] of ticks.y) {
      text(svg, box.left - 4, y + 4, label, { "text-anchor": "end" });
    }
    text(svg, (box.left + box.right) / 2, box.bottom + 30, titles.x, { "text-anchor": "middle" });
    const middle = (box.top + box.bottom) / 2;
    text(svg, 12, middle, titles.y, {
      "text-anchor": "middle", transform: `rotate(-90 12 ${middle})`,
    });
  }

  function clear(svg) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
  }

  // §3.6: the ladder of wavelengths and the distance by offset, for any base and width.
  function ladder(figure, config) {
    const colors = config.colors;
    const top = panel(figure, 400, 200, "wavelength of each pair, log scale");
    const bottom = panel(figure, 400, 200, "distance between encodings by offset, log scale");
    const shown = readout(figure);
    const alias = readout(figure);
    const box = { left: 52, right: 392, top: 8, bottom: 160 };
    const context = config.context;
    let pending = null;
    const redraw = (read) => {
      const w = frequencies(read.width, read.base), lengths = wavelengths(w);
      // the ladder: log10 wavelength 0 .. 7 against the pair index
      clear(top);
      const y = (v) => box.bottom - ((Math.log10(v) - 0) / 7) * (box.bottom - box.top);
      const x = (i) => box.left + (i / Math.max(1, w.length - 1)) * (box.right - box.left);
      axes(top, box, {
        x: [[x(0), "0"], [x(w.length - 1), String(w.length - 1)]],
        y: [[y(1), "1"], [y(100), "100"], [y(1e4), "10⁴"], [y(1e6), "10⁶"]],
      }, { x: "pair index i", y: "wavelength" });
      el("line", {
        x1: box.left, x2: box.right, y1: y(context), y2: y(context), stroke: colors[1],
        "stroke-dasharray": "6 4", "stroke-width": 2,
      }, top);
      text(top, box.left + 6, y(context) - 5, `context ${grouped(context, 0)}`, {});
      const points = lengths.map((v, i) => `${x(i).toFixed(2)},${y(v).toFixed(2)}`).join(" ");
      el("polyline", { points: points, fill: "none", stroke: colors[0], "stroke-width": 2.5 }, top);
      // distance by offset: log10 offset 0 .. log10(context)
      clear(bottom);
      const highest = Math.sqrt(2 * read.width);
      const u = (delta) => box.left + (Math.log10(delta) / Math.log10(context)) *
        (box.right - box.left);
      const v = (dist) => box.bottom - (dist / highest) * (box.bottom - box.top);
      axes(bottom, box, {
        x: [[u(1), "1"], [u(100), "100"], [u(1e4), "10⁴"]],
        y: [[v(0), "0"], [v(Math.sqrt(read.width)), "√d"]],
      }, { x: "offset δ (positions)", y: "distance" });
      const offsets = [];
      for (let k = 0; k <= 400; k++) {
        const delta = Math.round(Math.pow(context - 1, k / 400));
        if (!offsets.length || delta > offsets[offsets.length - 1]) offsets.push(delta);
      }
      const curve = offsets.map((delta) =>
        `${u(delta).toFixed(2)},${v(distanceByOffset(delta, w)).toFixed(2)}`).join(" ");
      el("polyline", { points: curve, fill: "none", stroke: colors[0], "stroke-width": 2 }, bottom);
      const longest = lengths[lengths.length - 1];
      if (longest < context) {
        el("line", {
          x1: u(longest), x2: u(longest), y1: box.top, y2: box.bottom, stroke: colors[3],
          "stroke-dasharray": "2 3", "stroke-width": 2,
        }, bottom);
      }
      shown.textContent = `Wavelengths from ${lengths[0].toFixed(2)} to ` +
        `${grouped(longest, 0)} positions; neighbours (offset 1) are ` +
        `${distanceByOffset(1, w).toFixed(3)} apart.`;
      figure.dataset.longest = longest.toFixed(6);
      // aliasing, over every offset of the context: after the drawing, once the slider rests
      alias.textContent = "Searching every offset for look-alikes…";
      delete figure.dataset.farOffset;
      clearTimeout(pending);
      pending = setTimeout(() => {
        const found = aliasing(context, w, config.far);
        const mark = el("circle", {
          cx: u(found.farOffset), cy: v(found.distance), r: 5, fill: "none",
          stroke: colors[3], "stroke-width": 2,
        }, bottom);
        mark.dataset.offset = String(found.farOffset);
        alias.textContent = `Of the offsets ${config.far} to ${grouped(context - 1, 0)}, ` +
          `${grouped(found.farOffset, 0)} is the closest (${found.distance.toFixed(3)}): ` +
          `as close as offset ${found.looksLike}.`;
        figure.dataset.farOffset = String(found.farOffset);
        figure.dataset.looksLike = String(found.looksLike);
      }, 120);
    };
    redraw(controls(figure, config.controls, redraw));
  }

  /** A unit circle of the figure's plane, in a group with y up. */
  function circle(svg, cx, cy, radius) {
    const group = el("g", { transform: `translate(${cx} ${cy}) scale(${radius} ${-radius})` }, svg);
    el("circle", {
      cx: 0, cy: 0, r: 1, fill: "none", stroke: "currentColor", "stroke-opacity": 0.4,
      "vector-effect": "non-scaling-stroke",
    }, group);
    return group;
  }

  function arrow(group, to, color, id, faint) {
    return el("line", {
      x1: 0, y1: 0, x2: to[0], y2: to[1], stroke: color,
      "stroke-width": faint ? 1.5 : 3, "stroke-dasharray": faint ? "2 3" : "none",
      "stroke-opacity": faint ? 0.7 : 1, "vector-effect": "non-scaling-stroke",
      "marker-end": `url(#${id})`,
    }, group);
  }

  function arrowHeads(svg, colors) {
    const defs = el("defs", {}, svg);
    return colors.map((color) => {
      const id = `sinpe-head-${++made}`;
      const marker = el("marker", {
        id: id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 4, markerHeight: 4,
        orient: "auto-start-reverse",
      }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", fill: color }, marker);
      return id;
    });
  }

  /** An arc of radius r from angle a to angle b (radians), in a y-up group. */
  function arcPath(r, a, b) {
    const large = Math.abs(b - a) > Math.PI ? 1 : 0, sweep = b > a ? 1 : 0;
    return `M${r * Math.cos(a)},${r * Math.sin(a)} A${r},${r} 0 ${large} ${sweep} ` +
      `${r * Math.cos(b)},${r * Math.sin(b)}`;
  }

  /** The angle from b to a in degrees, in (-180, 180]. */
  function between(a, b) {
    let degrees = ((Math.atan2(a[1], a[0]) - Math.atan2(b[1], b[0])) * 180) / Math.PI;
    while (degrees > 180) degrees -= 360;
    while (degrees <= -180) degrees += 360;
    return degrees;
  }

  // Fig. 6.1: a query and a key pair turned by RoPE; a shift of both keeps their angle.
  function ropePair(figure, config) {
    const colors = config.colors;
    const svg = panel(figure, 300, 300, "a query and a key turned by RoPE on the unit circle");
    const heads = arrowHeads(svg, [colors[0], colors[1]]);
    const shown = readout(figure);
    const redraw = (read) => {
      const n = config.key + read.shift, m = n + read.gap;
      const q = rotate(config.q, m, config.theta), k = rotate(config.k, n, config.theta);
      for (const node of [...svg.childNodes]) if (node.tagName !== "defs") svg.removeChild(node);
      const plane = circle(svg, 150, 150, 110);
      const qa = Math.atan2(q[1], q[0]), ka = Math.atan2(k[1], k[0]);
      const angle = between(q, k);
      el("path", {
        d: arcPath(0.35, ka, ka + (angle * Math.PI) / 180), fill: "none",
        stroke: "currentColor", "stroke-opacity": 0.7, "vector-effect": "non-scaling-stroke",
      }, plane);
      arrow(plane, config.q, colors[0], heads[0], true);
      arrow(plane, config.k, colors[1], heads[1], true);
      arrow(plane, q, colors[0], heads[0], false).dataset.vector = "q";
      arrow(plane, k, colors[1], heads[1], false).dataset.vector = "k";
      text(svg, 150 + 130 * Math.cos(qa), 150 - 130 * Math.sin(qa) + 5, `q${m}`,
        { "text-anchor": "middle", fill: colors[0], "font-weight": "bold" });
      text(svg, 150 + 130 * Math.cos(ka), 150 - 130 * Math.sin(ka) + 5, `k${n}`,
        { "text-anchor": "middle", fill: colors[1], "font-weight": "bold" });
      const score = q[0] * k[0] + q[1] * k[1];
      shown.textContent = `m = ${m}, n = ${n}, m − n = ${m - n}: the angle from k to q is ` +
        `${angle.toFixed(0)}°, the score q·k ${score.toFixed(4)}.`;
      figure.dataset.score = score.toFixed(12);
    };
    redraw(controls(figure, config.controls, redraw));
  }

  // Chapter 2: a shift k turns every pair of PE(p); the dot product sees only k.
  function shiftPairs(figure, config) {
    const colors = config.colors;
    const w = frequencies(config.width, config.base);
    const svg = panel(figure, 400, 210, `the ${w.length} pairs of PE(p) and PE(p + k)`);
    const heads = arrowHeads(svg, [colors[0]]);
    const plot = panel(figure, 400, 170, "dot product PE(p)·PE(p + k) against the shift k");
    const shown = readout(figure);
    const ks = config.controls.find((spec) => spec.name === "shift").values;
    const redraw = (read) => {
      const here = encoding(read.position, w), there = encoding(read.position + read.shift, w);
      for (const node of [...svg.childNodes]) if (node.tagName !== "defs") svg.removeChild(node);
      const columns = 4;
      w.forEach((wi, i) => {
        const cx = 50 + 100 * (i % columns), cy = 52 + 105 * Math.floor(i / columns);
        const plane = circle(svg, cx, cy, 36);
        const from = [here[2 * i], here[2 * i + 1]], to = [there[2 * i], there[2 * i + 1]];
        const a = Math.atan2(from[1], from[0]), turn = -read.shift * wi; // clockwise
        const path = el("path", {
          d: arcPath(0.75, a, a + Math.max(-6.2, Math.min(6.2, turn))), fill: "none",
          stroke: colors[0], "stroke-width": 1.5, "vector-effect": "non-scaling-stroke",
          "marker-end": `url(#${heads[0]})`,
        }, plane);
        path.dataset.pair = String(i);
        el("circle", { cx: from[0], cy: from[1], r: 0.12, fill: "none", stroke: "currentColor",
          "stroke-width": 1.5, "vector-effect": "non-scaling-stroke" }, plane);
        const dot = el("circle", { cx: to[0], cy: to[1], r: 0.13, fill: colors[0] }, plane);
        dot.dataset.pair = String(i);
        text(svg, cx, cy + 50, `pair ${i}`, { "text-anchor": "middle" });
      });
      clear(plot);
      const box = { left: 40, right: 392, top: 8, bottom: 130 }, half = w.length;
      const x = (k) => box.left + ((k - ks[0]) / (ks[ks.length - 1] - ks[0])) *
        (box.right - box.left);
      const y = (value) => box.bottom - ((value + half) / (2 * half)) * (box.bottom - box.top);
      axes(plot, box, {
        x: [[x(ks[0]), String(ks[0])], [x(0), "0"], [x(ks[ks.length - 1]), String(ks[ks.length - 1])]],
        y: [[y(-half), `−${half}`], [y(0), "0"], [y(half), String(half)]],
      }, { x: "shift k", y: "PE·PE" });
      const points = [];
      for (let step = 0; step <= 400; step++) {
        const k = ks[0] + (step / 400) * (ks[ks.length - 1] - ks[0]);
        points.push(`${x(k).toFixed(2)},${y(dotByOffset(k, w)).toFixed(2)}`);
      }
      el("polyline", { points: points.join(" "), fill: "none", stroke: colors[2],
        "stroke-width": 2 }, plot);
      let dot = 0;
      for (let j = 0; j < here.length; j++) dot += here[j] * there[j];
      el("circle", { cx: x(read.shift), cy: y(dot), r: 5, fill: colors[3] }, plot);
      shown.textContent = `p = ${read.position}, k = ${read.shift}: PE(p)·PE(p + k) = ` +
        `${dot.toFixed(4)}, and Σ cos(kωᵢ) = ${dotByOffset(read.shift, w).toFixed(4)}, ` +
        "whatever p is.";
      figure.dataset.dot = dot.toFixed(12);
    };
    redraw(controls(figure, config.controls, redraw));
  }

  // Chapter 3: the heatmap of pe(1 .. 100) for any width and base.
  function heatmap(figure, config) {
    const frame = document.createElement("div");
    frame.className = "sinpe-slider-heatmap";
    const canvas = document.createElement("canvas");
    canvas.setAttribute("role", "img");
    const scale = document.createElement("div");
    scale.className = "sinpe-slider-colorbar";
    scale.style.background = `linear-gradient(to top, ${config.colormap.join(", ")})`;
    scale.setAttribute("aria-hidden", "true");
    const ticks = document.createElement("div");
    ticks.className = "sinpe-slider-ticks";
    ticks.innerHTML = "<span>1</span><span>0</span><span>−1</span>";
    const left = document.createElement("div");
    left.className = "sinpe-slider-yaxis";
    const bottomAxis = document.createElement("div");
    bottomAxis.className = "sinpe-slider-xaxis";
    bottomAxis.innerHTML = `<span>position 1</span><span>position ${config.positions}</span>`;
    frame.append(left, canvas, scale, ticks);
    figure.append(frame, bottomAxis);
    const shown = readout(figure);
    const colors = config.colormap.map((hex) =>
      [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)));
    const redraw = (read) => {
      const w = frequencies(read.width, read.base), rows = 2 * w.length;
      canvas.width = config.positions;
      canvas.height = rows;
      const context = canvas.getContext("2d"), image = context.createImageData(canvas.width, rows);
      for (let p = 1; p <= config.positions; p++) {
        const row = encoding(p, w);
        for (let j = 0; j < rows; j++) {
          const level = Math.min(colors.length - 1, Math.floor(((row[j] + 1) / 2) * colors.length));
          const at = 4 * ((rows - 1 - j) * canvas.width + (p - 1));
          image.data.set([...colors[Math.max(0, level)], 255], at);
        }
      }
      context.putImageData(image, 0, 0);
      left.innerHTML = `<span>component ${rows}</span><span>component 1</span>`;
      const found = meanChanges(w, config.positions, config.rows);
      shown.textContent = `Mean change per position: components 1–${config.rows} ` +
        `${found.bottom.toFixed(2)}, components ${rows - config.rows + 1}–${rows} ` +
        `${found.top.toFixed(4)}.`;
      canvas.setAttribute("aria-label", `heatmap of pe(1) to pe(${config.positions}), ` +
        `d = ${rows}, base ${read.base}. ${shown.textContent}`);
      figure.dataset.bottom = found.bottom.toFixed(12);
    };
    redraw(controls(figure, config.controls, redraw));
  }

  const KINDS = { ladder: ladder, "rope-pair": ropePair, "shift-pairs": shiftPairs, heatmap: heatmap };

  function start() {
    for (const figure of document.querySelectorAll("figure.sinpe-slider[data-kind]")) {
      const draw = KINDS[figure.dataset.kind];
      if (!draw) continue;
      figure.classList.add("sinpe-slider-live");
      draw(figure, JSON.parse(figure.dataset.config));
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
