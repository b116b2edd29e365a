// Package replay serves a capture of `mcpkit tap` back as a mock MCP server
// (NewServer) and re-sends the client side of a capture to a live server,
// reporting how its answers differ (Run).
//
// Both read the capture through Load, which pairs each request with its
// response and with the notifications the server sent while it was running. It
// is deliberately minimal: package tap/timeline holds the full model of a
// capture for the views.
package replay

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// Call is one recorded request, with what answered it.
type Call struct {
	// Seq is the capture record of the request.
	Seq uint64
	// Session is the session the request was recorded in.
	Session string
	// Method and Params are the request's.
	Method string
	Params json.RawMessage
	// Key is MatchKey(Params).
	Key string
	// Result or Error is the response; Answered is false when none was recorded.
	Result   json.RawMessage
	Error    *jsonrpc.Error
	Answered bool
	// Notifications are the server's notifications that belonged to the request
	// (progress for its token; what the server sent while it ran, in its reply
	// stream on HTTP), in recorded order, as whole messages.
	Notifications []*jsonrpc.Message
}

// Capture is what replaying needs of a capture.
type Capture struct {
	// Header is the capture's header.
	Header capture.Header
	// Initialize is the first answered initialize request, or nil (a stateless
	// capture).
	Initialize *Call
	// Calls are the client's requests in recorded order, initialize excepted.
	Calls []*Call
	// ServerCalls are the server's requests to the client (sampling, elicitation,
	// roots), with the client's answers.
	ServerCalls []*Call
}

// ReadFile loads the capture at path.
func ReadFile(path string) (*Capture, error) {
	h, recs, err := capture.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return Load(h, recs), nil
}

// openKey finds the request a response or notification belongs to.
type openKey struct{ dir, scope, id string }

// Load pairs the requests of recs with their responses: the same id sent the
// other way in the same HTTP exchange, else in the same session.
func Load(h capture.Header, recs []*capture.Record) *Capture {
	c := &Capture{Header: h}
	open := map[openKey]*Call{}
	byToken := map[string]*Call{}    // session + progress token
	inExchange := map[uint64]*Call{} // the client request an HTTP exchange carried
	var last *Call                   // the latest client request still open (stdio)
	for _, r := range recs {
		for _, m := range decodeRecord(r) {
			switch {
			case m.IsRequest():
				call := &Call{Seq: r.Seq, Session: r.Session, Method: m.Method, Params: m.Params, Key: MatchKey(m.Params)}
				id := m.ID.String()
				open[openKey{r.Dir, "s" + r.Session, id}] = call
				if r.HTTP != nil {
					open[openKey{r.Dir, "x" + strconv.FormatUint(r.HTTP.Exchange, 10), id}] = call
				}
				if r.Dir == capture.ServerToClient {
					c.ServerCalls = append(c.ServerCalls, call)
					continue
				}
				if r.HTTP != nil {
					inExchange[r.HTTP.Exchange] = call
				}
				if tok := progressToken(m.Params); tok != "" {
					byToken[r.Session+"\x00"+tok] = call
				}
				last = call
				if m.Method == protocol.MethodInitialize {
					if c.Initialize == nil {
						c.Initialize = call
					}
					continue
				}
				c.Calls = append(c.Calls, call)
			case m.IsResponse():
				id, from := m.ID.String(), opposite(r.Dir)
				call := (*Call)(nil)
				if r.HTTP != nil {
					call = open[openKey{from, "x" + strconv.FormatUint(r.HTTP.Exchange, 10), id}]
				}
				if call == nil || call.Answered {
					call = open[openKey{from, "s" + r.Session, id}]
				}
				if call == nil || call.Answered {
					continue
				}
				call.Result, call.Error, call.Answered = m.Result, m.Error, true
				if call == c.Initialize && m.Error != nil {
					c.Initialize = nil
				}
			case r.Dir == capture.ServerToClient:
				var owner *Call
				switch {
				case m.Method == protocol.NotificationProgress:
					owner = byToken[r.Session+"\x00"+progressToken(m.Params)]
				case r.HTTP != nil:
					owner = inExchange[r.HTTP.Exchange]
				default:
					owner = last
				}
				if owner != nil && !owner.Answered {
					owner.Notifications = append(owner.Notifications, m)
				}
			}
		}
	}
	return c
}

// decodeRecord returns the JSON-RPC messages of a message record.
func decodeRecord(r *capture.Record) []*jsonrpc.Message {
	if !r.IsMessage() || r.Invalid || len(r.Msg) == 0 {
		return nil
	}
	if jsonrpc.IsBatch(r.Msg) {
		msgs, _, err := jsonrpc.DecodeBatch(r.Msg)
		if err != nil {
			return nil
		}
		out := msgs[:0]
		for _, m := range msgs {
			if m != nil {
				out = append(out, m)
			}
		}
		return out
	}
	m, err := jsonrpc.Decode(r.Msg)
	if err != nil {
		return nil
	}
	return []*jsonrpc.Message{m}
}

// progressToken returns the progress token of a request's _meta or of a
// progress notification, as JSON text, or "".
func progressToken(params json.RawMessage) string {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		Token json.RawMessage `json:"progressToken"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	if len(p.Meta.Token) > 0 {
		return string(p.Meta.Token)
	}
	return string(p.Token)
}

func opposite(dir string) string {
	if dir == capture.ClientToServer {
		return capture.ServerToClient
	}
	return capture.ClientToServer
}
