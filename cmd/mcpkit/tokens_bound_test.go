//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// schemaServerEnv makes the test binary a stdio server whose one tool,
// "deep", has the input schema in the file the variable names.
const schemaServerEnv = "MCPKIT_TEST_SCHEMA_SERVER"

// serveSchemaTool serves the tool "deep" on stdio (see schemaServerEnv).
func serveSchemaTool(path string) {
	schema, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	srv := mcp.NewServer(protocol.Implementation{Name: "schema", Version: "1"}, nil)
	err = srv.AddRawTool(&protocol.Tool{Name: "deep", InputSchema: schema},
		func(context.Context, *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return protocol.NewToolResultText("ok"), nil
		})
	if err != nil {
		panic(err)
	}
	_ = mcpkit.ServeStdio(context.Background(), srv)
}

// The break-it review's T2 through the CLI: `mcpkit tokens` (the OpenAI
// format inlines references) against a server whose tool schema doubles at
// each of 40 references finishes, counts the schema as written, and stays
// small (it grew to 13.4 GB before).
func TestTokensDoublingSchemaBoundedMemory(t *testing.T) {
	schemaPath, err := filepath.Abs("../../llm/testdata/doubling-refs.json")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for _, format := range []string{"openai", "anthropic"} {
		cmd := exec.CommandContext(ctx, mcpkitBin, "tokens", "--json", "--format", format, "--", self)
		cmd.Env = append(os.Environ(), schemaServerEnv+"="+schemaPath)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s", format, err, stderr.String())
		}
		var got tokensOutput
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if len(got.Tools.Tools) != 1 || got.Tools.Tools[0].Name != "deep" {
			t.Fatalf("%s: %+v", format, got.Tools)
		}
		// The schema as written is about 1,300 tokens; inlined even to the
		// budget, it would be tens of thousands.
		if n := got.Tools.Tools[0].Schema; n > 4000 {
			t.Errorf("%s: the schema counts %d tokens", format, n)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Fatal("no resource usage")
		}
		const limitKB = 200 << 10 // Maxrss is in kilobytes on Linux
		if ru.Maxrss > limitKB {
			t.Errorf("%s: mcpkit tokens peaked at %d kB of memory (limit %d kB)", format, ru.Maxrss, limitKB)
		}
		t.Logf("%s: %d tokens, peak RSS %d kB", format, got.Tools.Tools[0].Schema, ru.Maxrss)
	}
}

// untilDone returns when its context ends, though the work goes on.
func TestUntilDoneReturnsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		_, err := untilDone(ctx, func() (int, error) {
			close(started)
			<-release // long work
			return 1, nil
		})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if v, err := untilDone(t.Context(), func() (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Fatalf("untilDone = %d, %v", v, err)
	}
}

// T2 through `mcpkit host` with the OpenAI format (which inlines
// references): it died out of memory before the first model request; now
// the tool is offered with its references kept, and the process stays small.
func TestHostDoublingSchemaOpenAI(t *testing.T) {
	schemaPath, err := filepath.Abs("../../llm/testdata/doubling-refs.json")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("done"), Check: func(t testing.TB, body map[string]any) {
		tools, _ := body["tools"].([]any)
		if len(tools) != 1 {
			t.Fatalf("tools %v", body["tools"])
		}
		params, _ := json.Marshal(tools[0].(map[string]any)["function"].(map[string]any)["parameters"])
		if len(params) > 8<<10 || !strings.Contains(string(params), `"$ref":"#/$defs/l1"`) {
			t.Errorf("parameters (%d bytes): %.300s", len(params), params)
		}
	}})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "host", "--model", "openai:m", "--server", self, "-p", "hi", "--yes")
	cmd.Env = append(os.Environ(), schemaServerEnv+"="+schemaPath, "OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL="+srv.BaseURL())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || string(out) != "done\n" {
		t.Fatalf("%v: stdout %q\n%s", err, out, stderr.String())
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil || ru.Maxrss > 200<<10 {
		t.Errorf("mcpkit host peaked at %v kB", ru)
	}
	t.Logf("peak RSS %d kB", ru.Maxrss)
}
