package jsonscan

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// metaText is a message-like text whose _meta member holds meta.
func metaText(meta string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"params":{"_meta":` + meta + `,"name":"echo"}}`)
}

// remembered reports whether the memo holds meta.
func remembered(meta string) bool {
	for i := range memoTable {
		for w := range memoTable[i].ways {
			if e := memoTable[i].ways[w].Load(); e != nil && e.text == meta {
				return true
			}
		}
	}
	return false
}

// skipMemoSameAsReference fails t unless SkipValue of text, three times in a
// row (so that the memo keeps what it can and then answers from it), with and
// without an exponent limit, ends where the memo-free reference ends, with
// the same error.
func skipMemoSameAsReference(t *testing.T, text []byte) {
	t.Helper()
	for _, maxExp := range []int{0, 2, 0} {
		for range 3 {
			got := Scanner{Data: text, MaxExponent: maxExp}
			want := got
			err, wantErr := got.SkipValue(0), referenceSkipValue(&want, 0)
			if err != wantErr || got.Pos != want.Pos {
				t.Fatalf("SkipValue of %q, MaxExponent %d = %v, Pos %d; the reference says %v, Pos %d",
					text, maxExp, err, got.Pos, wantErr, want.Pos)
			}
		}
	}
}

// TestMetaMemo: a _meta object met twice is remembered and then skipped by
// comparison; texts that only resemble it are scanned, with the verdict a
// scan gives.
func TestMetaMemo(t *testing.T) {
	meta := `{"io.modelcontextprotocol/clientCapabilities":{"sampling":{"tools":{}},"n":1e5},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	text := metaText(meta)
	skipMemoSameAsReference(t, text)
	if !remembered(meta) {
		t.Fatalf("the memo does not hold %s after it was met again and again", meta)
	}
	// Met once only: not kept.
	once := strings.Replace(meta, "2026-07-28", "2026-07-29", 1)
	s := Scanner{Data: metaText(once)}
	if err := s.SkipValue(0); err != nil || remembered(once) {
		t.Fatalf("a _meta met once: %v, remembered %v", err, remembered(once))
	}
	// Longer than memoMaxLen: never kept, however often met.
	long := `{"k":"` + strings.Repeat("x", memoMaxLen) + `"}`
	skipMemoSameAsReference(t, metaText(long))
	if remembered(long) {
		t.Fatalf("the memo keeps a _meta of %d bytes, more than %d", len(long), memoMaxLen)
	}
	for _, c := range []string{
		meta[:len(meta)-1], // a prefix of it: the text ends inside the object
		strings.Replace(meta, `"tools"`, `"tool"}`, 1), // the same start, broken inside
		strings.Replace(meta, "1e5", "1e500", 1),       // an exponent beyond MaxExponent 2 and one more digit
		meta + `}`,                                     // it, then a syntax error after it
		strings.Replace(meta, `"n"`, `"n" `, 1),        // the same object with white space: scanned, then kept too
	} {
		skipMemoSameAsReference(t, metaText(c))
	}
	// Remembered without an exponent limit, the object holds 1e5: under
	// MaxExponent 2 it is refused all the same.
	s = Scanner{Data: text, MaxExponent: 2}
	if err := s.SkipValue(0); err != ErrExponent {
		t.Fatalf("SkipValue under MaxExponent 2 = %v, want ErrExponent", err)
	}
	// Members and Valid go through the memo too.
	var got []byte
	inner := text[strings.Index(string(text), `{"_meta"`):]
	inner = inner[:len(inner)-1]
	if !EachMember(inner, func(key []byte, _ bool, value []byte) bool {
		if string(key) == "_meta" {
			got = value
		}
		return true
	}) || string(got) != meta {
		t.Fatalf("EachMember gave _meta %q, want %s", got, meta)
	}
	if !Valid(text) || Valid(metaText(meta[:len(meta)-1])) {
		t.Fatal("Valid disagrees with the memo's texts")
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = (&Scanner{Data: text}).SkipValue(0) }); allocs != 0 {
		t.Errorf("SkipValue of a remembered _meta: %v allocations per run, want 0", allocs)
	}
}

// TestMetaMemoBounds: more objects than the memo holds, met over and over
// from several goroutines, are each skipped as a scan would (the race
// detector watches the memo's sharing). (How many it holds needs no test: its
// table is an array.)
func TestMetaMemoBounds(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 3 {
				for i := range 2 * memoSetCount * memoWays {
					meta := fmt.Sprintf(`{"io.modelcontextprotocol/clientInfo":{"name":"client-%d","version":"%d"}}`, i, g)
					text := metaText(meta)
					s := Scanner{Data: text}
					if err := s.SkipValue(0); err != nil || s.Pos != len(text) {
						t.Errorf("round %d, %s: %v at %d of %d", round, meta, err, s.Pos, len(text))
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// FuzzMetaMemo holds SkipValue to the memo-free reference on texts whose
// _meta is the input and on texts whose _meta differs from the input, once it
// may be remembered, in one byte.
func FuzzMetaMemo(f *testing.F) {
	for _, s := range []string{
		`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{}}},"v":"2026-07-28"}`,
		`{"io.modelcontextprotocol/serverInfo":{"name":"bench-mcpkit","version":"1.0.0"},"n":[1,2e3,-0.5]}`,
		`{"a":"` + strings.Repeat("y", 70) + `"}`, `{"a":1}`, `{`, `[1,2]`, `null`,
	} {
		f.Add([]byte(s), 10, byte('x'))
	}
	f.Fuzz(func(t *testing.T, meta []byte, at int, b byte) {
		if len(meta) > memoMaxLen+16 {
			t.Skip("longer objects are never kept")
		}
		skipMemoSameAsReference(t, metaText(string(meta)))
		if len(meta) > 0 {
			changed := bytes.Clone(meta)
			changed[uint(at)%uint(len(changed))] = b
			skipMemoSameAsReference(t, metaText(string(changed)))
		}
	})
}
