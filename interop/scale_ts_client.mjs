#!/usr/bin/env node
// scale_ts_client.mjs drives `mcpkit serve --redis` replicas behind a round-robin
// balancer with the official TypeScript SDK client, its standalone GET stream on,
// and prints ONE JSON object of what it observed:
//
//   node scale_ts_client.mjs <MCP endpoint URL>
//
// - listChanged: tools/list_changed notifications received (on the GET stream)
//   while it called test_trigger_tool_change `triggers` times, one at a time, each
//   awaited; the calls rotate over the replicas, so most land on replicas other
//   than the one holding the GET stream.
// - calls: test_streaming_elicitation calls (progress, then an elicitation whose
//   answer the SDK POSTs, through the balancer, to another replica): each call's
//   text and progress values.
// Run by TestReplicaStreamsBehindRoundRobinOnRedis (scale_test.go).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const url = process.argv[2];
const WAIT_MS = 3000; // for one notification (the GET stream may open late)
const out = { triggers: 0, listChanged: 0, calls: [], error: "" };

let waiter = null;
const client = new Client({ name: "scale-ts", version: "1" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { name: "scale" } }));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  out.listChanged++;
  if (waiter) waiter();
});

// notified resolves true when a list_changed arrives within ms, false otherwise.
function notified(ms) {
  return new Promise((resolve) => {
    const timer = setTimeout(() => { waiter = null; resolve(false); }, ms);
    waiter = () => { clearTimeout(timer); waiter = null; resolve(true); };
  });
}

try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  // Until the GET stream is open, a change reaches nobody: trigger until one arrives.
  let first = false;
  for (let i = 0; i < 10 && !first; i++) {
    const got = notified(WAIT_MS);
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} });
    first = await got;
  }
  if (!first) throw new Error("no tools/list_changed arrived on the GET stream");
  out.listChanged = 0; // count from here: every trigger now, exactly once
  for (let i = 0; i < 6; i++) {
    const got = notified(WAIT_MS * 2);
    await client.callTool({ name: "test_trigger_tool_change", arguments: {} });
    out.triggers++;
    if (!(await got)) throw new Error(`trigger ${i}: no tools/list_changed`);
  }
  for (let i = 0; i < 6; i++) {
    const progress = [];
    const res = await client.callTool({ name: "test_streaming_elicitation", arguments: {} }, undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 15000 });
    out.calls.push({ text: res.content?.[0]?.text ?? "", progress });
  }
  // A few more round trips: a duplicate list_changed would have arrived by now.
  for (let i = 0; i < 3; i++) await client.callTool({ name: "echo", arguments: { message: "x" } });
  await client.close();
} catch (e) {
  out.error = String(e?.stack ?? e);
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(out.error ? 1 : 0);
