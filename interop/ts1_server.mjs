#!/usr/bin/env node
// ts1_server.mjs is the same small MCP server as ts2_server.mjs, written with the
// official TypeScript SDK 1.x (@modelcontextprotocol/sdk, McpServer over stdio), for
// mcpkit's client to drive:
//
//   node ts1_server.mjs
//
// The 1.x SDK knows only the legacy era (initialize). It offers:
//   - tool echo {message}  → text "ts1 echo: <message>"
//   - tool whoami          → structured {era: "legacy"}
//   - tool ask_name        → asks the client for a name (elicitation/create, form
//                            mode); "hello <name>"
//   - resource ts1://greeting (text/plain)
//   - prompt greet {name}  → one user message "Say hello to <name>."
//
// Nothing is printed on stdout except protocol messages; the process ends when its
// standard input closes.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer(
  { name: "ts1-interop-server", version: "1.32.2" },
  { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: "ts1 interop server" },
);

server.registerTool(
  "echo",
  { description: "Echoes its message back.", inputSchema: { message: z.string() } },
  async ({ message }) => ({ content: [{ type: "text", text: `ts1 echo: ${message}` }] }),
);

server.registerTool(
  "whoami",
  { description: "Reports the era the server serves.", outputSchema: { era: z.string() } },
  async () => {
    const out = { era: "legacy" };
    return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
  },
);

server.registerTool(
  "ask_name",
  { description: "Asks the user for their name through the client (elicitation/create, form mode)." },
  async () => {
    const res = await server.server.elicitInput({
      mode: "form",
      message: "What is your name? (ts1)",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string", description: "Your name" } },
        required: ["name"],
      },
    });
    if (res.action !== "accept") {
      return { content: [{ type: "text", text: `the user chose to ${res.action}` }] };
    }
    return { content: [{ type: "text", text: `hello ${res.content?.name}` }] };
  },
);

server.registerResource(
  "greeting",
  "ts1://greeting",
  { mimeType: "text/plain", description: "A fixed greeting." },
  async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "hello from the TypeScript SDK 1.x" }] }),
);

server.registerPrompt(
  "greet",
  { description: "Asks to greet someone.", argsSchema: { name: z.string() } },
  async ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }] }),
);

await server.connect(new StdioServerTransport());
