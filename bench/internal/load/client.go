package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// Client-side modes (issue 20): the load generator is the client under test
// (Config.Client), so that its own CPU time over the window (Result.LoadGenCPU)
// is the client's cost per call. They are not in AllModes: `mcpbench client`
// runs them.
const (
	// ModeClientHTTP: Config.Concurrency sessions over Streamable HTTP, one
	// connection each, calling the echo tool in a loop.
	ModeClientHTTP = "client-http"
	// ModeClientStdio: one session over the server's stdin/stdout with
	// Config.InFlight calls in flight.
	ModeClientStdio = "client-stdio"
	// ModeClientHTTPStateless: ModeClientHTTP in the 2026-07-28 era: no
	// session, each request carrying the client's envelope in its _meta and
	// the Mcp-Method and Mcp-Name headers.
	ModeClientHTTPStateless = "client-http-2026"
	// ModeGateway: the hand-written generator (as ModeHTTPStateful) against a
	// gateway binary that runs the server behind it as its child process; the
	// child's CPU time is reported too (Result.UpstreamCPUPerCallUs).
	ModeGateway = "gateway"
)

// Clients of the client modes.
const (
	ClientFloor        = "floor"         // the hand-written generator (httpConn, stdioClient)
	ClientMcpkitStruct = "mcpkit-struct" // mcpkit's CallTool with a struct
	ClientMcpkitMap    = "mcpkit-map"    // ... a map[string]any
	ClientMcpkitRaw    = "mcpkit-raw"    // ... a json.RawMessage
	// ClientMcpkitRawNetHTTP is mcpkit-raw with an http.Client of its own, so on
	// net/http's transport instead of the streamable client's default (internal/h1).
	ClientMcpkitRawNetHTTP = "mcpkit-raw-nethttp"
	ClientGoSDK            = "gosdk" // the official go-sdk's client (HTTP only)
	// ClientNetHTTP is a hand-written client on net/http's: the floor's wire work
	// (a pooled body, encoding/json for the reply) through http.Client.Do.
	ClientNetHTTP = "nethttp"
)

// echoArgs is the echo tool's input as a struct.
type echoArgs struct {
	Message string `json:"message"`
}

// echoArguments returns message as CallTool arguments in the client's shape.
func echoArguments(client string, raw []byte, message []byte) (any, []byte) {
	switch client {
	case ClientMcpkitStruct:
		return echoArgs{Message: string(message)}, raw
	case ClientMcpkitMap:
		return map[string]any{"message": string(message)}, raw
	}
	raw = append(append(append(raw[:0], `{"message":"`...), message...), `"}`...)
	return json.RawMessage(raw), raw
}

// mcpkitClient is the client every mcpkit worker uses: the legacy era with a
// session, as the hand-written generator speaks it; mcpkitStatelessClient
// speaks 2026-07-28 (ModeClientHTTPStateless).
var (
	mcpkitClient = mcp.NewClient(protocol.Implementation{Name: "mcpbench", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy})
	mcpkitStatelessClient = mcp.NewClient(protocol.Implementation{Name: "mcpbench", Version: "1.0.0"},
		&mcp.ClientOptions{ProtocolVersion: protocol.Version20260728})
)

// ownHTTPClient is an HTTP client with a transport of its own, so that each
// session keeps its own keep-alive connection (net/http's default transport keeps
// only two idle connections per host).
func ownHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}
}

// runClientHTTP measures a client library over Streamable HTTP: one session per
// worker, each calling the echo tool in a loop.
func runClientHTTP(ctx context.Context, cfg Config, p *serverProc, res *Result) error {
	profileClient(&cfg)
	stateless := cfg.Mode == ModeClientHTTPStateless
	if cfg.Client == ClientFloor {
		if stateless {
			return runHTTPStateless(ctx, cfg, p, res)
		}
		cfg.Mode = ModeHTTPStateful
		return runHTTP(ctx, cfg, p, p.addr, res)
	}
	url := "http://" + p.addr + mcpPath
	return runWorkers(ctx, cfg, p, res, cfg.Concurrency, func(ctx context.Context, w int, phase *atomic.Int32, rec *recorder) {
		call, closeFn, err := dialClient(ctx, cfg.Client, url, stateless)
		if err != nil {
			rec.fail(err)
			return
		}
		defer closeFn()
		loopCalls(ctx, w, phase, rec, call)
	})
}

