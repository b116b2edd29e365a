package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Tool is a tool offered to the model.
type Tool struct {
	// Name is the tool's name for the model (llm.ValidToolName holds).
	Name string
	// Server names the server the tool belongs to ("" when there is one).
	Server string
	// MCP is the tool as its server lists it.
	MCP protocol.Tool
}

// ToolSource is where an Agent's tools come from: MCP servers, usually.
type ToolSource interface {
	// Tools lists the tools under the names the model will use.
	Tools(ctx context.Context) ([]Tool, error)
	// CallTool calls the tool the model knows as name with args (a JSON
	// object). A tool that ran and failed is a result with IsError; an error
	// means the call could not be made.
	CallTool(ctx context.Context, name string, args json.RawMessage) (*protocol.CallToolResult, error)
}

// Server is one MCP server of a SessionSource.
type Server struct {
	// Name names the server; with more than one server, tools are offered as
	// "<server>__<tool>".
	Name string
	// Session returns the server's current session (a supervisor may replace
	// it after a crash).
	Session func(ctx context.Context) (*mcp.ClientSession, error)
	// Allow, when set, says which of the server's tools are offered.
	Allow func(tool string) bool
}

// SessionSource is a ToolSource over MCP client sessions. With one server its
// tools keep their names; with several, each is named "<server>__<tool>".
// Names are then made valid for models and distinct (llm.ToolNames): the
// names the gateway gives the same servers' tools.
type SessionSource struct {
	servers []Server
	// Warn, when set, hears about a server whose tools could not be listed;
	// the others are still offered.
	Warn func(server string, err error)

	mu    sync.Mutex
	index map[string]toolRef // model name → server and tool, from the last Tools
}

type toolRef struct {
	server *Server
	tool   string
}

// NewSessionSource returns a source of the servers' tools.
func NewSessionSource(servers ...Server) *SessionSource {
	return &SessionSource{servers: servers, index: map[string]toolRef{}}
}

// Tools implements ToolSource: it lists every server's tools (all pages).
func (s *SessionSource) Tools(ctx context.Context) ([]Tool, error) {
	type listed struct {
		srv   *Server
		tools []protocol.Tool
	}
	var all []listed
	var errs []error
	for i := range s.servers {
		srv := &s.servers[i]
		tools, err := listTools(ctx, srv)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			errs = append(errs, err)
			if s.Warn != nil {
				s.Warn(srv.Name, err)
			}
			continue
		}
		all = append(all, listed{srv, tools})
	}
	if len(all) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var refs []llm.ToolRef
	for _, l := range all {
		for _, t := range l.tools {
			refs = append(refs, s.ref(l.srv, t.Name))
		}
	}
	model := llm.ToolNames(refs)
	index := make(map[string]toolRef, len(model))
	out := make([]Tool, 0, len(refs))
	for _, l := range all {
		for _, t := range l.tools {
			r := s.ref(l.srv, t.Name)
			if _, dup := index[model[r]]; dup {
				continue // the server listed the name twice: the first one counts
			}
			index[model[r]] = toolRef{l.srv, t.Name}
			out = append(out, Tool{Name: model[r], Server: r.Server, MCP: t})
		}
	}
	s.mu.Lock()
	s.index = index
	s.mu.Unlock()
	return out, nil
}

// ref is the ref of a server's tool for llm.ToolNames: with one server, the
// tool alone (it keeps its name).
func (s *SessionSource) ref(srv *Server, tool string) llm.ToolRef {
	if len(s.servers) > 1 {
		return llm.ToolRef{Server: srv.Name, Name: tool}
	}
	return llm.ToolRef{Name: tool}
}

func listTools(ctx context.Context, srv *Server) ([]protocol.Tool, error) {
	cs, err := srv.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", srv.Name, err)
	}
	var tools []protocol.Tool
	for t, err := range cs.Tools(ctx) {
		if err != nil {
			return nil, fmt.Errorf("server %s: listing tools: %w", srv.Name, err)
		}
		// A tool for MCP Apps views only is never offered to the model.
		if (srv.Allow == nil || srv.Allow(t.Name)) && VisibleTo(&t, ForModel) {
			tools = append(tools, t)
		}
	}
	return tools, nil
}

// ToolCounts returns how many tools of each server (by name) the last call of
// Tools offered.
func (s *SessionSource) ToolCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.servers))
	for _, ref := range s.index {
		out[ref.server.Name]++
	}
	return out
}

// ErrUnknownTool is returned by CallTool for a name Tools did not list.
var ErrUnknownTool = errors.New("host: no such tool")

// CallTool implements ToolSource.
func (s *SessionSource) CallTool(ctx context.Context, name string, args json.RawMessage) (*protocol.CallToolResult, error) {
	s.mu.Lock()
	ref, ok := s.index[name]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownTool, name)
	}
	cs, err := ref.server.Session(ctx)
	if err != nil {
		return nil, fmt.Errorf("server %s: %w", ref.server.Name, err)
	}
	if f, ok := ctx.Value(progressKey{}).(func(*protocol.ProgressParams)); ok {
		return cs.CallTool(ctx, ref.tool, args, mcp.WithProgress(f))
	}
	return cs.CallTool(ctx, ref.tool, args)
}

// progressKey keys the context of a tool call whose progress the agent
// reports (Options.Progress): the value is the function to call.
type progressKey struct{}
