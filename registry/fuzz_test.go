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
