package mcp

import "time"

// SetClientClock replaces the clock of the result caches of c's sessions, so that
// tests can move time without sleeping.
func SetClientClock(c *Client, now func() time.Time) { c.now = now }
