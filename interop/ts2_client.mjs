#!/usr/bin/env node
// ts2_client.mjs drives mcpkit's demo server with the official TypeScript SDK 2.x
// client (@modelcontextprotocol/client) and prints ONE JSON object describing
// everything it observed.
//
//   node ts2_client.mjs <negotiation> stdio <server command> [args...]
//   node ts2_client.mjs <negotiation> http <MCP endpoint URL>
//
// negotiation is the client's versionNegotiation setting:
//
//   auto    probe with server/discover, fall back to initialize unless the server
//           proves it speaks 2026-07-28. On stdio the SDK's own StdioClientTransport
//           is used as it is, so the SDK probes on a short-lived sibling process
//           and starts the real one once the era is known (no wire record).
//   pin     { pin: "2026-07-28" }: the stateless era or a loud failure.
//   legacy  the SDK's default: initialize, exactly as a legacy client.
//
// Apart from stdio auto, every message is recorded: on stdio through a transport
// wrapper ("wire": {dir: "send"|"recv", msg}), over HTTP through the transport's
// fetch option ("exchanges": method, path, the MCP headers, the bodies as text), so
// the Go test (ts2_client_test.go) can check the era on the wire and show the exact
// bytes when something disagrees. Each step is recorded on its own ({ok, value} or
// {ok: false, error}). The count call's progress is recorded as the SDK delivered
// it ("progress") and as the SDK reported it dropped after the response
// ("lateProgress"); any other error the SDK reported is in "sdkErrors". The exit status is 0 when every step ran as expected, 1 when
// one threw unexpectedly, and 2 on a usage error.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

// STATELESS is the protocol revision the pin mode asks for.
const STATELESS = "2026-07-28";
// REQUEST_TIMEOUT_MS bounds every request (the Go test bounds the whole process too).
const REQUEST_TIMEOUT_MS = 15000;
// ELICITED_NAME is what the elicitation handler answers.
const ELICITED_NAME = "Ada";
// The HTTP headers recorded for each exchange (lower case).
const REQUEST_HEADERS = ["accept", "content-type", "mcp-session-id", "mcp-protocol-version", "mcp-method", "mcp-name"];
const RESPONSE_HEADERS = ["content-type", "mcp-session-id"];
// MAX_BODY_CHARS caps each recorded HTTP body.
const MAX_BODY_CHARS = 1 << 20;
// LATE_PROGRESS matches the error the SDK reports (through Client.onerror) for a
// notifications/progress it received but could not deliver because the request's
// progress handler was already gone; the notification follows as JSON.
const LATE_PROGRESS = /^Received a progress notification for an unknown token: (.*)$/s;

// RecordingTransport wraps a stdio transport and records every message in both
// directions. It exposes the child's pid and stderr, so that the SDK still treats
// it as a stdio transport (the era probe, when there is one, runs in place on it).
class RecordingTransport {
  constructor(inner, wire) {
    this.inner = inner;
    this.wire = wire;
  }
  async start() {
    this.inner.onmessage = (msg, extra) => {
      this.wire.push({ dir: "recv", msg });
      this.onmessage?.(msg, extra);
    };
    this.inner.onerror = (err) => this.onerror?.(err);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }
  async send(msg, options) {
    this.wire.push({ dir: "send", msg });
    return this.inner.send(msg, options);
  }
  async close() {
    return this.inner.close();
  }
  setProtocolVersion(v) {
    this.inner.setProtocolVersion?.(v);
  }
  get pid() {
    return this.inner.pid;
  }
  get stderr() {
    return this.inner.stderr;
  }
  get sessionId() {
    return undefined;
  }
}

