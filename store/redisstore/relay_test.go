package redisstore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/store"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport"
)

// newRelay starts a relay (one replica) on its own client, closed when t ends.
func newRelay(t *testing.T, srv *redistest.Server, id string) *redisstore.Relay {
	t.Helper()
	r, err := redisstore.NewRelay(testkit.Context(t), open(t, srv), &redisstore.RelayOptions{Replica: id})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// inbox returns a channel of what r receives under topic.
func inbox(r *redisstore.Relay, topic string) <-chan string {
	ch := make(chan string, 16)
	r.Handle(topic, func(p []byte) { ch <- string(p) })
	return ch
}

// TestRelay sends between two replicas: to an inbox, to a claim's holder,
// after a takeover, after a release, and to a replica that closed.
func TestRelay(t *testing.T) {
	srv := redistest.Start(t)
	a, b := newRelay(t, srv, "A"), newRelay(t, srv, "B")
	inA, inB := inbox(a, "t"), inbox(b, "t")
	ctx := t.Context()
	A, B := a.Replica(), b.Replica()
	if !strings.HasPrefix(A, "A") || !strings.HasPrefix(B, "B") || len(A) != 11 {
		t.Fatalf("relay ids %q, %q; want each name followed by 10 random characters", A, B)
	}

	if err := b.Send(ctx, A, "t", []byte("hello\nA")); err != nil {
		t.Fatal(err)
	}
	if got := testkit.Receive(t, inA); got != "hello\nA" {
		t.Fatalf("A received %q", got)
	}
	if _, err := b.SendToHolder(ctx, "get:s1", "t", []byte("x")); !errors.Is(err, transport.ErrNotClaimed) {
		t.Fatalf("SendToHolder without a claim: %v", err)
	}
	if h, err := a.Claim(ctx, "get:s1", false); err != nil || h != A {
		t.Fatalf("A's claim: %q %v", h, err)
	}
	if h, err := b.Claim(ctx, "get:s1", false); err != nil || h != A {
		t.Fatalf("B's claim without takeover: %q %v; want the holder A", h, err)
	}
	if h, err := b.SendToHolder(ctx, "get:s1", "t", []byte("to the holder")); err != nil || h != A {
		t.Fatalf("SendToHolder: %q %v", h, err)
	}
	if got := testkit.Receive(t, inA); got != "to the holder" {
		t.Fatalf("A received %q", got)
	}
	if h, err := b.Claim(ctx, "get:s1", true); err != nil || h != B {
		t.Fatalf("B's takeover: %q %v", h, err)
	}
	if err := a.Release(ctx, "get:s1"); err != nil { // no longer A's: a no-op
		t.Fatal(err)
	}
	if h, err := a.SendToHolder(ctx, "get:s1", "t", []byte("to B")); err != nil || h != B {
		t.Fatalf("SendToHolder after the takeover: %q %v", h, err)
	}
	if got := testkit.Receive(t, inB); got != "to B" {
		t.Fatalf("B received %q", got)
	}
	if err := b.Release(ctx, "get:s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SendToHolder(ctx, "get:s1", "t", nil); !errors.Is(err, transport.ErrNotClaimed) {
		t.Fatalf("SendToHolder after the release: %v", err)
	}
	if ok, err := a.Alive(ctx, B); err != nil || !ok {
		t.Fatalf("Alive(B) = %v, %v", ok, err)
	}
	b.Close()
	if ok, err := a.Alive(ctx, B); err != nil || ok {
		t.Fatalf("Alive(B) after Close = %v, %v", ok, err)
	}
	if err := a.Send(ctx, B, "t", []byte("x")); !errors.Is(err, transport.ErrReplicaGone) {
		t.Fatalf("Send to a closed replica: %v", err)
	}
}

// TestRelayGarbage: a claim key another program wrote is reported as
// store.ErrCorrupt, and a bad id is refused without a key being made.
func TestRelayGarbage(t *testing.T) {
	srv := redistest.Start(t)
	a := newRelay(t, srv, "A")
	c := open(t, srv)
	write(t, c, []string{"SET", "mcp:c:get:{x}", "not an id!"}, []string{"HSET", "mcp:c:get:{y}", "f", "v"})
	_, err := a.SendToHolder(t.Context(), "get:x", "t", nil)
	wantCorrupt(t, "SendToHolder to a garbage holder", err)
	_, err = a.Claim(t.Context(), "get:y", false)
	wantCorrupt(t, "Claim of a hash", err)
	for _, bad := range []string{"a{b", "get:", ""} {
		if _, err := a.Claim(t.Context(), bad, false); err == nil || errors.Is(err, store.ErrUnavailable) {
			t.Errorf("Claim of %q: %v", bad, err)
		}
	}
	if _, err := redisstore.NewRelay(t.Context(), c, &redisstore.RelayOptions{Replica: "a.b"}); err == nil {
		t.Error("NewRelay accepted a replica id with a dot")
	}
}

// TestRelayRoundTrips: every operation of a warm relay is one round trip.
func TestRelayRoundTrips(t *testing.T) {
	srv := redistest.Start(t)
	c := open(t, srv)
	n := redisstore.CountRoundTrips(c)
	r, err := redisstore.NewRelay(testkit.Context(t), c, &redisstore.RelayOptions{Replica: "A"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := t.Context()
	ops := map[string]func() error{
		"Send":         func() error { return r.Send(ctx, r.Replica(), "t", nil) },
		"Claim":        func() error { _, err := r.Claim(ctx, "n", false); return err },
		"SendToHolder": func() error { _, err := r.SendToHolder(ctx, "n", "t", nil); return err },
		"Alive":        func() error { _, err := r.Alive(ctx, r.Replica()); return err },
		"Release":      func() error { return r.Release(ctx, "n") },
	}
	for round := range 2 {
		for _, name := range []string{"Send", "Claim", "SendToHolder", "Alive", "Release"} {
			before := n.Load()
			if err := ops[name](); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got := n.Load() - before; round == 1 && got != 1 {
				t.Errorf("%s: %d round trips, want 1", name, got)
			}
		}
	}
}
