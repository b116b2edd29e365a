package streamable

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strings"

	"github.com/mcpkit/mcpkit/internal/cowmap"
	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// This file holds what the client does differently for a 2026-07-28 (stateless)
// request: a request whose params carry io.modelcontextprotocol/protocolVersion in
// _meta. Such a request travels without session headers and with the request
// metadata headers the specification requires: MCP-Protocol-Version (the _meta
// version), Mcp-Method, and Mcp-Name for the methods that name a tool, prompt,
// resource or task. Its event stream is not resumable, and cancelling it closes the
// stream instead of posting notifications/cancelled.

// clientMetaVersionKey is what a stateless request's params contain; searching for
// it by its '/' (versionKeySlash) keeps the legacy path to one quick byte search.
const clientMetaVersionKey = `"` + protocol.MetaKeyProtocolVersion + `"`

// versionKeySlash is where clientMetaVersionKey has its '/'.
var versionKeySlash = strings.IndexByte(clientMetaVersionKey, '/')

// clientStatelessHeader returns the request metadata headers of a request of
// method with params, and false when it is not a 2026-07-28 request. It reads
// the params with protocol.ReadRequestFields, the reader the server validates
// the headers with, so both sides agree on the values even for unusual bodies
// (members named in another case, repeated).
func clientStatelessHeader(method string, params json.RawMessage) (http.Header, bool) {
	if !jsonscan.ContainsAround(params, clientMetaVersionKey, versionKeySlash) {
		return nil, false
	}
	f := protocol.ReadRequestFields(method, params)
	if f.ProtocolVersion == "" || f.Malformed {
		return nil, false
	}
	key := headerKey{version: f.ProtocolVersion, method: method, name: f.Name, hasName: f.HasName}
	if h := sharedRequestHeaders.Load()[key]; h != nil {
		return h, true
	}
	h := make(http.Header, 3)
	h[HeaderProtocolVersion] = []string{f.ProtocolVersion}
	h[protocol.HeaderMethod] = []string{method}
	if f.HasName {
		h[protocol.HeaderName] = []string{protocol.EncodeHeaderValue(f.Name)}
	}
	if len(f.Name) <= sharedHeaderNameMax {
		sharedRequestHeaders.Add(key, h)
	}
	return h, true
}

// A client sends the same few requests over and over (calls of the same
// tools), so the request metadata headers of each (version, method, name) are
// made once and shared, read-only, by every POST that carries them: post
// copies them into the request's own header, and messageHeader copies before
// adding to them.
var sharedRequestHeaders = cowmap.New[headerKey, http.Header](sharedHeadersMax)

// headerKey is what a request's metadata headers are made from.
type headerKey struct {
	version, method, name string
	hasName               bool
}

// Bounds of the shared headers: names this long, and requests past this
// many distinct ones (then it starts over), get headers of their own.
const (
	sharedHeadersMax    = 256
	sharedHeaderNameMax = 256
)

// clientReservedHeader reports whether the transport sets header k (canonical)
// itself, so that neither ClientOptions.Header nor transport.WithHeader may.
func clientReservedHeader(k string) bool {
	switch k {
	case "Accept", "Content-Type", HeaderSessionID, HeaderProtocolVersion, HeaderLastEventID,
		protocol.HeaderMethod, protocol.HeaderName:
		return true
	}
	return false
}

// messageHeader returns the headers a POST carrying one message adds to the
// client's own: the request metadata of a 2026-07-28 request, and what the writer
// put in ctx with transport.WithHeader. It returns nil when there are none.
func messageHeader(ctx context.Context, out *clientOutgoing) http.Header {
	extra := transport.HeaderFromContext(ctx)
	if len(extra) == 0 {
		return out.header
	}
	h := make(http.Header, len(out.header)+len(extra))
	maps.Copy(h, out.header) // shared: never written to
	for k, v := range extra {
		if k = http.CanonicalHeaderKey(k); !clientReservedHeader(k) {
			h[k] = v
		}
	}
	return h
}

// cancelStateless handles a notifications/cancelled naming only 2026-07-28 requests:
// their streams are closed, which is how a stateless request is cancelled over
// HTTP, and nothing is posted. It reports whether it did so.
func (c *ClientConn) cancelStateless(out *clientOutgoing) bool {
	if len(out.cancels) == 0 || out.nrequests > 0 || out.method != protocol.NotificationCancelled {
		return false
	}
	var calls []context.CancelFunc
	found := false
	c.mu.Lock()
	for _, id := range out.cancels {
		k := c.pending[id]
		if k == nil {
			continue // answered already, or unknown: nothing to close
		}
		if !k.stateless {
			c.mu.Unlock()
			return false
		}
		found = true
		if k.cancel != nil {
			calls = append(calls, k.cancel)
		}
	}
	if !found {
		c.mu.Unlock()
		return false
	}
	for _, id := range out.cancels {
		delete(c.pending, id)
	}
	c.mu.Unlock()
	for _, cancel := range calls {
		cancel()
	}
	return true
}
