// The static explorer: draws what lorasched computed ahead (lorasched/explorer/data.py),
// embedded in the page as JSON, with the page's own plotly.js. It computes nothing: it
// looks the numbers up at the controls' values and formats them as the live explorer does.
window.loraschedExplorer = window.loraschedExplorer || (function () {
  "use strict";
  const CONFIG = {responsive: true, displaylogo: false};

  // Python's format(x, ".4g"): 4 significant digits, an exact tie rounded to the even
  // digit (toFixed and toExponential round ties up), zeros stripped, exponents of 2 digits
  function g4(x) {
    if (x === 0) return "0";
    if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    const sign = x < 0 ? "-" : "", a = Math.abs(x);
    let digits, e;  // 4 significant digits, the exponent of the first
    if (a >= 1e21 || a < 1e-90) {  // (no exact tie this far out)
      [digits, e] = a.toExponential(3).split("e");
      digits = digits.replace(".", "");
      e = Number(e);
    } else {
      // the decimal expansion of a (exact to 100 places), its significant digits from
      // the first non-zero one
      const [whole, frac] = a.toFixed(100).split(".");
      const all = (whole === "0" ? "" : whole) + frac;
      const lead = whole === "0" ? frac.search(/[1-9]/) : 0;
      e = whole === "0" ? -(lead + 1) : whole.length - 1;
      const sig = all.slice(lead);
      digits = sig.slice(0, 4);
      const rest = sig.slice(4);
      const up = rest[0] > "5" || (rest[0] === "5" && (/[1-9]/.test(rest.slice(1)) ||
                                                     Number(digits[3]) % 2 === 1));
      if (up) {
        const n = String(Number(digits) + 1);
        if (n.length > 4) { digits = n.slice(0, 4); e += 1; } else digits = n;
      }
    }
    const strip = (s) => (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
    if (e < -4 || e >= 4) {
      const m = strip(digits[0] + "." + digits.slice(1));
      return sign + m + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
    }
    const text = e >= 0 ? digits.slice(0, e + 1) + "." + digits.slice(e + 1)
                        : "0." + "0".repeat(-e - 1) + digits;
    return sign + strip(text);
  }

  function setup(root) {
    const data = JSON.parse(root.querySelector("script.lorasched-data").textContent);
    const q = (name) => root.querySelector(".lorasched-" + name);
    if (typeof window.Plotly === "undefined") {
      root.insertAdjacentHTML("beforeend", "<p><b>plotly.js is not loaded on this page: " +
        "the explorer cannot draw.</b></p>");
      return null;
    }
    return {data, q};
  }

  // a fresh copy of a figure of the data (plotly keeps state in what it is given)
  function figure(spec) {
    const fig = JSON.parse(JSON.stringify(spec));
    delete fig.layout.width;  // the page's width, not the live explorer's
    fig.layout.autosize = true;
    return fig;
  }

  function span(key, value, text) {
    const shown = text === undefined ? g4(value) : text;
    return `<span data-key="${key}" data-value="${value === null ? "" : value}">${shown}</span>`;
  }

  // ------------------------------------------------------------------ pdFTSP
  function pdftsp(id) {
    const root = document.getElementById(id);
    const got = setup(root);
    if (!got) return;
    const {data, q} = got;
    const T = data.prices.initial.lambda[0].length;
    const step = q("step"), task = q("task"), bid = q("bid");

    // the prices after `s` arrivals: the first ones, then each arrival's changed cells
    function pricesAt(which, s) {
      const z = data.prices.initial[which].flat();
      const changes = data.prices.changes[which];
      for (let j = 0; j < s; j++) {
        const [cells, values] = changes[j];
        for (let c = 0; c < cells.length; c++) z[cells[c]] = values[c];
      }
      const rows = [];
      for (let k = 0; k < z.length / T; k++) rows.push(z.slice(k * T, (k + 1) * T));
      return rows;
    }

    for (const [i, t] of data.tasks.entries()) {
      const mid = (t.bids.length - 1) / 2;
      const option = document.createElement("option");
      option.value = String(i);
      option.textContent = `task ${i} (${t.admitted[mid] ? "admitted" : "rejected"} at its value)`;
      task.appendChild(option);
    }
    task.value = String(data.task);
    step.max = String(data.n_tasks);
    step.value = String(data.step);
    bid.max = String(data.tasks[0].bids.length - 1);
    bid.value = String((data.tasks[0].bids.length - 1) / 2);

    function drawPrices() {
      const s = Number(step.value), t = data.tasks[Number(task.value)];
      q("step-value").textContent = `${s} of ${data.n_tasks}`;
      for (const [name, which] of [["lam", "lambda"], ["phi", "phi"]]) {
        const fig = figure(data.figures[name]);
        fig.data[0].z = pricesAt(which, s);
        fig.data[1].x = t.slots.map((slot) => data.slot_hours[slot]);
        fig.data[1].y = t.nodes;
        fig.layout.title.text = fig.layout.title.text.replace(/after \d+ of/, `after ${s} of`);
        Plotly.react(q(name), fig.data, fig.layout, CONFIG);
      }
    }

    function drawOffer() {
      const i = Number(task.value), t = data.tasks[i], j = Number(bid.value);
      const mid = (t.bids.length - 1) / 2;
      const reason = data.reasons[t.reason[j]];
      const lines = [
        `task ${i}: value v = ${span("value", t.value)}, bid b' = ${span("bid", t.bids[j])}`,
        `${span("admitted", t.admitted[j], t.admitted[j] ? "admitted" : "rejected")} ` +
          `(${span("reason", reason, reason)}); F(il) = ` +
          `${span("surplus", t.surplus[j], t.surplus[j] === null ? "-inf" : undefined)}, ` +
          `critical bid = ${span("critical_bid", t.critical_bid,
                                 t.critical_bid === null ? "inf" : undefined)}`];
      if (t.vendor !== null) {
        const cells = t.nodes.map((k, c) => `(${k},${t.slots[c]})`).join(", ");
        lines.push(`schedule: vendor ${t.vendor}, ${t.slots.length} cells (node,slot) ${cells}`);
      }
      lines.push(`payment = ${span("payment", t.payment[j])}, ` +
                 `utility = ${span("utility", t.utility[j])}`);
      q("panel").innerHTML = lines.join("\n");
      q("bid-value").textContent = g4(t.bids[j]);
      const fig = figure(data.figures.utility);
      for (const trace of fig.data) {
        if (trace.name === "payment p") {
          [trace.x, trace.y] = [t.bids, t.payment];
        } else if (trace.name === "truthful bid b = v") {
          [trace.x, trace.y] = [[t.value], [t.utility[mid]]];
        } else if (trace.name === "chosen bid") {
          [trace.x, trace.y] = [[t.bids[j]], [t.utility[j]]];
        } else if (trace.name.startsWith("utility")) {
          [trace.x, trace.y] = [t.bids, t.utility];
        }
      }
      const line = (fig.layout.shapes || [])[0] ||
        {type: "line", xref: "x", yref: "y domain", y0: 0, y1: 1,
         line: {dash: "dot", color: "#6c757d"}};
      fig.layout.title.text = fig.layout.title.text.replace(/^Task \d+/, `Task ${i}`);
      fig.layout.shapes = t.critical_bid === null ? [] :
        [Object.assign(line, {x0: t.critical_bid, x1: t.critical_bid})];
      Plotly.react(q("utility"), fig.data, fig.layout, CONFIG);
    }

    step.addEventListener("input", drawPrices);
    bid.addEventListener("input", drawOffer);
    task.addEventListener("change", () => {
      bid.value = String((data.tasks[Number(task.value)].bids.length - 1) / 2);
      drawPrices();
      drawOffer();
    });
    drawPrices();
    drawOffer();
    root.classList.add("lorasched-ready");
  }

  // ------------------------------------------------------------------ TITAN, Allpass
  function policies(id) {
    const root = document.getElementById(id);
    const got = setup(root);
    if (!got) return;
    const {data, q} = got;
    const picker = q("policy");
    for (const policy of data.policies) {
      const option = document.createElement("option");
      option.value = option.textContent = policy;
      picker.appendChild(option);
    }
    function draw() {
      const run = data.runs[picker.value];
      q("summary").innerHTML = span("avg_jct", run.avg_jct, "") +
        (run.cost === null ? "" : span("cost", run.cost, "")) +
        run.summary.replace(/&/g, "&amp;").replace(/</g, "&lt;");
      for (const [name, spec] of Object.entries(run.figures)) {
        const fig = figure(spec);
        Plotly.react(q("fig-" + name), fig.data, fig.layout, CONFIG);
      }
    }
    picker.addEventListener("change", draw);
    draw();
    root.classList.add("lorasched-ready");
  }

  return {g4, pdftsp, policies};
})();
