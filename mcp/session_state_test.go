package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// initSession returns a new session of srv initialized with params.
func initSession(t *testing.T, srv *Server, params string) *ServerSession {
	t.Helper()
	ss := newServerSession(srv, nil)
	init := &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: protocol.MethodInitialize, Params: json.RawMessage(params)}
	if _, err := ss.Handle(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	return ss
}

// TestSessionsShareTheirClientState: sessions whose initialize params are the
// same share one negotiated state (an idle session keeps no copy of its
// client's name and capabilities), and each still reports its own client.
func TestSessionsShareTheirClientState(t *testing.T) {
	srv := NewServer(protocol.Implementation{Name: "s", Version: "1"}, nil)
	claude := `{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"claude","version":"1"}}`
	other := `{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"other","version":"2"}}`
	a, b, c := initSession(t, srv, claude), initSession(t, srv, claude), initSession(t, srv, other)
	if a.state.Load() != b.state.Load() {
		t.Error("two sessions initialized with the same params keep a state each")
	}
	if a.state.Load() == c.state.Load() {
		t.Fatal("sessions of different clients share a state")
	}
	if got := b.ClientInfo().Name; got != "claude" || b.ProtocolVersion() != "2025-06-18" || b.ClientCapabilities().Roots == nil {
		t.Errorf("shared session: client %q version %q roots %v", got, b.ProtocolVersion(), b.ClientCapabilities().Roots)
	}
	if got := c.ClientInfo().Name; got != "other" || c.ProtocolVersion() != "2025-03-26" || c.ClientCapabilities().Roots != nil {
		t.Errorf("other session: client %q version %q roots %v", got, c.ProtocolVersion(), c.ClientCapabilities().Roots)
	}
}

// TestSharedStatesBounded: the table keeps at most maxSharedStates states and
// never keeps params over maxSharedParams, whatever clients send.
func TestSharedStatesBounded(t *testing.T) {
	srv := NewServer(protocol.Implementation{Name: "s", Version: "1"}, nil)
	for i := range 3 * maxSharedStates {
		initSession(t, srv, fmt.Sprintf(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c%d","version":"1"}}`, i))
		if n := len(srv.states.m); n > maxSharedStates {
			t.Fatalf("after %d clients the table holds %d states", i+1, n)
		}
	}
	big := `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"` + strings.Repeat("x", maxSharedParams) + `","version":"1"}}`
	a, b := initSession(t, srv, big), initSession(t, srv, big)
	if a.state.Load() == b.state.Load() {
		t.Error("params over maxSharedParams were shared")
	}
	for k := range srv.states.m {
		if len(k) > maxSharedParams {
			t.Errorf("the table keeps params of %d bytes", len(k))
		}
	}
	if a.ClientInfo().Name != strings.Repeat("x", maxSharedParams) {
		t.Error("the unshared session lost its client's name")
	}
}

// TestSessionlessStateShared: every pre-initialized (sessionless) connection at
// one legacy version points at the same state, and it is that version's.
func TestSessionlessStateShared(t *testing.T) {
	for _, v := range protocol.LegacyVersions() {
		st := presetState(v)
		if st == nil || st.version != v || presetState(v) != st {
			t.Errorf("presetState(%q) = %+v", v, st)
		}
	}
	for _, v := range []string{"", protocol.Version20260728, "1999-01-01"} {
		if presetState(v) != nil {
			t.Errorf("presetState(%q) is not nil", v)
		}
	}
}
