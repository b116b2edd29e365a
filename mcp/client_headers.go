package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// This file handles the x-mcp-header keyword of tool input schemas in the
// stateless era: a tool whose declarations break the specification's rules is
// left out of the tools the client lists (as Streamable HTTP clients must do;
// other transports may), and the declarations of the others are kept, so that a
// tools/call carries the Mcp-Param-{Name} headers mirroring its arguments. The
// headers travel to the transport in the call's context (transport.WithHeader);
// transports that are not HTTP ignore them.

var (
	mcpHeaderKeyword = []byte(protocol.KeywordMCPHeader)
	jsonEscape       = []byte(`\u`) // a keyword could hide behind escapes
)

// keepValidTools removes from tools (in place) those with invalid x-mcp-header
// declarations, logging a warning for each, and records the declarations of the
// others.
func (cs *ClientSession) keepValidTools(tools []protocol.Tool) []protocol.Tool {
	m := cs.stateless
	kept := tools[:0]
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range tools {
		if !bytes.Contains(t.InputSchema, mcpHeaderKeyword) && !bytes.Contains(t.InputSchema, jsonEscape) {
			delete(m.params, t.Name)
			kept = append(kept, t)
			continue
		}
		specs, err := protocol.ParamHeaders(t.InputSchema)
		if err != nil {
			cs.client.log.Warn("mcp: leaving out a tool whose x-mcp-header declarations are invalid", "tool", t.Name, "reason", err)
			delete(m.params, t.Name)
			continue
		}
		if len(specs) == 0 {
			delete(m.params, t.Name)
		} else {
			m.params[t.Name] = specs
		}
		kept = append(kept, t)
	}
	return kept
}

// paramHeaders returns the Mcp-Param-{Name} headers of a call of tool with args,
// or nil when the tool declares none (or was never listed).
func (cs *ClientSession) paramHeaders(tool string, args json.RawMessage) (http.Header, error) {
	m := cs.stateless
	m.mu.Lock()
	specs := m.params[tool]
	m.mu.Unlock()
	if len(specs) == 0 {
		return nil, nil
	}
	h := make(http.Header, len(specs))
	if err := protocol.SetParamHeaders(h, specs, args); err != nil {
		return nil, err
	}
	return h, nil
}

// withParamHeaders returns ctx carrying the Mcp-Param-{Name} headers of a
// call of tool with args (see transport.WithHeader), or ctx itself when there
// are none.
func (cs *ClientSession) withParamHeaders(ctx context.Context, tool string, args json.RawMessage) (context.Context, error) {
	h, err := cs.paramHeaders(tool, args)
	if err != nil {
		return nil, fmt.Errorf("mcp: tools/call %s: %w", tool, err)
	}
	if h != nil {
		return transport.WithHeader(ctx, h), nil
	}
	return ctx, nil
}

// refreshToolHeaders lists every tool again, bypassing the cache, to learn their
// current x-mcp-header declarations (after a HeaderMismatch error, as the
// specification suggests).
func (cs *ClientSession) refreshToolHeaders(ctx context.Context) error {
	cs.invalidate(protocol.MethodToolsList)
	for _, err := range cs.Tools(ctx) {
		if err != nil {
			return err
		}
	}
	return nil
}
