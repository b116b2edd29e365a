// Package conformance runs the official MCP conformance suite,
// @modelcontextprotocol/conformance, against mcpkit: in server mode against
// `mcpkit serve --http` (the demo server, whose conformance fixtures live in package
// demo), and in client mode against the client program in ./client, built on
// mcpkit's client.
//
// The package has no API; everything is in its tests. The suite and the Node.js 22
// it needs (the npm package "node", which ships the binary) are pinned to exact
// versions in package.json and package-lock.json beside this file. Install them
// before running the tests:
//
//	npm ci --prefix conformance
//	go test ./conformance/
//
// The tests fail (they do not skip) when the suite is missing, so that a CI run
// without it cannot pass unnoticed; `go test -short` skips them. Every scenario of the
// suite's active set must pass, with no failed check and no warning: there is no
// expected-failures list.
package conformance
