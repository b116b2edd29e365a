// The page of `mcpkit tap --web` and `mcpkit tap view --web`: a live timeline fed by
// Server-Sent Events from the tap (api/events), filtered by the tap (the filter goes
// in the stream's query), a detail pane (api/entry) and the analysis (report events).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const rows = new Map(); // id ("12", "12.3") -> row object from the server
  const expanded = new Set(); // ids whose notifications are unfolded
  let order = []; // ids in display order
  let selected = null;
  let source = null;
  let lastReport = null;
  let tokensVersion = null; // the report's toolsVersion the token tab was counted at
  let tokensLoading = false;
  let tokensAgain = false; // asked again while counting

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) if (c != null) e.append(c);
    return e;
  }

  // The timeline's order: the seq of an entry's first record, then its place in a batch.
  function byPosition(a, b) {
    const x = rows.get(a), y = rows.get(b);
    return x.seq - y.seq || (x.part || 0) - (y.part || 0);
  }

  function filterQuery() {
    const p = new URLSearchParams();
    for (const [k, id] of [["method", "f-method"], ["dir", "f-dir"], ["session", "f-session"], ["minLatency", "f-latency"], ["text", "f-text"]]) {
      const v = $(id).value.trim();
      if (v !== "") p.set(k, v);
    }
    if ($("f-errors").checked) p.set("errors", "1");
    return p.toString();
  }

  function connect() {
    if (source) source.close();
    const q = filterQuery();
    history.replaceState(null, "", q ? "?" + q : location.pathname);
    source = new EventSource("api/events" + (q ? "?" + q : ""));
    source.addEventListener("reset", (ev) => {
      const d = JSON.parse(ev.data);
      rows.clear();
      order = [];
      for (const r of d.rows) { rows.set(r.id, r); order.push(r.id); }
      render();
    });
    source.addEventListener("row", (ev) => {
      const r = JSON.parse(ev.data);
      if (!r.match) {
        if (rows.delete(r.id)) order = order.filter((x) => x !== r.id);
      } else {
        const isNew = !rows.has(r.id);
        rows.set(r.id, r);
        if (isNew) { order.push(r.id); order.sort(byPosition); }
      }
      render();
      if (selected === r.id) loadDetail(r.id);
    });
    source.addEventListener("state", (ev) => showState(JSON.parse(ev.data)));
    source.addEventListener("report", (ev) => {
      lastReport = JSON.parse(ev.data);
      renderReport();
      if (!$("tokens").hidden && lastReport.toolsVersion !== tokensVersion) loadTokens();
      if (!$("sequence").hidden) loadSequence();
      tapApps.report(lastReport);
    });
    source.onerror = () => { $("state").textContent = "reconnecting…"; $("state").className = "state"; };
  }

  function showState(s) {
    $("source").textContent = s.source || "";
    $("state").textContent = s.live ? "live" : (s.loading ? "loading…" : (s.file ? "capture file" : "tap ended"));
    $("state").className = "state " + (s.live || s.loading ? "live" : "ended");
    $("counts").textContent = s.shown + " of " + s.entries + " entries";
    const lost = [];
    if (s.behind > 0) lost.push(s.behind + " updates missed by this page");
    if (s.dropped > 0) lost.push(s.dropped + " records dropped");
    if (s.evicted > 0) lost.push(s.evicted + " old entries evicted");
    $("dropped").hidden = lost.length === 0;
    $("dropped").textContent = lost.join(", ");
  }

  // The waterfall's scale: from the first shown row's start to the last end.
  function span() {
    let from = Infinity, to = -Infinity;
    for (const id of order) {
      const r = rows.get(id);
      from = Math.min(from, r.startMs);
      to = Math.max(to, r.startMs + Math.max(r.latencyMs, 0));
    }
    return { from, to: Math.max(to, from + 1) };
  }

  // bar draws a row's time in the waterfall (positioned through the CSSOM: the
  // page's CSP allows no inline style attribute).
  function bar(r, sp) {
    const pct = (ms) => (100 * ms / (sp.to - sp.from)).toFixed(3) + "%";
    const b = el("div", { class: "bar" });
    b.style.left = "min(" + pct(r.startMs - sp.from) + ", calc(100% - 2px))"; // the last row's start stays in its cell
    if (r.kind !== "request") b.classList.add("tick");
    else if (r.latencyMs < 0) { b.classList.add("open"); b.style.right = "0"; }
    else b.style.width = pct(r.latencyMs);
    return b;
  }

  function render() {
    const body = $("rows");
    const out = [];
    const sp = span();
    for (const id of order) {
      const r = rows.get(id);
      const cls = ["entry", r.kind];
      if (r.error) cls.push("error");
      if (r.probe) cls.push("probe");
      if (r.s2cRequest) cls.push("s2c-request");
      if (id === selected) cls.push("selected");
      // The fold mark and the count of folded notifications come first: the
      // name of what was called is what a narrow column must not cut.
      const kids = r.children ? r.children.length : 0;
      const call = (kids ? (expanded.has(id) ? "▾" : "▸") + "+" + kids + " " : "") + r.method;
      const tr = el("tr", { class: cls.join(" "), "data-id": id },
        el("td", { text: String(r.seq) }),
        el("td", { text: r.time }),
        el("td", { class: "dir", text: r.dirLabel }),
        el("td", { class: "method", title: r.method }, call, r.probe ? el("span", { class: "probe-tag", text: r.probe }) : null),
        el("td", { class: "status", title: r.statusText || r.status, text: r.status }),
        el("td", { class: "latency", text: r.latency || "" }),
        el("td", { class: "session", title: r.session || "", text: r.session || "" }),
        el("td", { class: "waterfall", title: r.latency || "" }, bar(r, sp)));
      out.push(tr);
      if (expanded.has(id)) {
        for (const c of r.children || []) {
          out.push(el("tr", { class: "child" + (c.error ? " error" : ""), "data-id": id },
            el("td", { text: String(c.seq) }), el("td", { text: c.time }), el("td", { class: "dir", text: c.dirLabel }),
            el("td", { class: "method", text: c.method }), el("td", { class: "status", text: c.status || "" }),
            el("td", { text: "" }), el("td", { text: "" }), el("td", { text: "" })));
        }
      }
    }
    body.replaceChildren(...out);
    $("empty").hidden = order.length > 0;
  }

  function renderJSONSection(s) {
    const parts = [el("h3", { text: s.label })];
    for (const v of s.violations || []) parts.push(el("div", { class: "violation", text: "schema: " + v }));
    if (s.text) parts.push(el("div", { class: "text", text: s.text }));
    if (s.json) parts.push(el("pre", { text: s.json }));
    return parts;
  }

  async function loadDetail(id) {
    const res = await fetch("api/entry?id=" + encodeURIComponent(id));
    const pane = $("detail");
    if (!res.ok) { pane.replaceChildren(el("p", { class: "empty", text: "This entry is no longer kept." })); return; }
    const d = await res.json();
    const parts = [el("h2", { text: d.title })];
    for (const line of d.facts || []) parts.push(el("div", { text: line }));
    if (d.preview) parts.push(tapApps.previewButton(d.preview));
    for (const s of d.sections || []) parts.push(...renderJSONSection(s));
    pane.replaceChildren(...parts);
  }

  const numeric = /^-?[0-9.]+( ms)?$/;

  function tableOf(t, linkRows) {
    const head = el("tr", {}, ...t.columns.map((c) => el("th", { text: c })));
    const body = t.rows.map((row, i) => {
      const entry = linkRows && t.entries ? t.entries[i] : "";
      const attrs = entry ? { class: "link", "data-entry": entry, title: "show entry " + entry } : {};
      return el("tr", attrs, ...row.map((c) => el("td", numeric.test(c) ? { class: "num", text: c } : { text: c })));
    });
    return el("table", { "data-table": t.id || "" }, el("thead", {}, head), el("tbody", {}, ...body));
  }

  // The analysis: the summary, the failures by name (each leads to the entries
  // that show it), the latency and progress tables and the session lanes.
  function renderReport() {
    const pane = $("analysis");
    const r = lastReport;
    if (!r) return;
    const parts = [el("p", { class: "summary", text: r.summary })];
    const groups = r.groups || [];
    parts.push(el("h2", { text: r.failureCount ? "failures (" + r.failureCount + ")" : "no failures found" }));
    for (const g of groups) {
      parts.push(el("div", { class: "group", "data-group": g.name }, g.name + " ", el("span", { class: "count", text: "(" + g.count + ")" })));
      for (const f of g.failures || []) {
        const attrs = { class: "failure" };
        if (f.entries && f.entries.length) { attrs["data-entry"] = f.entries[0]; attrs.title = "show entry " + f.entries[0]; }
        parts.push(el("div", attrs, f.count > 1 ? el("strong", { text: f.count + "× " }) : null, f.text,
          f.entries && f.entries.length ? el("span", { class: "entries", text: "→ #" + f.entries.join(", #") }) : null));
      }
    }
    if (r.failuresOmitted) parts.push(el("p", { class: "note", text: "… and " + r.failuresOmitted + " more" }));
    if (r.probes) parts.push(el("p", { class: "probes-note", text: r.probes + " client probes refused by the server (server/discover, a ping without a session): answers, not failures" }));
    for (const t of r.tables || []) {
      parts.push(el("h2", { text: t.title }));
      if (t.note) parts.push(el("p", { class: "note", text: t.note }));
      if (t.rows && t.rows.length) parts.push(tableOf(t, true));
    }
    pane.replaceChildren(...parts);
  }

  // The token panel: counted by the tap when asked (the first count loads the
  // tokenizer), again when a tools/list answer arrives while it shows.
  async function loadTokens() {
    if (tokensLoading) { tokensAgain = true; return; }
    tokensLoading = true;
    const body = $("tokens-body");
    if (tokensVersion === null) body.replaceChildren(el("p", { class: "empty", text: "Counting… (the first count loads the tokenizer)" }));
    try {
      const q = new URLSearchParams({ format: $("t-format").value, encoding: $("t-encoding").value });
      const res = await fetch("api/tokens?" + q);
      if (!res.ok) { body.replaceChildren(el("p", { class: "violation", text: await res.text() })); return; }
      const p = await res.json();
      tokensVersion = p.toolsVersion;
      const parts = [];
      if (!p.lists.length) parts.push(el("p", { class: "empty", text: "No tools/list answer in the capture yet." }));
      for (const l of p.lists) {
        parts.push(el("h2", { text: l.title }));
        const rows = l.tools.map((c) => [c.name + (c.modelName ? " (as " + c.modelName + ")" : ""), String(c.tokens), String(c.text), String(c.schema), String(c.framing), String(c.bytes)]);
        const t = tableOf({ id: "tokens", columns: ["tool", "tokens", "name+description", "schema", "framing", "bytes"], rows: rows }, false);
        t.tBodies[0].append(el("tr", { class: "total" }, el("td", { text: "total" }), el("td", { class: "num", text: String(l.total) })));
        parts.push(t);
      }
      parts.push(el("p", { class: "note", text: p.note }));
      body.replaceChildren(...parts);
    } finally {
      tokensLoading = false;
      if (tokensAgain) { tokensAgain = false; loadTokens(); }
    }
  }

  // jump shows an entry the analysis leads to: selected, in view, its detail open.
  function jump(id) {
    selected = id;
    render();
    const tr = document.querySelector('#rows tr.entry[data-id="' + CSS.escape(id) + '"]');
    if (tr) tr.scrollIntoView({ block: "center" });
    showTab("detail");
    loadDetail(id);
  }
  $("analysis").addEventListener("click", (ev) => {
    const target = ev.target.closest("[data-entry]");
    if (target) jump(target.dataset.entry);
  });

  $("rows").addEventListener("click", (ev) => {
    const tr = ev.target.closest("tr");
    if (!tr) return;
    const id = tr.dataset.id;
    const r = rows.get(id);
    if (r && r.children && r.children.length && ev.target.closest("td.method") && !tr.classList.contains("child")) {
      if (expanded.has(id)) expanded.delete(id); else expanded.add(id);
    }
    selected = id;
    render();
    showTab("detail");
    loadDetail(id);
  });

  // The sequence view: one session between the client's and the server's lanes,
  // time going down; the steps of one HTTP exchange share a colour.
  let sequenceSession = "";
  async function loadSequence() {
    const res = await fetch("api/sequence?session=" + encodeURIComponent(sequenceSession));
    const body = $("sequence-body");
    if (!res.ok) { body.replaceChildren(el("p", { class: "violation", text: await res.text() })); return; }
    const q = await res.json();
    const pick = $("s-session");
    pick.replaceChildren(...(q.sessions || []).map((s) => el("option", s === q.session ? { value: s, selected: "" } : { value: s }, s)));
    if (!q.steps.length) { body.replaceChildren(el("p", { class: "empty", text: "No session yet." })); return; }
    const parts = [el("div", { class: "seq-t", text: "ms" }), el("div", { class: "seq-head" }, el("span", { text: "client" }), el("span", { text: "server" }))];
    for (const st of q.steps) {
      const cls = ["seq-step", st.dir || "none"];
      if (st.transport) cls.push("transport");
      if (st.error) cls.push("error");
      const step = el("div", { class: cls.join(" "), "data-entry": st.entry, title: "#" + st.seq + (st.http ? " · " + st.http : "") });
      if (st.exchange) step.style.borderLeftColor = "hsl(" + ((st.exchange * 67) % 360) + ",60%,60%)";
      const label = el("span", { class: "label", text: st.label + (st.http && !st.transport ? "  · " + st.http : "") });
      if (st.transport) step.append(label);
      else if (st.dir === "s2c") step.append(el("div", { class: "arrow" }, "◀", el("span", { class: "line" }), label, el("span", { class: "line" })));
      else step.append(el("div", { class: "arrow" }, el("span", { class: "line" }), label, el("span", { class: "line" }), "▶"));
      parts.push(el("div", { class: "seq-t", title: st.time, text: "+" + st.offsetMs.toFixed(st.offsetMs < 100 ? 1 : 0) }), step);
    }
    const out = [el("p", { class: "note", text: "session " + q.session + (q.transport ? " · " + q.transport : "") + " · from " + q.steps[0].time + " (times in ms since)" }),
      el("div", { class: "seq" }, ...parts)];
    if (q.omitted) out.push(el("p", { class: "note", text: q.omitted + " later steps not drawn" }));
    body.replaceChildren(...out);
  }
  $("s-session").addEventListener("change", () => { sequenceSession = $("s-session").value; loadSequence(); });
  $("sequence").addEventListener("click", (ev) => {
    const target = ev.target.closest(".seq-step[data-entry]");
    if (target) jump(target.dataset.entry);
  });

  function showTab(name) {
    for (const t of ["detail", "analysis", "sequence", "tokens", "servers"]) {
      $(t).hidden = t !== name;
      $("tab-" + t).classList.toggle("active", t === name);
    }
  }
  $("tab-detail").onclick = () => showTab("detail");
  $("tab-analysis").onclick = () => showTab("analysis");
  $("tab-sequence").onclick = () => { showTab("sequence"); loadSequence(); };
  $("tab-tokens").onclick = () => { showTab("tokens"); loadTokens(); };
  $("tab-servers").onclick = () => showTab("servers");
  $("dup-badge").onclick = () => showTab("servers");
  tapApps.init({ el, jump });
  $("tokens-form").addEventListener("change", () => { tokensVersion = null; loadTokens(); });

  let debounce = null;
  $("filters").addEventListener("input", () => { clearTimeout(debounce); debounce = setTimeout(connect, 150); });
  $("filters").addEventListener("submit", (ev) => { ev.preventDefault(); connect(); });
  $("f-clear").onclick = () => { $("filters").reset(); connect(); };

  // A filter given in the page's address is applied at once.
  const init = new URLSearchParams(location.search);
  for (const [k, id] of [["method", "f-method"], ["dir", "f-dir"], ["session", "f-session"], ["minLatency", "f-latency"], ["text", "f-text"]]) {
    if (init.has(k)) $(id).value = init.get(k);
  }
  $("f-errors").checked = init.get("errors") === "1";
  connect();
})();
