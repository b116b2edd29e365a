#!/usr/bin/env node
// ts_everything_client.mjs is a host's session with server-everything, as the
// official TypeScript SDK client runs it over Streamable HTTP: it calls echo and
// get-sum, the long-running operation with progress, reads a resource, gets a
// prompt, and closes. TestTapWebViewOfServerEverything (tap_web_test.go) runs it
// through `mcpkit tap` and checks what the tap's web view shows of it.
//
//   node ts_everything_client.mjs <MCP endpoint URL>
//
// It exits 0 when every step succeeded, 1 otherwise (the error on stderr).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node ts_everything_client.mjs <MCP endpoint URL>");
  process.exit(2);
}
const client = new Client({ name: "ts-everything-client", version: "1.0.0" });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  await client.callTool({ name: "echo", arguments: { message: "from the TypeScript SDK" } });
  await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
  await client.callTool({ name: "trigger-long-running-operation", arguments: { duration: 1, steps: 2 } },
    undefined, { onprogress: () => {} });
  await client.readResource({ uri: "demo://resource/static/document/features.md" });
  await client.getPrompt({ name: "simple-prompt" });
  await client.close();
} catch (err) {
  console.error(err);
  process.exit(1);
}
