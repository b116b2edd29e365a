package requeststate

import "errors"

// ErrInvalidState is matched (with errors.Is) by every error Open returns.
// A server maps it to JSON-RPC Invalid Params (-32602).
var ErrInvalidState = errors.New("requeststate: invalid request state")

// stateError is a specific reason a state was refused; it also matches
// ErrInvalidState.
type stateError struct{ msg string }

func (e *stateError) Error() string { return e.msg }

// Is reports that every stateError is an ErrInvalidState.
func (e *stateError) Is(target error) bool { return target == ErrInvalidState }

// Reasons Open refuses a state. Each matches ErrInvalidState as well.
var (
	// ErrMalformed: the state is empty, too long, not URL-safe base64, of an
	// unknown version, or too short to hold a sealed state.
	ErrMalformed error = &stateError{"requeststate: malformed request state"}
	// ErrUnknownKey: the key id named by the state is not in the keyring
	// (never existed, or was removed after rotation).
	ErrUnknownKey error = &stateError{"requeststate: request state sealed with an unknown key"}
	// ErrTampered: authentication failed; the state was altered or forged.
	ErrTampered error = &stateError{"requeststate: request state failed authentication"}
	// ErrExpired: the state is authentic but its TTL has passed.
	ErrExpired error = &stateError{"requeststate: request state expired"}
	// ErrMismatch: the state is authentic but was issued for a different call
	// (method, name, arguments or principal differ).
	ErrMismatch error = &stateError{"requeststate: request state issued for a different request"}
)

// ErrInvalidArguments is returned when call arguments are not a single valid
// JSON value or an object repeats a key. A server maps it to -32602.
var ErrInvalidArguments = errors.New("requeststate: invalid arguments")

// ErrPayloadTooLarge is returned by Seal for a payload over MaxPayload bytes.
var ErrPayloadTooLarge = errors.New("requeststate: payload too large")
