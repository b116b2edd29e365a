package upstream

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Apply stops a removed server's process, restarts a changed one, starts an
// added one and leaves an untouched one's session (and process) alone.
func TestSupervisorApply(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	sup, rec := startSupervisor(t, nil, selfServer("keep"), selfServer("gone"), selfServer("edit"))
	if err := sup.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	pid := func(name string) int {
		n, _ := strconv.Atoi(callText(ctx, t, sup, name, "pid"))
		return n
	}
	keepPID, gonePID, editPID := pid("keep"), pid("gone"), pid("edit")
	keepSession, _ := sup.Session(ctx, "keep")

	next := &Config{Servers: map[string]*ServerConfig{
		"keep":  selfServer("keep"),
		"edit":  selfServer("edit", "UPSTREAM_TEST_EXTRA=1"),
		"fresh": selfServer("fresh"),
	}}
	change, err := sup.Apply(next)
	if err != nil {
		t.Fatal(err)
	}
	want := Change{Added: []string{"fresh"}, Removed: []string{"gone"}, Changed: []string{"edit"}}
	if !slices.Equal(change.Added, want.Added) || !slices.Equal(change.Removed, want.Removed) || !slices.Equal(change.Changed, want.Changed) {
		t.Fatalf("Apply = %+v, want %+v", change, want)
	}
	if !processGone(gonePID) {
		t.Errorf("the removed server's process %d still runs after Apply", gonePID)
	}
	if _, err := sup.Session(ctx, "gone"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("Session of a removed server: %v", err)
	}
	rec.wait(ctx, t, "fresh connected", func(e Event) bool { return e.Kind == EventConnected && e.Server == "fresh" })
	if err := sup.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	if p := pid("edit"); p == editPID || !processGone(editPID) {
		t.Errorf("the changed server: pid %d → %d (old one gone: %v)", editPID, p, processGone(editPID))
	}
	if s, _ := sup.Session(ctx, "keep"); s != keepSession || pid("keep") != keepPID {
		t.Errorf("the untouched server lost its session or process")
	}
	if st, _ := sup.Status("keep"); st.Connects != 1 {
		t.Errorf("the untouched server connected %d times", st.Connects)
	}
	if names := statusNames(sup); !slices.Equal(names, []string{"edit", "fresh", "keep"}) {
		t.Errorf("Statuses after Apply: %v", names)
	}

	// The same configuration again changes nothing.
	if change, err := sup.Apply(next); err != nil || !change.Empty() {
		t.Errorf("Apply of the same configuration: %+v %v", change, err)
	}
	_ = sup.Close()
	if _, err := sup.Apply(&Config{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Apply after Close: %v", err)
	}
}

func statusNames(sup *Supervisor) []string {
	var names []string
	for _, st := range sup.Statuses() {
		names = append(names, st.Name)
	}
	return names
}

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A server added by Apply has its own secrets redacted from the supervisor's
// log lines, although the logger was made for a configuration without them.
func TestSupervisorApplyRedactsNewSecrets(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var logs syncBuffer
	sup := NewSupervisor(&Config{Servers: map[string]*ServerConfig{}}, &Options{
		Logger:         slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		InitialBackoff: time.Hour,
	})
	rec := record(sup)
	sup.Start(ctx)
	t.Cleanup(func() { _ = sup.Close() })
	const secret = "reload-secret-4242"
	remote := &ServerConfig{Name: "remote", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp?token=" + secret}
	if _, err := sup.Apply(&Config{Servers: map[string]*ServerConfig{"remote": remote}}); err != nil {
		t.Fatal(err)
	}
	rec.wait(ctx, t, "the added server's failure", func(e Event) bool {
		return e.Server == "remote" && e.Kind == EventState && e.Status.State == StateBackoff
	})
	_ = sup.Close()
	out := logs.String()
	if strings.Contains(out, secret) || !strings.Contains(out, "remote") {
		t.Errorf("log lines of an added server:\n%s", out)
	}
}