// pickHeaders returns the named headers that are present, as a plain object.
function pickHeaders(headers, names) {
  const h = new Headers(headers ?? {});
  const out = {};
  for (const name of names) {
    const v = h.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

// recordingFetch returns a fetch that records every exchange in exchanges. A
// response body reaches the SDK unchanged while its text is appended to the record
// (an event stream still open when the report is printed is recorded so far).
function recordingFetch(exchanges) {
  return async (url, init = {}) => {
    const u = new URL(url instanceof Request ? url.url : String(url));
    const ex = {
      method: (init.method ?? "GET").toUpperCase(),
      path: u.pathname + u.search,
      requestHeaders: pickHeaders(init.headers, REQUEST_HEADERS),
      requestBody: typeof init.body === "string" ? init.body : undefined,
    };
    exchanges.push(ex);
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      ex.fetchError = String(err?.message ?? err);
      throw err;
    }
    ex.status = response.status;
    ex.responseHeaders = pickHeaders(response.headers, RESPONSE_HEADERS);
    if (!response.body) return response;
    ex.responseBody = "";
    const decoder = new TextDecoder();
    const tap = new TransformStream({
      transform(chunk, controller) {
        if (ex.responseBody.length < MAX_BODY_CHARS) ex.responseBody += decoder.decode(chunk, { stream: true });
        controller.enqueue(chunk);
      },
      flush() {
        ex.responseBody += decoder.decode();
      },
    });
    return new Response(response.body.pipeThrough(tap), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

// describeError turns a thrown value into plain JSON, keeping a JSON-RPC code. The
// SDK's own errors (SdkError) have string codes; those go into the message.
function describeError(err) {
  if (err && typeof err === "object") {
    const out = { message: String(err.message ?? err) };
    if (typeof err.code === "number") out.code = err.code;
    else if (err.code !== undefined) out.message += ` (${err.code})`;
    if (err.data !== undefined) out.data = err.data;
    if (err.name) out.name = err.name;
    return out;
  }
  return { message: String(err) };
}

// textOf joins the text blocks of a content array.
function textOf(content) {
  return (content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");
}

// negotiationOption maps the command-line word to ClientOptions.versionNegotiation.
function negotiationOption(word) {
  switch (word) {
    case "auto":
      return { mode: "auto" };
    case "pin":
      return { mode: { pin: STATELESS } };
    case "legacy":
      return undefined; // the SDK's default
    default:
      return null;
  }
}

async function main() {
  const [negotiation, kind, ...target] = process.argv.slice(2);
  const versionNegotiation = negotiationOption(negotiation);
  if (versionNegotiation === null || (kind !== "stdio" && kind !== "http") || target.length === 0) {
    process.stderr.write("usage: node ts2_client.mjs auto|pin|legacy stdio <command> [args...] | http <url>\n");
    return 2;
  }
  const report = {
    negotiation,
    kind,
    steps: {},
    elicitations: [],
    progress: [],
    lateProgress: [],
    sdkErrors: [],
    wire: [],
    exchanges: [],
  };
  const unexpected = [];

  async function step(name, fn) {
    try {
      report.steps[name] = { ok: true, value: await fn() };
    } catch (err) {
      report.steps[name] = { ok: false, error: describeError(err) };
      unexpected.push(name);
    }
  }
  async function expectError(name, fn) {
    try {
      const value = await fn();
      report.steps[name] = { ok: false, unexpectedValue: value };
      unexpected.push(name);
    } catch (err) {
      report.steps[name] = { ok: true, error: describeError(err) };
    }
  }

  let transport;
  if (kind === "stdio") {
    const inner = new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: "inherit" });
    transport = negotiation === "auto" ? inner : new RecordingTransport(inner, report.wire);
  } else {
    transport = new StreamableHTTPClientTransport(new URL(target[0]), { fetch: recordingFetch(report.exchanges) });
  }
  const client = new Client(
    { name: "mcpkit-interop-ts2-client", version: "2.4.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation },
  );
  // The SDK dispatches a notification in a microtask but a response at once, so a
  // progress notification that reaches it in the same read as the response to its
  // request (stdio: one chunk of the pipe) finds its handler removed: the SDK drops
  // it and reports it here. lateProgress keeps those, so the Go test can tell them
  // from progress the server never sent. Every other error is kept as text.
  client.onerror = (err) => {
    const message = String(err?.message ?? err);
    const late = LATE_PROGRESS.exec(message);
    if (late) {
      try {
        report.lateProgress.push(JSON.parse(late[1]).params);
        return;
      } catch {
        // not the JSON expected: keep the whole message below
      }
    }
    report.sdkErrors.push(message);
  };
  // One handler answers elicitation both ways: a server request (legacy era) and an
  // input_required result the SDK fulfils before retrying (2026-07-28).
  client.setRequestHandler("elicitation/create", async (req) => {
    report.elicitations.push(req.params);
    return { action: "accept", content: { name: ELICITED_NAME } };
  });

  const opts = { timeout: REQUEST_TIMEOUT_MS };

  await step("connect", async () => {
    await client.connect(transport, opts);
    return {
      era: client.getProtocolEra(),
      protocolVersion: client.getNegotiatedProtocolVersion(),
      serverInfo: client.getServerVersion(),
      discover: client.getDiscoverResult(),
    };
  });
  if (!report.steps.connect.ok) {
    return finish(report, client, unexpected);
  }

  await step("listTools", async () => {
    const res = await client.listTools({}, opts);
    return { names: res.tools.map((t) => t.name) };
  });

  await step("echo", async () => {
    const res = await client.callTool({ name: "echo", arguments: { message: "hi" } }, opts);
    return { text: textOf(res.content), isError: res.isError ?? false, meta: res._meta };
  });

  await step("count", async () => {
    const res = await client.callTool({ name: "count", arguments: { n: 3 } }, {
      ...opts,
      onprogress: (p) => report.progress.push(p),
    });
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("askName", async () => {
    const res = await client.callTool({ name: "ask_name", arguments: {} }, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await expectError("unknownTool", async () => client.callTool({ name: "no_such_tool", arguments: {} }, opts));

  await step("readReadme", async () => {
    const res = await client.readResource({ uri: "demo://readme" }, opts);
    return { contents: res.contents, meta: res._meta };
  });

  await expectError("readMissingItem", async () => client.readResource({ uri: "demo://items/7" }, opts));

  await step("greet", async () => {
    const res = await client.getPrompt({ name: "greet", arguments: { name: "Ada", style: "pirate" } }, opts);
    return { messages: res.messages };
  });

  return finish(report, client, unexpected);
}

// finish closes the client and prints the report.
async function finish(report, client, unexpected) {
  try {
    await client.close();
  } catch (err) {
    report.closeError = describeError(err);
    unexpected.push("close");
  }
  report.unexpected = unexpected;
  const out = JSON.stringify(report) + "\n";
  await new Promise((resolve) => process.stdout.write(out, resolve));
  return unexpected.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`ts2_client: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
