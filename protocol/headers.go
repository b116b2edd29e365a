package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// This file holds the HTTP request headers of the 2026-07-28 Streamable HTTP
// transport that mirror fields of the JSON-RPC body, so that intermediaries
// can route on them: MCP-Protocol-Version, Mcp-Method, Mcp-Name, their value
// encoding, and the server's check of them against the body. The
// Mcp-Param-{Name} headers a tool declares with the x-mcp-header schema
// keyword are in headers_param.go. The rules are those of the specification's
// basic/transports/streamable-http page ("Request Metadata").

// Header names and the schema keyword of the 2026-07-28 request metadata.
const (
	// HeaderProtocolVersion carries the protocol version of every request
	// (2025-06-18 and later); in 2026-07-28 it must equal the _meta
	// protocolVersion of the body.
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	// HeaderMethod mirrors the request's method; required on every request.
	HeaderMethod = "Mcp-Method"
	// HeaderName mirrors params.name (tools/call, prompts/get), params.uri
	// (resources/read) or params.taskId (the tasks extension's tasks/get,
	// tasks/update and tasks/cancel); see NameHeaderField.
	HeaderName = "Mcp-Name"
	// ParamHeaderPrefix starts the name of every header a tool's
	// x-mcp-header declaration mirrors: Mcp-Param-{Name}.
	ParamHeaderPrefix = "Mcp-Param-"
	// KeywordMCPHeader is the JSON Schema keyword, inside a property of a
	// tool's inputSchema, that asks clients to mirror the property's value
	// into an Mcp-Param-{Name} header.
	KeywordMCPHeader = "x-mcp-header"
)

// ErrHeaderMismatch is wrapped by every error that reports request headers
// disagreeing with the body, or a required header missing or malformed. A
// server answers such a request with HTTP 400 and JSON-RPC error
// CodeHeaderMismatch.
var ErrHeaderMismatch = errors.New("header mismatch")

// ErrInvalidParamHeader is wrapped by the errors of ParamHeaders: the tool's
// inputSchema holds an x-mcp-header declaration that breaks the
// specification's constraints. Clients must leave such a tool out of the
// tools they offer.
var ErrInvalidParamHeader = errors.New("invalid x-mcp-header declaration")

// NameHeaderField returns the params member that the Mcp-Name header mirrors
// for method, and false when the method has none: "name" for tools/call and
// prompts/get, "uri" for resources/read (streamable-http.mdx, "Standard
// Request Headers"), and "taskId" for tasks/get, tasks/update and
// tasks/cancel of the tasks extension (SEP-2663, which requires the header
// on those methods).
func NameHeaderField(method string) (field string, ok bool) {
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		return "name", true
	case MethodResourcesRead:
		return "uri", true
	case MethodTasksGet, methodTasksUpdate, MethodTasksCancel:
		return "taskId", true
	}
	return "", false
}

// methodTasksUpdate is the tasks extension's update method (2026-07-28).
const methodTasksUpdate = "tasks/update"

// The sentinel that marks a Base64-encoded header value: =?base64?{value}?=.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// EncodeHeaderValue encodes v for an Mcp-Name or Mcp-Param-{Name} header. A
// value made only of printable ASCII (0x20 to 0x7E) without leading or
// trailing spaces is sent as it is; any other value (non-ASCII, control
// characters, tabs, spaces at either end), and any value that itself looks
// like the Base64 sentinel, is sent as =?base64?{standard Base64 of its
// UTF-8 bytes}?=.
func EncodeHeaderValue(v string) string {
	if isPlainHeaderValue(v) {
		return v
	}
	return base64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + base64Suffix
}

// isPlainHeaderValue reports whether v can be sent without encoding.
func isPlainHeaderValue(v string) bool {
	if v != "" && (v[0] == ' ' || v[len(v)-1] == ' ') {
		return false
	}
	if strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) {
		return false // would read as encoded (even when the two overlap)
	}
	return printableASCII(v)
}

// printableASCII reports whether every byte of v is in 0x20..0x7E.
func printableASCII(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7E {
			return false
		}
	}
	return true
}

// DecodeHeaderValue decodes a received Mcp-Name or Mcp-Param-{Name} value. A
// value between the case-sensitive markers =?base64? and ?= is decoded as
// strict, padded standard Base64 and must yield valid UTF-8; any other value
// is taken literally and must consist of printable ASCII (0x20 to 0x7E). The
// error of a value breaking these rules wraps ErrHeaderMismatch.
func DecodeHeaderValue(v string) (string, error) {
	s, err := decodeHeaderValue(v)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrHeaderMismatch, err)
	}
	return s, nil
}

// strictBase64 is padded standard Base64 that rejects non-zero padding bits.
// (Like every encoding/base64 decoder it skips CR and LF, which decodeHeaderValue
// rules out first.)
var strictBase64 = base64.StdEncoding.Strict()

