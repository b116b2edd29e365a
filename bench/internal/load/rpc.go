package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// protocolVersion is the MCP version the load generator asks for: every
// implementation under test supports it.
const protocolVersion = "2025-06-18"

// initializedNotification is sent after the initialize response.
var initializedNotification = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

// appendInitialize appends an initialize request with id to b.
func appendInitialize(b []byte, id int64) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"initialize","params":{"protocolVersion":"`+protocolVersion+
		`","capabilities":{},"clientInfo":{"name":"mcpbench","version":"1.0.0"}}}`...)
	return b
}

// appendCall appends a tools/call of the echo tool with id and message to b. The
// message must need no JSON escaping (the load generator uses letters, digits and
// '-').
func appendCall(b []byte, id int64, message []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`...)
	b = append(b, message...)
	b = append(b, `"}}}`...)
	return b
}

// statelessVersion is the protocol version of ModeClientHTTPStateless.
const statelessVersion = "2026-07-28"

// appendStatelessCall is appendCall in the 2026-07-28 era: the params start
// with the _meta envelope mcpkit's client sends (its capabilities, its
// identity, the version).
func appendStatelessCall(b []byte, id int64, message []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},`+
		`"io.modelcontextprotocol/clientInfo":{"name":"mcpbench","version":"1.0.0"},"io.modelcontextprotocol/protocolVersion":"`+statelessVersion+`"},`+
		`"name":"echo","arguments":{"message":"`...)
	b = append(b, message...)
	b = append(b, `"}}}`...)
	return b
}

// appendMessage appends the message of call seq of worker w: "w<w>-<seq>".
func appendMessage(b []byte, w int, seq int64) []byte {
	b = append(b, 'w')
	b = strconv.AppendInt(b, int64(w), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, seq, 10)
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// textContent is the part of a content block the check reads.
type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// reply is the part of a JSON-RPC response the checks read.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Error  *rpcError       `json:"error"`
	Result *struct {
		Content         []textContent `json:"content"`
		IsError         bool          `json:"isError"`
		ProtocolVersion string        `json:"protocolVersion"`
	} `json:"result"`
}

// errNoReply means a response held no message with the expected id.
var errNoReply = errors.New("no reply with the request's id")

// findReply decodes the message among msgs whose id is id (a JSON integer).
func findReply(msgs [][]byte, id int64) (*reply, error) {
	var idText [20]byte
	want := strconv.AppendInt(idText[:0], id, 10)
	for _, m := range msgs {
		var r reply
		if err := json.Unmarshal(m, &r); err != nil {
			return nil, fmt.Errorf("reply %.200q: %w", m, err)
		}
		if !bytes.Equal(r.ID, want) {
			continue // a notification, or another request's reply
		}
		if r.Error != nil {
			return nil, fmt.Errorf("error reply %d: %s", r.Error.Code, r.Error.Message)
		}
		if r.Result == nil {
			return nil, fmt.Errorf("reply %.200q has no result", m)
		}
		return &r, nil
	}
	return nil, fmt.Errorf("%w %d among %d messages", errNoReply, id, len(msgs))
}

// checkCall checks that msgs hold the reply to tools/call id, with the single text
// content want.
func checkCall(msgs [][]byte, id int64, want []byte) error {
	r, err := findReply(msgs, id)
	if err != nil {
		return err
	}
	return checkCallReply(r, id, want)
}

// decodeReply decodes one message; id is its integer id, and ok is false for a
// message without one (a notification).
func decodeReply(msg []byte) (r *reply, id int64, ok bool, err error) {
	r = new(reply)
	if err := json.Unmarshal(msg, r); err != nil {
		return nil, 0, false, fmt.Errorf("message %.200q: %w", msg, err)
	}
	if len(r.ID) == 0 || string(r.ID) == "null" {
		return r, 0, false, nil
	}
	id, err = strconv.ParseInt(string(r.ID), 10, 64)
	if err != nil {
		return nil, 0, false, fmt.Errorf("message %.200q: id is not an integer", msg)
	}
	return r, id, true, nil
}

// checkCallReply checks that r, the reply to tools/call id, succeeded with the single
// text content want.
func checkCallReply(r *reply, id int64, want []byte) error {
	if r.Error != nil {
		return fmt.Errorf("error reply %d: %s", r.Error.Code, r.Error.Message)
	}
	if r.Result == nil {
		return fmt.Errorf("reply %d has no result", id)
	}
	c := r.Result.Content
	if r.Result.IsError || len(c) != 1 || c[0].Type != "text" || c[0].Text != string(want) {
		return fmt.Errorf("reply %d: got %+v (isError %v), want text %q", id, c, r.Result.IsError, want)
	}
	return nil
}

// checkInitialize checks the reply to initialize id and returns the protocol
// version the server chose.
func checkInitialize(msgs [][]byte, id int64) (string, error) {
	r, err := findReply(msgs, id)
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	if r.Result.ProtocolVersion == "" {
		return "", errors.New("initialize: result has no protocolVersion")
	}
	return r.Result.ProtocolVersion, nil
}

// bodyMessages returns the JSON-RPC messages of an HTTP response body: the body
// itself for JSON, the data of each event for an SSE stream. The slices alias body
// (JSON, or an event of a single data line) or dst's backing storage.
func bodyMessages(dst [][]byte, contentType string, body []byte) [][]byte {
	dst = dst[:0]
	if !strings.HasPrefix(contentType, "text/event-stream") {
		if len(bytes.TrimSpace(body)) > 0 {
			dst = append(dst, body)
		}
		return dst
	}
	return sseData(dst, body)
}

// sseData returns the data of each event of an SSE stream (events with no data are
// skipped). Multi-line data is joined with '\n' as the SSE specification says.
func sseData(dst [][]byte, stream []byte) [][]byte {
	var data []byte
	multi := false
	dispatch := func() {
		if data != nil {
			dst = append(dst, data)
		}
		data, multi = nil, false
	}
	for len(stream) > 0 {
		var line []byte
		i := bytes.IndexByte(stream, '\n')
		if i < 0 {
			line, stream = stream, nil
		} else {
			line, stream = stream[:i], stream[i+1:]
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			dispatch()
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // event, id, retry, comments
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		switch {
		case data == nil:
			data = value
		case !multi:
			data = append(append(append([]byte(nil), data...), '\n'), value...)
			multi = true
		default:
			data = append(append(data, '\n'), value...)
		}
	}
	dispatch()
	return dst
}
