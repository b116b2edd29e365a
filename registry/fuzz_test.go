package registry

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any bytes are parsed or refused without a panic, and what Parse
// accepts can be asked for its needs and launched.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/examples/*/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(append(append([]byte(`{"server":`), data...), `,"_meta":{}}`...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse(data)
		if err != nil {
			return
		}
		vals := Values{Env: map[string]string{"API_KEY": "k"}, Vars: map[string]string{"host": "h"}}
		for i := range e.Server.Packages {
			p := &e.Server.Packages[i]
			p.Needs()
			p.Launch(vals)
		}
		for i := range e.Server.Remotes {
			r := &e.Server.Remotes[i]
			r.Needs()
			r.Launch(vals)
		}
		if _, err := e.Server.Marshal(); err != nil {
			t.Fatalf("a parsed server does not marshal back valid: %v", err)
		}
	})
}

// FuzzUnzip: any archive bytes are unpacked or refused, and nothing is ever
// written outside the target directory.
func FuzzUnzip(f *testing.F) {
	files, _ := filepath.Glob("testdata/bundles/*.zip")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		archive := filepath.Join(root, "a.zip")
		if err := os.WriteFile(archive, data, 0o600); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "out")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		unzip(archive, dir, 1<<20, 100) // small bounds: a zip bomb costs little
		entries, _ := os.ReadDir(root)
		if len(entries) != 2 {
			t.Fatalf("unzip wrote beside its directory: %v", entries)
		}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSymlink != 0 {
				t.Fatalf("unzip made a symlink: %s", p)
			}
			return nil
		})
	})
}
