// The live review's page: the controls make a list of changes, every change sends the whole list to
// /api/solve, and the answer is drawn. Text from the server goes into the page as text (textContent,
// text nodes), never as markup.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  let options = null; // what the controls offer: workloads, companies, offerings
  let changes = []; // the changes in force, as the server last accepted them

  // An element with its properties and children; a string child is a text node.
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("data-")) node.setAttribute(k, String(v));
      else node[k] = v;
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function say(text) {
    const box = $("message");
    box.textContent = text || "";
    box.hidden = !text;
  }

  async function api(method, path, body) {
    const init = { method, headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data;
    try {
      data = await response.json();
    } catch (err) {
      data = { error: `${response.status} ${response.statusText}` };
    }
    if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
    return data;
  }

  // What a change controls: a second change of it replaces the first (the server does the same).
  function keyOf(c) {
    if (c.kind === "price") return `price|${c.company !== undefined ? "company|" + c.company : "offering|" + c.offering}`;
    if (c.kind === "cap" || c.kind === "outage") return `${c.kind}|${c.company === undefined ? "*" : c.company}`;
    return `${c.kind}|${c.workload}`;
  }

  function withChange(change) {
    const key = keyOf(change);
    const at = changes.findIndex((c) => keyOf(c) === key);
    return at < 0 ? [...changes, change] : changes.map((c, i) => (i === at ? change : c));
  }

  async function solve(next) {
    const set = $("controls-set");
    set.disabled = true;
    document.body.classList.add("busy");
    const started = performance.now();
    try {
      const state = await api("POST", "/api/solve", { changes: next });
      say("");
      draw(state);
      const ms = performance.now() - started; // the request, the solve and the redraw, as the page sees them
      document.body.dataset.answeredMs = ms.toFixed(1);
      if (state.changes.length) {
        $("timing").textContent = `Solved again from the base plan in ${Math.max(1, Math.round(state.seconds * 1000))} ms, drawn ${Math.round(ms)} ms after the change.`;
      }
    } catch (err) {
      say(err.message); // the changes in force stay as they were
    } finally {
      set.disabled = false;
      document.body.classList.remove("busy");
    }
  }

  function number(id) {
    const v = $(id).valueAsNumber;
    return Number.isFinite(v) ? v : Number($(id).value);
  }

  // ------------------------------------------------------------------------- drawing

  function figure(big, small, cls) {
    return el("div", { class: "figure" + (cls ? " " + cls : "") }, el("span", { class: "big", text: big }), el("span", { text: small }));
  }

  function draw(s) {
    changes = s.changes.map((x) => x.change);
    document.title = `${s.name}: live review`;
    $("kicker").textContent = `planner · live review · ${s.catalog} · ${s.workloads_file}`;
    $("title").textContent = s.name;
    const badge = $("badge");
    badge.hidden = false;
    badge.className = "badge " + (s.feasible ? "ok" : "bad");
    badge.textContent = s.status === "optimal" ? "optimal" : s.feasible ? "not proven optimal" : "no feasible plan";

    const figures = clear($("figures"));
    const c = s.comparison;
    if (s.feasible) figures.append(figure(s.total, `per ${s.period}${changes.length ? ", with the changes" : ", the base plan"}`));
    else figures.append(figure("no feasible plan", `lacks ${s.lacks}`, "infeasible"));
    if (changes.length) {
      figures.append(figure(s.base_total || "no feasible plan", "the base plan"));
      if (c && c.comparable) figures.append(figure(c.delta_text, `change a ${s.period}${c.relative ? " (" + c.relative + ")" : ""}`, "change"));
      else figures.append(figure("not comparable", "a change in cost is shown only between two feasible plans", "infeasible"));
    }

    $("timing").textContent = changes.length
      ? `Solved again from the base plan in ${Math.max(1, Math.round(s.seconds * 1000))} ms.`
      : "The base plan: the files as they are.";
    $("lead").textContent = s.lead;
    $("lacks").hidden = s.feasible;
    $("lacks-text").textContent = s.feasible ? "" : s.lacks;
    const diagnosis = clear($("diagnosis"));
    for (const line of s.diagnosis) diagnosis.append(el("li", { text: line }));
    drawRoutes(s);
    drawAgainst(s);
    drawReview(s);
    drawChanges(s);
    refreshDefaults();
  }

  function drawRoutes(s) {
    $("buy").hidden = !s.feasible;
    $("cost-head").textContent = `cost/${s.period}`;
    const body = clear($("buy").tBodies[0]);
    for (const r of s.routes) {
      const tr = el("tr", { class: [r.first ? "first" : "", r.moved ? "changed" : ""].join(" ").trim(), "data-workload": r.workload });
      if (r.first) tr.append(el("td", { class: "workload", rowSpan: r.rows, text: r.workload }));
      if (r.none !== undefined) {
        tr.append(el("td", { colSpan: 5 }, el("em", { class: "miss", text: "no eligible option" }), `: ${r.none}`));
      } else {
        tr.setAttribute("data-option", r.option);
        const latency = el("td", { class: "n", text: r.latency });
        if (r.miss) latency.append(" ", el("em", { class: "miss", text: r.miss }));
        tr.append(
          el("td", { text: r.option }),
          el("td", { text: r.who }),
          el("td", { class: "n", text: r.share }),
          latency,
          el("td", { class: "n", text: r.cost, "data-amount": r.cost_value }),
        );
      }
      body.append(tr);
    }
    $("routes-note").textContent = s.routes_note;
  }

  function drawAgainst(s) {
    const c = s.comparison;
    $("against").hidden = !c;
    if (!c) return;
    $("bridge-area").hidden = !c.comparable;
    const body = clear($("bridge").tBodies[0]);
    for (const part of c.bridge) {
      body.append(
        el("tr", { "data-key": part.key, "data-amount": part.amount },
          el("td", { text: part.label }), el("td", { class: "n", text: part.text }), el("td", { text: part.detail || "-" })),
      );
    }
    if (c.comparable) {
      body.append(el("tr", { class: "total", "data-amount": c.delta }, el("td", { text: "total" }), el("td", { class: "n", text: c.delta_text }), el("td")));
    }
    $("bridge-note").textContent = c.bridge_note || "";
    $("rerouted-head").textContent = c.rerouted.length ? `Rerouted: ${c.rerouted_count} workload${c.rerouted_count === 1 ? "" : "s"}` : "Rerouted: none";
    $("rerouted").hidden = !c.rerouted.length;
    const rows = clear($("rerouted").tBodies[0]);
    for (const w of c.rerouted) {
      rows.append(el("tr", { "data-workload": w.id }, el("td", { text: w.id }), el("td", { text: w.before }), el("td", {}, el("strong", { text: w.after })), el("td", { class: "n", text: w.change }), el("td", { text: w.why })));
    }
    const started = c.started.length ? c.started.join(", ") : "none";
    const stopped = c.stopped.length ? c.stopped.join(", ") : "none";
    $("bindings").textContent = `Limits that started binding: ${started}. Stopped binding: ${stopped}.`;
  }

  function drawReview(s) {
    const vendors = clear($("vendors").tBodies[0]);
    for (const v of s.vendors) {
      const bar = el("span");
      bar.style.width = `${Math.max(0, Math.min(1, v.fraction)) * 100}%`;
      vendors.append(el("tr", {}, el("td", { text: v.company }), el("td", {}, el("span", { class: "bar" }, bar)), el("td", { class: "n", text: v.share }), el("td", { class: "n", text: v.spend })));
    }
    if (!s.vendors.length) vendors.append(el("tr", {}, el("td", { class: "note", text: s.feasible ? "No spend." : "No plan, so no spend." })));
    const list = clear($("risk-list"));
    for (const r of s.risks) {
      list.append(el("li", {}, el("span", { class: `sev ${r.severity}`, text: r.severity }), ` ${r.text}`, el("div", { class: "do", text: `Do: ${r.action}` })));
    }
    $("risks-note").textContent = s.risks.length
      ? s.risks_more ? `${s.risks_more} more in the downloaded report.` : ""
      : s.feasible ? "None found." : "Risks are read from a feasible plan.";
  }

  function drawChanges(s) {
    const list = clear($("changes"));
    s.changes.forEach((x, i) => {
      const remove = el("button", { type: "button", text: "×", title: "undo this change" });
      remove.setAttribute("aria-label", `undo: ${x.label}`);
      remove.addEventListener("click", () => solve(changes.filter((_, k) => k !== i)));
      list.append(el("li", {}, x.label, remove));
    });
    $("no-changes").hidden = s.changes.length > 0;
    $("reset").hidden = s.changes.length === 0;
  }

  // ------------------------------------------------------------------------- controls

  function fill(select, items) {
    clear(select);
    for (const [value, text] of items) select.append(el("option", { value, text }));
  }

  function setup(o) {
    options = o;
    for (const select of document.querySelectorAll("select.workloads")) fill(select, o.workloads.map((w) => [w.id, w.id]));
    fill($("cap-company"), [["", "any company"], ...o.companies.map((c) => [c, c])]);
    fill($("outage-company"), o.companies.map((c) => [c, c]));
    targets();
    for (const id of ["budget-workload", "within-workload"]) $(id).addEventListener("change", refreshDefaults);
    $("price-scope").addEventListener("change", () => { $("price-target").value = ""; targets(); });
  }

  function targets() {
    const scope = $("price-scope").value;
    const list = clear($("price-targets"));
    for (const name of scope === "company" ? options.billing : options.offerings) list.append(el("option", { value: name }));
    $("price-target").placeholder = scope === "company" ? "company, e.g. cerebras" : "offering id";
  }

  // The budget and share fields show the workload's value in force.
  function refreshDefaults() {
    if (!options) return;
    const now = (kind, id) => changes.find((c) => c.kind === kind && c.workload === id);
    const budgetOf = $("budget-workload").value;
    const w = options.workloads.find((x) => x.id === budgetOf);
    const b = now("budget", budgetOf);
    $("budget-seconds").value = b ? b.budget_s : w && w.budget_s !== null ? w.budget_s : "";
    const withinOf = $("within-workload").value;
    const v = options.workloads.find((x) => x.id === withinOf);
    const s = now("within", withinOf);
    $("within-percent").value = s ? +(s.share * 100).toFixed(6) : v ? +(v.within * 100).toFixed(6) : "";
  }

  function on(id, make) {
    $(id).addEventListener("submit", (event) => {
      event.preventDefault();
      const change = make();
      if (change) solve(withChange(change));
    });
  }

  on("price-form", () => {
    const target = $("price-target").value.trim();
    const scope = $("price-scope").value;
    return { kind: "price", [scope]: target, percent: number("price-percent") };
  });
  on("budget-form", () => ({ kind: "budget", workload: $("budget-workload").value, budget_s: number("budget-seconds") }));
  on("within-form", () => ({ kind: "within", workload: $("within-workload").value, share: number("within-percent") / 100 }));
  on("traffic-form", () => ({ kind: "traffic", workload: $("traffic-workload").value, factor: number("traffic-factor") }));
  on("cap-form", () => {
    const company = $("cap-company").value;
    const change = { kind: "cap", share: number("cap-percent") / 100 };
    if (company) change.company = company;
    return change;
  });
  on("outage-form", () => ({ kind: "outage", company: $("outage-company").value }));
  $("reset").addEventListener("click", () => solve([]));

  $("save-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { path: $("save-path").value.trim(), overwrite: $("save-overwrite").checked };
    try {
      const saved = await api("POST", "/api/scenario", body);
      say("");
      $("saved").textContent = `Saved ${saved.path} (scenario ${saved.name}): planner whatif reads it.`;
    } catch (err) {
      $("saved").textContent = "";
      say(err.message);
    }
  });

  api("GET", "/api/state")
    .then((data) => {
      setup(data.options);
      draw(data.state);
      $("controls-set").disabled = false;
    })
    .catch((err) => say(`the plan could not be loaded: ${err.message}`));
})();
