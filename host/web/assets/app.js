// mcpkit host's page: the conversation streamed from /api/events, tool call
// cards with approvals, the servers, and MCP Apps views in sandboxed iframes
// on another origin, spoken to over postMessage JSON-RPC.
"use strict";
const $ = (id) => document.getElementById(id);
let cfg = null;
let current = null;            // the assistant bubble being streamed
const cards = new Map();       // turn and tool call id → card element
const calls = new Map();       // turn and tool call id → what its view is told (callOf)
let turn = 0;                  // numbers the user's messages: call ids may repeat across turns
const views = new Map();       // iframe contentWindow → view state
let total = { in: 0, out: 0 };
window.mcpkitLog = [];         // the bridge's traffic (method names), for inspection
window.mcpkitEvents = [];      // the types of the events the page got, for inspection

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function append(node) { const log = $("log"); log.append(node); log.scrollTop = log.scrollHeight; }
function pretty(v) { try { return JSON.stringify(typeof v === "string" ? JSON.parse(v) : v, null, 2); } catch { return String(v); } }

async function api(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "content-type": "application/json", "x-mcpkit-token": cfg.token }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${r.status} ${await r.text()}`);
  return r.json();
}

function card(callID, name) {
  const id = turn + "/" + callID;
  let c = cards.get(id);
  if (c) return c;
  c = el("div", "card");
  c.dataset.call = callID;
  const head = el("div", "head");
  head.append(el("span", "name", name), el("span", "status", "requested"));
  c.append(head, el("pre", "args"));
  cards.set(id, c);
  current = null;
  append(c);
  return c;
}
function setStatus(c, s) { c.querySelector(".status").textContent = s; }

function onEvent(ev) {
  window.mcpkitEvents.push(ev.type === "progress" ? `progress ${ev.name} ${ev.progress.progress}/${ev.progress.total}` : ev.type);
  switch (ev.type) {
  case "user":
    turn++;
    current = null;
    const bubble = el("div", "msg user", ev.text);
    if (ev.attached?.length) bubble.append(el("div", "attached", "attached: " + ev.attached.join(", ")));
    append(bubble);
    setBusy(true);
    break;
  case "text":
    if (!current) { current = el("div", "msg assistant"); append(current); }
    current.textContent += ev.text;
    $("log").scrollTop = $("log").scrollHeight;
    break;
  case "approve": {
    const c = card(ev.id, ev.name);
    c.querySelector(".args").textContent = pretty(ev.args);
    setStatus(c, "waiting for your approval");
    const actions = el("div", "actions");
    for (const [label, d, cls] of [["Approve", "allow", "allow"], ["Deny", "deny", "deny"], ["Always", "always", "always"]]) {
      const b = el("button", cls, label);
      b.type = "button";
      b.onclick = async () => { actions.remove(); setStatus(c, d === "deny" ? "denied" : "approved"); try { await api("/api/approve", { id: ev.approval, decision: d }); } catch (e) { setStatus(c, "approval failed: " + e.message); } };
      actions.append(b);
    }
    c.append(actions);
    break;
  }
  case "args": { // the model is writing the arguments of a call with a view
    const c = card(ev.id, ev.name);
    c.querySelector(".args").textContent = pretty(ev.args);
    setStatus(c, "being written…");
    const st = callOf(ev.id);
    st.partial = ev.args;
    tell(st);
    break;
  }
  case "call": {
    const c = card(ev.id, ev.name);
    c.querySelector(".args").textContent = pretty(ev.args);
    c.querySelector(".actions")?.remove();
    setStatus(c, "running…");
    const st = callOf(ev.id);
    st.input = ev.args;
    tell(st);
    break;
  }
  case "progress": {
    const c = card(ev.id, ev.name);
    const p = ev.progress;
    let bar = c.querySelector("progress");
    if (!bar) { bar = document.createElement("progress"); c.querySelector(".head").append(bar); }
    if (p.total > 0) { bar.max = p.total; bar.value = p.progress; } else bar.removeAttribute("value");
    setStatus(c, "running… " + (p.total > 0 ? `${p.progress}/${p.total}` : String(p.progress)) + (p.message ? " · " + p.message : ""));
    break;
  }
  case "result": {
    const c = card(ev.id, ev.name);
    c.querySelector(".actions")?.remove();
    c.querySelector("progress")?.remove();
    c.classList.add(ev.isError ? "failed" : "done");
    setStatus(c, (ev.isError ? "failed" : "done") + (ev.ms ? ` in ${ev.ms} ms` : ""));
    const res = el("pre", "result");
    const texts = (ev.result?.content ?? []).filter((b) => b.type === "text").map((b) => b.text);
    res.textContent = texts.length ? texts.join("\n") : pretty(ev.result);
    c.append(res);
    if (ev.hasView) c.append(el("div", "note loading", "Loading its view…"));
    current = null;
    const st = callOf(ev.id);
    if (ev.cancelled) st.cancelled = ev.cancelled; else st.result = ev.result;
    tell(st);
    break;
  }
  case "view": showView(ev.id, ev.view); break;
  case "step":
    if (ev.usage) { total.in += ev.usage.in; total.out += ev.usage.out; $("tokens").textContent = `tokens: ${total.in} in / ${total.out} out`; }
    break;
  case "turn": {
    current = null;
    // A call whose view opened but that never ended (the model's answer
    // broke off, the turn failed) is cancelled for its view.
    for (const [k, st] of calls) {
      if (k.startsWith(turn + "/") && !st.result && !st.cancelled) { st.cancelled = "the turn ended before the call did"; tell(st); }
    }
    if (ev.usage) append(el("div", "usage", `turn: ${ev.step} request(s), ${ev.usage.in} tokens in, ${ev.usage.out} out`));
    setBusy(false);
    refreshServers();
    break;
  }
  case "error":
    append(el("div", "msg error", ev.text));
    break;
  }
}

function setBusy(b) { $("send").disabled = b; $("stop").hidden = !b; }

async function refreshServers() {
  const r = await fetch("/api/servers");
  const list = await r.json();
  const ul = $("servers");
  ul.replaceChildren();
  for (const s of list ?? []) {
    const li = el("li");
    li.append(el("strong", "", s.name), el("span", "state " + s.state, s.state));
    li.append(el("div", "detail", `${s.tools ?? 0} tools · ${s.transport ?? ""}${s.lastError ? " · " + s.lastError : ""}`));
    ul.append(li);
  }
}

async function sendText(text, attach = []) {
  try { await api("/api/send", { text, attach }); return true; } catch (e) { append(el("div", "msg error", "not sent: " + e.message)); return false; }
}

// --- attachments: resources of the servers, and their prompts ---------------

let attached = [];   // {server, uri, name}
let catalog = [];

function showAttachments() {
  const box = $("attachments");
  box.replaceChildren();
  attached.forEach((a, i) => {
    const chip = el("span", "chip", `${a.server}: ${a.name || a.uri}`);
    const x = el("button", "", "×");
    x.type = "button";
    x.title = "remove";
    x.onclick = () => { attached.splice(i, 1); showAttachments(); };
    chip.append(x);
    box.append(chip);
  });
}

async function loadCatalog() {
  catalog = await (await fetch("/api/catalog")).json();
  const sel = $("attach");
  sel.replaceChildren(el("option", "", "+ attach…"));
  sel.firstChild.value = "";
  for (const kind of ["resource", "prompt"]) {
    const group = document.createElement("optgroup");
    group.label = kind === "resource" ? "Resources" : "Prompts";
    catalog.forEach((c, i) => {
      if (c.kind !== kind) return;
      const o = el("option", "", `${c.server}: ${c.name || c.uri}`);
      o.value = String(i);
      o.title = c.description ?? "";
      group.append(o);
    });
    if (group.children.length) sel.append(group);
  }
}

async function choose(i) {
  const c = catalog[i];
  if (!c) return;
  if (c.kind === "resource") {
    if (!attached.some((a) => a.server === c.server && a.uri === c.uri)) attached.push({ server: c.server, uri: c.uri, name: c.name });
    showAttachments();
    return;
  }
  const args = {};
  for (const a of c.arguments ?? []) {
    const v = prompt(`${c.name}: ${a.name}${a.required ? " (required)" : ""}${a.description ? " — " + a.description : ""}`);
    if (v === null) return;
    if (v !== "") args[a.name] = v;
  }
  try {
    const out = await api("/api/prompt", { server: c.server, name: c.name, arguments: args });
    $("input").value = out.text;
    $("input").focus();
  } catch (e) { append(el("div", "msg error", "prompt failed: " + e.message)); }
}

// --- MCP Apps ---------------------------------------------------------------

const FLOOD_PER_SECOND = 200;   // messages a view may send in one second
const FLOOD_STOP = 2000;        // dropped messages after which the view is stopped

// Each view runs in the spec's double iframe: the page frames the sandbox
// proxy (on the sandbox origin, with the view's policy as its header), which
// says it is ready; the page then sends it the view's document, which it
// loads in an inner iframe, and the two relay the view's JSON-RPC.
const SANDBOX = "ui/notifications/sandbox-";

// callOf is the state of a tool call of this turn that a view hears about:
// the arguments as they are written (partial), then complete (input), then
// its result or why it was cancelled; view, once it is shown.
function callOf(callID) {
  const k = turn + "/" + callID;
  let st = calls.get(k);
  if (!st) { st = { sent: {} }; calls.set(k, st); }
  return st;
}

// tell sends the call's view what it has not heard yet, once the view said it
// is initialized: partial arguments until the complete ones, then the
// result, or the cancellation.
function tell(st) {
  const s = st.view;
  if (!s || !s.initialized || s.gone) return;
  const note = (method, params) => post(s, { jsonrpc: "2.0", method, params });
  if (st.input === undefined && st.partial !== undefined && st.sent.partial !== st.partial && !st.cancelled) {
    st.sent.partial = st.partial;
    note("ui/notifications/tool-input-partial", { arguments: st.partial });
  }
  if (st.input !== undefined && !st.sent.input) {
    st.sent.input = true;
    note("ui/notifications/tool-input", { arguments: st.input });
  }
  if (st.result !== undefined && st.sent.input && !st.sent.result) {
    st.sent.result = true;
    note("ui/notifications/tool-result", st.result);
  }
  if (st.cancelled && !st.sent.result && !st.sent.cancelled) {
    st.sent.cancelled = true;
    note("ui/notifications/tool-cancelled", { reason: st.cancelled });
  }
}

function showView(callID, v) {
  const c = card(callID, v.name);
  c.querySelector(".note.loading")?.remove();
  const box = el("div", "view" + (v.prefersBorder === false ? "" : " border"));
  const frame = document.createElement("iframe");
  frame.sandbox = "allow-scripts allow-same-origin allow-forms";
  frame.title = "view of " + v.name;
  frame.referrerPolicy = "no-referrer";
  frame.src = `${cfg.sandbox}/proxy/${v.id}?parent=${encodeURIComponent(location.origin)}`;
  box.append(frame);
  c.append(box, el("div", "note", `MCP App view ${v.uri} (sandboxed on ${cfg.sandbox})`));
  // The iframe's window stays the same object across its navigation: the
  // view is known before its first message (the proxy's).
  const st = callOf(callID);
  const s = { v, frame, box, card: c, call: st, sent: false, initialized: false, window: 0, count: 0, dropped: 0, nextID: 1 };
  st.view = s;
  views.set(frame.contentWindow, s);
  frame.addEventListener("load", () => { frame.dataset.loaded = "true"; }, { once: true });
}

// sendResource answers the proxy's sandbox-proxy-ready with the view's
// document and its declared domains, once.
async function sendResource(s) {
  if (s.sent) return;
  s.sent = true;
  const r = await fetch(`/api/view/${s.v.id}`, { headers: { "x-mcpkit-token": cfg.token } });
  if (!r.ok) { teardown(s, `its document could not be had: ${r.status}`); return; }
  const doc = await r.json();
  s.csp = doc.csp ?? {};
  post(s, { jsonrpc: "2.0", method: SANDBOX + "resource-ready", params: { html: doc.html, csp: s.csp } });
  s.frame.dataset.resource = "sent";
}

function post(s, msg) {
  window.mcpkitLog.push({ dir: "host→view", method: msg.method ?? null, id: msg.id ?? null, error: msg.error?.message ?? null });
  s.frame.contentWindow?.postMessage(msg, cfg.sandbox);
}
function reply(s, id, result) { post(s, { jsonrpc: "2.0", id, result }); }
function fail(s, id, code, message) { post(s, { jsonrpc: "2.0", id, error: { code, message } }); }

function hostContext(s) {
  return {
    theme: matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light",
    displayMode: "inline", availableDisplayModes: ["inline"],
    containerDimensions: { width: s.frame.clientWidth, maxHeight: 800 },
    locale: navigator.language, timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "web", userAgent: "mcpkit host",
    toolInfo: { id: s.card.dataset.call, tool: s.v.tool },
  };
}

const TEARDOWN_WAIT = 3000;     // ms a view has to answer ui/resource-teardown

// teardown closes a view: an initialized view is told (ui/resource-teardown)
// and, unless now is set, has TEARDOWN_WAIT ms to answer before it goes.
function teardown(s, why, now = false) {
  if (s.gone || s.closing) return;
  const end = () => {
    if (s.gone) return;
    s.gone = true;
    views.delete(s.frame.contentWindow);
    s.box.replaceChildren(el("div", "note", "view closed: " + why));
  };
  // The view hears nothing before it said it is initialized (spec).
  if (!s.initialized) { end(); return; }
  const id = s.nextID++;
  try { post(s, { jsonrpc: "2.0", id, method: "ui/resource-teardown", params: { reason: why } }); } catch {}
  if (now) { end(); return; }
  s.closing = { id, end };
  setTimeout(end, TEARDOWN_WAIT);
}

window.addEventListener("message", (ev) => {
  const s = views.get(ev.source);
  if (!s || ev.origin !== cfg.sandbox || s.gone) return;
  // A view that floods the page is cut off: the budget is checked before any work.
  const now = Math.floor(performance.now() / 1000);
  if (now !== s.window) { s.window = now; s.count = 0; }
  if (++s.count > FLOOD_PER_SECOND) {
    if (++s.dropped >= FLOOD_STOP) teardown(s, "it sent too many messages", true);
    s.card.dataset.dropped = String(s.dropped);
    return;
  }
  const m = ev.data;
  if (!m || typeof m !== "object" || m.jsonrpc !== "2.0") return;
  window.mcpkitLog.push({ dir: "view→host", method: m.method ?? null, id: m.id ?? null, params: m.method === "ui/notifications/size-changed" ? m.params : undefined });
  if (m.method === undefined) { // answers to our requests: only teardown's is waited for
    if (s.closing && m.id === s.closing.id) s.closing.end();
    return;
  }
  if (typeof m.method === "string" && m.method.startsWith(SANDBOX)) {
    if (m.method === SANDBOX + "proxy-ready") sendResource(s).catch((e) => teardown(s, String(e.message ?? e)));
    return; // the proxy's own messages are never the view's
  }
  handle(s, m).catch((e) => { if (m.id !== undefined) fail(s, m.id, -32603, String(e.message ?? e)); });
});

async function handle(s, m) {
  const p = m.params ?? {};
  switch (m.method) {
  case "ui/initialize":
    return reply(s, m.id, {
      protocolVersion: typeof p.protocolVersion === "string" ? p.protocolVersion : "2026-01-26",
      hostInfo: { name: "mcpkit host", version: "1" },
      hostCapabilities: { openLinks: {}, serverTools: {}, serverResources: {}, logging: {}, updateModelContext: { text: {} }, message: { text: {} },
        sandbox: { permissions: {}, csp: s.csp ?? {} } },
      hostContext: hostContext(s),
    });
  case "ui/notifications/initialized":
    if (s.initialized) return;
    s.initialized = true;
    tell(s.call);
    return;
  case "ui/notifications/request-teardown":
    teardown(s, "the view asked to close");
    return;
  case "ui/notifications/size-changed":
    if (typeof p.height === "number" && p.height > 0) s.frame.style.height = Math.min(Math.ceil(p.height), 2000) + "px";
    return;
  case "ui/message": {
    const text = (Array.isArray(p.content) ? p.content : [p.content]).filter((b) => b && b.type === "text").map((b) => b.text).join("\n");
    if (!text) return fail(s, m.id, -32602, "ui/message: no text content");
    await sendText(text);
    return reply(s, m.id, {});
  }
  case "ui/open-link": {
    let u;
    try { u = new URL(p.url); } catch { return fail(s, m.id, -32602, "ui/open-link: not a URL"); }
    if (u.protocol !== "https:" && u.protocol !== "http:") return fail(s, m.id, -32602, "ui/open-link: only http(s) links");
    window.open(u.href, "_blank", "noopener,noreferrer");
    return reply(s, m.id, {});
  }
  case "ui/request-display-mode":
    return reply(s, m.id, { mode: "inline" });
  case "ui/update-model-context":
  case "tools/call":
  case "resources/read": {
    const out = await api("/api/app", { view: s.v.id, method: m.method, params: p });
    if (m.id === undefined) return;
    return out.error ? fail(s, m.id, out.error.code, out.error.message) : reply(s, m.id, out.result);
  }
  case "ping":
    return reply(s, m.id, {});
  case "notifications/message":
    return;
  default:
    if (m.id !== undefined) fail(s, m.id, -32601, "method not found: " + m.method);
  }
}

// The views hear when the page's theme or their width changes.
let resizeTimer = 0;
function contextChanged() {
  for (const s of views.values()) {
    if (s.initialized) post(s, { jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: hostContext(s) });
  }
}
addEventListener("resize", () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(contextChanged, 200); });
matchMedia("(prefers-color-scheme: dark)").addEventListener("change", contextChanged);

addEventListener("pagehide", () => { for (const s of views.values()) teardown(s, "the page closed", true); });

// --- start ------------------------------------------------------------------

(async () => {
  cfg = await (await fetch("/api/config")).json();
  $("model").textContent = cfg.model + (cfg.yes ? " · every call approved (--yes)" : "");
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("input").value.trim();
    if (!text) return;
    const attach = attached.map(({ server, uri }) => ({ server, uri }));
    $("input").value = "";
    sendText(text, attach).then((ok) => { if (ok) { attached = []; showAttachments(); } });
  });
  $("input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); $("composer").requestSubmit(); }
  });
  $("stop").addEventListener("click", async () => {
    try { await api("/api/stop", {}); } catch (e) { append(el("div", "msg error", "not stopped: " + e.message)); }
  });
  $("attach").addEventListener("change", (e) => { const v = e.target.value; e.target.value = ""; if (v !== "") choose(+v); });
  loadCatalog().catch(() => {});
  const es = new EventSource("/api/events");
  es.onmessage = (e) => { try { onEvent(JSON.parse(e.data)); } catch (err) { console.error(err); } };
  refreshServers();
  setInterval(refreshServers, 5000);
  document.body.dataset.ready = "true";
})();