// decodeHeaderValue is DecodeHeaderValue with errors that name the problem only.
func decodeHeaderValue(v string) (string, error) {
	if !printableASCII(v) {
		return "", fmt.Errorf("value %s has characters that must be Base64-encoded", quoteValue(v))
	}
	if len(v) >= len(base64Prefix)+len(base64Suffix) && strings.HasPrefix(v, base64Prefix) && strings.HasSuffix(v, base64Suffix) {
		b, err := strictBase64.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
		if err != nil {
			return "", fmt.Errorf("malformed Base64 value %s: %w", quoteValue(v), err)
		}
		if !utf8.Valid(b) {
			return "", fmt.Errorf("the Base64 value %s is not UTF-8", quoteValue(v))
		}
		return string(b), nil
	}
	return v, nil
}

// RequestFields holds what the standard headers of a 2026-07-28 request
// mirror from its body, read by ReadRequestFields the way the server decodes
// params (so that the headers are checked against the values the server
// acts on).
type RequestFields struct {
	// Method is the request's method (mirrored by Mcp-Method).
	Method string
	// ProtocolVersion is _meta's io.modelcontextprotocol/protocolVersion,
	// "" when absent, null or unreadable (mirrored by MCP-Protocol-Version).
	ProtocolVersion string
	// HasClientCapabilities reports whether _meta holds a readable
	// io.modelcontextprotocol/clientCapabilities.
	HasClientCapabilities bool
	// NameField is the params member Mcp-Name mirrors for Method ("" when
	// the method has none); see NameHeaderField.
	NameField string
	// Name is the value of NameField, and HasName whether params hold it as
	// a string.
	Name    string
	HasName bool
	// Malformed reports params the server cannot decode: not an object, or
	// _meta or NameField of the wrong type.
	Malformed bool
}

// MissingMeta reports whether the request lacks a _meta field that 2026-07-28
// requires on every request (protocolVersion, clientCapabilities), or holds
// _meta in a form the server cannot read. The server rejects such a request
// with -32602, which HTTP carries with status 400 (basic/index.mdx, "_meta":
// "A request missing any required field is malformed; the server MUST reject
// it with JSON-RPC error code -32602 (Invalid params). On HTTP, the response
// status MUST be 400 Bad Request.").
func (f RequestFields) MissingMeta() bool {
	return f.ProtocolVersion == "" || !f.HasClientCapabilities
}

// ReadRequestFields reads the mirrored fields of a request with method and
// params. It follows the decoding rules the server applies: params members
// match field names up to case, and the last one wins, a null member leaving
// the field as it was; _meta keys match exactly.
func ReadRequestFields(method string, params json.RawMessage) RequestFields {
	f := RequestFields{Method: method}
	f.NameField, _ = NameHeaderField(method)
	s := jsonscan.Scanner{Data: params}
	s.SkipSpace()
	switch {
	case s.Pos == len(params), s.Literal("null") == nil && isSpace(params[s.Pos:]):
		return f // no params
	case s.Peek() != '{':
		f.Malformed = true
		return f
	}
	metaBad := false
	err := eachMember(&s, func(key []byte, escaped bool, val []byte) {
		switch {
		case keyFolds(key, escaped, "_meta"):
			switch val[0] {
			case 'n': // null leaves an earlier _meta as it was
			case '{':
				f.ProtocolVersion, f.HasClientCapabilities = "", false
				if !f.readMeta(val) {
					metaBad = true
				}
			default:
				metaBad = true
			}
		case f.NameField != "" && keyFolds(key, escaped, f.NameField):
			switch val[0] {
			case 'n':
			case '"':
				if name, ok := unquote(val); ok {
					f.Name, f.HasName = name, true
					break
				}
				f.Malformed = true
			default:
				f.Malformed = true
			}
		}
	})
	if err != nil || metaBad {
		// The server fails to decode params, so none of _meta counts.
		f.Malformed = true
		f.ProtocolVersion, f.HasClientCapabilities = "", false
	}
	return f
}

// readMeta reads the protocol fields of a _meta object, keys matched exactly
// and the last one winning. It reports false if the server cannot decode one.
func (f *RequestFields) readMeta(meta []byte) bool {
	if found, ok := f.recall(meta); found {
		return ok
	}
	ok := f.scanMeta(meta)
	f.remember(meta, ok)
	return ok
}

// scanMeta is readMeta without the memo (headers_memo.go).
func (f *RequestFields) scanMeta(meta []byte) bool {
	s := jsonscan.Scanner{Data: meta}
	ok := true
	err := eachMember(&s, func(key []byte, escaped bool, val []byte) {
		switch {
		case keyEquals(key, escaped, MetaKeyProtocolVersion):
			switch val[0] {
			case 'n':
				f.ProtocolVersion = ""
			case '"':
				v, good := unquote(val)
				f.ProtocolVersion = v
				ok = ok && good
			default:
				ok = false
			}
		case keyEquals(key, escaped, MetaKeyClientCapabilities):
			// An object, or null (which decodes to empty capabilities).
			f.HasClientCapabilities = val[0] == '{' || val[0] == 'n'
			ok = ok && f.HasClientCapabilities
		}
	})
	return err == nil && ok
}

