package wirecheck

import (
	"encoding/json"
	"errors"
	"maps"
	"testing"
)

// allVersions are the versions whose schema the repository must carry.
var allVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

const statelessVersion = "2026-07-28"

type obj = map[string]any

// testSpecs returns the embedded spec set, failing the test if it does not load.
func testSpecs(t testing.TB) *specSet {
	t.Helper()
	s, err := loadSpecSet(embeddedSource)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newTestChecker(t testing.TB, side Side, opts ...Option) *Checker {
	t.Helper()
	c, err := NewChecker(side, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// wire builds messages as a peer speaking version would write them: in 2026-07-28
// requests carry the version and capabilities in _meta and results carry resultType.
type wire struct{ version string }

func (w wire) stateless() bool { return w.version == statelessVersion }

func (w wire) req(id any, method string, params obj) string {
	if w.stateless() {
		params = maps.Clone(params)
		if params == nil {
			params = obj{}
		}
		meta, _ := params["_meta"].(obj)
		meta = maps.Clone(meta)
		if meta == nil {
			meta = obj{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = w.version
		meta["io.modelcontextprotocol/clientCapabilities"] = obj{}
		params["_meta"] = meta
	}
	m := obj{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		m["params"] = params
	}
	return mustJSON(m)
}

func (w wire) res(id any, result obj) string {
	if w.stateless() && result["resultType"] == nil {
		result = maps.Clone(result)
		result["resultType"] = "complete"
	}
	return mustJSON(obj{"jsonrpc": "2.0", "id": id, "result": result})
}

// cacheable adds the caching fields 2026-07-28 list results require.
func (w wire) cacheable(result obj) obj {
	if !w.stateless() {
		return result
	}
	result = maps.Clone(result)
	result["ttlMs"] = 0
	result["cacheScope"] = "private"
	return result
}

// handshake is how a connection of w.version starts: initialize, or server/discover.
func (w wire) handshake() []line {
	if w.stateless() {
		return []line{
			{Client, w.req("d", "server/discover", nil), valid},
			{Server, w.res("d", w.cacheable(obj{"supportedVersions": []any{w.version}, "capabilities": obj{"tools": obj{}}})), valid},
		}
	}
	return []line{
		{Client, w.req(0, "initialize", obj{"protocolVersion": w.version, "capabilities": obj{},
			"clientInfo": obj{"name": "test-client", "version": "1.0.0"}}), valid},
		{Server, w.res(0, obj{"protocolVersion": w.version, "capabilities": obj{"tools": obj{}},
			"serverInfo": obj{"name": "test-server", "version": "1.0.0"}}), valid},
		{Client, note("notifications/initialized", nil), valid},
	}
}

func note(method string, params obj) string {
	m := obj{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	return mustJSON(m)
}

func errResp(id any, code int, message string) string {
	return mustJSON(obj{"jsonrpc": "2.0", "id": id, "error": obj{"code": code, "message": message}})
}

// outcome is what checking one message must give: valid (the zero value), a rule
// error, or a violation of a named definition.
type outcome struct {
	rule error
	def  string
}

var valid = outcome{}

func bad(def string) outcome     { return outcome{def: def} }
func broken(rule error) outcome  { return outcome{rule: rule} }
func (o outcome) String() string { return mustJSON(obj{"rule": errString(o.rule), "def": o.def}) }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// line is one message of a conversation.
type line struct {
	from Side
	msg  string
	want outcome
}

// converse feeds lines to a server-side checker (the client's lines are incoming) and
// checks each outcome.
func converse(t *testing.T, c *Checker, lines []line) {
	t.Helper()
	for i, l := range lines {
		dir := Outgoing
		if l.from != c.side {
			dir = Incoming
		}
		expectOutcome(t, i, c.Check(dir, []byte(l.msg)), l.want)
	}
}

func expectOutcome(t *testing.T, i int, err error, want outcome) {
	t.Helper()
	switch {
	case want == valid && err != nil:
		t.Errorf("message %d: want valid, got\n%v", i, err)
	case want.rule != nil && !errors.Is(err, want.rule):
		t.Errorf("message %d: want %v, got %v", i, want.rule, err)
	case want.def != "" && !hasDef(err, want.def):
		t.Errorf("message %d: want a violation of %s, got %v", i, want.def, err)
	}
}

// violations flattens what Check returned.
func violations(err error) []*Violation {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var out []*Violation
		for _, e := range joined.Unwrap() {
			out = append(out, violations(e)...)
		}
		return out
	}
	var v *Violation
	if errors.As(err, &v) {
		return []*Violation{v}
	}
	return nil
}

func hasDef(err error, def string) bool {
	for _, v := range violations(err) {
		if v.Definition == def {
			return true
		}
	}
	return false
}
