package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// capture is the layout of the wire captures (package testkit) that record a client.
type capture struct {
	ClientMessages []json.RawMessage `json:"client_messages"`
	ServerMessages []json.RawMessage `json:"server_messages"`
	Expected       []struct {
		ID        json.RawMessage `json:"id"`
		ResultHas []string        `json:"result_has"`
	} `json:"expected_server_shapes"`
}

func loadCapture(t *testing.T, name string) capture {
	t.Helper()
	var c capture
	testkit.LoadWireCapture(t, name, &c)
	return c
}

// replay sends a captured client's messages to srv and returns the server's replies
// by id (in their JSON form, so 0 and "0" stay apart).
func replay(t *testing.T, srv *mcp.Server, msgs []json.RawMessage) map[string]map[string]json.RawMessage {
	c := rawConn(t, srv)
	ctx := testkit.Context(t)
	replies := make(map[string]map[string]json.RawMessage)
	for _, m := range msgs {
		must(t, c.Write(ctx, m))
		decoded, err := jsonrpc.Decode(m)
		must(t, err)
		if decoded.IsNotification() {
			continue // the server sends nothing back
		}
		var reply map[string]json.RawMessage
		must(t, json.Unmarshal([]byte(readRaw(t, c)), &reply))
		replies[string(reply["id"])] = reply
	}
	return replies
}

func TestReplayRooCode(t *testing.T) {
	capt := loadCapture(t, testkit.CaptureRooCode)
	replies := replay(t, resourceServer(t), capt.ClientMessages)
	if len(capt.Expected) == 0 {
		t.Fatal("capture has no expectations")
	}
	for _, exp := range capt.Expected {
		reply, ok := replies[string(exp.ID)]
		if !ok {
			t.Fatalf("no reply with id %s (the id's JSON type must be kept; got %v)", exp.ID, keys(replies))
		}
		var result map[string]json.RawMessage
		must(t, json.Unmarshal(reply["result"], &result))
		for _, k := range exp.ResultHas {
			if _, ok := result[k]; !ok {
				t.Errorf("reply %s lacks %q: %s", exp.ID, k, reply["result"])
			}
		}
	}
	if v := string(replies["0"]["result"]); !strings.Contains(v, `"protocolVersion":"2024-11-05"`) {
		t.Errorf("initialize reply %s", v)
	}
}

func TestReplayVSCodeAgainstServer(t *testing.T) {
	capt := loadCapture(t, testkit.CaptureVSCode)
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "getUsers"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		return `[{"name":"John"}]`, nil
	}))
	replies := replay(t, srv, capt.ClientMessages)
	if v := string(replies["1"]["result"]); !strings.Contains(v, `"protocolVersion":"2025-03-26"`) {
		t.Errorf("initialize reply %s", v)
	}
	if v := string(replies["3"]["result"]); !strings.Contains(v, `[{\"name\":\"John\"}]`) {
		t.Errorf("tools/call reply %s", v)
	}
}

// TestClientAcceptsDowngrade plays the captured server's answers to mcpkit's client:
// the client asks for 2025-03-26, the server answers 2024-11-05, and the client goes
// on in 2024-11-05.
func TestClientAcceptsDowngrade(t *testing.T) {
	capt := loadCapture(t, testkit.CaptureVSCode)
	c, s := memory.NewPair()
	ctx := testkit.Context(t)
	go func() {
		// A fake server that answers each request with the captured reply, re-keyed
		// to the id the client used.
		answers := capt.ServerMessages
		for len(answers) > 0 {
			data, err := s.Read(ctx)
			if err != nil {
				return
			}
			m, err := jsonrpc.Decode(data)
			if err != nil || !m.IsRequest() {
				continue
			}
			var captured struct {
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal(answers[0], &captured)
			answers = answers[1:]
			_ = s.Write(ctx, jsonrpc.AppendResult(nil, m.ID, captured.Result))
		}
	}()
	cs, err := mcp.NewClient(protocol.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: protocol.Version20250326}).
		Connect(ctx, wirecheck.Wrap(t, c, wirecheck.Client))
	must(t, err)
	defer cs.Close()
	if cs.ProtocolVersion() != protocol.Version20241105 {
		t.Fatalf("negotiated %s", cs.ProtocolVersion())
	}
	tools, err := cs.ListTools(ctx, nil)
	must(t, err)
	if len(tools.Tools) != 1 || tools.Tools[0].Name != "addUser" {
		t.Fatalf("tools %+v", tools)
	}
	res, err := cs.CallTool(ctx, "getUsers", nil)
	must(t, err)
	if res.IsError || !strings.Contains(text(t, res), "john@example.com") {
		t.Fatalf("result %+v", res)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
