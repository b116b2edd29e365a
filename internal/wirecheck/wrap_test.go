package wirecheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recordingTB captures what Wrap reports instead of failing the test.
type recordingTB struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	fatals   []string
	cleanups []func()
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recordingTB) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func (r *recordingTB) reported() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// scriptedConn reads a fixed list of messages, then io.EOF, and records writes.
type scriptedConn struct {
	mu      sync.Mutex
	reads   []string
	written []string
	closed  bool
}

func (s *scriptedConn) Read(ctx context.Context) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reads) == 0 {
		return nil, io.EOF
	}
	msg := s.reads[0]
	s.reads = s.reads[1:]
	return []byte(msg), nil
}

func (s *scriptedConn) Write(ctx context.Context, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.written = append(s.written, string(msg))
	return nil
}

func (s *scriptedConn) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

func TestWrapReportsOutgoingViolations(t *testing.T) {
	w := wire{"2025-06-18"}
	hs := w.handshake()
	inner := &scriptedConn{reads: []string{
		hs[0].msg,
		w.req(1, "tools/call", obj{"no": "name"}), // invalid, but incoming is not checked
	}}
	tb := &recordingTB{TB: t}
	conn := Wrap(tb, inner, Server)
	ctx := context.Background()
	for range 2 {
		if _, err := conn.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Read(ctx); !errors.Is(err, io.EOF) {
		t.Errorf("Read at the end = %v, want io.EOF", err)
	}
	good := hs[1].msg
	badResult := w.res(1, obj{"content": []any{obj{"text": "untyped"}}})
	for _, msg := range []string{good, badResult} {
		if err := conn.Write(ctx, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	if len(inner.written) != 2 || inner.written[1] != badResult {
		t.Errorf("written = %q; every message must reach the connection", inner.written)
	}
	got := tb.reported()
	if len(got) != 1 {
		t.Fatalf("reported %d violations, want 1: %q", len(got), got)
	}
	for _, want := range []string{"tools/call", "CallToolResult", "missing property 'type'", "untyped"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("report lacks %q:\n%s", want, got[0])
		}
	}
	if v := conn.Checker().Version(); v != "2025-06-18" {
		t.Errorf("Checker().Version() = %q", v)
	}
	if err := conn.Close(); err != nil || !inner.closed {
		t.Errorf("Close() = %v, inner closed = %v", err, inner.closed)
	}
}

func TestWrapCheckIncoming(t *testing.T) {
	w := wire{"2025-06-18"}
	inner := &scriptedConn{reads: []string{w.handshake()[0].msg, `{"jsonrpc":"2.0","method":"notifications/message"}`}}
	tb := &recordingTB{TB: t}
	conn := Wrap(tb, inner, Client, CheckIncoming())
	if err := conn.Write(context.Background(), []byte(w.handshake()[0].msg)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := conn.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	// The first read is an initialize request from the server: wrong sender. The second
	// lacks the params LoggingMessageNotification requires.
	got := tb.reported()
	if len(got) != 2 || !strings.Contains(got[0], "not a server request") || !strings.Contains(got[1], "LoggingMessageNotification") {
		t.Errorf("reported %q", got)
	}
}

func TestWrapDropsReportsAfterTheTest(t *testing.T) {
	tb := &recordingTB{TB: t}
	inner := &scriptedConn{}
	conn := Wrap(tb, inner, Server, InitialVersion("2025-06-18"))
	tb.runCleanups()
	if err := conn.Write(context.Background(), []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`)); err != nil {
		t.Fatal(err)
	}
	if got := tb.reported(); len(got) != 0 || len(inner.written) != 1 {
		t.Errorf("after cleanup: reported %q, written %d", got, len(inner.written))
	}
}

func TestWrapFailsWithoutSchemas(t *testing.T) {
	for name, dir := range map[string]string{
		"empty dir":   t.TempDir(),
		"missing dir": filepath.Join(t.TempDir(), "nope"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(EnvSpecDir, dir)
			tb := &recordingTB{TB: t}
			if conn := Wrap(tb, &scriptedConn{}, Server); conn != nil {
				t.Error("Wrap returned a connection")
			}
			if len(tb.fatals) != 1 || !strings.Contains(tb.fatals[0], dir) {
				t.Errorf("fatals = %q, want one naming %s", tb.fatals, dir)
			}
			if _, err := NewChecker(Server); err == nil {
				t.Error("NewChecker succeeded")
			}
		})
	}
	if _, err := NewChecker(Server, SpecDir(t.TempDir())); err == nil {
		t.Error("NewChecker succeeded with an empty SpecDir")
	}
}

func TestFindSpecDir(t *testing.T) {
	want, err := filepath.Abs(filepath.Join("..", "specs", "spec")) // from internal/wirecheck
	if err != nil {
		t.Fatal(err)
	}

	t.Setenv(EnvSpecDir, "")
	got, err := FindSpecDir()
	if err != nil || got != want {
		t.Errorf("FindSpecDir() from the package dir = %q, %v; want the repository's copy %q", got, err, want)
	}

	t.Setenv(EnvSpecDir, want+string(filepath.Separator)+".")
	if got, err := FindSpecDir(); err != nil || got != want {
		t.Errorf("FindSpecDir() with %s = %q, %v", EnvSpecDir, got, err)
	}

	t.Setenv(EnvSpecDir, "")
	t.Chdir(t.TempDir())
	if got, err := FindSpecDir(); err == nil {
		t.Errorf("FindSpecDir() outside any module = %q, want an error", got)
	}
}

// TestCheckerUsesEmbeddedSchemas checks that a Checker needs no file: outside any
// module, without $MCPKIT_SPEC_DIR, it still knows every version and finds violations.
func TestCheckerUsesEmbeddedSchemas(t *testing.T) {
	t.Setenv(EnvSpecDir, "")
	t.Chdir(t.TempDir())
	c := newTestChecker(t, Server, InitialVersion("2025-06-18"))
	if got := c.specs.source; got != embeddedName {
		t.Errorf("schemas from %q, want %q", got, embeddedName)
	}
	if got := c.specs.order; !slices.Equal(got, allVersions) {
		t.Errorf("versions %v, want %v", got, allVersions)
	}
	err := c.Check(Outgoing, []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":"lots"}}`))
	if !hasDef(err, "ProgressNotification") {
		t.Errorf("a progress notification with a string progress: %v, want a ProgressNotification violation", err)
	}
}

// TestSpecDirMatchesEmbedded reads the repository's copy from disk through SpecDir and
// checks that it holds the same versions as the embedded one.
func TestSpecDirMatchesEmbedded(t *testing.T) {
	t.Setenv(EnvSpecDir, "")
	dir, err := FindSpecDir()
	if err != nil {
		t.Fatal(err)
	}
	c := newTestChecker(t, Server, SpecDir(dir))
	if c.specs.source != dir || !slices.Equal(c.specs.order, allVersions) {
		t.Errorf("SpecDir(%s): source %q, versions %v; want %v", dir, c.specs.source, c.specs.order, allVersions)
	}
	if !strings.HasPrefix(c.specs.versions["2025-06-18"].url, "file:///") {
		t.Errorf("schema URL %q, want a file URL", c.specs.versions["2025-06-18"].url)
	}
}
