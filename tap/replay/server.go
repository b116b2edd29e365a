package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Error codes of a request the capture cannot answer.
const (
	// CodeNotRecorded answers a method the capture holds no request of.
	CodeNotRecorded = jsonrpc.CodeMethodNotFound
	// CodeNoMatch answers a request whose params match no recorded request of
	// its method; the error's data holds the closest recorded params.
	CodeNoMatch = jsonrpc.CodeInvalidParams
)

// sdkAnswers are the requests the SDK answers itself when the capture holds
// none of them: what every server must support and the capture says nothing of.
var sdkAnswers = []string{protocol.MethodPing, protocol.MethodLoggingSetLevel, protocol.MethodServerDiscover}

// NewServer returns an mcp.Server that plays the capture back: it introduces
// itself with the recorded server info, capabilities and instructions
// (negotiating the client's protocol version as any mcp.Server does), and
// answers every other request with the recorded response of the request with
// the same method and params (MatchKey: canonical JSON without _meta), its id
// the new request's. The notifications the server sent while a request ran
// (progress, logging) are sent again before its answer, progress under the new
// request's token (or not at all when it has none). When several recorded
// requests match, they are answered in recorded order, then the last again. A
// request that matches none gets a JSON-RPC error naming the method and the
// closest recorded params.
func NewServer(c *Capture) *mcp.Server {
	p := newPlayer(c)
	info := protocol.Implementation{Name: "mcpkit-replay", Version: "0"}
	var caps *protocol.ServerCapabilities
	var instructions string
	if c.Initialize != nil && c.Initialize.Result != nil {
		var res struct {
			ServerInfo   *protocol.Implementation     `json:"serverInfo"`
			Capabilities *protocol.ServerCapabilities `json:"capabilities"`
			Instructions string                       `json:"instructions"`
		}
		if json.Unmarshal(c.Initialize.Result, &res) == nil {
			if res.ServerInfo != nil {
				info = *res.ServerInfo
			}
			caps, instructions = res.Capabilities, res.Instructions
		}
	} else if d := p.first(protocol.MethodServerDiscover); d != nil {
		var res struct {
			Capabilities *protocol.ServerCapabilities `json:"capabilities"`
			Instructions string                       `json:"instructions"`
			Meta         map[string]json.RawMessage   `json:"_meta"`
		}
		if json.Unmarshal(d.Result, &res) == nil {
			var si protocol.Implementation
			if json.Unmarshal(res.Meta[protocol.MetaKeyServerInfo], &si) == nil && si.Name != "" {
				info = si
			}
			caps, instructions = res.Capabilities, res.Instructions
		}
	}
	if caps == nil {
		caps = &protocol.ServerCapabilities{}
	}
	return mcp.NewServer(info, &mcp.ServerOptions{
		Capabilities: caps,
		Instructions: instructions,
		Middleware:   []mcp.Middleware{p.middleware},
	})
}

// player holds the recorded answers by method and match key, and how many of
// each were served.
type player struct {
	mu       sync.Mutex
	byKey    map[string]*queue  // method + "\x00" + key
	byMethod map[string][]*Call // for the closest match
	methods  []string           // recorded methods, sorted
}

type queue struct {
	calls []*Call
	next  int
}

func newPlayer(c *Capture) *player {
	p := &player{byKey: map[string]*queue{}, byMethod: map[string][]*Call{}}
	for _, call := range c.Calls {
		k := call.Method + "\x00" + call.Key
		q := p.byKey[k]
		if q == nil {
			q = &queue{}
			p.byKey[k] = q
		}
		q.calls = append(q.calls, call)
		if p.byMethod[call.Method] == nil {
			p.methods = append(p.methods, call.Method)
		}
		p.byMethod[call.Method] = append(p.byMethod[call.Method], call)
	}
	slices.Sort(p.methods)
	return p
}

func (p *player) first(method string) *Call {
	for _, c := range p.byMethod[method] {
		if c.Answered && c.Error == nil {
			return c
		}
	}
	return nil
}

// take returns the recorded call that answers method with key, in recorded
// order and then the last again, or nil.
func (p *player) take(method, key string) *Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.byKey[method+"\x00"+key]
	if q == nil {
		return nil
	}
	c := q.calls[q.next]
	if q.next < len(q.calls)-1 {
		q.next++
	}
	return c
}

// notifier is what a session offers to send a recorded notification.
type notifier interface {
	Notify(ctx context.Context, method string, params any) error
}

func (p *player) middleware(next mcp.Invoker) mcp.Invoker {
	return func(ctx context.Context, call *mcp.Call) (any, error) {
		if call.Direction != mcp.Incoming || call.Notification || call.Method == protocol.MethodInitialize {
			return next(ctx, call)
		}
		rec := p.take(call.Method, MatchKey(call.Params))
		if rec == nil {
			if len(p.byMethod[call.Method]) == 0 && slices.Contains(sdkAnswers, call.Method) {
				return next(ctx, call)
			}
			return nil, p.noMatch(call.Method, call.Params)
		}
		if n, ok := call.Session.(notifier); ok {
			token := progressToken(call.Params)
			for _, m := range rec.Notifications {
				params := m.Params
				if m.Method == protocol.NotificationProgress {
					if token == "" {
						continue
					}
					params = withProgressToken(params, token)
				}
				if err := n.Notify(ctx, m.Method, params); err != nil {
					return nil, fmt.Errorf("replay: sending %s: %w", m.Method, err)
				}
			}
		}
		switch {
		case !rec.Answered:
			return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "replay: the capture holds no response to this %s request (record %d)", call.Method, rec.Seq)
		case rec.Error != nil:
			e := *rec.Error
			return nil, &e
		}
		return rec.Result, nil
	}
}

// noMatch is the error for a request the capture cannot answer.
func (p *player) noMatch(method string, params json.RawMessage) *jsonrpc.Error {
	recorded := p.byMethod[method]
	if len(recorded) == 0 {
		list := "none"
		if len(p.methods) > 0 {
			list = strings.Join(p.methods, ", ")
		}
		return jsonrpc.NewError(CodeNotRecorded, "replay: the capture holds no %s request (recorded: %s)", method, list)
	}
	best := closest(params, recorded)
	e := jsonrpc.NewError(CodeNoMatch, "replay: no recorded %s request has these params; the closest recorded: %s", method, best.Key)
	return e.WithData(map[string]any{"method": method, "params": json.RawMessage(MatchKey(params)), "closest": json.RawMessage(best.Key)})
}

// closest returns the recorded call whose params share the most members with
// params (the first recorded, on a tie).
func closest(params json.RawMessage, calls []*Call) *Call {
	want := members(MatchKey(params))
	best, bestScore := calls[0], -1
	for _, c := range calls {
		score := 0
		for k, v := range members(c.Key) {
			if w, ok := want[k]; ok {
				score++ // the member is there
				if bytes.Equal(w, v) {
					score += 2 // with the same value
				}
			}
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	return best
}

// members returns the canonical members of a canonical JSON object (nil for
// anything else), one level down too, so that tools/call matches by name and
// by each argument.
func members(key string) map[string][]byte {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(key), &m) != nil {
		return nil
	}
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = v
		var sub map[string]json.RawMessage
		if json.Unmarshal(v, &sub) == nil {
			for sk, sv := range sub {
				out[k+"."+sk] = sv
			}
		}
	}
	return out
}

// withProgressToken returns notification params with progressToken replaced.
func withProgressToken(params json.RawMessage, token string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return params
	}
	m["progressToken"] = json.RawMessage(token)
	b, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return b
}
