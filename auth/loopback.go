package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// LoopbackRedirect receives the authorization response of a native app on a
// loopback redirect URI (RFC 8252 §7.3): it listens on 127.0.0.1 until Close.
//
// It takes only the response to the authorization in progress (a Fetcher's):
// a redirect whose state is not that request's — a stale tab, or another
// process on the machine trying to slip its own code in — is answered 400 and
// the wait goes on.
type LoopbackRedirect struct {
	ln   net.Listener
	srv  *http.Server
	got  chan *AuthorizationResponse
	once sync.Once
	done chan struct{}

	mu    sync.Mutex
	state string // of the authorization in progress; "" when none is
}

// ListenLoopback starts listening on 127.0.0.1:port (0 picks a free port; a
// pre-registered client needs the port it registered).
func ListenLoopback(port int) (*LoopbackRedirect, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("auth: listening for the redirect: %w", err)
	}
	l := &LoopbackRedirect{ln: ln, got: make(chan *AuthorizationResponse, 1), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /callback", l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(l.done)
		_ = l.srv.Serve(ln) // returns when Close shuts the server down
	}()
	return l, nil
}

// URL is the redirect URI to register and send.
func (l *LoopbackRedirect) URL() string {
	return "http://" + l.ln.Addr().String() + "/callback"
}

func (l *LoopbackRedirect) callback(w http.ResponseWriter, r *http.Request) {
	resp, err := ParseAuthorizationResponse(r.URL.String())
	if err != nil {
		http.Error(w, "bad redirect", http.StatusBadRequest)
		return
	}
	l.mu.Lock()
	want := l.state
	l.mu.Unlock()
	if want == "" || subtle.ConstantTimeCompare([]byte(resp.State), []byte(want)) != 1 {
		http.Error(w, "This redirect is not for the authorization in progress.", http.StatusBadRequest)
		return
	}
	select {
	case l.got <- resp:
	default: // a response is already waiting
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if resp.Error != "" {
		_, _ = fmt.Fprint(w, "<!doctype html><title>Authorization failed</title><p>Authorization failed. You can close this window.")
		return
	}
	_, _ = fmt.Fprint(w, "<!doctype html><title>Authorized</title><p>Authorized. You can close this window and return to the terminal.")
}

// Fetcher returns a CodeFetcher that shows the user the authorization URL with
// open (see OpenBrowser) and waits for the redirect that carries the URL's
// state. One flow at a time uses the listener.
func (l *LoopbackRedirect) Fetcher(open func(ctx context.Context, url string) error) CodeFetcher {
	return func(ctx context.Context, authURL string) (*AuthorizationResponse, error) {
		u, err := url.Parse(authURL)
		if err != nil || u.Query().Get("state") == "" {
			return nil, errors.New("auth: the authorization URL has no state")
		}
		// Drop a response left over from an earlier flow, then take this one's.
		select {
		case <-l.got:
		default:
		}
		l.mu.Lock()
		l.state = u.Query().Get("state")
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			l.state = ""
			l.mu.Unlock()
		}()
		if err := open(ctx, authURL); err != nil {
			return nil, err
		}
		select {
		case resp := <-l.got:
			return resp, nil
		case <-ctx.Done():
			return nil, fmt.Errorf("auth: waiting for the authorization: %w", ctx.Err())
		}
	}
}

// Close stops listening.
func (l *LoopbackRedirect) Close() error {
	var err error
	l.once.Do(func() {
		err = l.srv.Close()
		<-l.done
	})
	return err
}

// OpenBrowser opens url in the system's browser.
func OpenBrowser(ctx context.Context, url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.CommandContext(ctx, "open", url)
	case "windows":
		cmd = exec.CommandContext(ctx, "rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.CommandContext(ctx, "xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("auth: opening a browser: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reaps the launcher: it exits at once, or is killed when ctx ends
	return nil
}
