//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReplaceKeepsASymlinkedFileALink: a configuration that is a symlink gets
// new contents in the file it points to, with its permissions, and stays a
// link.
func TestReplaceKeepsASymlinkedFileALink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "mcp.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link became %v (%v)", fi.Mode(), err)
	}
	if got := read(t, real); got != "new" {
		t.Errorf("the target holds %q", got)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(real))
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestPlantedSymlinksAreNotWrittenThrough: a symlink where the old fixed
// temporary name was, where an own file goes, or dangling in the file's place
// never gets the data written into what it points to.
func TestPlantedSymlinksAreNotWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "bashrc")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(conf, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mcp.json.tmp", ".mcp.json.tmp", "mcp.json.mcpkit-tap.tmp"} {
		if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := Replace(conf, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(dir, "mcp.json.bak")
	if err := os.Symlink(victim, own); err != nil {
		t.Fatal(err)
	}
	if err := WriteOwn(own, []byte("backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(own); !fi.Mode().IsRegular() || read(t, own) != "backup" {
		t.Errorf("the own file is %v holding %q", fi.Mode(), read(t, own))
	}
	dangling := filepath.Join(dir, "state.json")
	if err := os.Symlink(filepath.Join(dir, "created-elsewhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := Replace(dangling, []byte("x"), 0o600); err == nil || !strings.Contains(err.Error(), "missing file") {
		t.Errorf("dangling link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "created-elsewhere")); err == nil {
		t.Error("a dangling link's target was created")
	}
	if got := read(t, victim); got != "precious" {
		t.Errorf("the victim holds %q", got)
	}
	if _, err := ReadOwn(filepath.Join(dir, "mcp.json.tmp")); err == nil {
		t.Error("ReadOwn read through a symlink")
	}
}
