// Package web is the browser face of mcpkit's host: the agent of package host
// in a page served on a loopback address, with every asset embedded (it works
// without the internet). The page streams the model's answers, shows each tool
// call as a card (arguments, progress, result, isError) with approve / deny / always,
// the servers and their state, and the tokens of each turn.
//
// It renders MCP Apps (the io.modelcontextprotocol/ui extension) the way the
// spec asks of a web page: the view of a tool's result runs behind a sandbox
// proxy, a sandboxed iframe from a second listener, a different origin (and
// site) than the page's, whose Content-Security-Policy is built from the
// domains the view's resource declares (nothing else by default). The proxy
// says ui/notifications/sandbox-proxy-ready, the page sends it the view's
// document (ui/notifications/sandbox-resource-ready), and the proxy loads it
// into an inner iframe, which inherits the policy, and relays every other
// message. A view opens as soon as the model starts writing a call of its
// tool. The page speaks the view's JSON-RPC over postMessage: ui/initialize
// with the host context; the tool's arguments as the model writes them
// (tool-input-partial, recovered by closeJSON), then complete (tool-input),
// then its result, or tool-cancelled when the call is refused or never ends;
// size changes; ui/message (a user message to the model); ui/open-link;
// ui/update-model-context; request-teardown (answered by ui/resource-teardown,
// whose answer the page waits for); and tools/call and resources/read proxied
// to the view's own server, where a tool must be visible to apps
// (host.VisibleTo).
package web

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/llm"
)

//go:embed assets
var assets embed.FS

// proxyHTML is the views' sandbox proxy; {{PAGE_ORIGIN}} is the page's origin.
//
//go:embed proxy.html
var proxyHTML string

// Options configure a Server.
type Options struct {
	// Provider and Model are the language model.
	Provider llm.Provider
	Model    string
	// System, MaxSteps and MaxTokens are as in host.Options.
	System    string
	MaxSteps  int
	MaxTokens int
	// Source is the servers' tools.
	Source *host.SessionSource
	// Status, when set, returns the servers' state for the page (any JSON
	// value; mcpkit gives gateway.ServerStatus rows).
	Status func() any
	// Yes approves every tool call without asking.
	Yes bool
	// SessionFile, when set, keeps the conversation: New goes on from it when
	// it exists, and it is written after each turn.
	SessionFile string
	// ToolSearch is the agent's tool search (host.Options.ToolSearch): the
	// model gets a search over the tools instead of every definition.
	ToolSearch host.ToolSearch
}

// Server is the web host: the page, its API, and the views' sandbox.
type Server struct {
	opts  Options
	agent *host.Agent
	hub   hub
	token string // required on every API request that changes something

	sandboxPort string
	pagePort    string
	base        context.Context // Serve's: turns end with it

	mu      sync.Mutex
	busy    bool
	pending map[string]chan string  // approval id → decision
	always  map[string]bool         // tools approved for the session
	views   map[string]*view        // view id → view
	context map[string]string       // view id → the model context it set
	writing map[string]*writingCall // tool call id → its streaming arguments, for calls with a view
	turn    context.Context         // the running (or last) turn's
	stop    context.CancelFunc      // cancels turn
}

// New returns a web host over opts, going on from opts.SessionFile when it
// holds a conversation.
func New(opts Options) (*Server, error) {
	s := &Server{opts: opts, token: randomID(), pending: map[string]chan string{}, always: map[string]bool{},
		views: map[string]*view{}, context: map[string]string{}, writing: map[string]*writingCall{}}
	s.agent = host.New(opts.Source, host.Options{Provider: opts.Provider, Model: opts.Model, System: opts.System,
		MaxSteps: opts.MaxSteps, MaxTokens: opts.MaxTokens, Approve: s.approve, OnEvent: s.onEvent, Progress: true,
		ToolSearch: opts.ToolSearch})
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// Serve serves the page at addr (host:port; the port may be 0) and the views'
// sandbox on another port of the same address, until ctx ends. ready, when
// set, is given the page's URL once both listen.
func (s *Server) Serve(ctx context.Context, addr string, ready func(url string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	h, _, _ := net.SplitHostPort(ln.Addr().String())
	sl, err := net.Listen("tcp", net.JoinHostPort(h, "0"))
	if err != nil {
		ln.Close()
		return err
	}
	_, s.sandboxPort, _ = net.SplitHostPort(sl.Addr().String())
	_, s.pagePort, _ = net.SplitHostPort(ln.Addr().String())
	s.base = ctx
	page := &http.Server{Handler: s.pageHandler(), ReadHeaderTimeout: 10 * time.Second}
	sandbox := &http.Server{Handler: s.sandboxHandler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 2)
	go func() { errc <- page.Serve(ln) }()
	go func() { errc <- sandbox.Serve(sl) }()
	if ready != nil {
		ready("http://" + ln.Addr().String() + "/")
	}
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s.hub.close()
	_ = page.Shutdown(sctx)
	_ = sandbox.Shutdown(sctx)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// sandboxOrigin is the views' origin for a page reached at pageHost: the
// other loopback name, so that the view is another site (its own process,
// its own cookies), on the sandbox's port.
func (s *Server) sandboxOrigin(pageHost string) string {
	h, _, err := net.SplitHostPort(pageHost)
	if err != nil {
		h = pageHost
	}
	other := "localhost"
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		other = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(other, s.sandboxPort)
}

// ctx is the context of the turns: Serve's.
func (s *Server) ctx() context.Context {
	if s.base == nil {
		return context.Background()
	}
	return s.base
}

// randomID returns 128 random bits in hex.
func randomID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("web: no randomness: %v", err))
	}
	return hex.EncodeToString(b[:])
}
