package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// skipAll runs SkipValue on the whole of data, as a decoder does on one text.
func skipAll(data []byte) error {
	s := Scanner{Data: data}
	s.SkipSpace()
	if err := s.SkipValue(0); err != nil {
		return err
	}
	s.SkipSpace()
	if s.Pos != len(data) {
		return ErrSyntax
	}
	return nil
}

func TestSkipValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want error
	}{
		{`null`, nil},
		{`true`, nil},
		{`false`, nil},
		{`0`, nil},
		{`-0.5e+10`, nil},
		{`""`, nil},
		{`"a\"b\\c\/\b\f\n\r\t\u00e9\uD83D\uDE00"`, nil},
		{`{}`, nil},
		{`[]`, nil},
		{" { \"a\" : [ 1 , {\"b\":null} , \"x\" ] ,\n\t\"c\":{}\r} ", nil},
		{`[[[[[]]]]]`, nil},
		{"\"\xff\xfe\"", nil}, // like json.Valid, bytes are not checked as UTF-8

		{``, ErrSyntax},
		{` `, ErrSyntax},
		{`nul`, ErrSyntax},
		{`nulll`, ErrSyntax},
		{`True`, ErrSyntax},
		{`01`, ErrSyntax},
		{`-`, ErrSyntax},
		{`1.`, ErrSyntax},
		{`.5`, ErrSyntax},
		{`1e`, ErrSyntax},
		{`1e+`, ErrSyntax},
		{`+1`, ErrSyntax},
		{`"abc`, ErrSyntax},
		{`"\x"`, ErrSyntax},
		{`"\u12G4"`, ErrSyntax},
		{`"\u12"`, ErrSyntax},
		{"\"a\tb\"", ErrSyntax},
		{`{`, ErrSyntax},
		{`{"a"}`, ErrSyntax},
		{`{"a":}`, ErrSyntax},
		{`{"a":1,}`, ErrSyntax},
		{`{a:1}`, ErrSyntax},
		{`{"a":1 "b":2}`, ErrSyntax},
		{`[1,]`, ErrSyntax},
		{`[1 2]`, ErrSyntax},
		{`[`, ErrSyntax},
		{`]`, ErrSyntax},
		{`1 2`, ErrSyntax},
		{`{} x`, ErrSyntax},
	} {
		got := skipAll([]byte(c.in))
		if got != c.want {
			t.Errorf("SkipValue(%q) = %v, want %v", c.in, got, c.want)
		}
		if (got == nil) != json.Valid([]byte(c.in)) {
			t.Errorf("SkipValue(%q) = %v, but json.Valid says %v", c.in, got, json.Valid([]byte(c.in)))
		}
	}
}

func TestSkipValueStopsAfterValue(t *testing.T) {
	data := []byte(`{"a":[1,2]} , "next"`)
	s := Scanner{Data: data}
	if err := s.SkipValue(0); err != nil {
		t.Fatal(err)
	}
	if got := string(data[:s.Pos]); got != `{"a":[1,2]}` {
		t.Errorf("consumed %q, want the object only", got)
	}
}