// runClientStdio measures mcpkit's client over the server's stdio with
// cfg.InFlight calls in flight on one session.
func runClientStdio(ctx context.Context, cfg Config, p *serverProc, res *Result) error {
	profileClient(&cfg)
	if cfg.Client == ClientFloor {
		cfg.Mode = ModeStdioPipelined
		return runStdio(ctx, cfg, p, res)
	}
	if !strings.HasPrefix(cfg.Client, "mcpkit-") {
		return fmt.Errorf("client %q has no stdio mode here", cfg.Client)
	}
	cs, err := mcpkitClient.Connect(ctx, stdio.NewServerConn(p.stdout, p.stdin, nil))
	if err != nil {
		return fmt.Errorf("connecting: %w; server stderr:\n%s", err, p.tail)
	}
	defer cs.Close()
	return runWorkers(ctx, cfg, p, res, cfg.InFlight, func(ctx context.Context, w int, phase *atomic.Int32, rec *recorder) {
		loopCalls(ctx, w, phase, rec, mcpkitCall(cs, cfg.Client))
	})
}

// profileClient makes the load generator write its own CPU profile of the
// measured window to cfg.ClientCPUProfile, if set.
func profileClient(cfg *Config) {
	if cfg.ClientCPUProfile == "" {
		return
	}
	var f *os.File
	cfg.windowHook = func(begin bool) error {
		if begin {
			var err error
			if f, err = os.Create(cfg.ClientCPUProfile); err != nil {
				return err
			}
			return pprof.StartCPUProfile(f)
		}
		pprof.StopCPUProfile()
		return f.Close()
	}
}

// callFunc calls the echo tool with message and returns the text it answered.
type callFunc func(ctx context.Context, message []byte) (string, error)

// loopCalls calls until the run is over, checking each answer.
func loopCalls(ctx context.Context, w int, phase *atomic.Int32, rec *recorder, call callFunc) {
	var msg []byte
	for seq := int64(1); phase.Load() != phaseDone && ctx.Err() == nil; seq++ {
		msg = appendMessage(msg[:0], w, seq)
		start := time.Now()
		text, err := call(ctx, msg)
		elapsed := time.Since(start)
		if err == nil && (len(text) != len("hello ")+len(msg) || text[len("hello "):] != string(msg)) {
			err = fmt.Errorf("call %d answered %q", seq, text)
		}
		if err != nil {
			rec.fail(err)
			if ctx.Err() == nil && errors.Is(err, os.ErrClosed) {
				return
			}
			continue
		}
		if phase.Load() == phaseMeasure {
			rec.latencies = append(rec.latencies, int64(elapsed))
		}
	}
}

// dialClient opens a session of client at url (of the 2026-07-28 era when
// stateless, mcpkit's clients only) and returns its call function.
func dialClient(ctx context.Context, client, url string, stateless bool) (callFunc, func(), error) {
	if stateless && !strings.HasPrefix(client, "mcpkit-") {
		return nil, nil, fmt.Errorf("client %q has no 2026-07-28 mode here", client)
	}
	switch client {
	case ClientGoSDK:
		c := gosdk.NewClient(&gosdk.Implementation{Name: "mcpbench", Version: "1.0.0"}, nil)
		cs, err := c.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: url, HTTPClient: ownHTTPClient(), DisableStandaloneSSE: true}, nil)
		if err != nil {
			return nil, nil, err
		}
		call := func(ctx context.Context, message []byte) (string, error) {
			res, err := cs.CallTool(ctx, &gosdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": string(message)}})
			if err != nil {
				return "", err
			}
			if len(res.Content) != 1 {
				return "", fmt.Errorf("%d content blocks", len(res.Content))
			}
			t, ok := res.Content[0].(*gosdk.TextContent)
			if !ok {
				return "", fmt.Errorf("content %T", res.Content[0])
			}
			return t.Text, nil
		}
		return call, func() { _ = cs.Close() }, nil
	case ClientNetHTTP:
		return dialNetHTTP(ctx, url)
	case ClientMcpkitStruct, ClientMcpkitMap, ClientMcpkitRaw, ClientMcpkitRawNetHTTP:
		// The mcpkit rows use the client's default transport, as a user who
		// gives no HTTPClient gets it (for this http:// URL, internal/h1, a
		// pool per session); the net/http row gives it a transport of its own.
		var hc *http.Client
		if client == ClientMcpkitRawNetHTTP {
			hc = ownHTTPClient()
		}
		conn, err := streamable.NewClientConn(ctx, url, &streamable.ClientOptions{HTTPClient: hc, DisableStandaloneStream: true})
		if err != nil {
			return nil, nil, err
		}
		c := mcpkitClient
		if stateless {
			c = mcpkitStatelessClient
		}
		cs, err := c.Connect(ctx, conn)
		if err != nil {
			return nil, nil, err
		}
		return mcpkitCall(cs, client), func() { _ = cs.Close() }, nil
	}
	return nil, nil, fmt.Errorf("unknown client %q", client)
}

