// The servers' catalog in the tap's page: tool names that several servers list
// (a badge in the header and the servers tab) and MCP App views the capture
// holds, each previewed statically in a sandboxed frame.
//
// The preview: the view's document comes from the tap (app?entry=N&uri=…) with a
// CSP that allows no network and a CSP sandbox, in an <iframe sandbox="allow-scripts">
// (an opaque origin: no access to this page, its cookies or storage). No server is
// behind it: this page answers ui/initialize as a stub host, then sends the
// captured arguments and result of the tool call it was opened from (if any);
// every other request of the view is refused (-32601).
"use strict";
const tapApps = (function () {
  const $ = (id) => document.getElementById(id);
  let el = null;
  let jump = null;
  let version = null; // the catalog version shown
  let loading = false;
  let again = false;
  let current = null; // the open preview: { frame, p, initialized, window, count }

  // A view that floods this page is closed: the budget is checked first.
  const FLOOD_PER_SECOND = 200;

  function init(o) {
    el = o.el;
    jump = o.jump;
    $("preview-close").onclick = () => close();
    document.addEventListener("keydown", (ev) => { if (ev.key === "Escape" && !$("preview").hidden) close(); });
    window.addEventListener("message", onMessage);
  }

  function report(r) {
    if (r.catalogVersion === version) return;
    load();
  }

  async function load() {
    if (loading) { again = true; return; }
    loading = true;
    try {
      const res = await fetch("api/catalog");
      if (!res.ok) return;
      const c = await res.json();
      version = c.version;
      render(c);
    } finally {
      loading = false;
      if (again) { again = false; load(); }
    }
  }

  function render(c) {
    const dups = c.duplicates || [];
    const badge = $("dup-badge");
    badge.hidden = dups.length === 0;
    badge.textContent = "⚠ " + dups.length + " duplicate tool name" + (dups.length === 1 ? "" : "s") + ": " +
      dups.map((d) => d.name).join(", ");
    badge.title = dups.map((d) => d.text).join("\n");
    const parts = [el("h2", { text: dups.length ? "duplicate tool names (" + dups.length + ")" : "no duplicate tool names" })];
    if (dups.length) {
      parts.push(el("p", { class: "note", text: "A host connected to these servers sees two tools of one name: " +
        "one shadows the other, or the host renames them." }));
    }
    for (const d of dups) {
      const attrs = { class: "dup", "data-dup": d.name };
      if (d.entries && d.entries.length) { attrs["data-entry"] = d.entries[0]; attrs.title = "show the tools/list #" + d.entries.join(", #"); }
      parts.push(el("div", attrs, el("span", { class: "dup-tag", text: "duplicate" }), " ", el("code", { text: d.name }),
        " listed by ", ...d.servers.flatMap((s, i) => [i ? " and " : null, el("strong", { class: "server", text: s })])));
    }
    const views = c.apps || [];
    parts.push(el("h2", { text: views.length ? "MCP App views (" + views.length + ")" : "no MCP App view in the capture" }));
    for (const v of views) {
      const lines = [el("div", {}, el("code", { text: v.uri }), " ", previewButton({ view: v }))];
      lines.push(el("div", { class: "note", text: (v.server || "server") + " · session " + v.session + " · " + v.bytes + " bytes · read in #" + v.entry }));
      if (v.tools && v.tools.length) lines.push(el("div", { class: "note", text: "tools: " + v.tools.join(", ") }));
      if (v.declared && v.declared.length) lines.push(el("div", { class: "note", text: "declares " + v.declared.join(", ") + " (not granted in the preview)" }));
      parts.push(el("div", { class: "app-view", "data-uri": v.uri }, ...lines));
    }
    const pane = $("servers");
    pane.replaceChildren(...parts);
  }

  function previewButton(p) {
    const b = el("button", { type: "button", class: "preview-btn", title: "render " + p.view.uri + " in a sandboxed frame" },
      "▶ Preview " + p.view.uri + (p.tool ? " with this call" : ""));
    b.onclick = (ev) => { ev.stopPropagation(); open(p); };
    return b;
  }

  function open(p) {
    close();
    const v = p.view;
    $("preview-title").textContent = "Preview of " + v.uri + (p.tool ? " for tools/call " + p.tool : "");
    $("preview-note").textContent = "static: sandboxed, no network, no server behind it" + (p.tool ? "; the captured arguments and result are replayed" : "");
    // sandbox is set before src: the frame never loads unsandboxed.
    const frame = el("iframe", { sandbox: "allow-scripts", title: "view " + v.uri, referrerpolicy: "no-referrer",
      src: "app?entry=" + encodeURIComponent(v.entry) + "&uri=" + encodeURIComponent(v.uri) });
    current = { frame, p, initialized: false, window: 0, count: 0 };
    $("preview-box").replaceChildren(frame);
    $("preview").hidden = false;
  }

  function close() {
    current = null;
    $("preview-box").replaceChildren();
    $("preview").hidden = true;
  }

  // The view's origin is opaque ("null"): it is told by its window, and
  // answered with "*" on that window only.
  function post(msg) { current.frame.contentWindow?.postMessage(msg, "*"); }

  function onMessage(ev) {
    const s = current;
    if (!s || ev.source !== s.frame.contentWindow) return;
    const now = Math.floor(performance.now() / 1000);
    if (now !== s.window) { s.window = now; s.count = 0; }
    if (++s.count > FLOOD_PER_SECOND) {
      // The frame goes (its document with it); the overlay says why.
      current = null;
      $("preview-box").replaceChildren(el("p", { class: "violation preview-closed", text: "Preview closed: the view sent more than " + FLOOD_PER_SECOND + " messages in a second." }));
      return;
    }
    const m = ev.data;
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0" || typeof m.method !== "string") return;
    const p = m.params || {};
    switch (m.method) {
    case "ui/initialize":
      return post({ jsonrpc: "2.0", id: m.id, result: {
        protocolVersion: typeof p.protocolVersion === "string" ? p.protocolVersion : "2026-01-26",
        hostInfo: { name: "mcpkit tap preview", version: "1" },
        hostCapabilities: {},
        hostContext: { theme: "light", displayMode: "inline", availableDisplayModes: ["inline"],
          containerDimensions: { width: s.frame.clientWidth, maxHeight: s.frame.clientHeight },
          locale: navigator.language, platform: "web", userAgent: "mcpkit tap preview" },
      } });
    case "ui/notifications/initialized":
      if (s.initialized) return;
      s.initialized = true;
      if (s.p.tool) {
        post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: s.p.input || {} } });
        if (s.p.result) post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: s.p.result });
      }
      return;
    case "ui/notifications/size-changed":
      return; // the frame keeps the preview's size
    default:
      if (m.id !== undefined) post({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "static preview in mcpkit tap: no server behind this view (" + m.method + ")" } });
    }
  }

  $("servers").addEventListener("click", (ev) => {
    const target = ev.target.closest(".dup[data-entry]");
    if (target) jump(target.dataset.entry);
  });

  return { init, report, previewButton };
})();
