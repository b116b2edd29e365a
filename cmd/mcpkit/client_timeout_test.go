package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// waitForCancel is a request the server never answers: it ends when ctx does.
func waitForCancel(ctx context.Context, _ *mcp.Call) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// startRequest sends one request through the clock's middleware and returns where
// its error will arrive.
func startRequest(c *requestClock) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := c.middleware(waitForCancel)(context.Background(), &mcp.Call{Direction: mcp.Outgoing, Method: "tools/call"})
		errc <- err
	}()
	return errc
}

func TestRequestClockTimesOutASilentRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newRequestClock(time.Minute)
		start := time.Now()
		err := <-startRequest(c)
		var na *noAnswerError
		if !errors.As(err, &na) || na.method != "tools/call" || time.Since(start) != time.Minute {
			t.Fatalf("err %v after %v; want no answer to tools/call after 1m", err, time.Since(start))
		}
		if !strings.Contains(err.Error(), "no answer to tools/call within 1m0s") {
			t.Errorf("message %q", err)
		}
		// A request that is answered in time is not touched.
		res, err := c.middleware(func(context.Context, *mcp.Call) (any, error) { return "ok", nil })(context.Background(), &mcp.Call{Direction: mcp.Outgoing, Method: "ping"})
		if res != "ok" || err != nil {
			t.Errorf("answered request: %v, %v", res, err)
		}
		if len(c.pending) != 0 {
			t.Errorf("%d requests still timed", len(c.pending))
		}
	})
}

// While a prompt is on screen the clock stands still; afterwards the request gets
// the full timeout again.
func TestRequestClockPausesForPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newRequestClock(time.Minute)
		errc := startRequest(c)
		time.Sleep(30 * time.Second)
		c.pause()
		c.pause() // two prompts at once: both must end
		time.Sleep(time.Hour)
		c.resume()
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case err := <-errc:
			t.Fatalf("the request ended while a prompt was on screen: %v", err)
		default:
		}
		c.resume()
		resumed := time.Now()
		err := <-errc
		if !errors.As(err, new(*noAnswerError)) || time.Since(resumed) != time.Minute {
			t.Fatalf("err %v %v after the prompt; want a timeout after 1m", err, time.Since(resumed))
		}
	})
}

// A progress notification from the server winds the clock back.
func TestRequestClockRestartsOnProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newRequestClock(time.Minute)
		errc := startRequest(c)
		progress := c.middleware(func(context.Context, *mcp.Call) (any, error) { return nil, nil })
		start := time.Now()
		for range 3 {
			time.Sleep(50 * time.Second)
			_, _ = progress(context.Background(), &mcp.Call{Direction: mcp.Incoming, Method: protocol.NotificationProgress, Notification: true})
		}
		err := <-errc
		if !errors.As(err, new(*noAnswerError)) || time.Since(start) != 150*time.Second+time.Minute {
			t.Fatalf("err %v after %v; want a timeout 1m after the last progress (2m30s)", err, time.Since(start))
		}
	})
}

// --timeout defaults to 60 s on every client command and on host (its tool
// calls); 0 installs no clock.
func TestTimeoutDefaultAndZero(t *testing.T) {
	for _, cmd := range newRootCmd().Commands() {
		f := cmd.Flags().Lookup("timeout")
		if (f != nil) != (isClientCmd(cmd.Name()) || cmd.Name() == "host") {
			t.Errorf("%s: --timeout %v", cmd.Name(), f)
		}
		if f != nil && f.DefValue != "1m0s" {
			t.Errorf("%s: --timeout defaults to %s", cmd.Name(), f.DefValue)
		}
	}
	opts, err := clientOptions(&globalFlags{timeout: 0}, newRequestClock(0), strings.NewReader(""), false, io.Discard)
	if err != nil || len(opts.Middleware) != 0 || opts.RequestTimeout != 0 {
		t.Errorf("--timeout 0: %d middleware, RequestTimeout %v, %v", len(opts.Middleware), opts.RequestTimeout, err)
	}
}

// pastDeadline is a handshake context whose deadline has passed but whose
// timer has not yet run (as on a loaded machine): no cause, no error.
type pastDeadline struct{ context.Context }

func (pastDeadline) Deadline() (time.Time, bool) { return time.Now().Add(-time.Millisecond), true }

