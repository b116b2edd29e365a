// Package stress is the hardening proof of mcpkit's HTTP server: its tests
// build the mcpkit command, start a real `mcpkit serve --http` process with
// small limits, replay the attacks of the hardening review at reduced scale
// (idle and slow connections beyond the connection cap, a session flood,
// oversized and malformed messages, clients that vanish mid-stream) and then
// check that a normal client still gets every answer right and that the
// process's memory and open descriptors (read from /proc) come back near
// where they started. The tests run on Linux; elsewhere they skip.
package stress
