package requeststate

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// FuzzOpen feeds arbitrary strings to Open: it must never panic, every error
// must match ErrInvalidState, and nothing but the one state the test sealed
// may ever open.
func FuzzOpen(f *testing.F) {
	// The fuzzer runs this setup in several processes; the one valid state
	// must be the same in all of them, hence a fixed clock and nonce.
	kr := newTestKeyring(f, testKey("k1", 1), testKey("k2", 2))
	clock := testkit.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	kr.SetClock(clock.Now)
	b := mustBinding(f, "tools/call", "t", `{"a":1}`, "p")
	valid, err := kr.seal(b, []byte("secret-progress"), time.Hour, bytes.NewReader(make([]byte, nonceSize)))
	if err != nil {
		f.Fatal(err)
	}
	raw, _ := encoding.DecodeString(valid)
	f.Add(valid)
	f.Add("")
	f.Add("AQJrMQ")
	f.Add(valid[:len(valid)-1])
	f.Add(valid + "A")
	f.Add(encoding.EncodeToString(raw[:len(raw)-tagSize]))
	f.Add(encoding.EncodeToString(append([]byte{1, 2, 'k', '2'}, raw[4:]...)))
	f.Add(encoding.EncodeToString(bytes.Repeat([]byte{1}, 100)))
	f.Fuzz(func(t *testing.T, state string) {
		got, err := kr.Open(b, state)
		if err == nil {
			if state != valid {
				t.Fatalf("a state the keyring never sealed opened: %q -> %q", state, got)
			}
			if string(got) != "secret-progress" {
				t.Fatalf("valid state opened to %q", got)
			}
			return
		}
		if got != nil || !errors.Is(err, ErrInvalidState) {
			t.Fatalf("Open(%q) = %q, %v", state, got, err)
		}
	})
}

// FuzzDigestArguments checks the canonical form: no panic, only valid JSON is
// accepted, the output is valid JSON with the same meaning, and
// canonicalising twice changes nothing.
func FuzzDigestArguments(f *testing.F) {
	for _, s := range []string{``, `null`, `{}`, `{"b":1,"a":[1,2,{"d":null,"c":true}]}`, `{"s":"\u00e9\n"}`,
		`{"a":1,"a":2}`, `[1,2`, `1e400`, `"\ud800"`, "\"\xff\"", ` {"x" : -0.0E-1} `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		canon, err := canonicalJSON(in)
		if err != nil {
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("error %v does not match ErrInvalidArguments", err)
			}
			return
		}
		trimmed := bytes.Trim(in, " \t\r\n")
		if len(trimmed) != 0 && !json.Valid(in) {
			t.Fatalf("accepted invalid JSON %q", in)
		}
		if !json.Valid(canon) {
			t.Fatalf("canonical form %q of %q is not valid JSON", canon, in)
		}
		again, err := canonicalJSON(canon)
		if err != nil || !bytes.Equal(again, canon) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, canon, again, err)
		}
		// encoding/json turns invalid UTF-8 into U+FFFD, so two distinct keys can
		// collapse into one there while the canonical form keeps their bytes (as a
		// digest must): compare meanings only for valid UTF-8.
		if len(trimmed) != 0 && string(trimmed) != "null" && utf8.Valid(in) {
			var a, c any
			if json.Unmarshal(in, &a) == nil && json.Unmarshal(canon, &c) == nil && !reflect.DeepEqual(a, c) {
				t.Fatalf("meaning changed: %q -> %q", in, canon)
			}
		}
	})
}
