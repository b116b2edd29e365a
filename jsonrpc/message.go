package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/internal/rpcshared"
)

// Message is one JSON-RPC 2.0 message: a request (Method and a valid ID), a
// notification (Method, no ID) or a response (no Method; Result or Error).
//
// Params and Result are raw JSON. After decoding they alias the decoded buffer, which
// the caller must therefore not modify while the message is in use.
type Message struct {
	ID     ID
	Method string
	Params json.RawMessage
	Result json.RawMessage
	Error  *Error
}

// IsRequest reports whether m is a request: it has a method and an id.
func (m *Message) IsRequest() bool { return m.Method != "" && !m.ID.IsAbsent() }

// IsNotification reports whether m is a notification: a method and no id.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID.IsAbsent() }

// IsResponse reports whether m is a response (a result or an error).
func (m *Message) IsResponse() bool { return m.Method == "" }

// IsBatch reports whether data holds a JSON array (a batch) rather than a single message.
func IsBatch(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			return true
		}
		return false
	}
	return false
}

// Decode decodes one message. On failure it returns an *[Error] with code
// [CodeParseError] (not JSON) or [CodeInvalidRequest] (JSON of the wrong shape); in the
// latter case the returned message, if not nil, carries the id that could be read so
// the error response can echo it.
func Decode(data []byte) (*Message, error) {
	return decode(data, new(Message))
}

// DecodeInto is [Decode] into a [Message] the caller provides (one on its stack, say,
// to read a message without allocating it). After an error, m is unspecified.
func DecodeInto(data []byte, m *Message) error {
	_, err := decode(data, m)
	return err
}

// decode decodes data into m and returns m, or nil when the message is not
// usable at all (a parse error, or an id that cannot be read).
func decode(data []byte, m *Message) (*Message, error) {
	s := newScanner(data)
	s.SkipSpace()
	got, err := s.message(m)
	if err != nil && isParseError(err) {
		return nil, err
	}
	s.SkipSpace()
	if s.Pos != len(data) {
		return nil, &Error{Code: CodeParseError, Message: "parse error: trailing data after message"}
	}
	return got, err
}

// DecodeBatch decodes a JSON array of messages. The whole batch fails with
// CodeParseError if it is not valid JSON, and with CodeInvalidRequest if it is empty
// or not an array. A malformed element does not fail the others: its slot holds a nil
// message and its error is in errs at the same index (errs is nil when all decoded).
func DecodeBatch(data []byte) (msgs []*Message, errs []error, err error) {
	s := newScanner(data)
	s.SkipSpace()
	if s.Peek() != '[' {
		if e := s.SkipValue(0); e != nil {
			return nil, nil, parseError(e)
		}
		return nil, nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: a batch must be a JSON array"}
	}
	// Validate the whole array first so a syntax error anywhere is a parse error.
	check := s
	if e := check.SkipValue(0); e != nil {
		return nil, nil, parseError(e)
	}
	check.SkipSpace()
	if check.Pos != len(data) {
		return nil, nil, &Error{Code: CodeParseError, Message: "parse error: trailing data after batch"}
	}
	s.Pos++
	s.SkipSpace()
	if s.Peek() == ']' {
		return nil, nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: empty batch"}
	}
	for {
		m, e := s.message(new(Message))
		msgs = append(msgs, m)
		if e != nil {
			if errs == nil {
				errs = make([]error, len(msgs)-1, cap(msgs))
			}
			msgs[len(msgs)-1] = m
			errs = append(errs, e)
		} else if errs != nil {
			errs = append(errs, nil)
		}
		s.SkipSpace()
		if s.Peek() == ',' {
			s.Pos++
			s.SkipSpace()
			continue
		}
		return msgs, errs, nil // the array was validated above, so this is ']'
	}
}

func isParseError(err error) bool {
	var e *Error
	return !errors.As(err, &e) || e.Code == CodeParseError
}

func parseError(err error) *Error {
	return &Error{Code: CodeParseError, Message: "parse error: " + err.Error()}
}

func invalid(m *Message, format string, args ...any) (*Message, error) {
	return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + fmt.Sprintf(format, args...)}
}

