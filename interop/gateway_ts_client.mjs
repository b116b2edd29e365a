#!/usr/bin/env node
// gateway_ts_client.mjs drives `mcpkit gateway --http` with the official TypeScript SDK
// (1.x) Streamable HTTP client and prints ONE JSON object describing what it saw.
//
//   node gateway_ts_client.mjs full|calls <MCP endpoint URL>
//
// The gateway serves two servers: "demo" (`mcpkit serve`) and "everything" (the npm
// reference server). "full" lists the tools and calls tools of both, with progress
// and with sampling requests that the servers send through the gateway and this
// client answers; "calls" only lists and calls one tool of each (after a restart).
// It is run by TestGatewayWithOfficialClients (gateway_test.go), which asserts on
// the JSON. Each step is recorded on its own ({ok: true, value} or {ok: false,
// error}); the exit status is 0 when every step ran, 1 otherwise, 2 on bad usage.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

// REQUEST_TIMEOUT_MS bounds every request (the Go test bounds the whole process too).
const REQUEST_TIMEOUT_MS = 20000;
// MODEL is the model name the sampling handler reports.
const MODEL = "gateway-interop-model";

function textOf(content) {
  return (content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");
}

function describeError(err) {
  const out = { message: String(err?.message ?? err) };
  if (err?.code !== undefined) out.code = err.code;
  return out;
}

async function main() {
  const [mode, rawURL] = process.argv.slice(2);
  if ((mode !== "full" && mode !== "calls") || !rawURL) {
    process.stderr.write("usage: node gateway_ts_client.mjs full|calls <url>\n");
    return 2;
  }
  const report = { mode, steps: {}, sampling: [] };
  const unexpected = [];
  async function step(name, fn) {
    try {
      report.steps[name] = { ok: true, value: await fn() };
    } catch (err) {
      report.steps[name] = { ok: false, error: describeError(err) };
      unexpected.push(name);
    }
  }

  const client = new Client({ name: "gateway-interop-ts-client", version: "1.0.0" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    const first = req.params.messages[0]?.content;
    const prompt = Array.isArray(first) ? textOf(first) : first?.text ?? "";
    report.sampling.push(prompt);
    return { role: "assistant", content: { type: "text", text: `sampled: ${prompt}` }, model: MODEL, stopReason: "endTurn" };
  });
  const transport = new StreamableHTTPClientTransport(new URL(rawURL));
  const opts = { timeout: REQUEST_TIMEOUT_MS };

  await step("connect", async () => {
    await client.connect(transport, opts);
    return { serverInfo: client.getServerVersion(), instructions: client.getInstructions() ?? "" };
  });
  if (!report.steps.connect.ok) return finish(report, unexpected, client);

  await step("listTools", async () => {
    const names = [];
    let cursor;
    do {
      const res = await client.listTools(cursor ? { cursor } : {}, opts);
      names.push(...res.tools.map((t) => t.name));
      cursor = res.nextCursor;
    } while (cursor);
    return { names };
  });
  const call = async (name, args, extra = {}) => {
    const res = await client.callTool({ name, arguments: args }, undefined, { ...opts, ...extra });
    return { text: textOf(res.content), isError: res.isError ?? false };
  };
  await step("demoEcho", () => call("demo__echo", { message: "hi" }));
  await step("everythingEcho", () => call("everything__echo", { message: "hi" }));
  if (mode === "full") {
    const withProgress = async (name, args) => {
      const progress = [];
      const res = await call(name, args, { onprogress: (p) => progress.push(p.progress) });
      return { ...res, progress };
    };
    await step("demoCount", () => withProgress("demo__count", { n: 3 }));
    await step("everythingLong", () => withProgress("everything__trigger-long-running-operation", { duration: 1, steps: 3 }));
    await step("demoSample", () => call("demo__sample", { prompt: "two plus two?" }));
    await step("everythingSample", () => call("everything__trigger-sampling-request", { prompt: "a haiku", maxTokens: 20 }));
  }
  return finish(report, unexpected, client);
}

async function finish(report, unexpected, client) {
  try {
    await client.close();
  } catch (err) {
    report.closeError = describeError(err);
  }
  report.unexpected = unexpected;
  await new Promise((resolve) => process.stdout.write(JSON.stringify(report) + "\n", resolve));
  return unexpected.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`gateway_ts_client: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
