// Command tap-capture reads a capture of `mcpkit tap` — one JSON line per
// message, in the mcpkit-tap/1 format of tap/FORMAT.md — and prints each
// request with the response that answered it, and the capture's summary.
//
//	go run ./examples/tap-capture FILE.jsonl   # read a capture mcpkit tap wrote
//	go run ./examples/tap-capture -demo        # record a short session first, then read it
//
// With -demo the program makes its own capture the way `mcpkit tap --url`
// does: an HTTP tap (tap.NewHTTPTap) in front of a small server, a client
// calling through it, and a capture.Recorder writing the file.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/tap"
	"github.com/mcpkit/mcpkit/tap/capture"
)

func main() {
	demo := flag.Bool("demo", false, "record a session through an HTTP tap, then read it")
	flag.Parse()
	var path string
	switch {
	case *demo:
		dir, err := os.MkdirTemp("", "tap-capture")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "session.jsonl")
		if err := record(path); err != nil {
			log.Fatal(err)
		}
	case flag.NArg() == 1:
		path = flag.Arg(0)
	default:
		log.Fatal("usage: tap-capture FILE.jsonl | -demo")
	}
	if err := read(path); err != nil {
		log.Fatal(err)
	}
}

// read prints the capture at path: each request with its answer, then the summary.
func read(path string) error {
	h, records, err := capture.ReadFile(path)
	if err != nil {
		return err
	}
	fmt.Printf("capture of a %s tap, %d records\n", h.Mode, len(records))
	var p capture.Pairer // the pairing the tap's views and exports use
	for _, r := range records {
		p.Add(r, func(m capture.Match) {
			switch {
			case m.Refused:
				fmt.Printf("#%d %s refused: %s\n", r.Seq, m.Request.Method, r.Text)
			case m.Message.IsRequest():
				fmt.Printf("#%d %s %s %s\n", r.Seq, r.Dir, m.Message.Method, r.Transport)
			case m.Message.IsResponse() && m.Request != nil:
				outcome := "ok"
				if m.Message.Error != nil {
					outcome = "error: " + m.Message.Error.Message
				}
				fmt.Printf("#%d answers #%d (%s): %s\n", r.Seq, m.Request.Seq, m.Request.Method, outcome)
			case m.Message.IsNotification():
				fmt.Printf("#%d %s notification %s\n", r.Seq, r.Dir, m.Message.Method)
			}
		})
	}
	s := p.Summary()
	fmt.Printf("summary: %d requests, %d responses, %d notifications, %d unanswered\n", s.Requests, s.Responses, s.Notifications, len(s.Unanswered))
	return nil
}

// record writes a capture to path: a client initializes, lists the tools and
// calls one, twice (the second call fails), through an HTTP tap.
func record(path string) error {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1"}, nil)
	type greetIn struct {
		Name string `json:"name" jsonschema:"who to greet"`
	}
	if err := mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(ctx context.Context, req *mcp.ToolRequest, in greetIn) (string, error) {
			return "hello " + in.Name, nil
		}); err != nil {
		return err
	}
	serverLn, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, serverLn, srv, nil) }()

	f, err := os.Create(path)
	if err != nil {
		return err
	}
	rec, err := capture.NewRecorder(capture.Options{Out: f, Header: capture.Header{Tool: "tap-capture example", Mode: "http"}})
	if err != nil {
		return err
	}
	up := &url.URL{Scheme: "http", Host: serverLn.Addr().String(), Path: "/mcp"}
	t, err := tap.NewHTTPTap(tap.HTTPOptions{Upstream: up, Recorder: rec})
	if err != nil {
		return err
	}
	tapLn, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = t.Serve(tapLn) }()

	err = callThrough(ctx, "http://"+tapLn.Addr().String()+"/mcp")
	_ = t.Close()
	if cerr := rec.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	stop()
	if serr := <-served; err == nil {
		err = serr
	}
	return err
}

// callThrough is the client whose session the tap records.
func callThrough(ctx context.Context, url string) error {
	c := mcp.NewClient(mcp.Implementation{Name: "tap-capture", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: "2025-11-25"})
	cs, err := mcpkit.ConnectURL(ctx, c, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return err
	}
	if _, err := cs.CallTool(ctx, "greet", map[string]any{"name": "Ada"}); err != nil {
		return err
	}
	_, _ = cs.CallTool(ctx, "missing", nil) // answered with an error, recorded as such
	return nil
}
