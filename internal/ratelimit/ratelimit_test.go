package ratelimit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

func TestParseLimit(t *testing.T) {
	for spec, want := range map[string]Limit{"10/s": {Rate: 10, Burst: 10}, "60/m": {Rate: 1, Burst: 1}, "5/s:20": {Rate: 5, Burst: 20}, "1/h": {Rate: 1.0 / 3600, Burst: 1}} {
		l, err := ParseLimit(spec)
		if err != nil || l.Rate != want.Rate || l.Burst != want.Burst || l.String() != spec {
			t.Errorf("%s: %+v %v, want %+v", spec, l, err, want)
		}
	}
	for _, bad := range []string{"", "10", "0/s", "-1/s", "1/d", "x/s", "1/s:0", "1/s:x", "NaN/s", "Inf/s"} {
		if _, err := ParseLimit(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestKeyedBuckets(t *testing.T) {
	l, _ := ParseLimit("1/s:2")
	k := NewKeyed(l, 0)
	t0 := time.Unix(1000, 0)
	for i, want := range []bool{true, true, false} {
		if ok, _ := k.Allow("a", t0); ok != want {
			t.Fatalf("call %d of a: %v", i, ok)
		}
	}
	if _, wait := k.Allow("a", t0); wait != time.Second {
		t.Errorf("retry after %v, want 1s", wait)
	}
	if ok, _ := k.Allow("b", t0); !ok {
		t.Error("b is limited by a's calls")
	}
	if ok, _ := k.Allow("a", t0.Add(time.Second)); !ok {
		t.Error("a after a second: still limited")
	}
}

// TestKeyedMemoryFlat: 100,000 distinct keys keep at most Max buckets, and
// the heap after them is what it was after the first 20,000.
func TestKeyedMemoryFlat(t *testing.T) {
	l, _ := ParseLimit("10/s")
	k := NewKeyed(l, 10000)
	now := time.Unix(1000, 0)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for i := range 20000 {
		k.Allow("client-"+strconv.Itoa(i), now)
	}
	at20k := heap()
	for i := 20000; i < 100000; i++ {
		k.Allow("client-"+strconv.Itoa(i), now)
	}
	at100k := heap()
	if k.Len() != 10000 {
		t.Errorf("%d buckets kept, want 10000", k.Len())
	}
	// 80,000 more keys: a growing map would add several MB.
	if at100k > at20k+512<<10 {
		t.Errorf("heap grew from %d to %d bytes over 80,000 new keys", at20k, at100k)
	}
	t.Logf("heap: %d KiB after 20k keys, %d KiB after 100k", at20k>>10, at100k>>10)
}

// bodyProbe records whether the handler chain read the body.
type bodyProbe struct{ read bool }

func (b *bodyProbe) Read(p []byte) (int, error) { b.read = true; return 0, io.EOF }

// TestMiddleware: a client over its budget gets 429 with Retry-After before
// its body is read, while another client's requests all pass.
func TestMiddleware(t *testing.T) {
	l, _ := ParseLimit("1/s:3")
	t0 := time.Unix(1000, 0)
	h := Middleware(NewKeyed(l, 0), func() time.Time { return t0 })(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
	}))
	do := func(principal string) (*httptest.ResponseRecorder, *bodyProbe) {
		probe := &bodyProbe{}
		r := httptest.NewRequest(http.MethodPost, "/mcp", probe)
		r = r.WithContext(transport.WithPrincipal(r.Context(), principal))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w, probe
	}
	for i := range 5 {
		w, probe := do("greedy")
		if limited := i >= 3; (w.Code == 429) != limited || probe.read == limited {
			t.Errorf("greedy call %d: %d, body read %v", i, w.Code, probe.read)
		}
		if i >= 3 && (w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), "1/s:3 per client")) {
			t.Errorf("greedy call %d: Retry-After %q, %q", i, w.Header().Get("Retry-After"), w.Body.String())
		}
		if w, _ := do("modest"); w.Code != 200 && i < 3 {
			t.Errorf("modest call %d: %d", i, w.Code)
		}
	}
}

