// Package requeststate seals and opens the opaque requestState that a
// 2026-07-28 MCP server hands to a client in an InputRequiredResult and gets
// back, unchanged, on the client's retry of the same request.
//
// The server keeps no memory between the two requests, so the state carries
// the handler's progress and passes through the client. The spec requires the
// server to treat it as attacker-controlled input and to reject any state that
// fails verification.
//
// # Threat model
//
// A client (or whoever relays its traffic) may read, alter, forge, truncate or
// replay the state. Seal encrypts and authenticates it with AES-256-GCM under a
// key shared by every server replica, so a client can neither read the payload
// nor produce or alter a state that Open accepts. Each state is bound to the
// call it was issued for (method, tool/prompt name or resource URI, a digest of
// the canonical arguments and the authenticated principal) and carries an
// expiry, so it cannot be replayed on another call, by another principal, or
// after its TTL. Binding does not make a state single-use: a server whose state
// must be consumed at most once has to record that itself. Random 96-bit nonces
// limit one key to about 2^32 seals; rotate keys well before that.
//
// # Keys and rotation
//
// A [Keyring] holds named 32-byte keys. The current key seals; every key opens.
// To rotate across replicas: [Keyring.Add] the new key everywhere, then
// [Keyring.Rotate] to it, and [Keyring.Remove] the old key once the longest TTL
// has passed. [ParseKeys] reads the "id:base64secret,..." form used in
// environment variables and flags; a [Key] never prints its secret.
//
// # Errors
//
// Every error returned by [Keyring.Open] matches [ErrInvalidState] with
// errors.Is, and one of [ErrMalformed], [ErrUnknownKey], [ErrTampered],
// [ErrExpired] or [ErrMismatch]. The spec defines no dedicated code; a server
// answers all of them with a JSON-RPC Invalid Params error (-32602), since
// requestState is a request parameter. The binding lives inside the sealed
// plaintext, so a mismatch is only reported for a state that authenticated;
// this tells the caller nothing that success or failure would not.
package requeststate
