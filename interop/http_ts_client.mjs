#!/usr/bin/env node
// http_ts_client.mjs drives an MCP server over HTTP with the official TypeScript SDK
// client and prints ONE JSON object describing everything it observed.
//
//   [MCP_INTEROP_PROTOCOL_VERSION=<version>] [MCP_INTEROP_ECHO_CALLS=<n>] node http_ts_client.mjs streamable <MCP endpoint URL>
//   node http_ts_client.mjs sse <SSE stream URL>
//
// streamable uses StreamableHTTPClientTransport, sse SSEClientTransport (HTTP+SSE).
//
// It is written for mcpkit's demo server and is run by
// TestTypeScriptHTTPClientAgainstMcpkit (http_ts_client_test.go), which asserts on the
// JSON. Each step is recorded on its own ({ok: true, value} or {ok: false, error}), so
// one failing step does not hide the others.
//
// Besides what the SDK reports, the script records every HTTP exchange the SDK makes
// (through the transports' `fetch` option): method, path, the headers that matter to
// MCP, the request body and the response body as raw text, so that the test can tell
// which response carried which message (a JSON body, a POST's event stream, the GET
// stream) and show the exact bytes when something disagrees.
//
// The exit status is 0 when every step ran as expected, 1 when a step threw
// unexpectedly, and 2 on a usage error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";

// REQUEST_TIMEOUT_MS bounds every request, so a server that never answers makes the
// step fail instead of hanging the script (the Go test bounds the whole process too).
const REQUEST_TIMEOUT_MS = 15000;
// GET_STREAM_WAIT_MS bounds the wait for the answer to the SDK's standalone GET.
const GET_STREAM_WAIT_MS = 5000;
// MAX_BODY_CHARS caps each recorded body; the demo's answers are far smaller.
const MAX_BODY_CHARS = 1 << 20;

