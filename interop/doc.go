// Package interop holds mcpkit's interoperability tests against real peers from
// npm, over stdio: the official TypeScript SDK client driving `mcpkit serve`, and
// mcpkit's client driving the reference servers server-everything and
// server-filesystem.
//
// The package has no API; everything is in its tests. The peers are pinned to exact
// versions in package.json and package-lock.json beside this file. Install them
// before running the tests:
//
//	npm ci --prefix interop
//	go test -race ./interop/
//
// The tests fail (they do not skip) when the peers are missing, so that a CI run
// without them cannot pass unnoticed; `go test -short` skips them.
package interop
