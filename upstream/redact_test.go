package upstream

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestRedact: the values of env and headers, the URL's password and query
// values, and what variables brought in are replaced; short values, the
// header's scheme and ${userHome} are not.
func TestRedact(t *testing.T) {
	data := `{"mcpServers": {
		"api": {"url": "https://user:pa55word@h/mcp?key=${env:KEY}&v=2", "headers": {"Authorization": "Bearer tok-123456", "X-Org": "${ORG}"}},
		"cli": {"command": "${userHome}/bin/srv", "args": ["--api-key", "${API_KEY:-dev-key-1}"], "env": {"DEBUG": "1", "DB_PASSWORD": "hunter22"}}
	}}`
	env := envOf(map[string]string{"KEY": "q-secret-9", "ORG": "acme-corp", "HOME": "/home/someone"})
	cfg, err := Parse("mcp.json", []byte(data), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ server, in, want string }{
		{"api", `Post "https://user:pa55word@h/mcp?key=q-secret-9&v=2": refused`, `Post "https://user:[redacted]@h/mcp?key=[redacted]&v=2": refused`},
		{"api", "401: token tok-123456 expired; org acme-corp", "401: token [redacted] expired; org [redacted]"},
		{"api", "Authorization: Bearer tok-123456", "Authorization: [redacted]"},
		{"cli", "exec /home/someone/bin/srv --api-key dev-key-1: DEBUG=1 DB_PASSWORD=hunter22", "exec /home/someone/bin/srv --api-key [redacted]: DEBUG=1 DB_PASSWORD=[redacted]"},
	} {
		if got := cfg.Servers[c.server].Redact(c.in); got != c.want {
			t.Errorf("%s: Redact(%q)\n got %q\nwant %q", c.server, c.in, got, c.want)
		}
	}
	if got := (&ServerConfig{Name: "plain"}).Redact("nothing to hide"); got != "nothing to hide" {
		t.Errorf("a server without secrets: %q", got)
	}
}

// secretStringer prints a secret through fmt.Stringer.
type secretStringer struct{}

func (secretStringer) String() string { return "stringer hunter22" }

// TestRedactHandler: every part of a line at DEBUG — the message, string,
// error, Stringer and other values, groups, attributes added with With and
// under WithGroup — has every server's secrets replaced; values without one
// keep their kind.
func TestRedactHandler(t *testing.T) {
	data := `{"mcpServers": {
		"api": {"url": "https://h/mcp?key=${env:KEY}", "headers": {"Authorization": "Bearer tok-123456"}},
		"cli": {"command": "srv", "env": {"DB_PASSWORD": "hunter22"}}
	}}`
	cfg, err := Parse("mcp.json", []byte(data), envOf(map[string]string{"KEY": "q-secret-9"}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	inner := slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})
	h := cfg.RedactHandler(inner)
	if cfg.RedactHandler(h) != h {
		t.Error("a handler that already redacts the configuration was wrapped again")
	}
	log := slog.New(h).With("token", "tok-123456").WithGroup("g")
	log.Debug("probe failed for hunter22",
		"error", fmt.Errorf("post https://h/mcp?key=q-secret-9: %w", errors.New("refused")),
		"stringer", secretStringer{},
		"any", map[string]string{"k": "tok-123456"},
		"group", slog.GroupValue(slog.String("inner", "q-secret-9")),
		"count", 3, "plain", errors.New("nothing"))
	line := buf.String()
	for _, secret := range []string{"tok-123456", "q-secret-9", "hunter22"} {
		if strings.Contains(line, secret) {
			t.Errorf("the line shows %q: %s", secret, line)
		}
	}
	for _, want := range []string{`msg="probe failed for [redacted]"`, "token=[redacted]", "g.error=\"post https://h/mcp?key=[redacted]: refused\"",
		`g.stringer="stringer [redacted]"`, "g.any=map[k:[redacted]]", "g.group.inner=[redacted]", "g.count=3", "g.plain=nothing"} {
		if !strings.Contains(line, want) {
			t.Errorf("the line lacks %s: %s", want, line)
		}
	}
	plain, _ := Parse("mcp.json", []byte(`{"mcpServers": {"a": {"command": "srv"}}}`), envOf(nil))
	if plain.RedactHandler(inner) != slog.Handler(inner) {
		t.Error("a configuration without secrets wrapped the handler")
	}
}