// TestToolMiddleware: a tool's calls over its limit get a JSON-RPC error
// naming the limit, in both eras; other tools are not limited.
func TestToolMiddleware(t *testing.T) {
	l, _ := ParseLimit("1/m:2")
	t0 := time.Unix(1000, 0)
	for _, v := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(v, func(t *testing.T) {
			srv := mcp.NewServer(protocol.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{
				Middleware: []mcp.Middleware{ToolMiddleware(map[string]*Keyed{"slow": NewKeyed(l, 0)}, func() time.Time { return t0 })},
			})
			for _, name := range []string{"slow", "fast"} {
				if err := srv.AddRawTool(&protocol.Tool{Name: name}, func(context.Context, *mcp.ToolRequest) (*protocol.CallToolResult, error) {
					return &protocol.CallToolResult{}, nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			cs, _ := mcptest.Connect(t, srv, mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: v}), nil)
			ctx := t.Context()
			for i := range 4 {
				_, err := cs.CallTool(ctx, "slow", nil)
				var je *jsonrpc.Error
				if limited := i >= 2; limited != (err != nil) {
					t.Fatalf("slow call %d: %v", i, err)
				} else if limited && (!errors.As(err, &je) || je.Code != CodeRateLimited || je.Message != "rate limit exceeded: tool 'slow' allows 1/m:2 per client; retry after 60s" || string(je.Data) != `{"limit":"tool 'slow' allows 1/m:2 per client","retryAfterSeconds":60}`) {
					t.Errorf("slow call %d: %v", i, err)
				}
				if _, err := cs.CallTool(ctx, "fast", nil); err != nil {
					t.Errorf("fast call %d: %v", i, err)
				}
			}
		})
	}
}

// BenchmarkKeyedAllow is the cost a limit adds to a request: one bucket
// lookup and take, over 1,000 clients.
func BenchmarkKeyedAllow(b *testing.B) {
	l, _ := ParseLimit("1000000/s")
	k := NewKeyed(l, 0)
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "client-" + strconv.Itoa(i)
	}
	now := time.Unix(1000, 0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		k.Allow(keys[i%len(keys)], now)
		i++
	}
}

// TestToolNameAsTheServerReadsIt: params that spell "name" twice or in another
// case name, for the limit, the tool the server runs.
func TestToolNameAsTheServerReadsIt(t *testing.T) {
	for _, params := range []string{`{"name":"slow","Name":"fast"}`, `{"Name":"fast","name":"slow"}`, `{"name":"sl\u006fw"}`} {
		var p protocol.CallToolParams
		if err := json.Unmarshal([]byte(params), &p); err != nil {
			continue // the server refuses it too
		}
		if got := toolName(&mcp.Call{Params: json.RawMessage(params)}); got != p.Name {
			t.Errorf("%s: the limit reads %q, the server %q", params, got, p.Name)
		}
	}
}

// TestToolMiddlewareAllocs: a call to a limited tool, under its limit, costs
// the limiter no allocation (the name is read without decoding the params).
func TestToolMiddlewareAllocs(t *testing.T) {
	l, _ := ParseLimit("1000000/s")
	mw := ToolMiddleware(map[string]*Keyed{"echo": NewKeyed(l, 0)}, nil)
	var ran int
	invoke := mw(func(context.Context, *mcp.Call) (any, error) { ran++; return nil, nil })
	call := &mcp.Call{Direction: mcp.Incoming, Method: protocol.MethodToolsCall,
		Params: json.RawMessage(`{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":1}}`)}
	ctx := context.Background()
	_, _ = invoke(ctx, call)
	if n := testing.AllocsPerRun(100, func() { _, _ = invoke(ctx, call) }); n != 0 {
		t.Errorf("%v allocs per call, want 0", n)
	}
	if ran != 102 {
		t.Errorf("the tool ran %d times, want 102", ran)
	}
}
