package main

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// runHostCmd runs `mcpkit host` with env added and stdin as its input, and
// returns stdout, stderr and the exit status.
func runHostCmd(t *testing.T, env []string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	return execCLI(t, cliRun{env: env, stdin: stdin, args: append([]string{"host"}, args...)})
}

func openAIEnv(srv *llmtest.Server) []string {
	return []string{"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.BaseURL()}
}

// -p: the model calls the demo server's add tool through `mcpkit serve`, the
// final answer alone is on stdout, the call and its result on stderr, and -v
// adds the tokens of both requests.
func TestHostPromptRunsToolsOpenAI(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("Adding.", llmtest.Call{ID: "c1", Name: "add", Args: `{"a":2,"b":3}`})},
		llmtest.Reply{Body: llmtest.OpenAI("2 + 3 = 5"), Check: func(t testing.TB, body map[string]any) {
			msgs := llmtest.Messages(body)
			if last := msgs[len(msgs)-1]; last["role"] != "tool" || last["tool_call_id"] != "c1" || !strings.Contains(last["content"].(string), `"sum":5`) {
				t.Errorf("the tool result sent: %v", last)
			}
		}})
	out, errOut, code := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "-p", "add 2 and 3", "--yes", "-v")
	if code != 0 || out != "2 + 3 = 5\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{`→ add {"a":2,"b":3}`, "← add", `"sum":5`, "mcpkit: tokens: 304 in, 36 out in 2 request(s)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if body := srv.Requests()[0].JSON; body["model"] != "gpt-4o" {
		t.Errorf("model %v", body["model"])
	}
}

// Two servers: their tools are offered as SERVER__TOOL, and a call reaches the
// right one.
func TestHostTwoServersAnthropic(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test",
		llmtest.Reply{Body: llmtest.Anthropic("", llmtest.Call{ID: "toolu_1", Name: "two__echo", Args: `{"message":"via two"}`}), Check: func(t testing.TB, body map[string]any) {
			names := map[string]bool{}
			for _, tool := range body["tools"].([]any) {
				names[tool.(map[string]any)["name"].(string)] = true
			}
			if !names["one__echo"] || !names["two__echo"] || names["echo"] {
				t.Errorf("tool names %v", names)
			}
		}},
		llmtest.Reply{Body: llmtest.Anthropic("Two said hello via two.")})
	env := []string{"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + srv.BaseURL()}
	out, errOut, code := runHostCmd(t, env, "", "--model", "anthropic:claude-sonnet-4-5", "--server", "one="+mcpkitBin+" serve",
		"--server", "two="+mcpkitBin+" serve", "-p", "echo via two", "--yes", "--tool-search", "off") // every definition, to check the names
	if code != 0 || out != "Two said hello via two.\n" || !strings.Contains(errOut, "← two__echo: hello via two") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// Without --yes and without a terminal, a tool call is declined (and the
// model told); the prompt comes from standard input.
func TestHostDeclinesWithoutTerminal(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "c1", Name: "echo", Args: `{"message":"x"}`})},
		llmtest.Reply{Body: llmtest.OpenAI("I was not allowed."), Check: func(t testing.TB, body map[string]any) {
			msgs := llmtest.Messages(body)
			if first := msgs[0]; first["content"] != "echo x, please" {
				t.Errorf("the prompt sent: %v", first)
			}
			if last := msgs[len(msgs)-1]; !strings.Contains(last["content"].(string), "declined") {
				t.Errorf("the tool result sent: %v", last)
			}
		}})
	out, errOut, code := runHostCmd(t, openAIEnv(srv), "echo x, please\n", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve")
	if code != 0 || out != "I was not allowed.\n" || !strings.Contains(errOut, "mcpkit: declined echo: no terminal to ask for approval on (use --yes)") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

// --max-steps 1: the model still wants a tool after one request; the run
// stops with exit status 1 and says how to go further.
func TestHostMaxSteps(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{Name: "echo", Args: `{"message":"x"}`})})
	out, errOut, code := runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve", "-p", "loop", "--yes", "--max-steps", "1")
	if code != 1 || out != "" || !strings.Contains(errOut, "the model still wanted tools after the step limit (1); raise --max-steps") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
}

