#!/usr/bin/env node
// ts2_server.mjs is a small MCP server written with the official TypeScript SDK 2.x
// (@modelcontextprotocol/server), for mcpkit's client to drive:
//
//   node ts2_server.mjs stdio
//   node --import http_loopback.mjs ts2_server.mjs http     (PORT=0: a free port)
//
// One factory defines the server once for both protocol eras, the way the SDK means
// it to be used:
//
//   - stdio: serveStdio(factory). A connection that opens with initialize is pinned
//     to a legacy instance; one that opens with a 2026-07-28 request (per-request
//     _meta envelope, server/discover) is served by the stateless engine.
//   - http: POST /mcp. Requests with the 2026-07-28 envelope go to createMcpHandler
//     (stateless, one instance per request); legacy requests (initialize and the
//     session's later POSTs, GET and DELETE) go to a sessionful
//     WebStandardStreamableHTTPServerTransport, routed with isLegacyRequest — the
//     SDK's documented pattern for keeping legacy clients with sessions next to the
//     stateless endpoint (its built-in legacy fallback is sessionless, and a sessionless
//     legacy server cannot send elicitation/create and get the answer back).
//
// It offers:
//   - tool echo {message}  → text "ts2 echo: <message>"
//   - tool whoami          → structured {era, protocolVersion}: what the server saw
//   - tool ask_name        → asks the client for a name (elicitation, form mode):
//                            elicitation/create on a 2025 connection, an
//                            input_required result on 2026-07-28; "hello <name>"
//   - resource ts2://greeting (text/plain)
//   - prompt greet {name}  → one user message "Say hello to <name>."
//
// Nothing is printed on stdout except protocol messages (stdio); diagnostics go to
// stderr. The HTTP listener binds 127.0.0.1 only.
import { randomUUID } from "node:crypto";
import http from "node:http";
import {
  McpServer,
  WebStandardStreamableHTTPServerTransport,
  acceptedContent,
  createMcpHandler,
  fromJsonSchema,
  inputRequired,
  isLegacyRequest,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

// SERVER_NAME is the serverInfo.name the tests expect.
const SERVER_NAME = "ts2-interop-server";
// NAME_SCHEMA is the form ask_name requests.
const NAME_SCHEMA = {
  type: "object",
  properties: { name: { type: "string", description: "Your name" } },
  required: ["name"],
};
const ASK_MESSAGE = "What is your name? (ts2)";

// buildServer returns a fresh McpServer for one serving unit of the given era
// (the SDK's "legacy" or "modern", its name for the stateless era): a stdio
// connection, an HTTP request (stateless) or an HTTP session (legacy).
function buildServer(era) {
  const server = new McpServer(
    { name: SERVER_NAME, version: "2.4.0" },
    { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: "ts2 interop server" },
  );

  server.registerTool(
    "echo",
    {
      description: "Echoes its message back.",
      inputSchema: fromJsonSchema({
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"],
      }),
    },
    async ({ message }) => ({ content: [{ type: "text", text: `ts2 echo: ${message}` }] }),
  );

  server.registerTool(
    "whoami",
    {
      description: "Reports the era and protocol version the server saw for this request.",
      outputSchema: fromJsonSchema({
        type: "object",
        properties: { era: { type: "string" }, protocolVersion: { type: "string" } },
        required: ["era"],
      }),
    },
    async (ctx) => {
      const out = { era };
      // The envelope keeps the reserved _meta keys under their wire names.
      const v = ctx.mcpReq.envelope?.["io.modelcontextprotocol/protocolVersion"];
      if (typeof v === "string") out.protocolVersion = v;
      return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
    },
  );

  server.registerTool(
    "ask_name",
    { description: "Asks the user for their name through the client (elicitation, form mode)." },
    async (ctx) => {
      if (era === "modern") {
        // 2026-07-28: no server-to-client request; ask in the result and read the
        // answer from the retried request.
        const answer = acceptedContent(ctx.mcpReq.inputResponses, "name");
        if (answer === undefined) {
          return inputRequired({
            inputRequests: { name: inputRequired.elicit({ message: ASK_MESSAGE, requestedSchema: NAME_SCHEMA }) },
          });
        }
        return { content: [{ type: "text", text: `hello ${answer.name}` }] };
      }
      const res = await ctx.mcpReq.elicitInput({ mode: "form", message: ASK_MESSAGE, requestedSchema: NAME_SCHEMA });
      if (res.action !== "accept") {
        return { content: [{ type: "text", text: `the user chose to ${res.action}` }] };
      }
      return { content: [{ type: "text", text: `hello ${res.content?.name}` }] };
    },
  );

  server.registerResource(
    "greeting",
    "ts2://greeting",
    { mimeType: "text/plain", description: "A fixed greeting." },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "hello from the TypeScript SDK 2.x" }] }),
  );

  server.registerPrompt(
    "greet",
    {
      description: "Asks to greet someone.",
      argsSchema: fromJsonSchema({ type: "object", properties: { name: { type: "string" } }, required: ["name"] }),
    },
    async ({ name }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }],
    }),
  );

  return server;
}

// factory is the McpServerFactory both entries call.
const factory = (ctx) => buildServer(ctx.era);

// serveHTTP serves POST/GET/DELETE /mcp on 127.0.0.1:$PORT.
function serveHTTP() {
  const stateless = createMcpHandler(factory, {
    legacy: "reject",
    onerror: (err) => process.stderr.write(`ts2-server: stateless: ${err?.message ?? err}\n`),
  });
  // legacySessions holds the 2025 sessions' transports by session id.
  const legacySessions = new Map();

  async function legacyFetch(request) {
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const transport = legacySessions.get(id);
      if (!transport) {
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } }, { status: 404 });
      }
      return transport.handleRequest(request);
    }
    // No session: only initialize may open one.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        legacySessions.set(sid, transport);
      },
      onsessionclosed: (sid) => {
        legacySessions.delete(sid);
        process.stderr.write(`ts2-server: legacy session ${sid} closed\n`);
      },
    });
    await buildServer("legacy").connect(transport);
    return transport.handleRequest(request);
  }

  const server = http.createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
      if (url.pathname !== "/mcp") {
        res.writeHead(404).end();
        return;
      }
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      }
      const request = new Request(url, { method: req.method, headers, body, signal: abort.signal });
      const response = (await isLegacyRequest(request)) ? await legacyFetch(request) : await stateless.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
      if (!response.body) {
        res.end();
        return;
      }
      res.flushHeaders();
      const reader = response.body.getReader();
      abort.signal.addEventListener("abort", () => reader.cancel().catch(() => {}), { once: true });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (err) {
      process.stderr.write(`ts2-server: ${err?.stack ?? err}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  server.listen(Number(process.env.PORT ?? 0), "127.0.0.1");
  const stop = () => {
    server.close();
    server.closeAllConnections();
    stateless.close().finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

switch (process.argv[2]) {
  case "stdio":
    serveStdio(factory, { onerror: (err) => process.stderr.write(`ts2-server: ${err?.message ?? err}\n`) });
    break;
  case "http":
    serveHTTP();
    break;
  default:
    process.stderr.write("usage: node ts2_server.mjs stdio|http\n");
    process.exit(2);
}
