// Package interop holds mcpkit's interoperability tests against real peers:
//   - over stdio, the official TypeScript SDK client driving `mcpkit serve`, and
//     mcpkit's client driving the reference servers server-everything and
//     server-filesystem;
//   - over HTTP, the TypeScript SDK's Streamable HTTP and SSE clients against
//     mcpkit's handlers (stateful, stateless, JSON and SSE replies) and the
//     `mcpkit serve --http` binary, and mcpkit's client against server-everything
//     in its streamableHttp and sse modes;
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
