#!/usr/bin/env node
// gateway_ext_client.mjs reads extensions through `mcpkit gateway --http` with the
// official TypeScript SDK 2.x client (@modelcontextprotocol/client), as a host that
// renders MCP Apps would, and prints ONE JSON object with what it observed:
//
//   node gateway_ext_client.mjs <MCP endpoint URL> <view URI> <app tool>
//
// It declares the Apps extension, reads the extensions the gateway declares, lists
// the tools (with their _meta.ui), reads the view URI, calls the app tool by the
// name given (with {city: "Oslo", after: 3}) and lists the skills with SkillsClient.
// Run by TestGatewayExtensionsWithTypeScriptClient (gateway_ext_test.go). Each step
// is {ok, value} or {ok: false, error}; exit status 0 when the report was written.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";

const REQUEST_TIMEOUT_MS = 15000;
const APPS = "io.modelcontextprotocol/ui";

async function step(report, name, f) {
  try {
    report[name] = { ok: true, value: await f() };
  } catch (err) {
    report[name] = { ok: false, error: String(err?.message ?? err), code: err?.code };
  }
}

async function main() {
  const [url, viewURI, appTool] = process.argv.slice(2);
  if (!url || !viewURI || !appTool) {
    process.stderr.write("usage: node gateway_ext_client.mjs <url> <view URI> <app tool>\n");
    process.exit(2);
  }
  const client = new Client(
    { name: "gateway-ext-client", version: "2.4.0" },
    { capabilities: { extensions: { [APPS]: { mimeTypes: ["text/html;profile=mcp-app"] } } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const opts = { timeout: REQUEST_TIMEOUT_MS };
  const report = { extensions: Object.keys(client.getServerCapabilities()?.extensions ?? {}).sort() };
  await step(report, "tools", async () => {
    const out = {};
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, opts);
      for (const t of page.tools) out[t.name] = t._meta?.ui ?? null;
      cursor = page.nextCursor;
    } while (cursor);
    return out;
  });
  await step(report, "readView", async () => {
    const r = await client.readResource({ uri: viewURI }, opts);
    const c = r.contents[0];
    return { uri: c.uri, mimeType: c.mimeType, bytes: (c.text ?? "").length };
  });
  await step(report, "callApp", async () => {
    const r = await client.callTool({ name: appTool, arguments: { city: "Oslo", after: 3 } }, opts);
    return { isError: r.isError ?? false, structured: r.structuredContent ?? null };
  });
  await step(report, "skills", async () => {
    const sk = new SkillsClient(client);
    const page = await sk.list({}, opts);
    return { supported: sk.supported, uris: page.skills.map((s) => s.uri).sort() };
  });
  await client.close();
  process.stdout.write(JSON.stringify(report) + "\n");
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ fatal: String(err?.stack ?? err) }) + "\n");
});
