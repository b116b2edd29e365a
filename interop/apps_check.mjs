// apps_check.mjs checks what an mcpkit MCP Apps server sent against the types
// that @modelcontextprotocol/ext-apps publishes (its zod schemas, generated
// from the specification's TypeScript types, and its constants). It reads one
// JSON file (the path is its argument):
//
//   {"tools": [...tools/list tools...], "resources": [...resources/list...],
//    "contents": [...resources/read contents...], "toolResult": {...},
//    "clientSettings": {...the extension settings mcpkit's client declares...}}
//
// and prints one JSON report: {"checks": N, "problems": [...], "constants": {...}}.
// Unknown keys count as problems: the schemas accept them (passthrough), but a
// key the specification does not define is a mistake in mcpkit.
import { readFileSync } from "node:fs";
import {
  McpUiToolMetaSchema,
  McpUiResourceMetaSchema,
  McpUiResourceCspSchema,
  McpUiResourcePermissionsSchema,
  McpUiToolResultNotificationSchema,
  RESOURCE_MIME_TYPE,
  RESOURCE_URI_META_KEY,
} from "@modelcontextprotocol/ext-apps";
import { EXTENSION_ID, getUiCapability } from "@modelcontextprotocol/ext-apps/server";

const input = JSON.parse(readFileSync(process.argv[2], "utf8"));
const problems = [];
let checks = 0;

function parse(schema, value, where) {
  checks++;
  const r = schema.safeParse(value);
  if (!r.success) problems.push(`${where}: ${JSON.stringify(r.error.issues)}`);
}

function onlyKnownKeys(schema, value, where) {
  checks++;
  if (value === null || typeof value !== "object") return;
  const known = Object.keys(schema.shape ?? {});
  for (const k of Object.keys(value)) {
    if (!known.includes(k)) problems.push(`${where}: key ${JSON.stringify(k)} is not in the published type (${known.join(", ")})`);
  }
}

function checkResourceMeta(ui, where) {
  parse(McpUiResourceMetaSchema, ui, where);
  onlyKnownKeys(McpUiResourceMetaSchema, ui, where);
  if (ui?.csp) onlyKnownKeys(McpUiResourceCspSchema, ui.csp, `${where}.csp`);
  if (ui?.permissions) onlyKnownKeys(McpUiResourcePermissionsSchema, ui.permissions, `${where}.permissions`);
}

let linked = 0;
for (const tool of input.tools) {
  const ui = tool._meta?.ui;
  if (ui === undefined) continue;
  linked++;
  const where = `tool ${tool.name} _meta.ui`;
  parse(McpUiToolMetaSchema, ui, where);
  onlyKnownKeys(McpUiToolMetaSchema, ui, where);
  checks++;
  if (ui.resourceUri && tool._meta[RESOURCE_URI_META_KEY] !== ui.resourceUri) {
    problems.push(`tool ${tool.name}: _meta[${JSON.stringify(RESOURCE_URI_META_KEY)}] = ${JSON.stringify(tool._meta[RESOURCE_URI_META_KEY])}, want ${JSON.stringify(ui.resourceUri)}`);
  }
  checks++;
  if (ui.resourceUri && !input.resources.some((r) => r.uri === ui.resourceUri)) {
    problems.push(`tool ${tool.name}: its view ${ui.resourceUri} is not listed`);
  }
}
if (linked === 0) problems.push("no tool has _meta.ui");

for (const r of [...input.resources, ...input.contents]) {
  if (!r.uri.startsWith("ui://")) continue;
  checks++;
  if (r.mimeType !== RESOURCE_MIME_TYPE) problems.push(`${r.uri}: mimeType ${JSON.stringify(r.mimeType)}, want ${RESOURCE_MIME_TYPE}`);
  if (r._meta?.ui !== undefined) checkResourceMeta(r._meta.ui, `${r.uri} _meta.ui`);
}
for (const c of input.contents) {
  checks++;
  if (typeof c.text !== "string" || !/^<!DOCTYPE html>/i.test(c.text)) problems.push(`${c.uri}: the content is not an HTML5 document`);
}

parse(McpUiToolResultNotificationSchema, { jsonrpc: "2.0", method: "ui/notifications/tool-result", params: input.toolResult }, "the tool result as ui/notifications/tool-result");

checks++;
const cap = getUiCapability({ extensions: { [EXTENSION_ID]: input.clientSettings } });
if (!cap?.mimeTypes?.includes(RESOURCE_MIME_TYPE)) problems.push(`getUiCapability of mcpkit's client settings: ${JSON.stringify(cap)}`);

console.log(JSON.stringify({ checks, problems, constants: { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } }));
