package interop

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// Keys of the 2026-07-28 _meta envelope.
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// ts2Message is one JSON-RPC message of a recorded ts2_client.mjs run, decoded as
// far as the wire checks look.
type ts2Message struct {
	FromMcpkit bool
	Raw        json.RawMessage
	ID         json.RawMessage `json:"id"`
	Method     string          `json:"method"`
	Params     struct {
		Name            string                     `json:"name"`
		URI             string                     `json:"uri"`
		ProtocolVersion string                     `json:"protocolVersion"` // initialize
		Meta            map[string]json.RawMessage `json:"_meta"`
		InputResponses  map[string]json.RawMessage `json:"inputResponses"`
		RequestState    *string                    `json:"requestState"`
		ProgressToken   json.RawMessage            `json:"progressToken"` // notifications/progress
		Progress        float64                    `json:"progress"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int64 `json:"code"`
	} `json:"error"`
}

// isRequest reports whether m is a request (a method and an id).
func (m *ts2Message) isRequest() bool { return m.Method != "" && m.ID != nil }

// ts2Result is the part of a result the wire checks look at.
type ts2Result struct {
	ResultType    *string                    `json:"resultType"`
	Meta          map[string]json.RawMessage `json:"_meta"`
	InputRequests map[string]struct {
		Method string `json:"method"`
	} `json:"inputRequests"`
	RequestState string             `json:"requestState"`
	Content      []protocol.Content `json:"content"`
}

// messages returns the messages of the run in order: over stdio as the wrapper
// recorded them, over HTTP each exchange's request body followed by what its
// response carried (a JSON body or the events of a stream).
func (r *ts2Report) messages(t *testing.T) []ts2Message {
	t.Helper()
	var out []ts2Message
	add := func(fromMcpkit bool, raw json.RawMessage) {
		m := ts2Message{FromMcpkit: fromMcpkit, Raw: raw}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Errorf("a recorded message is not JSON-RPC: %v\n%s", err, clip(raw, 2000))
			return
		}
		out = append(out, m)
	}
	if r.Kind == "http" {
		for i := range r.Exchanges {
			e := &r.Exchanges[i]
			if m, ok := e.request(); ok {
				add(false, m.Raw)
			}
			for _, m := range e.messages(t) {
				add(true, m.Raw)
			}
		}
		return out
	}
	for _, w := range r.Wire {
		add(w.Dir == "recv", w.Msg)
	}
	return out
}

// discoverEvidence describes the server/discover probe of the run and its answer,
// exactly as recorded (over HTTP with the status and headers), to say why the SDK
// did not reach 2026-07-28.
func (r *ts2Report) discoverEvidence(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for i := range r.Exchanges {
		e := &r.Exchanges[i]
		if m, ok := e.request(); ok && m.Method == "server/discover" {
			fmt.Fprintf(&b, "\tthe client sent: %s %s\n\t\theaders %v\n\t\tbody %s\n\tmcpkit answered: %d\n\t\theaders %v\n\t\tbody %s\n",
				e.Method, e.Path, e.RequestHeaders, e.RequestBody, e.Status, e.ResponseHeaders, clip([]byte(e.ResponseBody), 2000))
			if e.FetchError != "" {
				fmt.Fprintf(&b, "\t\tfetch error %s\n", e.FetchError)
			}
		}
	}
	var probeID string
	for _, w := range r.Wire {
		var m ts2Message
		if json.Unmarshal(w.Msg, &m) != nil {
			continue
		}
		if w.Dir == "send" && m.Method == "server/discover" {
			probeID = string(m.ID)
			fmt.Fprintf(&b, "\tthe client sent: %s\n", w.Msg)
		} else if w.Dir == "recv" && probeID != "" && string(m.ID) == probeID && m.Method == "" {
			fmt.Fprintf(&b, "\tmcpkit answered: %s\n", clip(w.Msg, 2000))
		}
	}
	if b.Len() == 0 {
		return "\t(no server/discover recorded: on stdio with auto the SDK probes on a sibling process it does not let us record)"
	}
	return b.String()
}

// checkTS2Wire checks the recorded messages of a run against its era.
//
// In 2026-07-28: the client never sent initialize, its first message was
// server/discover, and every request carried the stateless _meta protocolVersion;
// mcpkit sent no request of its own (the era has no server-to-client requests),
// every result it sent has a resultType and its serverInfo in _meta, the ask_name
// call was answered input_required with an elicitation/create input request and a
// requestState, which the client retried, on a new id, with an inputResponse for
// every key and the requestState byte for byte, and got the complete result; a
// missing resource was -32602.
//
// In 2025-11-25: the client began with initialize, mcpkit asked for the name with an
// elicitation/create request that the client answered, and a missing resource was
// -32002.
//
// Either way every message mcpkit wrote must match the official schema of the
// version in use.
func checkTS2Wire(t *testing.T, r *ts2Report, run ts2Run) {
	t.Helper()
	msgs := r.messages(t)
	if len(msgs) == 0 {
		t.Error("no message was recorded")
		return
	}
	sent := map[string]*ts2Message{} // the client's requests by id
	for i := range msgs {
		if m := &msgs[i]; !m.FromMcpkit && m.isRequest() {
			sent[string(m.ID)] = m
		}
	}
	// answerTo returns mcpkit's answers to the client's requests that match.
	answerTo := func(match func(req *ts2Message) bool) []*ts2Message {
		var out []*ts2Message
		for i := range msgs {
			m := &msgs[i]
			if req := sent[string(m.ID)]; m.FromMcpkit && m.Method == "" && req != nil && match(req) {
				out = append(out, m)
			}
		}
		return out
	}
	missing := answerTo(func(req *ts2Message) bool {
		return req.Method == "resources/read" && req.Params.URI == "demo://items/7"
	})
	wantMissing := int64(protocol.CodeResourceNotFound)
	if run.stateless {
		wantMissing = protocol.CodeInvalidParams
	}
	if len(missing) != 1 || missing[0].Error == nil || missing[0].Error.Code != wantMissing {
		t.Errorf("mcpkit's answers to reading demo://items/7: %d, want one error %d", len(missing), wantMissing)
	}

	checkTS2ProgressWire(t, msgs)

	version := protocol.LatestLegacy
	if run.stateless {
		version = statelessVersion
		checkStatelessWire(t, msgs, answerTo)
	} else {
		checkLegacyWire(t, msgs)
	}
	t.Run("schema", func(t *testing.T) {
		wire := make([]wireMessage, len(msgs))
		for i, m := range msgs {
			wire[i] = wireMessage{FromMcpkit: m.FromMcpkit, Raw: m.Raw}
		}
		checkWireAgainstSchema(t, version, wire)
	})
}

// checkTS2ProgressWire checks that mcpkit wrote the count call's progress, 0, 1 and
// 2 with the call's progressToken, all before the response to the call: what the
// spec asks of the server, whatever the SDK then delivers (see checkTS2Progress).
func checkTS2ProgressWire(t *testing.T, msgs []ts2Message) {
	t.Helper()
	var call *ts2Message
	for i := range msgs {
		if m := &msgs[i]; !m.FromMcpkit && m.Method == "tools/call" && m.Params.Name == "count" {
			call = m
		}
	}
	if call == nil || call.Params.Meta["progressToken"] == nil {
		t.Error("the client's count call, with a progressToken, was not recorded")
		return
	}
	token := call.Params.Meta["progressToken"]
	var values []float64
	answered := false
	for i := range msgs {
		m := &msgs[i]
		switch {
		case !m.FromMcpkit:
		case m.Method == protocol.NotificationProgress && string(m.Params.ProgressToken) == string(token):
			if answered {
				t.Errorf("mcpkit sent progress after the count call's response: %s", clip(m.Raw, 2000))
			}
			values = append(values, m.Params.Progress)
		case m.Method == "" && string(m.ID) == string(call.ID):
			answered = true
		}
	}
	if !answered || !slices.Equal(values, []float64{0, 1, 2}) {
		t.Errorf("mcpkit sent the count call progress %v (answered: %v), want [0 1 2] before the response", values, answered)
	}
}

// checkStatelessWire holds the 2026-07-28 checks of checkTS2Wire.
func checkStatelessWire(t *testing.T, msgs []ts2Message, answerTo func(func(*ts2Message) bool) []*ts2Message) {
	t.Helper()
	first := true
	for i := range msgs {
		m := &msgs[i]
		if m.FromMcpkit {
			if m.isRequest() {
				t.Errorf("mcpkit sent a request in 2026-07-28, which has none from the server: %s", clip(m.Raw, 2000))
			}
			if m.Result != nil {
				var res ts2Result
				if err := json.Unmarshal(m.Result, &res); err != nil {
					t.Errorf("result %s: %v", clip(m.Raw, 2000), err)
				} else if res.ResultType == nil || (*res.ResultType != "complete" && *res.ResultType != "input_required") {
					t.Errorf("a 2026-07-28 result without a valid resultType: %s", clip(m.Raw, 2000))
				} else if !json.Valid(res.Meta[metaServerInfo]) {
					t.Errorf("a 2026-07-28 result without _meta %s: %s", metaServerInfo, clip(m.Raw, 2000))
				}
			}
			continue
		}
		if first && m.Method != "server/discover" {
			t.Errorf("the client's first message is %s, want server/discover", clip(m.Raw, 500))
		}
		first = false
		if m.Method == "initialize" {
			t.Errorf("the client sent initialize in 2026-07-28: %s", clip(m.Raw, 500))
		}
		if m.isRequest() && string(m.Params.Meta[metaProtocolVersion]) != `"`+statelessVersion+`"` {
			t.Errorf("a request without _meta %s %q: %s", metaProtocolVersion, statelessVersion, clip(m.Raw, 1000))
		}
	}

	// The input-required round trip of ask_name.
	askAnswers := answerTo(func(req *ts2Message) bool { return req.Method == "tools/call" && req.Params.Name == "ask_name" })
	var asked, done []ts2Result
	var askedID json.RawMessage
	for _, a := range askAnswers {
		var res ts2Result
		if a.Result == nil || json.Unmarshal(a.Result, &res) != nil || res.ResultType == nil {
			t.Errorf("ask_name answered %s, want a result", clip(a.Raw, 2000))
			continue
		}
		switch *res.ResultType {
		case "input_required":
			asked, askedID = append(asked, res), a.ID
		case "complete":
			done = append(done, res)
		}
	}
	if len(asked) != 1 || len(done) != 1 {
		t.Errorf("ask_name was answered input_required %d times and complete %d times, want once each", len(asked), len(done))
		return
	}
	if len(asked[0].InputRequests) == 0 || asked[0].RequestState == "" {
		t.Errorf("the input_required answer has input requests %v and requestState %q, want both", asked[0].InputRequests, asked[0].RequestState)
	}
	for key, ir := range asked[0].InputRequests {
		if ir.Method != "elicitation/create" {
			t.Errorf("input request %q is %q, want elicitation/create", key, ir.Method)
		}
	}
	var retries []*ts2Message
	for i := range msgs {
		m := &msgs[i]
		if !m.FromMcpkit && m.Method == "tools/call" && m.Params.Name == "ask_name" && m.Params.RequestState != nil {
			retries = append(retries, m)
		}
	}
	if len(retries) != 1 {
		t.Errorf("the client retried ask_name %d times, want once", len(retries))
		return
	}
	retry := retries[0]
	if *retry.Params.RequestState != asked[0].RequestState {
		t.Errorf("the retry's requestState differs from the one mcpkit sent:\n\tsent %q\n\tgot  %q", asked[0].RequestState, *retry.Params.RequestState)
	}
	if string(retry.ID) == string(askedID) {
		t.Errorf("the retry reused request id %s", retry.ID)
	}
	if want, got := slices.Sorted(maps.Keys(asked[0].InputRequests)), slices.Sorted(maps.Keys(retry.Params.InputResponses)); !slices.Equal(want, got) {
		t.Errorf("the retry answers input keys %q, want %q", got, want)
	}
	if textOf(done[0].Content) != "hello Ada" {
		t.Errorf("the completed ask_name says %q, want \"hello Ada\"", textOf(done[0].Content))
	}
}

// checkLegacyWire holds the 2025-11-25 checks of checkTS2Wire.
func checkLegacyWire(t *testing.T, msgs []ts2Message) {
	t.Helper()
	var first *ts2Message
	var elicitID json.RawMessage
	answered := false
	for i := range msgs {
		m := &msgs[i]
		if !m.FromMcpkit && first == nil {
			first = m
		}
		if m.FromMcpkit && m.isRequest() && m.Method == "elicitation/create" {
			elicitID = m.ID
		}
		if !m.FromMcpkit && m.Method == "" && elicitID != nil && string(m.ID) == string(elicitID) && m.Result != nil {
			answered = true
		}
	}
	if first == nil || first.Method != "initialize" || first.Params.ProtocolVersion != protocol.LatestLegacy {
		t.Errorf("the client's first message: want initialize for %s", protocol.LatestLegacy)
	}
	if elicitID == nil || !answered {
		t.Errorf("mcpkit sent elicitation/create: %v; the client answered it: %v; want both", elicitID != nil, answered)
	}
}

// checkTS2HTTP checks the HTTP exchanges of a run. In 2026-07-28 each one is a
// POST to /mcp whose MCP-Protocol-Version and Mcp-Method headers match its body
// (and Mcp-Name the tool, prompt or resource), without a session id either way,
// answered 200 (a request) or 202 (a notification). In 2025-11-25 against a
// stateful server, every request after initialize carries the session id it was
// given and the negotiated version.
func checkTS2HTTP(t *testing.T, r *ts2Report, run ts2Run, stateful bool) {
	t.Helper()
	sessionID := ""
	for i := range r.Exchanges {
		e := &r.Exchanges[i]
		if e.FetchError != "" {
			t.Errorf("%s: the request failed: %s", e, e.FetchError)
			continue
		}
		if e.Path != "/mcp" {
			t.Errorf("%s: a request off the MCP endpoint", e)
		}
		var m ts2Message
		hasBody := e.RequestBody != "" && json.Unmarshal([]byte(e.RequestBody), &m) == nil
		if !run.stateless {
			if hasBody && m.Method == "initialize" {
				sessionID = e.ResponseHeaders["mcp-session-id"]
				if stateful && sessionID == "" {
					t.Errorf("%s: no session id from a stateful server", e)
				}
				continue
			}
			if got := e.RequestHeaders["mcp-session-id"]; got != sessionID {
				t.Errorf("%s: request Mcp-Session-Id %q, want %q", e, got, sessionID)
			}
			if got := e.RequestHeaders["mcp-protocol-version"]; got != protocol.LatestLegacy {
				t.Errorf("%s: MCP-Protocol-Version %q, want %q", e, got, protocol.LatestLegacy)
			}
			continue
		}
		if e.Method != "POST" || !hasBody {
			t.Errorf("%s: want only POSTs of one message in 2026-07-28", e)
			continue
		}
		if got := e.RequestHeaders["mcp-protocol-version"]; got != statelessVersion {
			t.Errorf("%s: MCP-Protocol-Version %q, want %q", e, got, statelessVersion)
		}
		if m.Method != "" && e.RequestHeaders["mcp-method"] != m.Method {
			t.Errorf("%s: Mcp-Method %q, body method %q", e, e.RequestHeaders["mcp-method"], m.Method)
		}
		if name := m.Params.Name + m.Params.URI; name != "" && e.RequestHeaders["mcp-name"] != name {
			t.Errorf("%s: Mcp-Name %q, want %q", e, e.RequestHeaders["mcp-name"], name)
		}
		if e.RequestHeaders["mcp-session-id"] != "" || e.ResponseHeaders["mcp-session-id"] != "" {
			t.Errorf("%s: a session id in 2026-07-28 (request %q, response %q)", e, e.RequestHeaders["mcp-session-id"], e.ResponseHeaders["mcp-session-id"])
		}
		want := 200
		if !m.isRequest() {
			want = 202
		}
		if e.Status != want {
			t.Errorf("%s: status %d, want %d", e, e.Status, want)
		}
	}
}
