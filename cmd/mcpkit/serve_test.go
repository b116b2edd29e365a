package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestServeRejectsBadStateKeysWithoutPrintingThem(t *testing.T) {
	const secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQ" // not 32 bytes: refused
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "serve")
	cmd.Env = append(os.Environ(), stateKeysEnv+"=k1:"+secret)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatal("serve started with an invalid key")
	}
	if !strings.Contains(stderr.String(), stateKeysEnv) {
		t.Errorf("the error does not name %s: %s", stateKeysEnv, stderr.String())
	}
	if strings.Contains(stderr.String(), secret) {
		t.Errorf("the error prints the secret: %s", stderr.String())
	}
}

func TestKeyringFromEnv(t *testing.T) {
	t.Setenv(stateKeysEnv, "")
	if kr, err := keyringFromEnv(); kr != nil || err != nil {
		t.Fatalf("unset: %v, %v", kr, err)
	}
	t.Setenv(stateKeysEnv, "k1:"+strings.Repeat("A", 43)+"=")
	kr, err := keyringFromEnv()
	if err != nil || kr == nil || kr.Current() != "k1" {
		t.Fatalf("set: %v, %v", kr, err)
	}
}

// TestServeSessionlessFlagAndDeprecatedAlias: --sessionless selects the
// sessionless Streamable HTTP mode, and the old name --stateless still does, hidden
// from the help and with a deprecation notice.
func TestServeSessionlessFlagAndDeprecatedAlias(t *testing.T) {
	for _, flag := range []string{"--sessionless", "--stateless"} {
		cmd := newServeCmd(&globalFlags{})
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		if err := cmd.ParseFlags([]string{flag}); err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		on, err := cmd.Flags().GetBool("sessionless")
		if err != nil || !on {
			t.Errorf("%s: sessionless = %v, %v; want true", flag, on, err)
		}
		deprecated := strings.Contains(out.String(), "--stateless has been deprecated, use --sessionless")
		if deprecated != (flag == "--stateless") {
			t.Errorf("%s: deprecation notice %v (output %q)", flag, deprecated, out.String())
		}
	}
	help := newServeCmd(&globalFlags{})
	var out bytes.Buffer
	help.SetOut(&out)
	if err := help.Usage(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "--sessionless") || strings.Contains(out.String(), "--stateless") {
		t.Errorf("the help should show --sessionless and hide --stateless:\n%s", out.String())
	}
}

// TestServeLimitFlags: serve's flags set the HTTP limits, timeouts and allowed
// hosts, with the library's defaults when absent and 0 turning a timeout off.
func TestServeLimitFlags(t *testing.T) {
	cmd, f := newServeCmdFlags(&globalFlags{})
	if err := cmd.ParseFlags(nil); err != nil {
		t.Fatal(err)
	}
	def := f.httpOptions(nil)
	if def.MaxSessions != 10_000 || def.MaxSessionsPerClient != 0 || def.MaxStreams != 1_000 || def.MaxConnections != 4096 ||
		def.SessionIdleTimeout != 30*time.Minute || def.BodyReadTimeout != 30*time.Second || def.ReadHeaderTimeout != 10*time.Second ||
		def.ConnIdleTimeout != time.Minute || def.MaxBodyBytes != 4<<20 {
		t.Errorf("defaults: %+v", def)
	}
	cmd, f = newServeCmdFlags(&globalFlags{})
	err := cmd.ParseFlags([]string{"--max-sessions", "50", "--max-sessions-per-client", "-1", "--max-streams", "8",
		"--max-connections", "64", "--max-body-bytes", "1024", "--idle-timeout", "0", "--body-timeout", "2s",
		"--header-timeout", "3s", "--conn-idle-timeout", "4s", "--allow-host", "mcp.example.com", "--allow-host", "localhost:8080",
		"--allow-origin", "https://app.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	o := f.httpOptions(nil)
	if o.MaxSessions != 50 || o.MaxSessionsPerClient != -1 || o.MaxStreams != 8 || o.MaxConnections != 64 || o.MaxBodyBytes != 1024 ||
		o.SessionIdleTimeout >= 0 || o.BodyReadTimeout != 2*time.Second || o.ReadHeaderTimeout != 3*time.Second || o.ConnIdleTimeout != 4*time.Second ||
		strings.Join(o.AllowedHosts, ",") != "mcp.example.com,localhost:8080" || strings.Join(o.AllowedOrigins, ",") != "https://app.example.com" {
		t.Errorf("set: %+v", o)
	}
}

// TestServeDebugAddr: --debug-addr serves the runtime profiles on a loopback
// address only (an address other machines could reach is refused before the
// server starts), and stops serving them when the server stops.
func TestServeDebugAddr(t *testing.T) {
	_, stderr, code := execCLI(t, cliRun{args: []string{"serve", "--http", "127.0.0.1:0", "--debug-addr", "0.0.0.0:0"}})
	if code == 0 || !strings.Contains(stderr, "--debug-addr: must be a loopback address") {
		t.Fatalf("a non-loopback --debug-addr: exit %d, stderr %q", code, stderr)
	}

	ctx, cancel := context.WithCancel(t.Context())
	addr, wait, err := serveDebug(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	get := func() (string, error) {
		resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	body, err := get()
	if err != nil || !strings.HasPrefix(body, "goroutine profile: total ") {
		t.Fatalf("goroutine profile: %q, %v", body, err)
	}
	cancel()
	wait()
	if _, err := get(); err == nil {
		t.Error("the profiles are still served after the server stopped")
	}
}