// message decodes one message object at s.Pos. The scanner is left after the value.
//
// It reads the message in one pass, checking the syntax as it goes: a syntax
// error anywhere makes the whole message a parse error, so a member of the
// wrong shape is only noted, and the verdict on it given once the whole object
// has been read. Member values are at nesting depth 1, as in a SkipValue of
// the whole message.
func (s *scanner) message(m *Message) (*Message, error) {
	if s.Peek() != '{' {
		if err := s.SkipValue(0); err != nil {
			return nil, parseError(err)
		}
		return invalid(nil, "a message must be a JSON object")
	}
	s.Pos++
	var sh shape
	if s.SkipSpace(); s.Peek() == '}' {
		s.Pos++
	} else if err := s.members(m, &sh); err != nil {
		return nil, parseError(err)
	}

	switch {
	case sh.idErr:
		return invalid(nil, "%v", errBadID)
	case !sh.version:
		return invalid(m, `"jsonrpc" must be "2.0"`)
	case sh.err != "":
		return invalid(m, "%s", sh.err)
	case sh.method && (sh.hasResult || sh.hasError):
		return invalid(m, "a request must not carry result or error")
	case sh.method && m.ID.IsNull():
		return invalid(m, "a request id must not be null")
	case !sh.method && !sh.hasResult && !sh.hasError:
		return invalid(m, "a message needs a method, a result or an error")
	case sh.hasResult && sh.hasError:
		return invalid(m, "a response must not carry both result and error")
	case !sh.method && m.ID.IsAbsent():
		return invalid(m, "a response needs an id")
	case sh.hasResult && !m.ID.IsValid():
		return invalid(m, "a result needs a string or integer id")
	}
	return m, nil
}

// shape is what message learns about a message's members besides their
// values: which ones it has, and what is wrong with their kinds.
type shape struct {
	version, idErr, method, hasResult, hasError bool
	err                                         string // the last member of the wrong kind, if any
}

// members reads the members of the message object whose first member starts
// at s.Pos, up to and including its closing brace, into m and sh, and returns
// the scanner's error for a syntax error.
func (s *scanner) members(m *Message, sh *shape) error {
	for {
		if s.Peek() != '"' {
			return jsonscan.ErrSyntax
		}
		rawKey, escaped, err := s.String()
		if err != nil {
			return err
		}
		key := rawKey
		if escaped {
			key = []byte(decodeString(rawKey, true))
		}
		if s.SkipSpace(); s.Peek() != ':' {
			return jsonscan.ErrSyntax
		}
		s.Pos++
		s.SkipSpace()
		vstart := s.Pos
		switch string(key) {
		case "jsonrpc":
			if s.Peek() != '"' {
				err = s.SkipValue(1)
				break
			}
			var raw []byte
			var esc bool
			if raw, esc, err = s.String(); err == nil {
				sh.version = (!esc && string(raw) == "2.0") || (esc && decodeString(raw, true) == "2.0")
			}
		case "id":
			err = s.readID(m, &sh.idErr)
		case "method":
			if s.Peek() != '"' {
				err = s.SkipValue(1)
				sh.err = "method must be a string"
				break
			}
			var raw []byte
			var esc bool
			if raw, esc, err = s.String(); err == nil {
				m.Method = internMethod(raw, esc)
				sh.method = true
				if m.Method == "" {
					sh.err = "method must not be empty"
				}
			}
		case "params":
			if err = s.SkipValue(1); err != nil {
				break
			}
			switch s.Data[vstart] {
			case '{', '[':
				m.Params = s.Data[vstart:s.Pos]
			case 'n': // params: null is treated as absent
			default:
				sh.err = "params must be an object or an array"
			}
		case "result":
			if err = s.SkipValue(1); err == nil {
				m.Result = s.Data[vstart:s.Pos]
				sh.hasResult = true
			}
		case "error":
			if err = s.SkipValue(1); err != nil {
				break
			}
			sh.hasError = true
			var e Error
			if json.Unmarshal(s.Data[vstart:s.Pos], &e) != nil || s.Data[vstart] != '{' {
				sh.err = "error must be an object with an integer code and a string message"
			} else {
				m.Error = &e
			}
		default:
			err = s.SkipValue(1)
		}
		if err != nil {
			return err
		}
		s.SkipSpace()
		switch s.Peek() {
		case ',':
			s.Pos++
			s.SkipSpace()
		case '}':
			s.Pos++
			return nil
		default:
			return jsonscan.ErrSyntax
		}
	}
}

// readID reads the id member's value into m.ID; a value of the wrong kind
// sets idErr. It returns the scanner's error for a syntax error.
func (s *scanner) readID(m *Message, idErr *bool) error {
	id, err := s.id(1)
	switch {
	case err == errBadID:
		*idErr = true
	case err != nil:
		return err
	default:
		m.ID = id
	}
	return nil
}

// internMethod decodes a method name, returning the shared copy of a name
// registered in internal/rpcshared: decoding a known method name costs no allocation.
func internMethod(raw []byte, escaped bool) string {
	if !escaped {
		if s, ok := rpcshared.LookupMethodName(raw); ok {
			return s
		}
	}
	return decodeString(raw, escaped)
}
