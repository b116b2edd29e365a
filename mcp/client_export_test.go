package mcp

import "time"

// SetClientClock replaces the clock of the result caches of c's sessions, so that
// tests can move time without sleeping.
func SetClientClock(c *Client, now func() time.Time) { c.now = now }

// GeneralPath is a request option that changes nothing, but, being an option,
// keeps a call off the fast paths that only calls without options take
// (callToolPlain): the tests compare the two.
func GeneralPath() RequestOption { return func(*requestConfig) {} }

// RaceEnabled is raceEnabled, for the external tests.
const RaceEnabled = raceEnabled
