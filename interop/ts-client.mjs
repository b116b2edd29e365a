#!/usr/bin/env node
// ts-client.mjs drives an MCP server over stdio with the official TypeScript SDK
// client and prints ONE JSON object describing everything it observed.
//
//   [MCP_INTEROP_PROTOCOL_VERSION=<version>] node ts-client.mjs <server command> [server args...]
//
// It is written for mcpkit's demo server (`mcpkit serve`) and is run by
// TestTypeScriptClientAgainstMcpkitServe, which asserts on the JSON. Each step is
// recorded on its own ({ok: true, value} or {ok: false, error}), so one failing step
// does not hide the others; the raw messages in both directions are kept in "wire"
// for diagnosis. The exit status is 0 when every step ran as expected, 1 when a step
// threw unexpectedly, and 2 on a usage error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

// ROOT is the root this client declares; the demo's list_roots tool echoes it.
const ROOT = { uri: "file:///tmp/mcpkit-interop-root", name: "interop-root" };
// MODEL is the model name the sampling handler reports.
const MODEL = "interop-model";
// ASK_VERSION, when set, replaces the protocol version the client asks for in
// initialize (the SDK accepts any version it supports in the answer).
const ASK_VERSION = process.env.MCP_INTEROP_PROTOCOL_VERSION || "";
// REQUEST_TIMEOUT_MS bounds every request, so a server that never answers makes
// the step fail instead of hanging the script.
const REQUEST_TIMEOUT_MS = 15000;

