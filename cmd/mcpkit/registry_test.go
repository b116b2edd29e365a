package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/mcpkit/mcpkit/registry"
)

// goProxy publishes the module in src at version into a file-system Go
// module proxy (the layout proxy.golang.org serves) and returns its
// directory.
func goProxy(t *testing.T, src, path, version string) string {
	t.Helper()
	proxy := t.TempDir()
	at := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := modzip.CreateFromDir(zf, module.Version{Path: path, Version: version}, src); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	for name, data := range map[string]string{
		"list":            version + "\n",
		version + ".mod":  string(mod),
		version + ".info": `{"Version":"` + version + `","Time":"2026-11-01T00:00:00Z"}`,
	} {
		if err := os.WriteFile(filepath.Join(at, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return proxy
}

// The whole path of a Go server: `registry init` writes its server.json from
// go.mod (valid against the official schema), `registry validate` accepts it,
// `config add` installs it into a gateway's file as go run MODULE@VERSION, and
// the gateway runs it — fetched from a module proxy like any published module
// — and calls its tool.
func TestRegistryInitGoRunThroughGateway(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.MkdirAll(src, 0o755)
	for from, to := range map[string]string{"go.mod.txt": "go.mod", "main.go.txt": "main.go"} {
		data, err := os.ReadFile(filepath.Join("testdata", "echomodule", from))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, to), data, 0o644)
	}
	out := filepath.Join(dir, "server.json")
	_, errOut, code := runCLI(t, nil, "registry", "init", "--dir", src, "--out", out, "--version", "v1.0.0",
		"--description", "Echoes over MCP", "--env", "ECHO_PREFIX=what to say first")
	if code != 0 {
		t.Fatal(errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := registry.Validate(data); err != nil {
		t.Fatalf("the written server.json is not valid: %v\n%s", err, data)
	}
	var doc struct {
		Name     string `json:"name"`
		Packages []struct {
			RegistryType, Identifier, Version string
		} `json:"packages"`
	}
	json.Unmarshal(data, &doc)
	if doc.Name != "io.github.example/echo-mcp" || len(doc.Packages) != 1 || doc.Packages[0].RegistryType != "go" ||
		doc.Packages[0].Identifier != "github.com/example/echo-mcp" || doc.Packages[0].Version != "v1.0.0" {
		t.Fatalf("got %s", data)
	}
	if _, errOut, code := runCLI(t, nil, "registry", "init", "--dir", src, "--out", out, "--version", "v1.0.0", "--description", "again"); code == 0 || !strings.Contains(errOut, "--force") {
		t.Fatalf("an existing file was replaced without --force: %s", errOut)
	}
	if out, errOut, code := runCLI(t, nil, "registry", "validate", out); code != 0 || !strings.Contains(out, "--package 1  go github.com/example/echo-mcp v1.0.0 (stdio)") {
		t.Fatalf("validate: exit %d: %s%s", code, out, errOut)
	}

	cfg := filepath.Join(dir, "gateway.json")
	if _, errOut, code := runCLI(t, nil, "config", "add", "--server-json", out, "--host", cfg, "--env", "ECHO_PREFIX=hi"); code != 0 {
		t.Fatal(errOut)
	}
	if s := loadServer(t, cfg, "echo-mcp"); s.Command != "go" || strings.Join(s.Args, " ") != "run github.com/example/echo-mcp@v1.0.0" {
		t.Fatalf("got %s %q", s.Command, s.Args)
	}
	env := []string{
		"GOPROXY=file://" + goProxy(t, src, "github.com/example/echo-mcp", "v1.0.0"),
		"GOSUMDB=off", "GOFLAGS=-modcacherw", "GOTOOLCHAIN=local",
		"GOMODCACHE=" + filepath.Join(dir, "modcache"), // the fixture stays out of the shared module cache
	}
	got, errOut, code := runCLI(t, env, "call", "echo-mcp__echo", `{"message":"from the registry"}`, "--", mcpkitBin, "gateway", "--config", cfg, "--start-timeout", "50s")
	if code != 0 || !strings.Contains(got, "echo-mcp says from the registry") {
		t.Fatalf("exit %d: %s%s", code, got, errOut)
	}
}

// registry init refuses what the registry would: a version without its v, a
// name whose io.github owner is not the module's.
func TestRegistryInitRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--module", "github.com/o/r", "--version", "1.0.0", "--description", "d"},
		{"--module", "github.com/o/r", "--version", "v1.0.0", "--description", "d", "--name", "io.github.someone/r"},
		{"--module", "github.com/o/r", "--version", "v1.0.0", "--description", strings.Repeat("x", 101)},
	} {
		_, errOut, code := runCLI(t, nil, append([]string{"registry", "init", "--out", filepath.Join(dir, "s.json")}, args...)...)
		if code == 0 {
			t.Errorf("%q accepted", args)
		}
		if _, err := os.Stat(filepath.Join(dir, "s.json")); err == nil {
			t.Fatalf("%q: a file was written: %s", args, errOut)
		}
	}
}
