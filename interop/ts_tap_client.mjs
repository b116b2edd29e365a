#!/usr/bin/env node
// ts_tap_client.mjs drives @modelcontextprotocol/server-everything over stdio with
// the official TypeScript SDK client, through whatever command it is given (the test
// gives it `mcpkit tap --out FILE -- node <server-everything> stdio`), and prints
// ONE JSON object: the outcome of each step, and every message the client sent and
// received, in order, so that the test can hold them against the tap's capture.
//
//   node ts_tap_client.mjs <command> [args...]
//
// Run by TestTypeScriptClientThroughStdioTap. Exit status 0 when every step
// succeeded, 1 when one failed, 2 on a usage error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const TIMEOUT_MS = 20000;

// Wire keeps every message in both directions, as the SDK sent and parsed them.
class Wire {
  constructor(inner) {
    this.inner = inner;
    this.log = [];
  }
  async start() {
    this.inner.onmessage = (msg, extra) => {
      this.log.push({ dir: "recv", msg });
      this.onmessage?.(msg, extra);
    };
    this.inner.onerror = (err) => this.onerror?.(err);
    this.inner.onclose = () => this.onclose?.();
    return this.inner.start();
  }
  async send(msg, options) {
    this.log.push({ dir: "send", msg });
    return this.inner.send(msg, options);
  }
  async close() {
    return this.inner.close();
  }
  get sessionId() {
    return undefined;
  }
}

function text(content) {
  return (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

async function main() {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write("usage: node ts_tap_client.mjs <command> [args...]\n");
    return 2;
  }
  const report = { steps: {}, failed: [], wire: [] };
  const run = async (name, fn) => {
    try {
      report.steps[name] = { ok: true, value: await fn() };
    } catch (err) {
      report.steps[name] = { ok: false, error: String(err?.message ?? err) };
      report.failed.push(name);
    }
  };

  const wire = new Wire(new StdioClientTransport({ command, args, stderr: "inherit" }));
  const client = new Client(
    { name: "mcpkit-tap-interop", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true }, sampling: {} } },
  );
  // The SDK hands a notification to its handler in a microtask but settles a
  // response at once, removing the request's progress handler: progress read in
  // the same chunk as the response is dropped and reported here. lateProgress keeps
  // it, so the Go test can tell it from progress that never went through the tap.
  const lateProgress = [];
  client.onerror = (err) => {
    const late = /^Received a progress notification for an unknown token: (.*)$/s.exec(String(err?.message ?? err));
    if (late) lateProgress.push(JSON.parse(late[1]).params.progress);
  };
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///tmp/tap-root", name: "tap" }] }));
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "sampled through the tap" },
    model: "tap-model",
    stopReason: "endTurn",
  }));
  // The server adds its roots and sampling tools after initialization, and says so.
  const toolsChanged = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
  const opts = { timeout: TIMEOUT_MS };

  await run("initialize", async () => {
    await client.connect(wire, opts);
    return client.getServerVersion();
  });
  if (report.steps.initialize.ok) {
    await run("toolsChanged", () =>
      Promise.race([toolsChanged, new Promise((_, reject) => setTimeout(() => reject(new Error("no tools/list_changed")), TIMEOUT_MS))]),
    );
    await run("ping", () => client.ping(opts));
    await run("listTools", async () => (await client.listTools({}, opts)).tools.map((t) => t.name));
    await run("echo", async () => text((await client.callTool({ name: "echo", arguments: { message: "hi" } }, undefined, opts)).content));
    await run("bigEcho", async () => {
      const message = "é\u2028\u2029\n🙂".repeat(20000) + "x".repeat(200000);
      const got = text((await client.callTool({ name: "echo", arguments: { message } }, undefined, opts)).content);
      return { sent: message.length, equal: got === `Echo: ${message}` };
    });
    await run("getSum", async () => text((await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } }, undefined, opts)).content));
    await run("progress", async () => {
      const progress = [];
      const res = await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } }, undefined, {
        ...opts,
        onprogress: (p) => progress.push(p.progress),
      });
      return { text: text(res.content), progress, late: lateProgress.splice(0) };
    });
    await run("roots", async () => text((await client.callTool({ name: "get-roots-list", arguments: {} }, undefined, opts)).content));
    await run("sampling", async () =>
      text((await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 10 } }, undefined, opts)).content),
    );
    await run("listResources", async () => (await client.listResources({}, opts)).resources.length);
    await run("listPrompts", async () => (await client.listPrompts({}, opts)).prompts.map((p) => p.name));
  }
  await run("close", () => client.close());
  report.wire = wire.log;
  // Exit only once the (large) report is written: a pipe is written asynchronously.
  await new Promise((resolve) => process.stdout.write(JSON.stringify(report), resolve));
  return report.failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`ts_tap_client.mjs: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