// RecordingTransport wraps a transport and records every message in both
// directions, so the test can show the exact bytes when something disagrees.
class RecordingTransport {
  constructor(inner) {
    this.inner = inner;
    this.wire = [];
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
    // The SDK always asks for its newest version; ask for another one when told to,
    // to exercise the server's negotiation and its older wire formats.
    if (ASK_VERSION && msg.method === "initialize") {
      msg = { ...msg, params: { ...msg.params, protocolVersion: ASK_VERSION } };
    }
    this.wire.push({ dir: "send", msg });
    return this.inner.send(msg, options);
  }
  async close() {
    return this.inner.close();
  }
  // A stdio connection has no session id; Client.connect initializes only when
  // this is undefined.
  get sessionId() {
    return undefined;
  }
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
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node ts-client.mjs <server command> [args...]\n");
    return 2;
  }

  const report = { steps: {}, notifications: { progress: [], logging: [], resourceUpdated: [] } };
  const unexpected = [];

  // step runs fn and records its value; a throw is recorded as an unexpected failure.
  async function step(name, fn) {
    try {
      report.steps[name] = { ok: true, value: await fn() };
    } catch (err) {
      report.steps[name] = { ok: false, error: describeError(err) };
      unexpected.push(name);
    }
  }
  // expectError runs fn, which should throw; it records the error (code included).
  async function expectError(name, fn) {
    try {
      const value = await fn();
      report.steps[name] = { ok: false, unexpectedValue: value };
      unexpected.push(name);
    } catch (err) {
      report.steps[name] = { ok: true, error: describeError(err) };
    }
  }

  const inner = new StdioClientTransport({ command, args, stderr: "inherit" });
  const transport = new RecordingTransport(inner);
  const client = new Client(
    { name: "mcpkit-interop-ts-client", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } },
  );

  // The SDK hands a notification to its handler in a microtask but settles a
  // response at once, removing the request's progress handler: progress read in
  // the same chunk as the response is dropped and reported here. lateProgress keeps
  // it, so the Go test can tell it from progress the server never sent.
  const lateProgress = [];
  client.onerror = (err) => {
    const late = /^Received a progress notification for an unknown token: (.*)$/s.exec(String(err?.message ?? err));
    if (late) lateProgress.push(JSON.parse(late[1]).params);
  };

  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [ROOT] }));
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const first = req.params.messages[0]?.content;
    const prompt = Array.isArray(first) ? textOf(first) : first?.text ?? "";
    return { role: "assistant", content: { type: "text", text: `sampled: ${prompt}` }, model: MODEL, stopReason: "endTurn" };
  });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    report.notifications.elicitationMessage = req.params.message;
    return { action: "accept", content: { name: "Ada" } };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    report.notifications.logging.push(n.params);
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    report.notifications.resourceUpdated.push(n.params.uri);
  });

  const opts = { timeout: REQUEST_TIMEOUT_MS };

  await step("initialize", async () => {
    await client.connect(transport, opts);
    const init = transport.wire.find((w) => w.dir === "recv" && w.msg.result?.protocolVersion);
    return {
      protocolVersion: init?.msg.result.protocolVersion,
      serverInfo: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
    };
  });
  if (!report.steps.initialize.ok) {
    return finish(report, transport, unexpected, client);
  }

  await step("ping", async () => client.ping(opts));

  await step("listTools", async () => {
    const res = await client.listTools({}, opts);
    return { names: res.tools.map((t) => t.name), tools: res.tools };
  });

  await step("echo", async () => {
    const res = await client.callTool({ name: "echo", arguments: { message: "hi" } }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("count", async () => {
    const progress = [];
    const res = await client.callTool({ name: "count", arguments: { n: 3 } }, undefined, {
      ...opts,
      onprogress: (p) => progress.push(p),
    });
    return { text: textOf(res.content), isError: res.isError ?? false, progress, lateProgress: lateProgress.splice(0) };
  });

  // A message far over 64 KiB, with characters that need care on a line-based
  // transport: escaped newlines, U+2028/U+2029 (legal raw in JSON) and multi-byte UTF-8.
  await step("bigEcho", async () => {
    const message = "é\u2028\u2029\n🙂".repeat(20000) + "x".repeat(200000);
    const res = await client.callTool({ name: "echo", arguments: { message } }, undefined, opts);
    const text = textOf(res.content);
    return { sentLength: message.length, receivedLength: text.length, equal: text === `hello ${message}` };
  });

  await step("testThrow", async () => {
    const res = await client.callTool({ name: "test_throw", arguments: {} }, undefined, opts);
    return { isError: res.isError ?? false, text: textOf(res.content) };
  });

  await expectError("unknownTool", async () =>
    client.callTool({ name: "no_such_tool", arguments: {} }, undefined, opts),
  );

  await step("add", async () => {
    const res = await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } }, undefined, opts);
    return { structuredContent: res.structuredContent, text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("echoIp", async () => {
    const res = await client.callTool({ name: "echo_ip", arguments: {} }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("listRootsTool", async () => {
    const res = await client.callTool({ name: "list_roots", arguments: {} }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("sample", async () => {
    const res = await client.callTool({ name: "sample", arguments: { prompt: "say hi" } }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("askName", async () => {
    const res = await client.callTool({ name: "ask_name", arguments: {} }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("logging", async () => {
    await client.setLoggingLevel("warning", opts);
    const res = await client.callTool({ name: "log", arguments: {} }, undefined, opts);
    return { text: textOf(res.content), isError: res.isError ?? false };
  });

  await step("listResources", async () => {
    const res = await client.listResources({}, opts);
    return { uris: res.resources.map((r) => r.uri), resources: res.resources };
  });

  await step("readReadme", async () => {
    const res = await client.readResource({ uri: "demo://readme" }, opts);
    return res.contents;
  });

  await step("readLogo", async () => {
    const res = await client.readResource({ uri: "demo://logo.png" }, opts);
    return res.contents;
  });

  await step("listResourceTemplates", async () => {
    const res = await client.listResourceTemplates({}, opts);
    return res.resourceTemplates.map((t) => t.uriTemplate);
  });

  await step("readItem", async () => {
    const res = await client.readResource({ uri: "demo://items/42" }, opts);
    return res.contents;
  });

  await expectError("readMissingItem", async () => client.readResource({ uri: "demo://items/7" }, opts));

  await step("subscribe", async () => {
    await client.subscribeResource({ uri: "demo://readme" }, opts);
    const res = await client.callTool({ name: "touch", arguments: { uri: "demo://readme" } }, undefined, opts);
    return { text: textOf(res.content) };
  });

  await step("listPrompts", async () => {
    const res = await client.listPrompts({}, opts);
    return res.prompts.map((p) => p.name);
  });

  await step("greet", async () => {
    const res = await client.getPrompt({ name: "greet", arguments: { name: "Ada", style: "pirate" } }, opts);
    return res;
  });

  await expectError("unknownPrompt", async () => client.getPrompt({ name: "no_such_prompt" }, opts));

  await step("complete", async () => {
    const res = await client.complete(
      { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "style", value: "p" } },
      opts,
    );
    return res.completion.values;
  });

  // Cancellation: abort a long count after its first progress notification; the
  // SDK sends notifications/cancelled. The server must keep serving afterwards.
  await step("cancel", async () => {
    const controller = new AbortController();
    let aborted = false;
    const call = client.callTool({ name: "count", arguments: { n: 100 } }, undefined, {
      ...opts,
      signal: controller.signal,
      onprogress: () => {
        if (!aborted) {
          aborted = true;
          controller.abort("interop test cancels");
        }
      },
    });
    let cancelError;
    try {
      await call;
    } catch (err) {
      cancelError = describeError(err);
    }
    const after = await client.callTool({ name: "echo", arguments: { message: "after cancel" } }, undefined, opts);
    return { cancelError, afterText: textOf(after.content) };
  });

  return finish(report, transport, unexpected, client);
}

// finish closes the client, attaches the wire log and prints the report.
async function finish(report, transport, unexpected, client) {
  try {
    await client.close();
  } catch (err) {
    report.closeError = describeError(err);
    unexpected.push("close");
  }
  report.unexpected = unexpected;
  report.wire = transport.wire;
  const out = JSON.stringify(report) + "\n";
  await new Promise((resolve) => process.stdout.write(out, resolve));
  return unexpected.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`ts-client: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
