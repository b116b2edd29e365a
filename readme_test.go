package mcpkit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// readmeSection returns the README from the heading on.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README.md has no heading %q", heading)
	}
	return section
}

// readmeProgram returns the Go program under the README heading.
func readmeProgram(t *testing.T, heading string) string {
	t.Helper()
	_, block, ok := strings.Cut(readmeSection(t, heading), "```go\n")
	if !ok {
		t.Fatalf("no Go block under %q", heading)
	}
	program, _, ok := strings.Cut(block, "```\n")
	if !ok || !strings.HasPrefix(program, "package main\n") {
		t.Fatalf("the Go block under %q is not a complete program:\n%s", heading, program)
	}
	return program
}

// TestREADMEQuickStart builds the README's "A server in a few lines" as it
// stands, runs it, and connects to it: the program is complete, imports
// mcpkit and mcp only (besides the standard library), and serves its tool.
func TestREADMEQuickStart(t *testing.T) {
	program := readmeProgram(t, "## A server in a few lines")
	for _, line := range strings.Split(program, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, `"github.com/`) && line != `"github.com/mcpkit/mcpkit"` && line != `"github.com/mcpkit/mcpkit/mcp"` {
			t.Errorf("the quick start imports %s: only mcpkit and mcp should be needed", line)
		}
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "main.go"), filepath.Join(dir, "greeter")
	if err := os.WriteFile(src, []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, src) // in this module, which it imports
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the README's program does not build: %v\n%s\n%s", err, out, program)
	}

	client := mcp.NewClient(mcp.Implementation{Name: "readme-test", Version: "1"}, nil)
	cs, err := mcpkit.ConnectCommand(ctx, client, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var names []string
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Name == "greet" && !strings.Contains(string(tool.InputSchema), `"description":"who to greet"`) {
			t.Errorf("greet's input schema %s does not come from GreetInput", tool.InputSchema)
		}
	}
	if len(names) != 1 || names[0] != "greet" {
		t.Fatalf("tools %v, want [greet]", names)
	}
	res, err := cs.CallTool(ctx, "greet", GreetInput{Name: "Ada"})
	if err != nil || res.IsError || len(res.Content) != 1 || res.Content[0].Text != "hello Ada" {
		t.Fatalf("greet: %+v, %v", res, err)
	}
}

// TestREADMEInstallLines: the README's install lines name this module and
// its command as they are (the lines need the network to run; what they name
// is checked here): go install MODULE/cmd/mcpkit@latest, go get MODULE@latest.
func TestREADMEInstallLines(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	module := strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module ")
	section := readmeSection(t, "## Install")
	for _, want := range []string{"go install " + module + "/cmd/mcpkit@latest", "go get " + module + "@latest"} {
		if !strings.Contains(section, "\n"+want+" ") {
			t.Errorf("the README's Install section has no line %q", want)
		}
	}
	if _, err := os.Stat("cmd/mcpkit/main.go"); err != nil {
		t.Errorf("go install names cmd/mcpkit: %v", err)
	}
}
