// Command srv-ceiling is the benchmark's ceiling: no MCP library, just net/http (or a
// bufio line loop for stdio) that decodes each JSON-RPC message with encoding/json
// and writes the same echo result an MCP server would. It answers initialize with a
// fixed result, notifications with nothing (202 over HTTP), tools/call with the echo
// text, and keeps no sessions. An MCP server cannot be faster than this by much:
// it is the cost of the HTTP or pipe round trip and one JSON decode and encode.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/mcpkit/mcpkit/bench/internal/serverkit"
)

// request is an incoming JSON-RPC message.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

// callParams are the params of tools/call for the echo tool.
type callParams struct {
	Name      string `json:"name"`
	Arguments struct {
		Message string `json:"message"`
	} `json:"arguments"`
}

// content is one text content block.
type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// callResult is the result of tools/call.
type callResult struct {
	Content []content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// response is an outgoing JSON-RPC response.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// initializeResult is the fixed answer to initialize.
var initializeResult = json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench-ceiling","version":"1.0.0"}}`)

// answer returns the response to req, or nil for a notification.
func answer(req *request) *response {
	if len(req.ID) == 0 {
		return nil
	}
	resp := &response{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "initialize":
		resp.Result = initializeResult
	case "tools/call":
		var p callParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			resp.Error = &rpcError{Code: -32602, Message: err.Error()}
		} else if p.Name != "echo" {
			resp.Error = &rpcError{Code: -32602, Message: "unknown tool"}
		} else {
			resp.Result = callResult{Content: []content{{Type: "text", Text: "hello " + p.Arguments.Message}}}
		}
	case "ping":
		resp.Result = struct{}{}
	default:
		resp.Error = &rpcError{Code: -32601, Message: "method not found"}
	}
	return resp
}

// serveHTTP answers one POST.
func serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	resp := answer(&req)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// serveStdio is the line loop: one message per line in, one per line out.
func serveStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	bw := bufio.NewWriter(out)
	enc := json.NewEncoder(bw) // Encode ends each message with '\n'
	for sc.Scan() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var req request
		var resp *response
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			resp = &response{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: -32700, Message: err.Error()}}
		} else {
			resp = answer(&req)
		}
		if resp == nil {
			continue
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

func main() {
	serverkit.Main(serverkit.Impl{
		Name:  "srv-ceiling",
		HTTP:  func(bool) (http.Handler, error) { return http.HandlerFunc(serveHTTP), nil },
		Stdio: serveStdio,
	})
}
