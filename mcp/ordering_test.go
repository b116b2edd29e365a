package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// burst is what a client that does not wait for answers writes at once: a premature
// tools/list, then initialize, notifications/initialized and tools/list. Each must
// take effect in arrival order: the first tools/list is refused, the second served.
var burst = []string{
	`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
}

// burstIterations is how many fresh sessions each transport gets the burst on: the
// reordering it guards against showed up in about two runs of three.
const burstIterations = 200

// checkBurstAnswers checks the three answers to burst, in whatever order they came.
func checkBurstAnswers(t *testing.T, answers []string) {
	t.Helper()
	byID := map[int]map[string]json.RawMessage{}
	for _, a := range answers {
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(a), &m); err != nil {
			t.Fatalf("answer %s: %v", a, err)
		}
		byID[m.ID] = map[string]json.RawMessage{"result": m.Result, "error": m.Error}
	}
	if e := string(byID[0]["error"]); len(e) == 0 || !json.Valid([]byte(e)) || byID[0]["result"] != nil {
		t.Fatalf("tools/list before initialize was not refused: %v", answers)
	}
	if byID[1]["result"] == nil {
		t.Fatalf("initialize failed: %v", answers)
	}
	if byID[2]["result"] == nil || byID[2]["error"] != nil {
		t.Fatalf("tools/list after initialize failed: %v", answers)
	}
}

// TestStateChangesTakeEffectInArrivalOrderInMemory sends the burst over the in-memory
// transport without waiting between messages.
func TestStateChangesTakeEffectInArrivalOrderInMemory(t *testing.T) {
	srv := toolServer(t)
	for i := range burstIterations {
		c, s := memory.NewPair()
		ss, err := srv.Connect(t.Context(), s)
		must(t, err)
		for _, msg := range burst {
			must(t, c.Write(t.Context(), []byte(msg)))
		}
		var answers []string
		for range 3 {
			b, err := c.Read(t.Context())
			if err != nil {
				t.Fatalf("iteration %d: %v", i, err)
			}
			answers = append(answers, string(b))
		}
		checkBurstAnswers(t, answers)
		_ = c.Close()
		_ = ss.Close()
	}
}

// TestStateChangesTakeEffectInArrivalOrderOverStdio writes the burst in a single
// write to a real pipe that a stdio server connection reads.
func TestStateChangesTakeEffectInArrivalOrderOverStdio(t *testing.T) {
	srv := toolServer(t)
	var all []byte
	for _, msg := range burst {
		all = append(append(all, msg...), '\n')
	}
	for i := range burstIterations {
		answers := stdioExchange(t, srv, all, 3)
		if t.Failed() {
			t.Fatalf("iteration %d", i)
		}
		checkBurstAnswers(t, answers)
	}
}

// stdioExchange connects srv to a pair of OS pipes, writes input in one write and
// returns the first n lines the server writes back.
func stdioExchange(t *testing.T, srv *mcp.Server, input []byte, n int) []string {
	t.Helper()
	toServer, clientOut, err := os.Pipe()
	must(t, err)
	clientIn, fromServer, err := os.Pipe()
	must(t, err)
	defer clientIn.Close()
	ss, err := srv.Connect(t.Context(), stdio.NewServerConn(toServer, fromServer, nil))
	must(t, err)
	defer func() {
		_ = clientOut.Close() // end of input: the session ends
		_ = ss.Close()
		_ = toServer.Close()
		_ = fromServer.Close()
	}()
	// A bound, not a synchronisation: a server that never answers fails the test.
	must(t, clientIn.SetReadDeadline(time.Now().Add(20*time.Second)))
	if _, err := clientOut.Write(input); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(clientIn)
	var lines []string
	for len(lines) < n && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) < n {
		t.Fatalf("read %d of %d answers: %v", len(lines), n, sc.Err())
	}
	return lines
}

// Requests that change no session state still run concurrently: two tools/call
// requests of one stdio connection are both in their handlers at the same time.
func TestToolCallsOfOneConnectionRunConcurrently(t *testing.T) {
	srv := newServer(t, nil)
	arrived := make(chan struct{}, 2)
	release := make(chan struct{})
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "meet"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		arrived <- struct{}{}
		select {
		case <-release:
			return "met", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}))
	var input []byte
	for _, msg := range burst[1:3] {
		input = append(append(input, msg...), '\n')
	}
	for id := 10; id < 12; id++ {
		input = fmt.Appendf(input, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"meet","arguments":{}}}`+"\n", id)
	}
	met := make(chan bool, 1)
	go func() {
		// Both calls must be in their handlers before either is let go; calls run
		// one after the other would wait here until the bound.
		defer close(release)
		bound := time.NewTimer(10 * time.Second)
		defer bound.Stop()
		for range 2 {
			select {
			case <-arrived:
			case <-bound.C:
				met <- false
				return
			}
		}
		met <- true
	}()
	lines := stdioExchange(t, srv, input, 3)
	if !<-met {
		t.Fatal("the second tools/call did not start while the first was running")
	}
	for _, l := range lines[1:] {
		var m struct {
			Result protocol.CallToolResult `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil || len(m.Result.Content) != 1 || m.Result.Content[0].Text != "met" {
			t.Fatalf("tools/call answered %s", l)
		}
	}
}