// When the request clock ends initialize just as the handshake's deadline
// passes, the error is the handshake's, whichever timer ran first; before the
// deadline, the clock's error stands.
func TestHandshakeErrorWhenBothTimersAreDue(t *testing.T) {
	clockErr := fmt.Errorf("mcp: initialize: %w", &noAnswerError{method: "initialize", after: time.Second})
	var te *handshakeTimeoutError
	if err := handshakeError(pastDeadline{context.Background()}, clockErr); !errors.As(err, &te) || te.after != time.Second {
		t.Errorf("deadline passed: %v, want the handshake's timeout", err)
	}
	future, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := handshakeError(future, clockErr); err != clockErr {
		t.Errorf("deadline ahead: %v, want the clock's error", err)
	}
}

// silentHTTPServer accepts MCP requests on 127.0.0.1 and never answers them; it
// returns the request bodies it got.
func silentHTTPServer(t *testing.T) (string, func() []string) {
	stop := make(chan struct{})
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	return srv.URL + "/mcp", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), bodies...)
	}
}

// A server that never answers fails the command with a clear message once the
// timeout has passed, over HTTP and over stdio; the client introduced itself
// with the version --version prints.
func TestSilentServerTimesOut(t *testing.T) {
	url, bodies := silentHTTPServer(t)
	// (With an Authorization header of the user's own, no ping goes first.)
	_, errOut, code := runURL(t, url, "ping", "--timeout", "1s", "--protocol", "2025-11-25", "--header", "Authorization: Bearer user-token")
	if code != 1 || !strings.HasPrefix(errOut, "mcpkit: ") || !strings.Contains(errOut, "the server did not complete the connection within 1s") {
		t.Errorf("HTTP: stderr %q exit %d", errOut, code)
	}
	version, _ := exec.Command(mcpkitBin, "version").Output()
	wantVersion := strings.TrimPrefix(strings.SplitN(string(version), "\n", 2)[0], "mcpkit ")
	var sawInitialize bool
	for _, b := range bodies() {
		var req struct {
			Method string
			Params struct {
				ClientInfo protocol.Implementation `json:"clientInfo"`
			}
		}
		if json.Unmarshal([]byte(b), &req) == nil && req.Method == "initialize" {
			sawInitialize = true
			if req.Params.ClientInfo.Name != "mcpkit" || req.Params.ClientInfo.Version != wantVersion || wantVersion == "" {
				t.Errorf("clientInfo %+v, want mcpkit %q", req.Params.ClientInfo, wantVersion)
			}
		}
	}
	if !sawInitialize {
		t.Errorf("the server got no initialize: %q", bodies())
	}

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, mcpkitBin, "ping", "--timeout", "1s", "--", self)
	cmd.Env = append(os.Environ(), silentServerEnv+"=1")
	out, err := cmd.CombinedOutput()
	if !strings.Contains(string(out), "the server did not complete the connection within 1s") || err == nil || ctx.Err() != nil {
		t.Errorf("stdio: %v %s", err, out)
	}
}

// TestTimeoutBoundsTheWholeConnection: --timeout bounds the whole handshake
// (era probe, initialize, fallback), not each of its requests in turn: against
// a server that never answers, `ping --timeout 3s` gives up in about 3 s, where
// it took two or three times that.
func TestTimeoutBoundsTheWholeConnection(t *testing.T) {
	const timeout = 3 * time.Second
	url, _ := silentHTTPServer(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		env  []string
	}{
		{"HTTP", []string{"ping", "--timeout", timeout.String(), "--url", url}, nil},
		{"stdio", []string{"ping", "--timeout", timeout.String(), "--", self}, []string{silentServerEnv + "=1"}},
	} {
		start := time.Now()
		_, errOut, code := execCLI(t, cliRun{env: c.env, args: c.args})
		took := time.Since(start)
		if code != 1 || !strings.Contains(errOut, "within "+timeout.String()) {
			t.Errorf("%s: exit %d, %s", c.name, code, errOut)
		}
		// Two sequential probes of 3 s would take 6 s: well under that means
		// one bound for the whole.
		if took >= 2*timeout-time.Second {
			t.Errorf("%s: gave up after %v with --timeout %v", c.name, took.Round(100*time.Millisecond), timeout)
		}
	}
}