// CheckRequestHeaders checks the standard headers of a 2026-07-28 request
// (header is its http.Header) against its body, as the specification's
// "Server Validation" requires, and returns an error wrapping
// ErrHeaderMismatch for the first failure:
//
//   - Mcp-Method is missing, repeated, or differs from the method (values are
//     case-sensitive);
//   - MCP-Protocol-Version is missing or repeated, or differs from _meta's
//     protocolVersion (when the body has one: a body without it is the
//     server's -32602);
//   - for the methods of NameHeaderField, Mcp-Name is missing, repeated,
//     malformed (see DecodeHeaderValue), or its decoded value differs from
//     the body's.
//
// A server answers the failure with HTTP 400 and JSON-RPC error
// CodeHeaderMismatch.
func CheckRequestHeaders(header map[string][]string, f RequestFields) error {
	method, err := singleHeader(header, HeaderMethod)
	if err != nil {
		return err
	}
	if method != f.Method {
		return fmt.Errorf("%w: %s header value %s does not match body method %s", ErrHeaderMismatch, HeaderMethod, quoteValue(method), quoteValue(f.Method))
	}
	version, err := singleHeader(header, HeaderProtocolVersion)
	if err != nil {
		return err
	}
	if f.ProtocolVersion != "" && version != f.ProtocolVersion {
		return fmt.Errorf("%w: %s header value %s does not match _meta protocolVersion %s", ErrHeaderMismatch, HeaderProtocolVersion, quoteValue(version), quoteValue(f.ProtocolVersion))
	}
	if f.NameField == "" {
		return nil
	}
	raw, err := singleHeader(header, HeaderName)
	if err != nil {
		return err
	}
	name, err := decodeHeaderValue(raw)
	if err != nil {
		return fmt.Errorf("%w: %s header: %w", ErrHeaderMismatch, HeaderName, err)
	}
	if !f.HasName {
		return fmt.Errorf("%w: %s header value %s, but the body has no params.%s", ErrHeaderMismatch, HeaderName, quoteValue(name), f.NameField)
	}
	if name != f.Name {
		return fmt.Errorf("%w: %s header value %s does not match body value %s", ErrHeaderMismatch, HeaderName, quoteValue(name), quoteValue(f.Name))
	}
	return nil
}

// singleHeader returns the one value of a required header.
func singleHeader(header map[string][]string, name string) (string, error) {
	values, _ := lookupHeader(header, name)
	switch len(values) {
	case 1:
		return values[0], nil
	case 0:
		return "", fmt.Errorf("%w: required header %s is missing", ErrHeaderMismatch, name)
	}
	return "", fmt.Errorf("%w: header %s sent %d times", ErrHeaderMismatch, name, len(values))
}

// lookupHeader finds a header by name: under its canonical key first, then
// under any key equal to it up to case (a map built by hand).
func lookupHeader(header map[string][]string, canonical string) ([]string, bool) {
	if v, ok := header[canonical]; ok {
		return v, true
	}
	for k, v := range header {
		if len(k) == len(canonical) && strings.EqualFold(k, canonical) {
			return v, true
		}
	}
	return nil, false
}

// eachMember calls fn with every member of the JSON object at s.Pos (its
// opening brace), in order: the raw name, whether it holds escape sequences,
// and the value as a sub-slice of s.Data. It checks the object's syntax.
func eachMember(s *jsonscan.Scanner, fn func(key []byte, escaped bool, val []byte)) error {
	return s.Members(0, func(key []byte, escaped bool, val []byte) bool {
		fn(key, escaped, val)
		return true
	})
}

// unquote decodes a JSON string literal (quotes included); ok is false for
// one encoding/json would not decode. A string without escapes that is valid
// UTF-8 is converted directly, through the table of recent names: a client
// sends the same version and tool names on every request.
func unquote(lit []byte) (string, bool) {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return internName(inner), true
	}
	var v string
	return v, json.Unmarshal(lit, &v) == nil
}

// keyEquals reports whether a raw member name is exactly name.
func keyEquals(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	k, ok := unquote(append(append([]byte{'"'}, key...), '"'))
	return ok && k == name
}

// keyFolds reports whether a raw member name equals name up to case, with
// encoding/json's notion of case (Unicode simple folding).
func keyFolds(key []byte, escaped bool, name string) bool {
	if escaped {
		k, ok := unquote(append(append([]byte{'"'}, key...), '"'))
		return ok && strings.EqualFold(k, name)
	}
	if len(key) == len(name) {
		ascii := true
		for i := range len(key) {
			a, b := key[i], name[i]
			if a >= utf8.RuneSelf || b >= utf8.RuneSelf {
				ascii = false
				break
			}
			if a != b && lower(a) != lower(b) {
				return false
			}
		}
		if ascii {
			return true
		}
	}
	return strings.EqualFold(string(key), name)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isSpace reports whether b holds only JSON white space.
func isSpace(b []byte) bool {
	return len(bytes.TrimLeft(b, " \t\r\n")) == 0
}

// quoteValue quotes a value for an error message, cut to a readable length.
func quoteValue(s string) string {
	const max = 100
	if len(s) > max {
		s = s[:max] + "…"
	}
	return strconv.Quote(s)
}