func TestSkipValueDepth(t *testing.T) {
	nested := func(levels int) []byte {
		return []byte(strings.Repeat("[", levels) + strings.Repeat("]", levels))
	}
	// The outermost array is at depth 0, so MaxDepth+1 levels are allowed.
	if err := skipAll(nested(MaxDepth + 1)); err != nil {
		t.Errorf("%d levels: %v, want nil", MaxDepth+1, err)
	}
	if err := skipAll(nested(MaxDepth + 2)); err != ErrDepth {
		t.Errorf("%d levels: %v, want ErrDepth", MaxDepth+2, err)
	}
	if err := skipAll([]byte(strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1))); err != ErrDepth {
		t.Errorf("objects %d deep (value inside at depth %d): %v, want ErrDepth", MaxDepth+1, MaxDepth+1, err)
	}

	// A caller with a tighter limit starts the count higher.
	const limit = 10
	for _, c := range []struct {
		levels int
		want   error
	}{{limit + 1, nil}, {limit + 2, ErrDepth}} {
		s := Scanner{Data: nested(c.levels)}
		if err := s.SkipValue(MaxDepth - limit); err != c.want {
			t.Errorf("limit %d, %d levels: %v, want %v", limit, c.levels, err, c.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		in      string
		raw     string
		escaped bool
	}{
		{`""`, ``, false},
		{`"plain"`, `plain`, false},
		{`"héllo"`, `héllo`, false},
		{`"a\nb"`, `a\nb`, true},
		{`"\u0041"`, `\u0041`, true},
		{`"\""`, `\"`, true},
		{`"x" tail`, `x`, false},
	} {
		s := Scanner{Data: []byte(c.in)}
		raw, escaped, err := s.String()
		if err != nil || string(raw) != c.raw || escaped != c.escaped {
			t.Errorf("String(%s) = %q, %v, %v; want %q, %v, nil", c.in, raw, escaped, err, c.raw, c.escaped)
		}
		if want := len(c.raw) + 2; s.Pos != want {
			t.Errorf("String(%s) left Pos at %d, want %d", c.in, s.Pos, want)
		}
	}
	for _, in := range []string{`"`, `"abc`, `"\`, `"\q"`, `"\u00"`, `"\u00zz"`, "\"\x00\"", "\"\n\""} {
		s := Scanner{Data: []byte(in)}
		if raw, escaped, err := s.String(); err != ErrSyntax || raw != nil || escaped {
			t.Errorf("String(%q) = %q, %v, %v; want nil, false, ErrSyntax", in, raw, escaped, err)
		}
		if s.Pos != 0 {
			t.Errorf("String(%q) failed but moved Pos to %d", in, s.Pos)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		in, lit string
	}{
		{`0`, `0`},
		{`-0`, `-0`},
		{`123`, `123`},
		{`1.25`, `1.25`},
		{`-1.5e-3`, `-1.5e-3`},
		{`2E+10`, `2E+10`},
		{`7,`, `7`},
		{`1]`, `1`},
		{`00`, `0`}, // a number ends at the first 0; the second is the caller's problem
	} {
		s := Scanner{Data: []byte(c.in)}
		lit, err := s.Number()
		if err != nil || string(lit) != c.lit || s.Pos != len(c.lit) {
			t.Errorf("Number(%s) = %q, %v, Pos %d; want %q, nil, Pos %d", c.in, lit, err, s.Pos, c.lit, len(c.lit))
		}
	}
	for _, in := range []string{``, `-`, `+1`, `.5`, `1.`, `1.e3`, `1e`, `1e-`, `-x`, `x`, `"1"`} {
		s := Scanner{Data: []byte(in)}
		if lit, err := s.Number(); err != ErrSyntax || lit != nil || s.Pos != 0 {
			t.Errorf("Number(%q) = %q, %v, Pos %d; want nil, ErrSyntax, Pos 0", in, lit, err, s.Pos)
		}
	}
}

func TestNumberMaxExponent(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want error
	}{
		{`1e1000`, 1000, nil},
		{`1e1001`, 1000, ErrExponent},
		{`1e-1001`, 1000, ErrExponent},
		{`1E+1001`, 1000, ErrExponent},
		{`1e0001000`, 1000, nil}, // leading zeros do not count
		{`1e99999999999999999999999999`, 1000, ErrExponent},
		{`1e99999999999999999999999999`, 0, nil},   // no limit
		{`123456789012345678901234567890`, 1, nil}, // no exponent, no limit
		{`1.5`, 1, nil},
		{`1e9`, 9, nil},
		{`1e10`, 9, ErrExponent},
		{`1e9223372036854775807`, math.MaxInt, nil},
		{`1e9223372036854775808`, math.MaxInt, ErrExponent},
		{`1e99999999999999999999`, math.MaxInt, ErrExponent},
	} {
		s := Scanner{Data: []byte(c.in), MaxExponent: c.max}
		lit, err := s.Number()
		if err != c.want {
			t.Errorf("Number(%s) with MaxExponent %d: %v, want %v", c.in, c.max, err, c.want)
			continue
		}
		if err == nil && string(lit) != c.in {
			t.Errorf("Number(%s) = %q", c.in, lit)
		}
		if err != nil && s.Pos != 0 {
			t.Errorf("Number(%s) failed but moved Pos to %d", c.in, s.Pos)
		}
	}
	// SkipValue applies the limit to numbers anywhere inside the value.
	s := Scanner{Data: []byte(`{"a":[1,{"b":2e1001}]}`), MaxExponent: 1000}
	if err := s.SkipValue(0); !errors.Is(err, ErrExponent) {
		t.Errorf("SkipValue with a huge nested number: %v, want ErrExponent", err)
	}
}

func TestLiteral(t *testing.T) {
	for _, c := range []struct {
		in, word string
		want     error
		pos      int
	}{
		{`true`, "true", nil, 4},
		{`false,`, "false", nil, 5},
		{`null}`, "null", nil, 4},
		{`tru`, "true", ErrSyntax, 0},
		{`nul1`, "null", ErrSyntax, 0},
		{``, "false", ErrSyntax, 0},
	} {
		s := Scanner{Data: []byte(c.in)}
		if err := s.Literal(c.word); err != c.want || s.Pos != c.pos {
			t.Errorf("Literal(%q) on %q = %v, Pos %d; want %v, Pos %d", c.word, c.in, err, s.Pos, c.want, c.pos)
		}
	}
}

func TestSpaceAndPeek(t *testing.T) {
	s := Scanner{Data: []byte(" \t\r\n x ")}
	s.SkipSpace()
	if s.Pos != 5 || s.Peek() != 'x' {
		t.Errorf("after SkipSpace: Pos %d, Peek %q; want 5, 'x'", s.Pos, s.Peek())
	}
	s.SkipSpace() // not at space: no move
	if s.Pos != 5 {
		t.Errorf("SkipSpace at a non-space byte moved Pos to %d", s.Pos)
	}
	s.Pos = len(s.Data)
	s.SkipSpace()
	if s.Peek() != 0 || s.Pos != len(s.Data) {
		t.Errorf("at the end: Peek %q, Pos %d; want 0, %d", s.Peek(), s.Pos, len(s.Data))
	}
}

func TestNoAllocations(t *testing.T) {
	data := []byte(`{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":[true,false,null,-1.5e3,"s\n"]}}`)
	allocs := testing.AllocsPerRun(100, func() {
		if err := skipAll(data); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("SkipValue: %v allocations per run, want 0", allocs)
	}
}

// FuzzSkipValue checks SkipValue's verdict on whole texts against
// encoding/json.Valid, and that String and Number, wherever they start, either
// consume a well-formed token or fail leaving Pos alone.
func FuzzSkipValue(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
		`[1,-2.5e+3,true,false,null,"\u00e9\n",{}]`, ` "x" `, `{"a":1,}`, `[1 2]`, `"\u12"`,
		`01`, `1.`, `-`, "\"\x01\"", `{"a"`, ``, `nul`, `1e400`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", data, got, want)
		}
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > MaxDepth {
			t.Skip("nesting beyond the scanner's limit")
		}
		err := skipAll(data)
		if err != nil && err != ErrSyntax {
			t.Fatalf("SkipValue(%q) = %v, want nil or ErrSyntax", data, err)
		}
		if valid := json.Valid(data); (err == nil) != valid {
			t.Fatalf("SkipValue(%q) = %v, but json.Valid says %v", data, err, valid)
		}

		for start := range data {
			s := Scanner{Data: data, Pos: start}
			if s.Peek() == '"' {
				if raw, _, err := s.String(); err != nil {
					if s.Pos != start {
						t.Fatalf("String at %d of %q failed but moved Pos", start, data)
					}
				} else if quoted := data[start:s.Pos]; !json.Valid(quoted) || !bytes.Equal(raw, quoted[1:len(quoted)-1]) {
					t.Fatalf("String at %d of %q returned %q from the token %q", start, data, raw, quoted)
				}
				s.Pos = start
			}
			if lit, err := s.Number(); err != nil {
				if s.Pos != start {
					t.Fatalf("Number at %d of %q failed but moved Pos", start, data)
				}
			} else if !json.Valid(lit) || !bytes.Equal(lit, data[start:s.Pos]) {
				t.Fatalf("Number at %d of %q returned %q", start, data, lit)
			}
		}
	})
}

