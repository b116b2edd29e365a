package interop

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// skillsFixture holds two skills (one under a prefix, one with
// subdirectories), read by both SDKs' servers.
const skillsFixture = "../ext/skills/testdata/skills"

// echoParams and echoResult are the custom method acme/echo both servers offer.
type echoParams struct {
	Text string `json:"text"`
}

// mcpkitSkillsServer is the fixture served by mcpkit with directoryRead, and
// acme/echo answering {echo, version}.
func mcpkitSkillsServer(t *testing.T) (*mcp.Server, *skills.Server) {
	t.Helper()
	sk := skills.NewServer(&skills.Options{DirectoryRead: true, PageSize: 1})
	if err := sk.AddDir(skillsFixture, ""); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(protocol.Implementation{Name: "mcpkit-skills", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	sk.Register(srv)
	mcp.AddRequestHandler(srv, "acme/echo", func(ctx context.Context, r *mcp.Request, p *echoParams) (map[string]string, error) {
		return map[string]string{"echo": p.Text, "version": r.ProtocolVersion()}, nil
	}, nil)
	return srv, sk
}

// skillsStep is one step of ts2_skills_client.mjs's report.
type skillsStep struct {
	OK    bool            `json:"ok"`
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
	Code  json.RawMessage `json:"code"` // a JSON-RPC code, or the SDK's own error name
}

// TestMcpkitSkillsServerWithTypeScriptClient has the TypeScript SDK 2.4.0's
// SkillsClient read mcpkit's skills server over Streamable HTTP, detecting the
// era (2026-07-28) and as a legacy client: it lists (two pages), gets, reads
// and verifies SKILL.md and a supporting file, reads a directory, gets -32602
// for an unknown skill, and calls mcpkit's custom method acme/echo (and gets
// -32602 for wrong params).
func TestMcpkitSkillsServerWithTypeScriptClient(t *testing.T) {
	node := requirePeers(t)
	srv, _ := mcpkitSkillsServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcpkit.Serve(ctx, ln, srv, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	url := "http://" + ln.Addr().String() + "/mcp"
	for _, tc := range []struct{ negotiation, version string }{{"auto", protocol.Version20260728}, {"legacy", protocol.LatestLegacy}} {
		t.Run(tc.negotiation, func(t *testing.T) {
			var report struct {
				Fatal         string `json:"fatal"`
				Supported     bool   `json:"supported"`
				DirectoryRead bool   `json:"directoryRead"`
				List, Get, ReadSkill, ReadForms, ReadDirectory,
				GetUnknown, Echo, EchoWrongParams skillsStep
			}
			stderr, err := runNodeReport(t, nil, &report, node, "ts2_skills_client.mjs", tc.negotiation, url)
			if err != nil || report.Fatal != "" {
				t.Fatalf("ts2_skills_client.mjs: %v %s\n%s", err, report.Fatal, stderr)
			}
			if !report.Supported || !report.DirectoryRead {
				t.Fatalf("the TypeScript client does not see the extension: %+v", report)
			}
			want := map[string]string{
				"List":          `["skill://acme/billing/refunds/SKILL.md","skill://pdf-processing/SKILL.md"]`,
				"ReadSkill":     `{"verified":true,"name":"pdf-processing","bytes":`,
				"ReadForms":     `{"verified":true,"text":"# Form fields`,
				"ReadDirectory": `"skill://pdf-processing/references inode/directory"`,
				"Echo":          `{"echo":"from ts","version":"` + tc.version + `"}`,
			}
			got := map[string]skillsStep{"List": report.List, "ReadSkill": report.ReadSkill, "ReadForms": report.ReadForms,
				"ReadDirectory": report.ReadDirectory, "Echo": report.Echo, "Get": report.Get}
			for name, w := range want {
				if s := got[name]; !s.OK || !strings.Contains(string(s.Value), w) {
					t.Errorf("%s: %+v, want %s", name, s, w)
				}
			}
			if !report.Get.OK || !strings.Contains(string(report.Get.Value), `"files":3`) {
				t.Errorf("get: %+v", report.Get)
			}
			for name, s := range map[string]skillsStep{"getUnknown": report.GetUnknown, "echoWrongParams": report.EchoWrongParams} {
				if s.OK || string(s.Code) != "-32602" {
					t.Errorf("%s: %+v, want -32602", name, s)
				}
			}
		})
	}
}

// TestTypeScriptSkillsServerWithMcpkitClient has mcpkit's skills.Client read
// the TypeScript SDK 2.4.0's skills server (loadSkills over the same
// fixture, on stdio) in both eras: the entries are the ones mcpkit's own
// server computes (digests, sizes, frontmatter), SKILL.md and a supporting file
// load verified, a directory reads, and mcpkit calls the TypeScript server's
// custom method acme/echo (with -32602 for wrong params) and reads its other
// extension's declaration.
func TestTypeScriptSkillsServerWithMcpkitClient(t *testing.T) {
	node := requirePeers(t)
	_, own := mcpkitSkillsServer(t)
	ownSrv := mcp.NewServer(protocol.Implementation{Name: "own", Version: "1"}, nil)
	own.Register(ownSrv)
	for _, tc := range []struct{ version, era string }{{protocol.Version20260728, "modern"}, {protocol.LatestLegacy, "legacy"}} {
		t.Run(tc.version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			client := mcp.NewClient(protocol.Implementation{Name: "mcpkit", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: tc.version})
			cs, _ := startNodeServer(ctx, t, node, client, newEventLog(), "ts2_skills_server.mjs", skillsFixture)
			defer cs.Close()
			if cs.ProtocolVersion() != tc.version {
				t.Fatalf("session at %s", cs.ProtocolVersion())
			}
			c := skills.NewClient(cs)
			if !c.Supported() || !c.DirectoryRead() {
				t.Fatal("the TypeScript server's declaration is not seen")
			}
			if _, ok := cs.ServerExtension("com.example/acme"); !ok {
				t.Error("the TypeScript server's second extension is not seen")
			}
			var uris []string
			var pdf skills.Skill
			for s, err := range c.All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				uris = append(uris, s.URI)
				if s.URI == "skill://pdf-processing/SKILL.md" {
					pdf = s
				}
			}
			if !slices.Equal(uris, []string{"skill://acme/billing/refunds/SKILL.md", "skill://pdf-processing/SKILL.md"}) {
				t.Fatalf("skills %v", uris)
			}
			// Both SDKs describe the same files identically.
			ownCS, _ := startInProcess(t, ownSrv)
			mine, err := skills.NewClient(ownCS).Get(ctx, pdf.URI)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(mine.Resources, pdf.Resources) || !reflect.DeepEqual(mine.Frontmatter, pdf.Frontmatter) {
				t.Fatalf("entries differ:\nmcpkit     %+v\ntypescript %+v", mine, pdf)
			}
			l, err := c.Load(ctx, &pdf)
			if err != nil {
				t.Fatal(err)
			}
			if data, err := l.ReadFile(ctx, "skill://pdf-processing/references/FORMS.md"); err != nil || !strings.Contains(string(data), "signature") {
				t.Fatalf("FORMS.md: %q %v", data, err)
			}
			dir, err := c.ReadDir(ctx, "skill://pdf-processing", "")
			if err != nil || !slices.ContainsFunc(dir.Resources, func(r protocol.Resource) bool {
				return r.URI == "skill://pdf-processing/references" && r.MimeType == skills.DirectoryMimeType
			}) {
				t.Fatalf("directory read: %+v %v", dir, err)
			}
			if _, err := c.Get(ctx, "skill://nope/SKILL.md"); !isCode(err, protocol.CodeInvalidParams) {
				t.Errorf("an unknown skill: %v", err)
			}
			var echo struct{ Echo, Era string }
			if err := cs.Call(ctx, "acme/echo", echoParams{Text: "from mcpkit"}, &echo); err != nil || echo.Echo != "from mcpkit" || echo.Era != tc.era {
				t.Fatalf("acme/echo: %+v %v", echo, err)
			}
			if err := cs.Call(ctx, "acme/echo", map[string]any{"text": 5}, nil); !isCode(err, protocol.CodeInvalidParams) {
				t.Errorf("acme/echo with wrong params: %v", err)
			}
		})
	}
}

func isCode(err error, code int64) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == code
}

// startInProcess connects a client to srv over an in-memory pair.
func startInProcess(t *testing.T, srv *mcp.Server) (*mcp.ClientSession, error) {
	t.Helper()
	c, s := memory.NewPair()
	if _, err := srv.Connect(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "own", Version: "1"}, nil).Connect(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, nil
}
