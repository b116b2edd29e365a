// Package interop holds mcpkit's interoperability tests against real peers:
//   - over stdio, the official TypeScript SDK 1.x client driving `mcpkit serve`, and
//     mcpkit's client driving the reference servers server-everything and
//     server-filesystem, and a small server written with the SDK 1.x McpServer
//     (ts1_server.mjs);
//   - over HTTP, the TypeScript SDK 1.x Streamable HTTP and SSE clients against
//     mcpkit's handlers (stateful, sessionless, JSON and SSE replies) and the
//     `mcpkit serve --http` binary, and mcpkit's client against server-everything
//     in its streamableHttp and sse modes;
//   - the TypeScript SDK 2.x (@modelcontextprotocol/client and /server), which
//     speaks the stateless 2026-07-28 protocol: its client against `mcpkit serve`
//     over stdio and `mcpkit serve --http`, in each of its negotiation modes (auto,
//     pinned to 2026-07-28, and its default, legacy initialize), with the era
//     checked from the client and on the wire (server/discover, the _meta
//     envelope, resultType, input-required round trips answered by the client's
//     elicitation handler); and mcpkit's client against a server written with it
//     (ts2_server.mjs) over stdio and Streamable HTTP;
//   - `mcpkit gateway --http` in front of server-everything and `mcpkit serve` (both
//     on stdio), driven by the TypeScript SDK 1.x client (namespaced tools of both,
//     progress, sampling round trips) and the official Inspector's CLI mode, with
//     both servers killed and restarted by the gateway;
//   - `mcpkit host --web` in headless Chromium against a scripted model: the
//     ext-apps project's npm MCP App server-basic-vanillajs (on stdio, directly
//     and behind `mcpkit gateway --names bare`) rendered behind the host's
//     sandbox proxy, its own tool call and ui/message through the bridge;
//   - nginx as a reverse proxy in front of a long tool call.
//
// The package has no API; everything is in its tests. The npm peers are pinned to
// exact versions in package.json and package-lock.json beside this file; nginx comes
// from Debian. Install them before running the tests (scripts/test.sh does):
//
//	npm ci --prefix interop
//	go test -race ./interop/
//
// The tests fail (they do not skip) when a peer is missing, so that a CI run without
// them cannot pass unnoticed; `go test -short` skips them.
package interop