// HEADERS are the headers recorded for each exchange (lower case).
const REQUEST_HEADERS = ["accept", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id", "origin"];
const RESPONSE_HEADERS = ["content-type", "mcp-session-id"];

// ASK_VERSION, when set, replaces the protocol version the SDK asks for in its
// initialize request (the SDK accepts any version it supports in the answer), to
// exercise the server's older wire formats.
const ASK_VERSION = process.env.MCP_INTEROP_PROTOCOL_VERSION || "";

const started = Date.now();

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

// inFlight holds the requests whose response headers have not arrived yet. An answer
// can reach the client on a stream before the status of the POST that carried its
// request (HTTP+SSE answers every POST with 202, and the order of the two is not
// specified), so the report waits for them before it is printed.
const inFlight = new Set();

// recordingFetch returns a fetch that records every exchange in `exchanges`. A
// response body is passed through unchanged while its text is appended to the record,
// so the SDK reads it exactly as it arrived; a stream still open when the report is
// printed is recorded up to that point.
function recordingFetch(exchanges, onGetAnswered) {
  return async (url, init = {}) => {
    const u = new URL(url instanceof Request ? url.url : String(url));
    const method = (init.method ?? "GET").toUpperCase();
    if (ASK_VERSION && typeof init.body === "string" && init.body.includes('"initialize"')) {
      const msg = JSON.parse(init.body);
      if (msg.method === "initialize") {
        init = { ...init, body: JSON.stringify({ ...msg, params: { ...msg.params, protocolVersion: ASK_VERSION } }) };
      }
    }
    const ex = {
      seq: exchanges.length,
      method,
      path: u.pathname + u.search,
      requestHeaders: pickHeaders(init.headers, REQUEST_HEADERS),
      requestBody: typeof init.body === "string" ? init.body : undefined,
      startMs: Date.now() - started,
    };
    exchanges.push(ex);
    let response;
    const answered = fetch(url, init);
    inFlight.add(answered);
    try {
      response = await answered;
    } catch (err) {
      ex.fetchError = String(err?.message ?? err);
      throw err;
    } finally {
      inFlight.delete(answered);
    }
    ex.status = response.status;
    ex.responseHeaders = pickHeaders(response.headers, RESPONSE_HEADERS);
    ex.headersMs = Date.now() - started;
    if (method === "GET" && !init.headers?.has?.("last-event-id")) onGetAnswered(response.status);
    if (!response.body || [101, 204, 205, 304].includes(response.status) || (response.status >= 300 && response.status < 400)) {
      return response;
    }
    ex.responseBody = "";
    const decoder = new TextDecoder();
    const tap = new TransformStream({
      transform(chunk, controller) {
        if (ex.responseBody.length < MAX_BODY_CHARS) ex.responseBody += decoder.decode(chunk, { stream: true });
        controller.enqueue(chunk);
      },
      flush() {
        ex.responseBody += decoder.decode();
        ex.endMs = Date.now() - started;
      },
    });
    return new Response(response.body.pipeThrough(tap), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

// describeError turns a thrown value into plain JSON, keeping a JSON-RPC code.
function describeError(err) {
  if (err && typeof err === "object") {
    const out = { message: String(err.message ?? err) };
    if (err.code !== undefined) out.code = err.code;
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

async function main() {
  const [mode, rawURL] = process.argv.slice(2);
  if ((mode !== "streamable" && mode !== "sse") || !rawURL) {
    process.stderr.write("usage: node http_ts_client.mjs streamable|sse <url>\n");
    return 2;
  }
  const url = new URL(rawURL);
  const report = { mode, steps: {}, exchanges: [] };
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

  // getAnswered settles with the status of the first standalone GET (streamable only).
  let getAnswered;
  const getAnsweredPromise = new Promise((resolve) => (getAnswered = resolve));
  const fetchImpl = recordingFetch(report.exchanges, (status) => getAnswered(status));
  const transport =
    mode === "streamable"
      ? new StreamableHTTPClientTransport(url, {
          fetch: fetchImpl,
          // One quick retry is enough to see a resumption; more would only slow a failure.
          reconnectionOptions: { initialReconnectionDelay: 200, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 1 },
        })
      : new SSEClientTransport(url, { fetch: fetchImpl });
  const transportErrors = [];
  const client = new Client({ name: "mcpkit-interop-http-ts-client", version: "1.0.0" }, { capabilities: {} });
  client.onerror = (err) => transportErrors.push({ atMs: Date.now() - started, ...describeError(err) });
  const opts = { timeout: REQUEST_TIMEOUT_MS };

  await step("initialize", async () => {
    await client.connect(transport, opts);
    const init = report.exchanges.find((e) => e.requestBody?.includes('"initialize"'));
    return {
      askedVersion: init ? JSON.parse(init.requestBody).params?.protocolVersion : undefined,
      protocolVersion: transport.protocolVersion ?? transport._protocolVersion,
      serverInfo: client.getServerVersion(),
      sessionId: transport.sessionId ?? null,
    };
  });
  if (!report.steps.initialize.ok) {
    return finish(report, unexpected, client, transportErrors);
  }

  await step("listTools", async () => {
    const res = await client.listTools({}, opts);
    return { names: res.tools.map((t) => t.name) };
  });

  await step("echo", async () => {
    const res = await client.callTool({ name: "echo", arguments: { message: "hi" } }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  // The SDK opens its standalone GET stream in the background once
  // notifications/initialized is accepted. Wait for the server's answer, so that
  // where the server may put progress (the GET stream, in JSON-only mode) does not
  // depend on a race; a server without one answers 405.
  if (mode === "streamable") {
    await step("getStream", async () => {
      const status = await Promise.race([
        getAnsweredPromise,
        new Promise((resolve) => setTimeout(() => resolve(null), GET_STREAM_WAIT_MS)),
      ]);
      return { status };
    });
  }

  // order records, in the order the client saw them, each progress notification and
  // the result, to check that progress came before the result.
  await step("count", async () => {
    const progress = [];
    const order = [];
    const res = await client.callTool({ name: "count", arguments: { n: 3 } }, undefined, {
      ...opts,
      onprogress: (p) => {
        progress.push(p);
        order.push(`progress ${p.progress}`);
      },
    });
    order.push("result");
    return { text: textOf(res.content), isError: res.isError ?? false, progress, order };
  });

  await step("testThrow", async () => {
    const res = await client.callTool({ name: "test_throw", arguments: {} }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await expectError("unknownTool", async () =>
    client.callTool({ name: "no_such_tool", arguments: {} }, undefined, opts),
  );

  await step("readReadme", async () => (await client.readResource({ uri: "demo://readme" }, opts)).contents);

  // MCP_INTEROP_ECHO_CALLS=N: N more echo calls in the same session (the replica
  // test sends them through a round-robin balancer).
  const echoCalls = Number(process.env.MCP_INTEROP_ECHO_CALLS || 0);
  if (echoCalls > 0) {
    await step("echoMany", async () => {
      let ok = 0;
      for (let i = 0; i < echoCalls; i++) {
        const res = await client.callTool({ name: "echo", arguments: { message: `many-${i}` } }, undefined, opts);
        if (!res.isError && textOf(res.content) === `hello many-${i}`) ok++;
      }
      return { calls: echoCalls, ok, sessionId: transport.sessionId ?? null };
    });
  }

  // Streamable HTTP: end the session with DELETE, then check with a raw POST (outside
  // the SDK, which forgets the id) that the server no longer knows it.
  if (mode === "streamable") {
    const sessionId = transport.sessionId;
    await step("terminate", async () => {
      await transport.terminateSession();
      return { sessionIdBefore: sessionId ?? null, sessionIdAfter: transport.sessionId ?? null };
    });
    if (sessionId) {
      await step("afterTerminate", async () => {
        const res = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": sessionId,
            "mcp-protocol-version": transport.protocolVersion,
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: "after-terminate", method: "ping" }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        return { status: res.status, body: await res.text() };
      });
    }
  }

  return finish(report, unexpected, client, transportErrors);
}

// finish closes the client and prints the report.
async function finish(report, unexpected, client, transportErrors) {
  const deadline = new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS).unref());
  await Promise.race([Promise.allSettled([...inFlight]), deadline]);
  try {
    await client.close();
  } catch (err) {
    report.closeError = describeError(err);
    unexpected.push("close");
  }
  report.unexpected = unexpected;
  report.transportErrors = transportErrors;
  const out = JSON.stringify(report) + "\n";
  await new Promise((resolve) => process.stdout.write(out, resolve));
  return unexpected.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`http_ts_client: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
