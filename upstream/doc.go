// Package upstream holds the MCP servers a gateway or a host talks to: their
// configuration, and a Supervisor that keeps a client session open to each.
//
// # Layout of the tools built on it
//
//   - upstream (this package): Config, read from a host's configuration file
//     (Claude Desktop's {"mcpServers": {...}}, VS Code's {"servers": {...}},
//     either one nested under "mcp"), and Supervisor, which starts every
//     configured server, restarts or reconnects it when it fails, checks it with
//     ping, keeps its last stderr lines, reports its state, and hands out its
//     *mcp.ClientSession.
//   - gateway: serves every configured server as one *mcp.Server (names
//     "<server>__<tool>").
//   - host (and llm): the agent loop that gives the servers' tools to a
//     language model. It takes its servers from a Supervisor too.
//   - cmd/mcpkit: `mcpkit gateway`, `mcpkit host`, `mcpkit config import`.
//
// # Configuration
//
// A server entry is one of
//
//	{"command": "npx", "args": ["-y", "pkg"], "env": {"K": "v"}, "cwd": "dir"}   // stdio
//	{"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}
//	{"type": "sse" | "http" | "streamable-http", "url": "..."}
//
// with, in any entry, "allowedTools" and "excludedTools" (globs: * and ?),
// "timeout" (a number of seconds or a Go duration such as "90s"), "disabled",
// and "protocolVersion" (speak this version instead of detecting the server's
// era). Strings in command, args, env, cwd, url and headers may use ${env:VAR},
// ${VAR} and ${VAR:-default} ("$${" for a literal "${"); an unset variable
// without a default is an error.
// Unknown members are ignored: host configurations carry their own. The file may
// hold JSON with comments and trailing commas, as VS Code's files do.
//
// Every error names the file, the server and the field:
//
//	mcp.json: server "github": field "timeout": want a number of seconds or a duration such as "30s", got "soon"
//
// # Supervisor
//
// A Supervisor runs one goroutine per enabled server. It connects (a stdio
// subprocess, Streamable HTTP falling back to HTTP+SSE, or HTTP+SSE alone), in
// the server's protocol era (stateless 2026-07-28 or a legacy initialize), and
// then watches the session: when it ends (the process exited, the connection
// broke, or several pings in a row failed) it connects again after a backoff
// that doubles up to a cap and resets once a connection has stayed up. An HTTP
// server is also watched through its requests: one that fails in the
// transport (connection refused or reset, 502 or 504 from a proxy) brings a
// ping at once, and when that fails too the session ends there and then,
// instead of after the failed pings. Each change of state, each
// (re)connection and each list_changed notification of a server is reported
// to the functions given to Subscribe. What it keeps and
// reports of a server (its last error, its stderr lines, its log lines) has the
// configuration's secrets redacted (ServerConfig.Redact): statuses can be shown
// to operators and errors passed to clients.
package upstream
