//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantedRepo makes a repository's .vscode/mcp.json and a victim file outside
// it (the user's ~/.bashrc), and returns the config's path and the victim's.
func plantedRepo(t *testing.T) (config, victim string) {
	t.Helper()
	root := t.TempDir()
	victim = filepath.Join(root, "home", "bashrc")
	config = filepath.Join(root, "proj", ".vscode", "mcp.json")
	for _, d := range []string{filepath.Dir(victim), filepath.Dir(config)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(victim, []byte("precious user data\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(`{"servers": {"demo": {"command": "mcpkit", "args": ["serve"]}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, victim
}

func assertUntouched(t *testing.T, victim string) {
	t.Helper()
	if data, err := os.ReadFile(victim); err != nil || string(data) != "precious user data\n" {
		t.Errorf("the victim file now holds %q (%v)", data, err)
	}
}

// TestTapInstallDoesNotWriteThroughPlantedSymlinks (break-it-review T3): a
// repository that ships a symlink where install used to put its temporary file
// does not get the user's file overwritten, and the config stays a plain file;
// symlinks planted as the backup or the state file are not written through
// either (install refuses the planted state; the backup link is replaced).
func TestTapInstallDoesNotWriteThroughPlantedSymlinks(t *testing.T) {
	t.Run("temporary file", func(t *testing.T) {
		config, victim := plantedRepo(t)
		if err := os.Symlink(victim, config+".mcpkit-tap.tmp"); err != nil {
			t.Fatal(err)
		}
		if out, errOut, code := runCLI(t, nil, "tap", "install", "--host", config, "--out", t.TempDir()); code != 0 {
			t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
		}
		assertUntouched(t, victim)
		if fi, err := os.Lstat(config); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("the config became %v (%v)", fi.Mode(), err)
		}
		if data, _ := os.ReadFile(config); !strings.Contains(string(data), `"tap"`) {
			t.Errorf("the config was not rewritten:\n%s", data)
		}
	})
	for _, planted := range []string{".mcpkit-tap.bak", ".mcpkit-tap.json"} {
		t.Run(planted, func(t *testing.T) {
			config, victim := plantedRepo(t)
			if err := os.Symlink(victim, config+planted); err != nil {
				t.Fatal(err)
			}
			_, errOut, code := runCLI(t, nil, "tap", "install", "--host", config, "--out", t.TempDir())
			if code == 0 || !strings.Contains(errOut, "not a regular file") {
				t.Errorf("exit %d, stderr %q; want a refusal", code, errOut)
			}
			assertUntouched(t, victim)
		})
	}
}

// TestTapInstallKeepsASymlinkedConfig (T3, second face): a config kept in a
// dotfiles directory and linked into place is edited in the dotfiles copy, and
// stays a link after install and after uninstall.
func TestTapInstallKeepsASymlinkedConfig(t *testing.T) {
	path, original := copyFixture(t, "cursor_mcp.json")
	link := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	isLink := func(when string) {
		t.Helper()
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("after %s the config is %v (%v), not a link", when, fi.Mode(), err)
		}
	}
	if out, errOut, code := runCLI(t, nil, "tap", "install", "--host", link, "--out", t.TempDir()); code != 0 {
		t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
	}
	isLink("install")
	if data, _ := os.ReadFile(path); !strings.Contains(string(data), `"tap"`) {
		t.Errorf("the linked file was not rewritten:\n%s", data)
	}
	if out, errOut, code := runCLI(t, nil, "tap", "uninstall", "--host", link); code != 0 {
		t.Fatalf("uninstall: exit %d\n%s%s", code, out, errOut)
	}
	isLink("uninstall")
	if data, _ := os.ReadFile(path); string(data) != string(original) {
		t.Errorf("uninstall did not restore the linked file:\n%s", data)
	}
}