func BenchmarkSkipValue(b *testing.B) {
	data := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello world","n":[1,2.5,-3e2,true,null]},"_meta":{"progressToken":"abc"}}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		s := Scanner{Data: data}
		if err := s.SkipValue(0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestValidMatchesEncodingJSON: Valid answers as encoding/json.Valid does, at the
// edges of white space and of the nesting limit too.
func TestValidMatchesEncodingJSON(t *testing.T) {
	deep := func(open, close string, n int, inner string) []byte {
		return []byte(strings.Repeat(open, n) + inner + strings.Repeat(close, n))
	}
	cases := [][]byte{
		[]byte(` {"a":[1,2,{"b":null}]} `), []byte("\t\n\r1\n"), []byte(`{"a":1} x`), []byte(`{"a":1}{}`),
		[]byte(""), []byte("  "), []byte(`"\ud800"`), []byte("\"\xff\""), []byte(`[1,]`), []byte(`1e400`),
	}
	for _, n := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1} {
		cases = append(cases, deep("[", "]", n, ""), deep("[", "]", n, "1"), deep(`{"a":`, "}", n, "1"),
			deep(`{"a":`, "}", n, "{}"), deep("[", "]", n, "[1,]"))
	}
	for _, c := range cases {
		if got, want := Valid(c), json.Valid(c); got != want {
			t.Errorf("Valid(%.30q… %d bytes) = %v, json.Valid = %v", c, len(c), got, want)
		}
	}
	if allocs := testing.AllocsPerRun(100, func() { Valid(cases[0]) }); allocs != 0 {
		t.Errorf("Valid: %v allocations per run, want 0", allocs)
	}
}
