package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// The client-path benchmarks below put mcpkit's client against a canned
// server that answers without an MCP server behind it, so that what is
// measured is the client's work plus the transport's (net/http's server side
// or a pipe), and the "floor" sub-benchmark does the same wire work by hand:
// the ratio of the two (allocations, bytes, instructions under callgrind) is
// what the client adds to the bytes on the wire.

// The canned server's answers: to initialize and a legacy request, and, in the
// 2026-07-28 era, to server/discover and a request (with resultType and the
// server's identity in _meta, as mcpkit's server answers).
var (
	cannedInit         = json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`)
	cannedResult       = json.RawMessage(`{"content":[{"type":"text","text":"hello world"}]}`)
	cannedDiscover2026 = json.RawMessage(`{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}}`)
	cannedResult2026   = json.RawMessage(`{"content":[{"type":"text","text":"hello world"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}}`)
)

// cannedAnswer returns the canned server's response to one message (nil for a
// notification or a response), appended to b.
func cannedAnswer(b, msg []byte) []byte {
	m, err := jsonrpc.Decode(msg)
	if err != nil || !m.IsRequest() {
		return nil
	}
	switch {
	case m.Method == protocol.MethodInitialize:
		return jsonrpc.AppendResult(b, m.ID, cannedInit)
	case m.Method == protocol.MethodServerDiscover:
		return jsonrpc.AppendResult(b, m.ID, cannedDiscover2026)
	case bytes.Contains(m.Params, []byte(`"`+protocol.MetaKeyProtocolVersion+`"`)):
		return jsonrpc.AppendResult(b, m.ID, cannedResult2026)
	}
	return jsonrpc.AppendResult(b, m.ID, cannedResult)
}

var cannedBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// cannedHTTPServer answers Streamable HTTP POSTs in JSON, with a session for
// the legacy era.
func cannedHTTPServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		in := cannedBufs.Get().(*bytes.Buffer)
		defer cannedBufs.Put(in)
		in.Reset()
		_, _ = in.ReadFrom(r.Body)
		out := cannedAnswer(make([]byte, 0, 256), in.Bytes())
		if out == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		h := w.Header()
		h["Content-Type"] = []string{"application/json"}
		if _, stateless := r.Header[protocol.HeaderMethod]; !stateless {
			h[streamable.HeaderSessionID] = []string{"s1"}
		}
		_, _ = w.Write(out)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchArgs are the three shapes of CallTool arguments.
type benchArgsStruct struct {
	Message string `json:"message"`
}

func clientCallVariants() []struct {
	name string
	args any
} {
	return []struct {
		name string
		args any
	}{
		{"struct", benchArgsStruct{Message: "world"}},
		{"map", map[string]any{"message": "world"}},
		{"raw", json.RawMessage(`{"message":"world"}`)},
	}
}

// BenchmarkClientCallToolHTTP measures CallTool over Streamable HTTP against
// the canned server, with struct, map and raw arguments, and the floor: the
// same POST and response read with net/http and a pooled buffer.
//
// The "-cancellable" sub-benchmarks call with a context that can be cancelled
// (and is not), as a program that bounds its calls does (mcpbench's client rows
// run under one): the request's cancellation has to be armed.
func BenchmarkClientCallToolHTTP(b *testing.B) {
	srv := cannedHTTPServer(b)
	cctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	variants := clientCallVariants()
	for _, v := range variants {
		v.name += "-cancellable"
		variants = append(variants, v)
	}
	for _, v := range variants {
		ctx := context.Background()
		if strings.HasSuffix(v.name, "-cancellable") {
			ctx = cctx
		}
		b.Run(v.name, func(b *testing.B) { benchCallToolHTTP(b, ctx, srv.URL, protocol.LatestLegacy, v.args) })
	}
	b.Run("floor", func(b *testing.B) {
		benchHTTPFloor(b, srv.URL, `{"name":"echo","arguments":{"message":"world"}}`, http.Header{
			streamable.HeaderSessionID:       {"s1"},
			streamable.HeaderProtocolVersion: {protocol.LatestLegacy},
		})
	})
}

// BenchmarkClientCallToolHTTP2026 is BenchmarkClientCallToolHTTP in the
// 2026-07-28 era: each call carries the client's envelope in _meta and the
// request metadata headers, and its result a resultType and _meta. The floor
// posts the same body and headers.
func BenchmarkClientCallToolHTTP2026(b *testing.B) {
	srv := cannedHTTPServer(b)
	for _, v := range clientCallVariants() {
		b.Run(v.name, func(b *testing.B) {
			benchCallToolHTTP(b, context.Background(), srv.URL, protocol.Version20260728, v.args)
		})
	}
	b.Run("floor", func(b *testing.B) {
		benchHTTPFloor(b, srv.URL, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"},`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"message":"world"}}`, http.Header{
			streamable.HeaderProtocolVersion: {protocol.Version20260728},
			protocol.HeaderMethod:            {protocol.MethodToolsCall},
			protocol.HeaderName:              {"echo"},
		})
	})
}

// benchCallToolHTTP calls the canned server's echo with args in a loop, from a
// session at version.
func benchCallToolHTTP(b *testing.B, ctx context.Context, url, version string, args any) {
	conn, err := streamable.NewClientConn(ctx, url, &streamable.ClientOptions{DisableStandaloneStream: true})
	if err != nil {
		b.Fatal(err)
	}
	benchCallTool(b, ctx, conn, version, args)
}

// benchCallTool calls echo with args in a loop, from a session at version
// over conn.
func benchCallTool(b *testing.B, ctx context.Context, conn transport.Conn, version string, args any) {
	cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version}).Connect(ctx, conn)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, "echo", args)
		if err != nil || res.Content[0].Text != "hello world" {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkCallToolCannedByEra is CallTool with struct, map and raw
// arguments against a connection that answers in Write (cannedConn): no
// transport, no server, what is measured is the client's own work, in each
// era.
func BenchmarkCallToolCannedByEra(b *testing.B) {
	for _, era := range []struct {
		name, version string
		results       map[string]json.RawMessage
	}{
		{"legacy", protocol.LatestLegacy, map[string]json.RawMessage{protocol.MethodInitialize: cannedInit, protocol.MethodToolsCall: cannedResult}},
		{"stateless", protocol.Version20260728, map[string]json.RawMessage{protocol.MethodServerDiscover: cannedDiscover2026, protocol.MethodToolsCall: cannedResult2026}},
	} {
		for _, v := range clientCallVariants() {
			b.Run(era.name+"/"+v.name, func(b *testing.B) {
				benchCallTool(b, context.Background(), newCannedConn(era.results), era.version, v.args)
			})
		}
	}
}

// benchHTTPFloor posts a tools/call with params and the headers to url by hand,
// in a loop, as a client at the floor does: net/http and a pooled buffer.
func benchHTTPFloor(b *testing.B, url, params string, header http.Header) {
	ctx := context.Background()
	var pool sync.Pool
	var id int64
	b.ReportAllocs()
	for b.Loop() {
		id++
		bp, _ := pool.Get().(*bytes.Buffer)
		if bp == nil {
			bp = new(bytes.Buffer)
		}
		bp.Reset()
		bp.Write(jsonrpc.AppendRequest(bp.AvailableBuffer(), jsonrpc.Int64ID(id), protocol.MethodToolsCall, json.RawMessage(params)))
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(bp.Bytes()))
		req.Header["Content-Type"] = []string{"application/json"}
		req.Header["Accept"] = []string{"application/json, text/event-stream"}
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		bp.Reset()
		_, _ = bp.ReadFrom(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(bp.Bytes(), []byte("hello world")) {
			b.Fatal(bp.String())
		}
		pool.Put(bp)
	}
}

// cannedStdioServer answers newline-delimited messages read from r on w until
// r ends.
func cannedStdioServer(r io.Reader, w io.Writer) {
	br := bufio.NewReader(r)
	var out []byte
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		if out = cannedAnswer(out[:0], line); out != nil {
			out = append(out, '\n')
			if _, err := w.Write(out); err != nil {
				return
			}
		}
	}
}

// stdioPipes returns the two ends of a pair of OS pipes with the canned server
// on the far end.
func stdioPipes(b *testing.B) (*os.File, *os.File) {
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	go cannedStdioServer(toServerR, toClientW)
	b.Cleanup(func() {
		toServerW.Close()
		toClientR.Close()
		toServerR.Close()
		toClientW.Close()
	})
	return toClientR, toServerW
}

// BenchmarkClientCallToolStdio is BenchmarkClientCallToolHTTP over the stdio
// framing through OS pipes; the floor writes the request line and reads the
// response line with a bufio.Reader.
func BenchmarkClientCallToolStdio(b *testing.B) {
	ctx := context.Background()
	for _, v := range clientCallVariants() {
		b.Run(v.name, func(b *testing.B) {
			r, w := stdioPipes(b)
			cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy}).Connect(ctx, stdio.NewServerConn(r, w, nil))
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, "echo", v.args)
				if err != nil || res.Content[0].Text != "hello world" {
					b.Fatal(res, err)
				}
			}
		})
	}
	b.Run("floor", func(b *testing.B) {
		r, w := stdioPipes(b)
		br := bufio.NewReader(r)
		var buf []byte
		var id int64
		b.ReportAllocs()
		for b.Loop() {
			id++
			buf = jsonrpc.AppendRequest(buf[:0], jsonrpc.Int64ID(id), protocol.MethodToolsCall,
				json.RawMessage(`{"name":"echo","arguments":{"message":"world"}}`))
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				b.Fatal(err)
			}
			line, err := br.ReadSlice('\n')
			if err != nil || !bytes.Contains(line, []byte("hello world")) {
				b.Fatal(string(line), err)
			}
		}
	})
}

// BenchmarkClientIdleSessionHeap opens b.N client sessions over Streamable
// HTTP against the canned server (initialize, initialized, one tools/call,
// the standalone GET refused with 405, as a server without one does) and
// reports the heap and goroutines each keeps while idle. They stay open until
// the end.
func BenchmarkClientIdleSessionHeap(b *testing.B) {
	srv := cannedHTTPServer(b)
	ctx := context.Background()
	client := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy})
	var sessions []*mcp.ClientSession
	b.Cleanup(func() {
		for _, cs := range sessions {
			_ = cs.Close()
		}
	})
	open := func() {
		conn, err := streamable.NewClientConn(ctx, srv.URL, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := client.Connect(ctx, conn)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, "echo", json.RawMessage(`{"message":"x"}`)); err != nil {
			b.Fatal(err)
		}
		sessions = append(sessions, cs)
	}
	open()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g0 := runtime.NumGoroutine()
	for b.Loop() {
		open()
	}
	sessions = slices.Clip(sessions) // the slice's growth is not the sessions'
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heapB/session")
	b.ReportMetric(float64(int64(after.HeapObjects)-int64(before.HeapObjects))/float64(b.N), "objects/session")
	b.ReportMetric(float64(runtime.NumGoroutine()-g0)/float64(b.N), "goroutines/session")
}
