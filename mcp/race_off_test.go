//go:build !race

package mcp

// raceEnabled reports whether the tests run with the race detector, under
// which sync.Pool drops some of what it is given: allocation counts of paths
// that pool their buffers mean nothing then.
const raceEnabled = false
