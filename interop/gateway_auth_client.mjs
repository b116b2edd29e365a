#!/usr/bin/env node
// gateway_auth_client.mjs connects the official TypeScript SDK (1.x) Streamable HTTP
// client to `mcpkit gateway --http` with a bearer token and prints ONE JSON object:
//
//   node gateway_auth_client.mjs <MCP endpoint URL>
//
// The token comes from $GATEWAY_TOKEN (none when empty), sent as the Authorization
// header on every request. On success the report lists the tools and the text of
// demo__echo and up__whoami; on failure it holds the error (message, and the HTTP
// status code the SDK reports). Run by TestGatewayAuthWithTypeScriptClient
// (gateway_auth_test.go). Exit status 0 on success, 1 on failure, 2 on bad usage.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// REQUEST_TIMEOUT_MS bounds every request (the Go test bounds the whole process too).
const REQUEST_TIMEOUT_MS = 20000;

function textOf(res) {
  return (res?.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
}

async function main() {
  const [rawURL] = process.argv.slice(2);
  if (!rawURL) {
    process.stderr.write("usage: node gateway_auth_client.mjs <url>\n");
    return 2;
  }
  const token = process.env.GATEWAY_TOKEN ?? "";
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const report = { ok: false };
  const client = new Client({ name: "gateway-auth-ts-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(rawURL), { requestInit: { headers } });
  const opts = { timeout: REQUEST_TIMEOUT_MS };
  try {
    await client.connect(transport, opts);
    report.tools = (await client.listTools(undefined, opts)).tools.map((t) => t.name).sort();
    report.echo = textOf(await client.callTool({ name: "demo__echo", arguments: { message: "ts" } }, undefined, opts));
    report.whoami = textOf(await client.callTool({ name: "up__whoami", arguments: {} }, undefined, opts));
    report.ok = true;
  } catch (err) {
    report.error = { message: String(err?.message ?? err) };
    if (err?.code !== undefined) report.error.code = err.code;
  } finally {
    await client.close().catch(() => {});
  }
  process.stdout.write(JSON.stringify(report) + "\n");
  return report.ok ? 0 : 1;
}

process.exitCode = await main();
