package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700 // the message is not valid JSON
	CodeInvalidRequest = -32600 // valid JSON that is not a valid JSON-RPC message
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// ErrMessageTooLarge is wrapped by transports that dropped one message because it
// exceeded their size bound. It is not fatal: the connection goes on.
var ErrMessageTooLarge = errors.New("jsonrpc: message too large")

// TooLargeError reports one message a transport dropped because of its size. Prefix
// holds the message's first bytes (up to 512), from which the connection
// reads the request id, so that the sender's request fails at once with an
// explanation instead of waiting for an answer that will never come.
type TooLargeError struct {
	Size, Limit int
	Prefix      []byte
}

// tooLargePrefix is how many leading bytes of a dropped message a TooLargeError keeps.
const tooLargePrefix = 512

// NewTooLargeError returns a TooLargeError keeping the first 512 bytes of
// msg (copied).
func NewTooLargeError(size, limit int, msg []byte) *TooLargeError {
	return &TooLargeError{Size: size, Limit: limit, Prefix: append([]byte(nil), msg[:min(len(msg), tooLargePrefix)]...)}
}

// Error implements the error interface.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes", e.Size, e.Limit)
}

// ID reads the id of the dropped message from Prefix, and reports whether a
// "result" or "error" member before the cut showed the message to be a response.
// An id that Prefix does not reach is absent.
func (e *TooLargeError) ID() (id ID, isResponse bool) { return idFromPrefix(e.Prefix) }

// Unwrap makes errors.Is(err, ErrMessageTooLarge) true.
func (e *TooLargeError) Unwrap() error { return ErrMessageTooLarge }

// Error is a JSON-RPC error object. It is also a Go error, so handlers can return it
// to choose the code the peer sees.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc error %d: %s (data: %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// NewError returns an Error with the given code and formatted message.
func NewError(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithData returns a copy of e whose data member is v encoded as JSON.
// If v cannot be encoded, the copy has no data.
func (e *Error) WithData(v any) *Error {
	c := *e
	if b, err := json.Marshal(v); err == nil {
		c.Data = b
	}
	return &c
}
