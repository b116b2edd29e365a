package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/spf13/pflag"

	"github.com/mcpkit/mcpkit/internal/llmtest"
)

// clientFlags are the flags of the commands that talk to a server.
var clientFlags = []string{"json", "timeout", "url", "header", "protocol", "root", "elicit-answers", "client-id", "client-secret", "oauth-client-credentials", "oauth-port", "no-browser"}

// hostClientFlags are the client flags host has too: they apply to its servers.
var hostClientFlags = []string{"timeout", "root", "elicit-answers", "header"}

// oauthClientFlags are the client flags gateway and tap have too: the OAuth
// ones, for the HTTP servers they reach (tap --upstream authorizes itself).
var oauthClientFlags = []string{"client-id", "client-secret", "oauth-client-credentials", "oauth-port", "no-browser"}

func isClientCmd(name string) bool {
	return slices.Contains([]string{"tools", "resources", "prompts", "ping", "read", "get", "call", "shell", "tokens"}, name)
}

// Each command has the flags that apply to it: serve and version none of the
// client's, host those that apply to its servers; -v everywhere.
func TestFlagsBelongToTheirCommands(t *testing.T) {
	root := newRootCmd()
	if names := flagNames(root.PersistentFlags()); strings.Join(names, " ") != "verbose" {
		t.Errorf("global flags %v, want only verbose", names)
	}
	var seen []string
	for _, cmd := range root.Commands() {
		seen = append(seen, cmd.Name())
		for _, f := range clientFlags {
			if cmd.Name() == "gateway" && f == "json" {
				continue // its own: the format of --list
			}
			want := isClientCmd(cmd.Name()) || cmd.Name() == "host" && slices.Contains(hostClientFlags, f) ||
				(cmd.Name() == "gateway" || cmd.Name() == "tap") && slices.Contains(oauthClientFlags, f)
			if has := cmd.Flags().Lookup(f) != nil; has != want {
				t.Errorf("%s has --%s: %v", cmd.Name(), f, has)
			}
		}
		if cmd.InheritedFlags().Lookup("verbose") == nil {
			t.Errorf("%s has no -v", cmd.Name())
		}
	}
	if want := "auth call config gateway get host ping prompts read registry resources serve shell skills tap tokens tools version"; strings.Join(seen, " ") != want {
		t.Errorf("commands %v, want %s", seen, want)
	}
	var help bytes.Buffer
	root.SetOut(&help)
	root.SetArgs([]string{"serve", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, f := range clientFlags {
		if strings.Contains(help.String(), "--"+f+" ") {
			t.Errorf("serve --help lists --%s:\n%s", f, help.String())
		}
	}
}

func flagNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return names
}

func TestBuildVersionOf(t *testing.T) {
	if v := buildVersionOf(nil); v.module != "(devel)" || !strings.HasPrefix(v.String(), "mcpkit (devel)\nbuilt with go") {
		t.Errorf("no build info: %q", v.String())
	}
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/mcpkit/mcpkit", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-07-28T10:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := buildVersionOf(info).String()
	if want := "mcpkit v1.2.3\nrevision 0123abcd (2026-07-28T10:00:00Z, modified)\nbuilt with go1.26.0 for "; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want the prefix %q", got, want)
	}
	info.Main.Version, info.Settings = "(devel)", info.Settings[:1]
	if got := buildVersionOf(info).String(); !strings.HasPrefix(got, "mcpkit (devel)\nrevision 0123abcd\n") {
		t.Errorf("devel: %q", got)
	}
}

// --version and `mcpkit version` print the same; a binary built from a checkout
// with VCS stamping names the checkout's revision.
func TestVersionFlagAndCommand(t *testing.T) {
	flag, err1 := exec.Command(mcpkitBin, "--version").Output()
	cmd, err2 := exec.Command(mcpkitBin, "version").Output()
	if err1 != nil || err2 != nil || string(flag) != string(cmd) || !strings.HasPrefix(string(flag), "mcpkit ") || !strings.Contains(string(flag), "built with go") {
		t.Fatalf("--version %q (%v), version %q (%v)", flag, err1, cmd, err2)
	}

	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout (%v): the VCS stamp cannot be checked", err)
	}
	if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !st.IsDir() {
		t.Skip("a git worktree (.git is a file): the go command stamps VCS information only in a main checkout")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "mcpkit")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.Contains(string(out), "\nrevision "+strings.TrimSpace(string(head))+" (") {
		t.Errorf("--version of a VCS-stamped build: %q (%v); want revision %s", out, err, head)
	}
}

