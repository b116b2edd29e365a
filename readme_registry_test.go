package mcpkit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/registry"
	"github.com/mcpkit/mcpkit/upstream"
)

// TestREADMERegistryRecipe runs every line of the README's "The MCP Registry"
// recipe as written, in a Go module's directory holding a saved registry entry,
// with the hosts' files under a temporary HOME, and checks what each wrote.
func TestREADMERegistryRecipe(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module github.com/example/weather-mcp\n\ngo 1.26\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	remote, err := os.ReadFile("registry/testdata/examples/valid/with-remote.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "entry.json"), []byte(`{"server": `+string(remote)+`, "_meta": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, ".config"))
	lines := readmeShell(t, "## The MCP Registry: `server.json`")
	if len(lines) != 4 {
		t.Fatalf("the recipe has %d lines, this test knows 4", len(lines))
	}
	for _, line := range lines {
		args := shellWords(line)
		if args[0] != "bin/mcpkit" {
			t.Fatalf("line %q does not run bin/mcpkit", line)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		cmd := exec.CommandContext(ctx, bin, args[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%q: %v\n%s", line, err, out)
		}
		if strings.Contains(string(out), "sk-example") {
			t.Errorf("%q printed a secret:\n%s", line, out)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := registry.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if p := e.Server.Packages[0]; e.Server.Name != "io.github.example/weather-mcp" || p.RegistryType != "go" || p.Identifier != "github.com/example/weather-mcp" || p.EnvironmentVariables[0].Name != "WEATHER_API_KEY" {
		t.Fatalf("server.json: %s", data)
	}
	none := func(string) (string, bool) { return "", false }
	gw, err := upstream.Load(filepath.Join(dir, "gateway.json"))
	if err != nil {
		t.Fatal(err)
	}
	if s := gw.Servers["weather-mcp"]; s == nil || s.Command != "go" || strings.Join(s.Args, " ") != "run github.com/example/weather-mcp@v1.0.0" || s.Env["WEATHER_API_KEY"] != "sk-example" {
		t.Fatalf("gateway.json: %+v", s)
	}
	vsFile := filepath.Join(dir, ".config", "Code", "User", "mcp.json")
	vsData, err := os.ReadFile(vsFile)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := upstream.Parse(vsFile, vsData, none)
	if err != nil {
		t.Fatal(err)
	}
	if s := vs.Servers["remote-weather"]; s == nil || s.URL != "https://api.example.com/mcp" || s.Headers["Authorization"] != "Bearer sk-example" || !strings.Contains(string(vsData), `"servers"`) {
		t.Fatalf("VS Code's mcp.json:\n%s", vsData)
	}
}
