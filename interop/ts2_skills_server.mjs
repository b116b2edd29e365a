#!/usr/bin/env node
// ts2_skills_server.mjs is a skills server written with the official TypeScript
// SDK 2.x (@modelcontextprotocol/server and its ./ext/skills), for mcpkit's
// client to read over stdio:
//
//   node ts2_skills_server.mjs <skills directory>
//
// serveStdio's factory builds one McpServer per serving unit (a legacy
// connection, or the stateless engine of a 2026-07-28 one); the catalog is
// loaded once and attached to each. Each server also answers the custom
// request acme/echo {text} with {echo, era} (params are validated: a number
// for text is -32602), and declares a second extension, com.example/acme, for
// the client to read.
// Only protocol messages go to stdout; diagnostics go to stderr.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";
import * as z from "zod";

const [root] = process.argv.slice(2);
if (!root) {
  process.stderr.write("usage: node ts2_skills_server.mjs <skills directory>\n");
  process.exit(2);
}
const catalog = await loadSkills(root);

function buildServer(era) {
  const server = new McpServer(
    { name: "ts2-skills-server", version: "2.4.0" },
    { capabilities: { resources: {}, extensions: { "com.example/acme": {} } } },
  );
  catalog.attach(server);
  server.server.setRequestHandler("acme/echo", { params: z.object({ text: z.string() }) }, async (params) => ({
    echo: params.text,
    era,
  }));
  return server;
}

serveStdio((ctx) => buildServer(ctx.era), {
  onerror: (err) => process.stderr.write(`ts2-skills-server: ${err?.message ?? err}\n`),
});