// Every command's --help has examples, and every example works: the client
// commands' against the demo server (over stdio, or over HTTP for --url), serve's
// parse.
func TestHelpExamplesRun(t *testing.T) {
	base := serveHTTPForTest(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "answers.json"), []byte(`{"name":"Ada"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The host examples talk to scripted models (each says hello), with the
	// prompt on standard input when the example has none.
	hello := func(p func(string, ...llmtest.Call) string) []llmtest.Reply {
		return []llmtest.Reply{{Body: p("Hello from the model.")}, {Body: p("Hello again.")}}
	}
	openAIReplies := append(hello(llmtest.OpenAI), llmtest.Reply{Body: llmtest.OpenAI("Hello once more.")})
	oa := llmtest.NewOpenAI(t, "sk-example", openAIReplies...)
	ol := llmtest.NewOpenAI(t, "", hello(llmtest.OpenAI)...)
	an := llmtest.NewAnthropic(t, "sk-ant-example", hello(llmtest.Anthropic)...)
	hostEnv := append(os.Environ(), "OPENAI_API_KEY=sk-example", "OPENAI_BASE_URL="+oa.BaseURL(),
		"ANTHROPIC_API_KEY=sk-ant-example", "ANTHROPIC_BASE_URL="+an.BaseURL(), "OLLAMA_HOST="+ol.URL)
	// The gateway's examples use mcp.json, with the demo server as "demo".
	writeGatewayConfig(t, filepath.Join(dir, "mcp.json"), map[string]string{"demo": "serve"})
	// config add's example installs a registry example; registry init's reads a go.mod.
	if data, err := os.ReadFile("../../registry/testdata/examples/valid/pypi-package.json"); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(filepath.Join(dir, "server.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module github.com/example/weather-mcp\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := newRootCmd()
	cmds := append([]*cobra.Command{root}, root.Commands()...)
	for _, cmd := range cmds {
		if strings.TrimSpace(cmd.Example) == "" {
			t.Errorf("%s has no Example section", cmd.CommandPath())
		}
		for line := range strings.SplitSeq(cmd.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			args := shellWords(t, line)
			if args[0] != "mcpkit" {
				t.Errorf("%s: example %q does not run mcpkit", cmd.Name(), line)
				continue
			}
			for i, a := range args {
				if a == "mcpkit" {
					args[i] = mcpkitBin
				}
				if strings.HasPrefix(a, "http://127.0.0.1:8080") {
					args[i] = base + strings.TrimPrefix(a, "http://127.0.0.1:8080")
				}
				if strings.HasSuffix(a, "=mcpkit serve") || a == "mcpkit serve" {
					args[i] = strings.Replace(a, "mcpkit serve", mcpkitBin+" serve", 1)
				}
			}
			if args[1] == "auth" || args[1] == "tap" {
				// auth needs an authorization server, and tap relays until its
				// peers end: check the example names a real command and parses,
				// without running it.
				sub, rest, err := root.Find(args[1:])
				if err == nil {
					err = sub.ParseFlags(rest)
				}
				if err != nil || args[1] == "auth" && sub == cmd {
					t.Errorf("example %q: %v", line, err)
				}
				continue
			}
			if args[1] == "serve" || (args[1] == "gateway" && slices.Contains(args, "--http")) || (args[1] == "host" && slices.Contains(args, "--web")) {
				// A server over HTTP (and the web host) runs until stopped:
				// check that it parses.
				sub, rest, err := root.Find(args[1:])
				if err == nil {
					err = sub.ParseFlags(rest)
				}
				if err != nil {
					t.Errorf("example %q: %v", line, err)
				}
				continue
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			c := exec.CommandContext(ctx, args[0], args[1:]...)
			c.Dir = dir
			if args[1] == "host" {
				c.Env, c.Stdin = hostEnv, strings.NewReader("Say hello.")
			}
			out, err := c.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("example %q: %v\n%s", line, err, out)
			}
		}
	}
}

// shellWords splits an example line as a shell would: words, 'single quotes', and
// a # comment.
func shellWords(t *testing.T, line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// cobra's completion command works for the shells README documents.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_mcpkit", "zsh": "#compdef mcpkit", "fish": "complete -c mcpkit"} {
		out, err := exec.Command(mcpkitBin, "completion", shell).Output()
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("completion %s: %v; want %q in %.200q", shell, err, want, out)
		}
	}
}

// Every line the CLI writes to stderr on failure starts with the one prefix.
func TestErrorsHaveOnePrefix(t *testing.T) {
	for _, args := range [][]string{
		{"call", "test_throw"},
		{"call", "nope"},
		{"call", "echo", `{"message":`},
		{"call", "list_roots", "--root", "/nonexistent/dir"},
		{"call", "ask_name"},
		{"read"},
	} {
		_, errOut, _ := run(t, args...)
		if errOut == "" {
			t.Errorf("%v: nothing on stderr", args)
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(errOut, "\n"), "\n") {
			if !strings.HasPrefix(line, "mcpkit: ") {
				t.Errorf("%v: stderr line %q lacks the prefix", args, line)
			}
		}
	}
	out, err := exec.Command(mcpkitBin, "tools").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.HasPrefix(string(out), "mcpkit: ") {
		t.Errorf("no target: %v %q", err, out)
	}
}
