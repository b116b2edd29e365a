//go:build !race

package interop

// raceEnabled reports whether the tests run with the race detector; the mcpkit
// binary they start is then built with it too.
const raceEnabled = false
