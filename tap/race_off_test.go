//go:build !race

package tap

// largeMessage is the size of the large-message tests: 50 MB, but 8 MB under the
// race detector, which makes each byte copied and scanned many times slower.
const largeMessage = 50 << 20

// raceEnabled reports whether the tests run under the race detector, which
// allocates on its own.
const raceEnabled = false