func TestHostUsageErrors(t *testing.T) {
	cases := []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--server", "x"}, `required flag(s) "model" not set`},
		{nil, []string{"--model", "gpt-4o", "--server", "x", "-p", "hi"}, `--model "gpt-4o": want PROVIDER:MODEL`},
		{nil, []string{"--model", "mistral:large", "--server", "x", "-p", "hi"}, `unknown provider "mistral"`},
		{[]string{"OPENAI_API_KEY=", "OPENAI_BASE_URL="}, []string{"--model", "openai:gpt-4o", "--server", "x", "-p", "hi"}, "openai: set OPENAI_API_KEY"},
		{[]string{"ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL="}, []string{"--model", "anthropic:claude", "--server", "x", "-p", "hi"}, "anthropic: set ANTHROPIC_API_KEY"},
		{[]string{"OPENAI_API_KEY=k"}, []string{"--model", "openai:gpt-4o", "-p", "hi"}, "no MCP server"},
		{[]string{"OPENAI_API_KEY=k"}, []string{"--model", "openai:gpt-4o", "--server", "'unterminated", "-p", "hi"}, "unterminated single quote"},
	}
	for _, c := range cases {
		_, errOut, code := runHostCmd(t, c.env, "", c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// The chat on a terminal: type a prompt, watch the answer stream, approve a
// tool call, see its result and the final answer; then a tool that asks for
// sampling, approved for the session ("a"), whose sampling request is approved
// too; /usage; Ctrl-D quits.
func TestHostChatOnATerminal(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("Let me add.", llmtest.Call{ID: "c1", Name: "add", Args: `{"a":2,"b":3}`})},
		llmtest.Reply{Body: llmtest.OpenAI("The sum is 5.")},
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "c2", Name: "sample", Args: `{"prompt":"Say hi"}`})},
		llmtest.Reply{Body: llmtest.OpenAI("Hi!")},
		llmtest.Reply{Body: llmtest.OpenAI("It said Hi!")})
	r := startPTYWith(t, ptyOptions{stdin: true, stdout: true, env: openAIEnv(srv)},
		"host", "--model", "openai:gpt-4o", "--server", mcpkitBin+" serve")
	r.waitFor("mcpkit host: openai:gpt-4o, ")
	r.waitFor("> ")
	r.send("add 2 and 3\r")
	r.waitFor("Let me add.")
	r.waitFor(`Run add {"a":2,"b":3}? [y]es, [n]o, [a]lways for this tool: `)
	r.send("y\r")
	r.waitFor(`→ add {"a":2,"b":3}`)
	r.waitFor(`← add: {"sum":5}`)
	r.waitFor("The sum is 5.")
	r.waitFor("> ")
	r.send("/usage\r")
	r.waitFor("tokens so far: 304 in, 36 out")
	r.waitFor("> ")
	r.send("sample\r")
	r.waitFor(`Run sample {"prompt":"Say hi"}? `)
	r.send("a\r")
	r.waitFor(`Server mcpkit asks the model: "Say hi" (at most 100 tokens). Allow? `)
	r.send("y\r")
	r.waitFor("← sample: Hi! (model " + llmtest.OpenAIModel + ")")
	r.waitFor("It said Hi!")
	r.waitFor("> ")
	r.send("\x04") // Ctrl-D
	_, screen, code := r.wait()
	if code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%s", code, screen)
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d model replies unused", srv.Remaining())
	}
}

