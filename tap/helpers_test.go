package tap

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// testTimeout bounds what one test waits for.
const testTimeout = 30 * time.Second

// testCapture is a recorder writing to a file in the test's directory.
type testCapture struct {
	rec  *capture.Recorder
	path string
	once sync.Once
}

func newTestCapture(t *testing.T) *testCapture {
	t.Helper()
	c := &testCapture{path: filepath.Join(t.TempDir(), "capture.jsonl")}
	f, err := os.Create(c.path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := capture.NewRecorder(capture.Options{Out: f, Header: capture.Header{Tool: "test", Redacted: true}})
	if err != nil {
		t.Fatal(err)
	}
	c.rec = rec
	t.Cleanup(func() { c.close(t); _ = f.Close() })
	return c
}

func (c *testCapture) close(t *testing.T) {
	c.once.Do(func() {
		if err := c.rec.Close(); err != nil {
			t.Errorf("closing the recorder: %v", err)
		}
	})
}

// text closes the recorder and returns the capture as written.
func (c *testCapture) text(t *testing.T) string {
	t.Helper()
	c.close(t)
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// records closes the recorder and returns every record it wrote.
func (c *testCapture) records(t *testing.T) []*capture.Record {
	t.Helper()
	c.close(t)
	_, recs, err := capture.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// tempFile returns a file in the test's directory (safe for concurrent writers),
// and a function that reads what it holds.
func tempFile(t *testing.T) (*os.File, func() string) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f, func() string {
		data, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
}

// startTap starts an HTTP tap in front of upstream (a URL), recording to capt if
// not nil, and returns its address. The tap is closed at cleanup, and must close
// in time.
func startTap(t testing.TB, upstream string, capt *testCapture, opts HTTPOptions) (string, *HTTPTap) {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	opts.Upstream = u
	if capt != nil {
		opts.Recorder = capt.rec
	}
	tp, err := NewHTTPTap(opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- tp.Serve(ln) }()
	t.Cleanup(func() {
		closed := make(chan struct{})
		go func() { _ = tp.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(testTimeout):
			t.Errorf("the tap did not close within %v", testTimeout)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String(), tp
}

// rawServer accepts connections on a loopback port and runs handle on each; the
// listener and every connection are closed, and the handlers waited for, at
// cleanup.
func rawServer(t testing.TB, handle func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() { defer wg.Done(); defer c.Close(); handle(c) }()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// rawConn is a client on one connection, writing requests by hand.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, testTimeout)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetDeadline(time.Now().Add(testTimeout))
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{t: t, c: c, br: bufio.NewReader(c)}
}

func (r *rawConn) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.c, s); err != nil {
		r.t.Fatal(err)
	}
}

// response reads one response with net/http's parser (the body read whole).
func (r *rawConn) response(method string) (*http.Response, []byte) {
	r.t.Helper()
	resp, err := http.ReadResponse(r.br, &http.Request{Method: method})
	if err != nil {
		r.t.Fatalf("reading a response: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		r.t.Fatalf("reading a response body: %v", err)
	}
	return resp, body
}

// readRequest reads one request on a raw upstream connection, with its body.
func readRequest(br *bufio.Reader) (*http.Request, []byte, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, nil, err
	}
	body, err := io.ReadAll(req.Body)
	return req, body, err
}

// writeResponse writes a response with a Content-Length body.
func writeResponse(w io.Writer, status int, header, body string) error {
	_, err := fmt.Fprintf(w, "HTTP/1.1 %d %s\r\n%sContent-Length: %d\r\n\r\n%s", status, http.StatusText(status), header, len(body), body)
	return err
}

// kinds lists the kinds of records ("msg" for a message), for failure messages.
func kinds(recs []*capture.Record) string {
	var b strings.Builder
	for _, r := range recs {
		k := r.Kind
		if k == "" {
			k = "msg:" + r.Dir
		}
		fmt.Fprintf(&b, "%d:%s ", r.Seq, k)
	}
	return b.String()
}

// findKind returns the records of one kind.
func findKind(recs []*capture.Record, kind string) []*capture.Record {
	var out []*capture.Record
	for _, r := range recs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// waitFor waits until the subscription delivers a record of kind, and returns it.
func waitFor(t *testing.T, sub *capture.Subscription, kind string) *capture.Record {
	t.Helper()
	ctx := testkit.Context(t)
	for {
		select {
		case r, ok := <-sub.C:
			if !ok {
				t.Fatalf("the recorder closed before a %s record", kind)
			}
			if r.Kind == kind {
				return r
			}
		case <-ctx.Done():
			t.Fatalf("no %s record within %v", kind, testTimeout)
		}
	}
}
