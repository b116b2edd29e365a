//go:build linux

package stress

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// client speaks MCP to the server over plain HTTP requests, from a local
// address of its choice (127.0.0.x: a client address of its own for the
// per-client session share).
type client struct {
	base string // http://host:port
	http *http.Client
	ids  atomic.Int64 // request ids: unique within the client's sessions
}

// newClient returns a client connecting from localIP ("" for any).
func newClient(addr, localIP string) *client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	if localIP != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(localIP)}
	}
	return &client{
		base: "http://" + addr,
		http: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 8}},
	}
}

// reply is an HTTP answer, read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// rpcError is the JSON-RPC error of a reply's body, if it is one.
func (r reply) rpcError() (code int64, msg string) {
	var m struct {
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(r.body, &m) != nil || m.Error == nil {
		return 0, ""
	}
	return m.Error.Code, m.Error.Message
}

// do sends one request; hdr holds header pairs.
func (c *client) do(ctx context.Context, method, path string, body []byte, hdr ...string) (reply, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: data}, err
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stress","version":"1"}}}`

// initialize starts a session; it returns the session id ("" if refused) and
// the reply.
func (c *client) initialize(ctx context.Context) (string, reply, error) {
	r, err := c.do(ctx, http.MethodPost, "/mcp", []byte(initBody))
	if err != nil || r.status != http.StatusOK {
		return "", r, err
	}
	sid := r.header.Get("Mcp-Session-Id")
	_, err = c.do(ctx, http.MethodPost, "/mcp", []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		"Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18")
	return sid, r, err
}

// end ends a session (DELETE).
func (c *client) end(ctx context.Context, sid string) error {
	r, err := c.do(ctx, http.MethodDelete, "/mcp", nil, "Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18")
	if err == nil && r.status != http.StatusNoContent {
		err = fmt.Errorf("DELETE: %d %s", r.status, r.body)
	}
	return err
}

// errWrongAnswer marks an answer that is not the one the request asked for:
// the one outcome no attack may ever cause.
type errWrongAnswer struct{ got string }

func (e *errWrongAnswer) Error() string { return "wrong answer: " + e.got }

// echo calls the echo tool in session sid ("" for a stateless 2026-07-28
// request) and checks that the answer echoes msg. A request the server
// refused or could not take (a limit, a timeout) is an error; an answer that
// is not msg's is an *errWrongAnswer.
func (c *client) echo(ctx context.Context, sid, msg string) error {
	args, _ := json.Marshal(map[string]string{"message": msg})
	id := c.ids.Add(1) + 100
	var body string
	var hdr []string
	if sid != "" {
		body = `{"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `,"method":"tools/call","params":{"name":"echo","arguments":` + string(args) + `}}`
		hdr = []string{"Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-06-18"}
	} else {
		body = `{"jsonrpc":"2.0","id":` + fmt.Sprint(id) + `,"method":"tools/call","params":{"name":"echo","arguments":` + string(args) +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		hdr = []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo"}
	}
	r, err := c.do(ctx, http.MethodPost, "/mcp", []byte(body), hdr...)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("echo: %d %s", r.status, r.body)
	}
	var res struct {
		ID     int64 `json:"id"`
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(r.body, &res); err != nil || res.ID != id || len(res.Result.Content) != 1 || res.Result.Content[0].Text != "hello "+msg {
		return &errWrongAnswer{got: string(r.body)}
	}
	return nil
}

// verifyService checks that a normal client is served in full: a session
// with concurrent calls, stateless calls, and an HTTP+SSE session through
// mcpkit's own client. Every call must be answered, and answered right.
func verifyService(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c := newClient(addr, "127.0.0.1")
	defer c.http.CloseIdleConnections()
	sid, r, err := c.initialize(ctx)
	if err != nil || sid == "" {
		t.Fatalf("a normal client cannot start a session: %v %d %s", err, r.status, r.body)
	}
	var wg sync.WaitGroup
	var failed atomic.Int32
	for w := range 4 {
		wg.Go(func() {
			for i := range 10 {
				for _, s := range []string{sid, ""} {
					if err := c.echo(ctx, s, fmt.Sprintf("w%d-%d-%q", w, i, s)); err != nil {
						failed.Add(1)
						t.Errorf("a normal call: %v", err)
					}
				}
			}
		})
	}
	wg.Wait()
	if err := c.end(ctx, sid); err != nil {
		t.Error(err)
	}
	cs, err := mcpkit.ConnectURL(ctx, mcp.NewClient(mcp.Implementation{Name: "stress", Version: "1"}, nil), c.base+"/sse", nil)
	if err != nil {
		t.Fatalf("a normal HTTP+SSE client cannot connect: %v", err)
	}
	defer cs.Close()
	var tools []string
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatalf("tools/list over HTTP+SSE: %v", err)
		}
		tools = append(tools, tool.Name)
	}
	if !strings.Contains(strings.Join(tools, ","), "echo") {
		t.Errorf("tools over HTTP+SSE: %v", tools)
	}
	for i := range 10 {
		msg := fmt.Sprint("over HTTP+SSE ", i)
		res, err := cs.CallTool(ctx, "echo", map[string]string{"message": msg})
		if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "hello "+msg {
			t.Errorf("echo over HTTP+SSE: %+v, %v", res, err)
		}
	}
}

// prober calls echo in a loop while the attacks run, counting the calls
// answered right and those not answered; it fails the test on a wrong
// answer.
type prober struct {
	answered, refused atomic.Int64
	wrong             atomic.Pointer[string]
	stop              context.CancelFunc
	done              chan struct{}
}

func startProber(t *testing.T, addr string) *prober {
	ctx, cancel := context.WithCancel(t.Context())
	p := &prober{stop: cancel, done: make(chan struct{})}
	c := newClient(addr, "127.0.0.1")
	go func() {
		defer close(p.done)
		defer c.http.CloseIdleConnections()
		sid, _, _ := c.initialize(ctx)
		pace := time.NewTicker(5 * time.Millisecond) // a steady client, not a flood of its own
		defer pace.Stop()
		for i := 0; ctx.Err() == nil; i++ {
			select {
			case <-pace.C:
			case <-ctx.Done():
				return
			}
			s := sid
			if i%2 == 1 {
				s = "" // stateless
			}
			callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := c.echo(callCtx, s, fmt.Sprintf("probe-%d", i))
			cancel()
			var wrong *errWrongAnswer
			switch {
			case err == nil:
				p.answered.Add(1)
			case errors.As(err, &wrong):
				p.wrong.Store(&wrong.got)
			default:
				p.refused.Add(1)
			}
		}
	}()
	return p
}

// finish stops the prober and fails the test if any answer was wrong.
func (p *prober) finish(t *testing.T) {
	t.Helper()
	p.stop()
	<-p.done
	t.Logf("prober: %d calls answered right, %d not answered during the attacks", p.answered.Load(), p.refused.Load())
	if w := p.wrong.Load(); w != nil {
		t.Errorf("a call was answered wrongly during the attacks: %s", *w)
	}
	if p.answered.Load() == 0 {
		t.Error("the prober got no answer at all")
	}
}