// --header reaches a server over HTTP that refuses requests without it: the
// value comes from the environment (${env:VAR}), a header scoped to another
// server is not sent, and the secret never shows on stderr.
func TestHostHeaderReachesHTTPServer(t *testing.T) {
	backend, err := url.Parse(serveHTTPForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	var refused, wrongScope atomic.Int32
	front := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Other") != "" {
			wrongScope.Add(1)
		}
		if r.Header.Get("X-Api-Key") != "s3cret-value" {
			refused.Add(1)
			http.Error(w, "missing API key", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	srv := llmtest.NewOpenAI(t, "sk-test",
		llmtest.Reply{Body: llmtest.OpenAI("", llmtest.Call{ID: "c1", Name: "add", Args: `{"a":4,"b":5}`})},
		llmtest.Reply{Body: llmtest.OpenAI("4 + 5 = 9"), Check: func(t testing.TB, body map[string]any) {
			msgs := llmtest.Messages(body)
			if last := msgs[len(msgs)-1]; !strings.Contains(last["content"].(string), `"sum":9`) {
				t.Errorf("the tool result sent: %v", last)
			}
		}})
	env := append(openAIEnv(srv), "TEST_API_KEY=s3cret-value")
	out, errOut, code := runHostCmd(t, env, "", "--model", "openai:gpt-4o", "--server", "api="+front.URL+"/mcp",
		"--header", "Authorization: Bearer static", "--header", "api=X-Api-Key: ${env:TEST_API_KEY}", "--header", "other=X-Other: no",
		"-p", "add 4 and 5", "--yes")
	if code == 0 {
		t.Fatalf("a --header naming no server was accepted: stdout %q, stderr:\n%s", out, errOut)
	}
	if !strings.Contains(errOut, "no --server URL is named other") {
		t.Errorf("stderr does not say which --header is wrong:\n%s", errOut)
	}
	out, errOut, code = runHostCmd(t, env, "", "--model", "openai:gpt-4o", "--server", "api="+front.URL+"/mcp",
		"--header", "Authorization: Bearer static", "--header", "api=X-Api-Key: ${env:TEST_API_KEY}",
		"-p", "add 4 and 5", "--yes", "-v")
	if code != 0 || out != "4 + 5 = 9\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	if strings.Contains(errOut, "s3cret-value") {
		t.Errorf("the secret header value is on stderr:\n%s", errOut)
	}
	if wrongScope.Load() != 0 {
		t.Error("a header scoped to another server was sent")
	}
	// Without the header the server refuses, and host says so.
	refusedBefore := refused.Load()
	_, errOut, code = runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", "api="+front.URL+"/mcp",
		"--header", "Authorization: Bearer static", "-p", "add 4 and 5", "--yes")
	if code == 0 || refused.Load() == refusedBefore {
		t.Errorf("without X-Api-Key: exit %d, refused %d times; stderr:\n%s", code, refused.Load()-refusedBefore, errOut)
	}
	// An unset variable is named, and the header's value is not printed.
	_, errOut, code = runHostCmd(t, openAIEnv(srv), "", "--model", "openai:gpt-4o", "--server", "api="+front.URL+"/mcp",
		"--header", "X-Api-Key: ${env:MCPKIT_TEST_UNSET_KEY}", "-p", "x", "--yes")
	if code == 0 || !strings.Contains(errOut, "MCPKIT_TEST_UNSET_KEY") || !strings.Contains(errOut, "X-Api-Key") {
		t.Errorf("an unset variable in --header: exit %d, stderr:\n%s", code, errOut)
	}
}

// A malformed --header is refused by its position, without echoing its
// value (which may be a secret).
func TestParseHeaderFlagHidesValue(t *testing.T) {
	_, err := parseHeaderFlags([]string{"X-A: 1", "Bearer sk-very-secret"}, true)
	if err == nil || strings.Contains(err.Error(), "sk-very-secret") || !strings.Contains(err.Error(), "#2") {
		t.Errorf("err = %v", err)
	}
	hs, err := parseHeaderFlags([]string{"one=x-key: a:b", "X-All: c"}, true)
	if err != nil || hs[0].server != "one" || hs[0].name != "X-Key" || hs[0].value != "a:b" || hs[1].server != "" {
		t.Fatalf("parsed %+v, %v", hs, err)
	}
	h, err := headerFor(hs, "two")
	if err != nil || h.Get("X-Key") != "" || h.Get("X-All") != "c" {
		t.Errorf("headers of server two: %v, %v", h, err)
	}
}
