package ratelimit

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// ClientKey is the key of a request's caller: its principal
// (transport.PrincipalFrom, set by an authentication middleware before this
// one), else its address without the port.
func ClientKey(r *http.Request) string {
	if p := transport.PrincipalFrom(r.Context()); p != "" {
		return p
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Middleware answers 429 Too Many Requests with Retry-After to a request whose
// caller (ClientKey) has used its budget, before its body is read. CORS
// preflights pass.
func Middleware(k *Keyed, now func() time.Time) func(http.Handler) http.Handler {
	if now == nil {
		now = time.Now
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions {
				next.ServeHTTP(w, r)
				return
			}
			ok, wait := k.Allow(ClientKey(r), now())
			if !ok {
				w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds(wait)))
				http.Error(w, fmt.Sprintf("rate limit exceeded: %s per client; retry after %ds", k.limit, RetryAfterSeconds(wait)), http.StatusTooManyRequests)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// CodeRateLimited is the JSON-RPC error code of a call refused by a limit
// (in the implementation-defined server error range).
const CodeRateLimited = -32029

// limitedData is the data of a rate-limit error: which limit, and when to
// try again.
type limitedData struct {
	Limit             string `json:"limit"`
	RetryAfterSeconds int    `json:"retryAfterSeconds"`
}

// Refusal is the JSON-RPC error of a call over the limit named limit.
func Refusal(limit string, wait time.Duration) *jsonrpc.Error {
	secs := RetryAfterSeconds(wait)
	data, _ := json.Marshal(limitedData{Limit: limit, RetryAfterSeconds: secs})
	return &jsonrpc.Error{Code: CodeRateLimited, Message: fmt.Sprintf("rate limit exceeded: %s; retry after %ds", limit, secs), Data: data}
}

// ToolMiddleware limits tools/call per tool: tools maps a tool's name to its
// buckets, one per caller (principal, else the session or "anonymous"). A
// call over its limit is answered with a Refusal naming it.
func ToolMiddleware(tools map[string]*Keyed, now func() time.Time) mcp.Middleware {
	if now == nil {
		now = time.Now
	}
	return func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, call *mcp.Call) (any, error) {
			if call.Method != protocol.MethodToolsCall || call.Direction != mcp.Incoming {
				return next(ctx, call)
			}
			name := toolName(call)
			k := tools[name]
			if k == nil {
				return next(ctx, call)
			}
			key := transport.PrincipalFrom(ctx)
			if ok, wait := k.Allow(key, now()); !ok {
				return nil, Refusal(fmt.Sprintf("tool '%s' allows %s per client", name, k.limit), wait)
			}
			return next(ctx, call)
		}
	}
}

// toolName reads the tool's name from a tools/call's params ("" when absent:
// the call then fails on its own) as the server's decoder does
// (protocol.ToolCallName is protocol.CallToolParams' reading of the name), so
// that no spelling of the params (a duplicate or case-variant "name") names
// one tool here and another there; a known tool's name costs no allocation.
func toolName(call *mcp.Call) string {
	return protocol.ToolCallName(call.Params)
}
