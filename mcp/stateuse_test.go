package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
)

// memoryStateUse is a StateUse in a map; fail, when set, is returned by every Use.
type memoryStateUse struct {
	mu   sync.Mutex
	used map[string]time.Duration // state → ttl it was recorded with
	fail error
}

func (m *memoryStateUse) Use(_ context.Context, state string, ttl time.Duration) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if _, ok := m.used[state]; ok {
		return fmt.Errorf("register: %w", mcp.ErrStateReused)
	}
	if m.used == nil {
		m.used = make(map[string]time.Duration)
	}
	m.used[state] = ttl
	return nil
}

func TestStateUseAcceptsEachStateOnce(t *testing.T) {
	reg := &memoryStateUse{}
	srv := newServer(t, &mcp.ServerOptions{StateUse: reg, InputStateTTL: time.Minute})
	must(t, askingTool(srv))
	c := rawConn(t, srv)
	caps := `{"elicitation":{},"sampling":{}}`
	r1 := result(t, statelessCall(t, c, 1, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+`}`))
	state1, _ := r1["requestState"].(string)
	if state1 == "" {
		t.Fatalf("round 1 = %v", r1)
	}
	retry := `{"name":"ask","_meta":` + statelessMeta(caps) + `,"inputResponses":{"elicitation-1":` + elicitAnswer + `},"requestState":"` + state1 + `"}`

	r2 := result(t, statelessCall(t, c, 2, "tools/call", retry))
	if r2["resultType"] != "input_required" {
		t.Fatalf("first use of the state = %v", r2)
	}
	reg.mu.Lock()
	ttl, ok := reg.used[state1]
	reg.mu.Unlock()
	// The record lives as long as the state could open (its sealed expiry), plus the skew margin.
	if !ok || ttl <= 50*time.Second || ttl > time.Minute+time.Second {
		t.Fatalf("recorded ttl = %v (recorded %v), want about 1m (InputStateTTL) + 1s", ttl, ok)
	}

	again := statelessCall(t, c, 3, "tools/call", retry)
	e, _ := again["error"].(map[string]any)
	if errCode(again) != mcp.CodeInvalidParams || e["message"] != "requestState already used" {
		t.Fatalf("second use of the state = %v, want -32602 requestState already used", again)
	}
	// The round trip goes on with the state round 2 gave.
	state2, _ := r2["requestState"].(string)
	r3 := result(t, statelessCall(t, c, 4, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+
		`,"inputResponses":{"sampling-2":`+sampleAnswer+`},"requestState":"`+state2+`"}`))
	if r3["resultType"] != "complete" {
		t.Fatalf("round 3 = %v", r3)
	}
}

func TestStateUseUnavailableRefuses(t *testing.T) {
	reg := &memoryStateUse{}
	srv := newServer(t, &mcp.ServerOptions{StateUse: reg})
	must(t, askingTool(srv))
	c := rawConn(t, srv)
	caps := `{"elicitation":{},"sampling":{}}`
	r1 := result(t, statelessCall(t, c, 1, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+`}`))
	reg.mu.Lock()
	reg.fail = errors.New("backend down")
	reg.mu.Unlock()
	resp := statelessCall(t, c, 2, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+
		`,"inputResponses":{"elicitation-1":`+elicitAnswer+`},"requestState":"`+r1["requestState"].(string)+`"}`)
	e, _ := resp["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if errCode(resp) != mcp.CodeInternalError || data["unavailable"] != true {
		t.Fatalf("register down: %v, want -32603 with data {unavailable:true}", resp)
	}
	// Without a requestState the register is never asked: a first round still works.
	if r := result(t, statelessCall(t, c, 3, "tools/call", `{"name":"ask","_meta":`+statelessMeta(caps)+`}`)); r["resultType"] != "input_required" {
		t.Fatalf("first round with the register down = %v", r)
	}
}
