package wirecheck

import (
	"errors"
	"fmt"
	"strings"
)

// Rule errors: a Violation's Err wraps one of these when the message breaks a protocol
// rule the checker enforces itself rather than a schema definition.
var (
	// ErrMalformed: the message is not one JSON value, or is a response with both
	// "result" and "error", or reuses the id of a request still pending.
	ErrMalformed = errors.New("malformed message")
	// ErrBatch: a JSON array where the version has no batches, or an empty batch.
	ErrBatch = errors.New("batch not allowed")
	// ErrWrongSender: a method the schema lets only the other side send, or a
	// 2026-07-28 input request sent as a JSON-RPC request.
	ErrWrongSender = errors.New("method not sendable by this side")
	// ErrUnknownMethod: a method the schema does not name (reported only with
	// RejectUnknownMethods; otherwise it is recorded, see Checker.UnknownMethods).
	ErrUnknownMethod = errors.New("method not in schema")
	// ErrUnmatchedResponse: a response whose id matches no pending request.
	ErrUnmatchedResponse = errors.New("response to no pending request")
	// ErrUnknownVersion: initialize negotiated a version there is no schema for, or one
	// that has no initialize.
	ErrUnknownVersion = errors.New("unknown protocol version")
	// ErrWrongResultType: an InputRequiredResult for a method that cannot return one.
	ErrWrongResultType = errors.New("result type not allowed for method")
)

// maxShownMessage bounds how much of the offending message Violation.Error prints.
const maxShownMessage = 4096

// Violation is one way a message breaks the schema of its protocol version.
type Violation struct {
	// Version is the protocol version the message was checked against.
	Version string
	// Sender is the side that wrote the message.
	Sender Side
	// Method is the method of the request, notification or answered request, when
	// known.
	Method string
	// Definition names the schema definition that rejected the message (for example
	// "CallToolResult"); it is empty for rule errors.
	Definition string
	// Message is a copy of the whole message as written (the whole batch, for a batch
	// element).
	Message []byte
	// Err is the *jsonschema.ValidationError, or an error wrapping one of the Err*
	// rule errors.
	Err error
}

// Error describes the violation: who sent what, the definition, the validation error
// and the message itself.
func (v *Violation) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "wirecheck: %s message", v.Sender)
	if v.Method != "" {
		fmt.Fprintf(&b, " (%s)", v.Method)
	}
	if v.Definition != "" {
		fmt.Fprintf(&b, " violates %s %s: ", v.Version, v.Definition)
	} else {
		fmt.Fprintf(&b, " breaks %s rules: ", v.Version)
	}
	b.WriteString(v.Err.Error())
	b.WriteString("\n  message: ")
	if len(v.Message) > maxShownMessage {
		b.Write(v.Message[:maxShownMessage])
		fmt.Fprintf(&b, "... (%d bytes)", len(v.Message))
	} else {
		b.Write(v.Message)
	}
	return b.String()
}

// Unwrap returns Err, so errors.Is works with the Err* rule errors.
func (v *Violation) Unwrap() error { return v.Err }
