package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/ext/skills"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

const skillsFixture = "../../ext/skills/testdata/skills"

// serveSkills serves the fixture's skills (and extra) over HTTP in this
// process until the test ends, and returns the endpoint's URL.
func serveSkills(t *testing.T, extra fstest.MapFS) string {
	t.Helper()
	sk := skills.NewServer(&skills.Options{DirectoryRead: true})
	if err := sk.AddDir(skillsFixture, ""); err != nil {
		t.Fatal(err)
	}
	if extra != nil {
		if err := sk.AddFS(extra, "extra"); err != nil {
			t.Fatal(err)
		}
	}
	srv := mcp.NewServer(protocol.Implementation{Name: "skills", Version: "1"}, nil)
	sk.Register(srv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcpkit.Serve(ctx, ln, srv, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String() + "/mcp"
}

func TestSkillsListShowPull(t *testing.T) {
	url := serveSkills(t, fstest.MapFS{"loud/SKILL.md": {Data: []byte("---\nname: loud\ndescription: \"\\e[31mred\\e[0m\"\n---\n")}})
	out, errOut, code := runURL(t, url, "skills", "list")
	if code != 0 || !strings.Contains(out, "skill://pdf-processing/SKILL.md  pdf-processing (3 files) — Extract") {
		t.Fatalf("list: %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `\x1b[31mred`) {
		t.Fatalf("a description's escape sequence reached the terminal:\n%q", out)
	}
	out, _, code = runURL(t, url, "skills", "show", "skill://pdf-processing/SKILL.md")
	if code != 0 || !strings.Contains(out, "skill://pdf-processing/references/FORMS.md  ") || !strings.Contains(out, "sha256:") {
		t.Fatalf("show: %d\n%s", code, out)
	}
	dir := filepath.Join(t.TempDir(), "pulled")
	out, errOut, code = runURL(t, url, "skills", "pull", "skill://pdf-processing/SKILL.md", dir)
	if code != 0 {
		t.Fatalf("pull: %d\n%s\n%s", code, out, errOut)
	}
	for _, rel := range []string{"SKILL.md", "references/FORMS.md", "scripts/extract.py"} {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		want, _ := os.ReadFile(filepath.Join(skillsFixture, "pdf-processing", rel))
		if err != nil || string(got) != string(want) {
			t.Fatalf("pulled %s: %q %v", rel, got, err)
		}
	}
	// Pulling again does not overwrite.
	if _, errOut, code = runURL(t, url, "skills", "pull", "skill://pdf-processing/SKILL.md", dir); code == 0 || !strings.Contains(errOut, "already exists") {
		t.Fatalf("a second pull: %d %s", code, errOut)
	}
	if _, errOut, code = runURL(t, url, "skills", "show", "skill://nope/SKILL.md"); code == 0 || !strings.Contains(errOut, "-32602") && !strings.Contains(errOut, "No skill") {
		t.Fatalf("show of an unknown skill: %d %s", code, errOut)
	}
}

// A symbolic link planted in the destination is never followed: neither a
// directory link leading out nor a file link.
func TestSkillsPullIgnoresPlantedSymlinks(t *testing.T) {
	url := serveSkills(t, nil)
	outside := t.TempDir()
	for name, plant := range map[string]func(dir string) error{
		"dir":  func(dir string) error { return os.Symlink(outside, filepath.Join(dir, "references")) },
		"file": func(dir string) error { return os.Symlink(filepath.Join(outside, "x"), filepath.Join(dir, "SKILL.md")) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := plant(dir); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := runURL(t, url, "skills", "pull", "skill://pdf-processing/SKILL.md", dir); code == 0 {
				t.Fatalf("pull through a planted %s symlink succeeded: %s", name, errOut)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("the pull wrote outside its directory: %v", entries)
			}
			// SKILL.md is written last: a failed pull leaves no loadable skill.
			if fi, err := os.Lstat(filepath.Join(dir, "SKILL.md")); name == "dir" && err == nil {
				t.Fatalf("a failed pull left a SKILL.md: %v", fi.Mode())
			}
		})
	}
}

// A server without the extension lists no skills, and says so.
func TestSkillsListWithoutTheExtension(t *testing.T) {
	out, errOut, code := run(t, "skills", "list")
	if code != 0 || out != "" || !strings.Contains(errOut, "does not declare io.modelcontextprotocol/skills") {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
}
