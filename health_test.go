package mcpkit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// get fetches url and returns its status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	return getAs(t, url, "", "")
}

// getAs is get with the Host and Origin headers given ("": the default Host,
// no Origin).
func getAs(t *testing.T, url, host, origin string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestProbes: /healthz answers while the process serves; /readyz follows the
// readiness check and turns 503 for good once Shutdown began, while /healthz
// stays 200 (a draining replica must not be restarted).
func TestProbes(t *testing.T) {
	var down atomic.Pointer[error]
	ready := func(ctx context.Context) error {
		if _, ok := ctx.Deadline(); !ok {
			return errors.New("the check got no deadline")
		}
		if e := down.Load(); e != nil {
			return *e
		}
		return nil
	}
	h := mcpkit.NewHTTPHandler(newGreeter(), &mcpkit.HTTPOptions{Ready: ready})
	ts := testkit.NewServer(t, h)
	check := func(step, path string, want int, wantBody string) {
		t.Helper()
		if code, body := get(t, ts.URL+path); code != want || !strings.Contains(body, wantBody) {
			t.Errorf("%s: GET %s = %d %q, want %d containing %q", step, path, code, body, want, wantBody)
		}
	}
	check("serving", "/healthz", 200, "ok")
	check("serving", "/readyz", 200, "ok")
	fail := errors.New("redis: connection refused")
	down.Store(&fail)
	check("store down", "/readyz", 503, "connection refused")
	check("store down", "/healthz", 200, "ok")
	down.Store(nil)
	check("store back", "/readyz", 200, "ok")
	if resp, _ := post(t, ts.URL+"/readyz", "", `{}`); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /readyz: %d, want 405", resp.StatusCode)
	}
	if err := h.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("shutting down", "/readyz", 503, "shutting down")
	check("shutting down", "/healthz", 200, "ok")
}

// TestProbesVerbose: ?verbose lists what each probe checked; a failing
// Checks entry shows there without changing either probe's status, and a
// failing Ready check is named.
func TestProbesVerbose(t *testing.T) {
	var redisDown, notReady atomic.Bool
	h := mcpkit.NewHTTPHandler(newGreeter(), &mcpkit.HTTPOptions{
		Ready: func(context.Context) error {
			if notReady.Load() {
				return errors.New("warming up")
			}
			return nil
		},
		Checks: map[string]func(context.Context) error{
			"redis": func(ctx context.Context) error {
				if _, ok := ctx.Deadline(); !ok {
					return errors.New("the check got no deadline")
				}
				if redisDown.Load() {
					return errors.New("connection refused")
				}
				return nil
			},
		},
	})
	ts := testkit.NewServer(t, h)
	check := func(step, path string, want int, wantBody ...string) {
		t.Helper()
		code, body := get(t, ts.URL+path)
		if code != want {
			t.Errorf("%s: GET %s = %d %q, want %d", step, path, code, body, want)
		}
		for _, w := range wantBody {
			if !strings.Contains(body, w) {
				t.Errorf("%s: GET %s = %q, want it to contain %q", step, path, body, w)
			}
		}
	}
	check("all well", "/readyz?verbose", 200, "[+]shutdown ok\n", "[+]ready ok\n", "[+]redis ok\n", "ok\n")
	check("all well", "/healthz?verbose", 200, "[+]redis ok\n")
	redisDown.Store(true)
	check("redis down", "/readyz", 200, "ok")
	check("redis down", "/readyz?verbose", 200, "[+]ready ok\n", "[-]redis failed (not counted): connection refused\n")
	check("redis down", "/healthz?verbose", 200, "[-]redis failed (not counted): connection refused\n")
	if _, body := get(t, ts.URL+"/readyz"); strings.Contains(body, "redis") {
		t.Errorf("plain /readyz ran the checks: %q", body)
	}
	notReady.Store(true)
	check("not ready", "/readyz?verbose", 503, "[-]ready failed: warming up\n", "not ready: warming up")
	if err := h.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	check("shutting down", "/readyz?verbose", 503, "[-]shutdown failed: shutting down\n")
}

// TestProbePaths: the probes move, or go away with "-".
func TestProbePaths(t *testing.T) {
	h := mcpkit.NewHTTPHandler(newGreeter(), &mcpkit.HTTPOptions{HealthPath: "live", ReadyPath: "-"})
	ts := testkit.NewServer(t, h)
	defer h.Shutdown(t.Context())
	for path, want := range map[string]int{"/live": 200, "/healthz": 404, "/readyz": 404} {
		if code, body := get(t, ts.URL+path); code != want {
			t.Errorf("GET %s = %d %q, want %d", path, code, body, want)
		}
	}
}

// TestKubernetesExampleProbes: the Kubernetes example probes the paths the
// handler serves, and runs serve with Redis and shared keys.
func TestKubernetesExampleProbes(t *testing.T) {
	b, err := os.ReadFile("deploy/kubernetes/mcpkit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"livenessProbe:", "path: " + mcpkit.DefaultHealthPath,
		"readinessProbe:", "path: " + mcpkit.DefaultReadyPath,
		"MCPKIT_REDIS_URL", "MCPKIT_STATE_KEYS", "sessionAffinity: None",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("deploy/kubernetes/mcpkit.yaml has no %q", want)
		}
	}
}

// TestExtraHandlers: HTTPOptions.Handlers are served at their paths behind the
// transports' Host and Origin checks and, under Serve, behind Middleware
// (which the probes skip); a probe's path stays the probe's.
func TestExtraHandlers(t *testing.T) {
	status := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "status page") })
	h := mcpkit.NewHTTPHandler(newGreeter(), &mcpkit.HTTPOptions{Handlers: map[string]http.Handler{"/status": status, "/healthz": status}})
	ts := testkit.NewServer(t, h)
	defer h.Shutdown(t.Context())
	for _, c := range []struct {
		path, host, origin string
		want               int
		body               string
	}{
		{"/status", "", "", 200, "status page"},
		{"/status", "localhost:1234", "http://localhost:3000", 200, "status page"},
		{"/status", "rebound.example.com", "", 403, "not a loopback host"},
		{"/status", "", "https://evil.example.com", 403, "is not allowed"},
		{"/healthz", "", "", 200, "ok"},
		{"/statusx", "", "", 404, "not found"},
	} {
		if code, body := getAs(t, ts.URL+c.path, c.host, c.origin); code != c.want || !strings.Contains(body, c.body) {
			t.Errorf("GET %s (Host %q, Origin %q) = %d %q, want %d with %q", c.path, c.host, c.origin, code, body, c.want, c.body)
		}
	}

	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() {
		served <- mcpkit.Serve(ctx, ln, newGreeter(), &mcpkit.HTTPOptions{
			Handlers: map[string]http.Handler{"/status": status},
			Middleware: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("X-Key") == "" {
						http.Error(w, "no key", http.StatusUnauthorized)
						return
					}
					next.ServeHTTP(w, r)
				})
			},
		})
	}()
	defer func() { stop(); <-served }()
	base := "http://" + ln.Addr().String()
	if code, body := get(t, base+"/status"); code != http.StatusUnauthorized {
		t.Errorf("GET /status without the middleware's key = %d %q, want 401", code, body)
	}
	if code, _ := get(t, base+"/healthz"); code != http.StatusOK {
		t.Errorf("GET /healthz under the middleware = %d, want 200", code)
	}
}
