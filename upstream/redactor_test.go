package upstream

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// A program's logger made with the Redactor it gives the supervisor
// (Options.Redactor) redacts the secrets of a server Apply adds, in the
// program's own lines, where a handler made for the first configuration
// (Config.RedactHandler) shows them; a removed server's stay redacted.
func TestRedactorFollowsApply(t *testing.T) {
	first := &Config{Servers: map[string]*ServerConfig{"old": {Name: "old", Transport: TransportStdio, Command: "true", Env: map[string]string{"K": "first-secret-1111"}}}}
	red := NewRedactor(first)
	var out, static syncBuffer
	logger := slog.New(red.Handler(slog.NewTextHandler(&out, nil)))
	staticLogger := slog.New(first.RedactHandler(slog.NewTextHandler(&static, nil)))
	sup := NewSupervisor(first, &Options{Logger: logger, Redactor: red})
	t.Cleanup(func() { _ = sup.Close() })

	const secret = "added-secret-4242"
	added := &ServerConfig{Name: "added", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp?token=" + secret}
	if _, err := sup.Apply(&Config{Servers: map[string]*ServerConfig{"added": added}}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*slog.Logger{logger, staticLogger} {
		l.Warn("gateway: configuration reloaded; fetching lists failed", "error", errors.New("GET "+added.URL+": refused"))
		l.Info("old server stopping: first-secret-1111")
	}
	if got := out.String(); strings.Contains(got, secret) || strings.Contains(got, "first-secret-1111") || strings.Count(got, Redacted) != 2 {
		t.Errorf("the program's lines after Apply:\n%s", got)
	}
	if !strings.Contains(static.String(), secret) {
		t.Errorf("a handler of the first configuration redacts the added server's secret: the test proves nothing\n%s", static.String())
	}
	if red.Handler(logger.Handler()) != logger.Handler() {
		t.Error("Handler wraps a handler of its own again")
	}
}

// A Redactor keeps the secrets of earlier configurations up to a bound, the
// current one's always.
func TestRedactorBounded(t *testing.T) {
	red := NewRedactor(nil)
	if got := red.Redact("nothing-secret-here"); got != "nothing-secret-here" {
		t.Errorf("an empty redactor changed %q", got)
	}
	var cfg *Config
	for i := range maxRedactorSecrets + 100 {
		cfg = &Config{Servers: map[string]*ServerConfig{"s": {Name: "s", Env: map[string]string{"K": fmt.Sprintf("rotated-secret-%06d", i)}}}}
		red.Add(cfg)
	}
	if n := len(red.secrets); n > maxRedactorSecrets+1 {
		t.Errorf("%d secrets kept", n)
	}
	last := fmt.Sprintf("rotated-secret-%06d", maxRedactorSecrets+99)
	if got := red.Redact("a " + last + " b"); got != "a "+Redacted+" b" {
		t.Errorf("the current secret: %q", got)
	}
	if got := red.Redact(fmt.Sprintf("rotated-secret-%06d", maxRedactorSecrets+50)); got != Redacted {
		t.Errorf("a recent earlier secret: %q", got)
	}
}
