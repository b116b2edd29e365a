// Command stateless-balancer shows why the stateless protocol (2026-07-28)
// scales out: two replicas of one server run behind a round-robin reverse
// proxy, and a client's calls — including a call that has to ask the user a
// question halfway — land on alternating replicas without any sticky
// sessions or shared session store.
//
//	go run ./examples/stateless-balancer                  # replicas share a keyring: every call succeeds
//	go run ./examples/stateless-balancer -separate-keys   # each replica its own key: the resumed call fails
//
// A stateless request carries everything the server needs (its protocol
// version and the client's capabilities in _meta), so any replica can answer
// it. When a tool needs input from the user, the replica answers
// "input required" with a requestState that it seals (encrypts and
// authenticates) with its requeststate.Keyring; the client asks the user and
// sends the call again with the answer and that state, and whichever replica
// gets the retry opens the state with the same keyring. That is the one thing
// replicas must share. (Tasks and subscriptions need shared stores too: see
// mcp.TaskOptions.Store, mcp.ServerOptions.Changes and package
// store/redisstore.)
//
// Everything runs in this one process on 127.0.0.1; in production the
// replicas are separate processes and the proxy is nginx, a cloud load
// balancer, or similar.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/requeststate"
)

// BookInput is the input of the book tool.
type BookInput struct {
	People int    `json:"people" jsonschema:"minimum=1,maximum=12,description=How many people"`
	Time   string `json:"time" jsonschema:"When, as HH:MM"`
}

// newReplica returns one replica of the server. Its tools print which
// replica runs them, and whoami says so in its result.
func newReplica(name string, keyring *requeststate.Keyring) (*mcp.Server, error) {
	// Keyring nil would mean a random key of this replica's own.
	srv := mcp.NewServer(mcp.Implementation{Name: "balanced", Version: "1.0.0"}, &mcp.ServerOptions{Keyring: keyring})

	err := mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "Names the replica that answers"},
		func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
			return "answered by " + name, nil
		})
	if err != nil {
		return nil, err
	}

	err = mcp.AddTool(srv, &mcp.Tool{Name: "book", Description: "Books a table, after the user confirms"},
		func(ctx context.Context, req *mcp.ToolRequest, in BookInput) (string, error) {
			question := fmt.Sprintf("Book a table for %d at %s?", in.People, in.Time)
			// In a stateless request, Elicit cannot wait for the user: the
			// first time it returns mcp.ErrInputRequired, the handler returns
			// it, and the call is answered "input required". The client's
			// retry runs this handler again from the start — on whichever
			// replica — and then Elicit returns the user's answer. So do
			// side effects only after the input calls.
			answer, err := req.Elicit(ctx, &protocol.ElicitParams{
				Message:         question,
				RequestedSchema: []byte(`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`),
			})
			if errors.Is(err, mcp.ErrInputRequired) {
				fmt.Printf("  %s: book asks the user to confirm (input required)\n", name)
			}
			if err != nil {
				return "", err
			}
			if answer.Action != protocol.ElicitActionAccept || answer.Content["confirm"] != true {
				return "not booked", nil
			}
			fmt.Printf("  %s: book resumes with the user's answer\n", name)
			return fmt.Sprintf("booked a table for %d at %s (on %s)", in.People, in.Time, name), nil
		})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

// roundRobin is the load balancer: each request goes to the next replica.
// A stateless client names the method and the tool in headers (Mcp-Method,
// Mcp-Name), so a proxy can route or log by them without reading the body.
type roundRobin struct {
	next     atomic.Uint64
	names    []string
	replicas []*httputil.ReverseProxy
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	i := (rr.next.Add(1) - 1) % uint64(len(rr.replicas))
	call := strings.TrimSpace(r.Header.Get(protocol.HeaderMethod) + " " + r.Header.Get(protocol.HeaderName))
	fmt.Printf("proxy → %s: %s\n", rr.names[i], call)
	rr.replicas[i].ServeHTTP(w, r)
}

// addReplica serves srv on a port of its own (both HTTP transports, the
// default limits) until ctx ends, and adds it to the balancer.
func (rr *roundRobin) addReplica(ctx context.Context, name string, srv *mcp.Server, served chan<- error) error {
	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { served <- mcpkit.Serve(ctx, ln, srv, nil) }()
	target := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	rr.names = append(rr.names, name)
	rr.replicas = append(rr.replicas, &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		FlushInterval: -1, // pass SSE events on as they come
	})
	return nil
}

func main() {
	separate := flag.Bool("separate-keys", false, "give each replica its own key, to see a resumed call fail")
	flag.Parse()
	if err := run(*separate); err != nil {
		log.Fatal(err)
	}
}

func run(separateKeys bool) error {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()

	// The shared keyring. In production every replica parses the same
	// secret, e.g. requeststate.ParseKeyring(os.Getenv("MCPKIT_STATE_KEYS")),
	// whose value requeststate.FormatKeys(requeststate.GenerateKey()) makes.
	key, err := requeststate.GenerateKey()
	if err != nil {
		return err
	}
	shared, err := requeststate.NewKeyring(key)
	if err != nil {
		return err
	}

	rr := &roundRobin{}
	served := make(chan error, 2)
	for _, name := range []string{"replica-1", "replica-2"} {
		keyring := shared
		if separateKeys {
			keyring = nil
		}
		srv, err := newReplica(name, keyring)
		if err != nil {
			return err
		}
		if err := rr.addReplica(ctx, name, srv, served); err != nil {
			return err
		}
	}

	// The proxy, with the recommended http.Server settings.
	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	proxy := mcpkit.NewHTTPServer("", rr)
	go func() { _ = proxy.Serve(ln) }()

	callErr := callThroughProxy(ctx, "http://"+ln.Addr().String()+"/mcp")

	// Stop: the proxy, then the replicas (Serve shuts each down gracefully).
	shutdownErr := proxy.Shutdown(ctx)
	stop()
	for range rr.replicas {
		shutdownErr = errors.Join(shutdownErr, <-served)
	}
	return errors.Join(callErr, shutdownErr)
}

// callThroughProxy is the client: a 2026-07-28 client (the era is found when
// connecting: the server answers server/discover), whose elicitation handler
// stands in for asking the user.
func callThroughProxy(ctx context.Context, url string) error {
	client := mcp.NewClient(mcp.Implementation{Name: "balancer-demo", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			fmt.Printf("  client: the user is asked %q and says yes\n", p.Message)
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"confirm": true}}, nil
		},
	})
	cs, err := mcpkit.ConnectURL(ctx, client, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	fmt.Println("connected through the proxy, protocol", cs.ProtocolVersion())

	for range 2 {
		res, err := cs.CallTool(ctx, "whoami", nil)
		if err != nil {
			return err
		}
		fmt.Println("whoami:", res.Content[0].Text)
	}
	res, err := cs.CallTool(ctx, "book", BookInput{People: 2, Time: "19:30"})
	if err != nil {
		return fmt.Errorf("calling book: %w", err)
	}
	fmt.Println("book:", res.Content[0].Text)
	return nil
}