// mcpkitCall is the call function of an mcpkit session with arguments in the
// client's shape.
func mcpkitCall(cs *mcp.ClientSession, client string) callFunc {
	var raw []byte
	return func(ctx context.Context, message []byte) (string, error) {
		var args any
		args, raw = echoArguments(client, raw, message)
		res, err := cs.CallTool(ctx, "echo", args)
		if err != nil {
			return "", err
		}
		if res.IsError || len(res.Content) != 1 {
			return "", fmt.Errorf("result %+v", res)
		}
		return res.Content[0].Text, nil
	}
}

// runGateway loads a gateway (the server binary) with the hand-written generator
// and also measures the CPU time of the server it runs as its child.
func runGateway(ctx context.Context, cfg Config, p *serverProc, res *Result) error {
	var child int
	var cpu0 float64
	cfg.windowHook = func(begin bool) error {
		if begin {
			var err error
			if child, err = onlyChild(p.pid); err != nil {
				return err
			}
			cpu0, err = procCPU(child)
			return err
		}
		cpu1, err := procCPU(child)
		res.UpstreamCPUSeconds = cpu1 - cpu0
		return err
	}
	cfg.Mode = ModeHTTPStateful
	if err := runHTTP(ctx, cfg, p, p.addr, res); err != nil {
		return err
	}
	if res.Calls > 0 {
		res.UpstreamCPUPerCallUs = res.UpstreamCPUSeconds / float64(res.Calls) * 1e6
	}
	return nil
}

// onlyChild returns the one child process of pid.
func onlyChild(pid int) (int, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	var kids []string
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		kids = append(kids, strings.Fields(string(b))...)
	}
	if len(kids) != 1 {
		return 0, fmt.Errorf("the gateway (pid %d) has %d child processes, want 1", pid, len(kids))
	}
	return strconv.Atoi(kids[0])
}

// Header values of the net/http client.
var (
	netJSONType = []string{"application/json"}
	netAccept   = []string{"application/json, text/event-stream"}
	netVersion  = []string{protocolVersion}
)

// dialNetHTTP opens a session with net/http's client and returns its call
// function: each call POSTs the request from a reused buffer and decodes the
// reply with encoding/json, as the hand-written generator does.
func dialNetHTTP(ctx context.Context, url string) (callFunc, func(), error) {
	hc := ownHTTPClient()
	var session []string
	var buf bytes.Buffer
	post := func(ctx context.Context, body []byte) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header["Content-Type"] = netJSONType
		req.Header["Accept"] = netAccept
		if session != nil {
			req.Header["Mcp-Session-Id"] = session
			req.Header["Mcp-Protocol-Version"] = netVersion
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		buf.Reset()
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		if err == nil && resp.StatusCode/100 != 2 {
			err = fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, buf.Bytes())
		}
		return resp, err
	}
	resp, err := post(ctx, appendInitialize(nil, 1))
	if err != nil {
		return nil, nil, fmt.Errorf("initialize: %w", err)
	}
	session = []string{resp.Header.Get("Mcp-Session-Id")}
	if _, err := post(ctx, initializedNotification); err != nil {
		return nil, nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	var body []byte
	var msgs [][]byte
	id := int64(1)
	call := func(ctx context.Context, message []byte) (string, error) {
		id++
		body = appendCall(body[:0], id, message)
		resp, err := post(ctx, body)
		if err != nil {
			return "", err
		}
		msgs = bodyMessages(msgs[:0], resp.Header.Get("Content-Type"), buf.Bytes())
		r, err := findReply(msgs, id)
		if err != nil {
			return "", err
		}
		if r.Error != nil || r.Result == nil || len(r.Result.Content) != 1 {
			return "", fmt.Errorf("reply %d: %+v", id, r)
		}
		return r.Result.Content[0].Text, nil
	}
	return call, hc.CloseIdleConnections, nil
}
