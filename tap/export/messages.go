// Package export turns a capture of `mcpkit tap` (package tap/capture) into other
// formats: HAR 1.2 (HAR), for browser devtools and HTTP debuggers, and a readable
// Markdown transcript (Markdown).
//
// Exports only read a capture: what the capture redacted stays redacted.
package export

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// message is one JSON-RPC message of a record (a batch gives several).
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`

	raw json.RawMessage // the message's own bytes
	rec *capture.Record
}

func (m *message) isRequest() bool      { return m.Method != "" && hasID(m.ID) }
func (m *message) isNotification() bool { return m.Method != "" && !hasID(m.ID) }
func (m *message) isResponse() bool     { return m.Method == "" && hasID(m.ID) }

func hasID(id json.RawMessage) bool { return len(id) > 0 && !bytes.Equal(id, []byte("null")) }

// isErrorResult reports whether a response is a JSON-RPC error or a tool result
// with isError set.
func (m *message) isErrorResult() bool {
	if m.Error != nil {
		return true
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return len(m.Result) > 0 && json.Unmarshal(m.Result, &r) == nil && r.IsError
}

// progressToken returns the request's _meta.progressToken (as JSON), or "".
func (m *message) progressToken() string {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		Token json.RawMessage `json:"progressToken"` // notifications/progress
	}
	if len(m.Params) == 0 || json.Unmarshal(m.Params, &p) != nil {
		return ""
	}
	if len(p.Meta.Token) > 0 {
		return string(p.Meta.Token)
	}
	return string(p.Token)
}

// messages decodes the JSON-RPC messages a message record carries; nil for
// events and messages that are not valid JSON.
func messages(r *capture.Record) []*message {
	if !r.IsMessage() || r.Invalid || len(r.Msg) == 0 {
		return nil
	}
	if r.Msg[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(r.Msg, &batch) != nil {
			return nil
		}
		out := make([]*message, 0, len(batch))
		for _, raw := range batch {
			if m := decode(raw, r); m != nil {
				out = append(out, m)
			}
		}
		return out
	}
	if m := decode(r.Msg, r); m != nil {
		return []*message{m}
	}
	return nil
}

func decode(raw json.RawMessage, r *capture.Record) *message {
	m := &message{raw: raw, rec: r}
	if json.Unmarshal(raw, m) != nil {
		return nil
	}
	return m
}

// exchange is a request and what answered it: the unit of both exports.
type exchange struct {
	req           *message
	resp          *message   // nil when unanswered
	notifications []*message // notifications that belong to the request
	dir           string     // the request's direction
}

// latency is the time from the request to its response, or -1.
func (x *exchange) latency() time.Duration {
	if x.resp == nil {
		return -1
	}
	return x.resp.rec.Time.Sub(x.req.rec.Time)
}

type pairKey struct{ dir, session, id string }

// pairRequests pairs every request of recs with its response (the same id sent
// the other way, in the same HTTP exchange if it has one, else in the same
// session), and attaches notifications to their request: progress by token, and
// the other notifications a server sends in the reply stream of a request's POST.
// It returns the pairs in the order of their requests, and the messages no pair
// took (lone notifications, responses to no request).
func pairRequests(recs []*capture.Record) (pairs []*exchange, loose []*message) {
	open := map[pairKey][]*exchange{}
	inExch := map[pairKey][]*exchange{} // by HTTP exchange number (in session)
	byToken := map[string]*exchange{}
	byHTTP := map[uint64]*exchange{}
	for _, r := range recs {
		for _, m := range messages(r) {
			switch {
			case m.isRequest():
				x := &exchange{req: m, dir: r.Dir}
				pairs = append(pairs, x)
				k := pairKey{r.Dir, r.Session, string(m.ID)}
				open[k] = append(open[k], x)
				if tok := m.progressToken(); tok != "" {
					byToken[r.Session+"\x00"+tok] = x
				}
				if r.HTTP != nil && r.HTTP.Exchange != 0 {
					byHTTP[r.HTTP.Exchange] = x
					ek := pairKey{r.Dir, strconv.FormatUint(r.HTTP.Exchange, 10), string(m.ID)}
					inExch[ek] = append(inExch[ek], x)
				}
			case m.isResponse():
				if r.HTTP != nil && r.HTTP.Exchange != 0 && answer(inExch, pairKey{opposite(r.Dir), strconv.FormatUint(r.HTTP.Exchange, 10), string(m.ID)}, m) {
					continue
				}
				if answer(open, pairKey{opposite(r.Dir), r.Session, string(m.ID)}, m) {
					continue
				}
				loose = append(loose, m)
			case m.isNotification():
				if x := byToken[r.Session+"\x00"+m.progressToken()]; m.Method == "notifications/progress" && x != nil {
					x.notifications = append(x.notifications, m)
					continue
				}
				if r.HTTP != nil && r.Dir == capture.ServerToClient {
					if x := byHTTP[r.HTTP.Exchange]; x != nil && x.resp == nil && x.dir == capture.ClientToServer {
						x.notifications = append(x.notifications, m)
						continue
					}
				}
				loose = append(loose, m)
			default:
				loose = append(loose, m)
			}
		}
	}
	return pairs, loose
}

// answer gives m to the oldest request under k still without a response.
func answer(open map[pairKey][]*exchange, k pairKey, m *message) bool {
	list := open[k]
	for len(list) > 0 && list[0].resp != nil {
		list = list[1:]
	}
	if len(list) == 0 {
		delete(open, k)
		return false
	}
	list[0].resp = m
	open[k] = list[1:]
	return true
}

func opposite(dir string) string {
	if dir == capture.ClientToServer {
		return capture.ServerToClient
	}
	return capture.ClientToServer
}
