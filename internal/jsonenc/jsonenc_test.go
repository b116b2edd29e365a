package jsonenc

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// check encodes v with Append (after a prefix that must survive) and with
// json.Marshal, and fails unless both give the same bytes, or the same error.
func check(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	prefix := []byte("prefix:")
	got, err := Append(prefix, v)
	if !bytes.HasPrefix(got, []byte("prefix:")) {
		t.Fatalf("%#v: the prefix was lost: %q", v, got)
	}
	got = got[len(prefix):]
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("%#v: error %v, json.Marshal's %v", v, err, wantErr)
	}
	if err != nil {
		if err.Error() != wantErr.Error() {
			t.Fatalf("%#v: error %q, json.Marshal's %q", v, err, wantErr)
		}
		if len(got) != 0 {
			t.Fatalf("%#v: failed but appended %q", v, got)
		}
		return
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%#v:\n got %s\nwant %s", v, got, want)
	}
}

func TestStrings(t *testing.T) {
	for _, s := range []string{
		"", "world", `"quoted" \back\slash/`, "<a href='x'>&amp;</a>", "\u2028\u2029", "\x00\x01\x1f\x7f",
		"\b\f\n\r\t", "é中😀", "bad\xffutf8\xc3", "\xe2\x80", "\xed\xa0\x80", // a lone surrogate's encoding
	} {
		check(t, map[string]any{"v": s})
		check(t, map[string]any{s: "key"})
		check(t, s)
	}
}

func TestFloats(t *testing.T) {
	for _, f := range []float64{
		0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 100, 123456789, 1e20, 1e21, 1e21 - 65536, 9.999999999999999e20, -1e21,
		1e-6, 9.99999e-7, math.Nextafter(1e-6, 0), 1e-7, 1e-9, 1e-10, 5e-324, math.MaxFloat64, -math.MaxFloat64,
		1 << 53, 1<<53 + 2, 3.0000000000000004, 1e100, 1.5e-300,
	} {
		check(t, map[string]any{"f": f})
		check(t, map[string]any{"f": float32(f)})
	}
	for _, f := range []float32{1e-6, math.Nextafter32(1e-6, 0), 1e21, math.Nextafter32(1e21, 0), 1e-7, 3.4e38, 1e-45} {
		check(t, map[string]any{"f": f})
	}
}

// NaN and the infinities are errors, json.Marshal's own, nested or not.
func TestUnsupportedFloats(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, v := range []any{
			map[string]any{"f": f},
			map[string]any{"a": map[string]any{"b": []any{1.0, f}}},
			map[string]any{"f": float32(f)},
		} {
			check(t, v)
			if _, err := Append(nil, v); !errors.As(err, new(*json.UnsupportedValueError)) {
				t.Fatalf("%v: error %T %v, want a *json.UnsupportedValueError", v, err, err)
			}
		}
	}
}

func TestScalars(t *testing.T) {
	check(t, map[string]any{
		"nil": nil, "t": true, "f": false,
		"int": -42, "int8": int8(-128), "int16": int16(-32768), "int32": int32(math.MinInt32), "int64": int64(math.MinInt64),
		"uint": uint(math.MaxUint), "uint8": uint8(255), "uint16": uint16(65535), "uint32": uint32(math.MaxUint32),
		"uint64": uint64(math.MaxUint64), "uintptr": uintptr(7),
	})
}

func TestNumbers(t *testing.T) {
	for _, n := range []json.Number{"", "0", "-0", "12", "-1.5e+10", "1E-7", "0.5", "01", "1.", ".5", "+1", "1e", "1e+", "-", "NaN", "0x10", " 1", "1 "} {
		check(t, map[string]any{"n": n})
	}
}

func TestRawMessages(t *testing.T) {
	for _, r := range []json.RawMessage{
		nil, {}, json.RawMessage(`{"a":[1,"b c",null]}`), json.RawMessage(` { "a" : 1 } `), json.RawMessage(`"<&>"`),
		json.RawMessage("\"\u2028\""), json.RawMessage(`"\"{ }\\"`), json.RawMessage(`{"a":`), json.RawMessage(`"bad\xff"`),
		json.RawMessage(`1`), json.RawMessage("[1,\n2]"), json.RawMessage(`"a\\" `),
	} {
		check(t, map[string]any{"r": r})
	}
}

func TestNested(t *testing.T) {
	check(t, map[string]any{
		"z": []any{1.0, "two", nil, []any{}, map[string]any{}, []any{map[string]any{"k": []any{true}}}},
		"a": map[string]any{"b": map[string]any{"c": "d"}, "e": []any(nil), "f": map[string]any(nil)},
		"m": map[string]any{},
	})
	check(t, map[string]any(nil))
	check(t, []any(nil))
	check(t, map[string]any{})
}

// Keys are sorted bytewise, past the members sorted on the stack too.
func TestKeyOrder(t *testing.T) {
	m := map[string]any{}
	for i := range 40 {
		m[strings.Repeat("k", i%7)+string(rune('z'-i))] = i
	}
	m["é"], m["Z"], m[""], m["<"], m["\xff"] = 1, 2, 3, 4, 5
	check(t, m)
	small := map[string]any{"b": 1, "a": 2, "c": 3, "B": 4}
	check(t, small)
}

type textKey string

func (k textKey) MarshalText() ([]byte, error) { return []byte("T" + k), nil }

type marshaler struct{}

func (marshaler) MarshalJSON() ([]byte, error) { return []byte(` {"m" : "<x>"} `), nil }

type badMarshaler struct{}

func (badMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New("refused") }

type named float64

// Values of other types are written by encoding/json, in place.
func TestFallbackTypes(t *testing.T) {
	x := 5
	check(t, map[string]any{
		"struct":  struct{ A, b int }{1, 2},
		"ptr":     &x,
		"nilptr":  (*int)(nil),
		"time":    time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		"marsh":   marshaler{},
		"named":   named(1e-7),
		"strs":    []string{"a", "<"},
		"bytes":   []byte("hi"),
		"map":     map[string]string{"b": "1", "a": "2"},
		"textkey": map[textKey]int{"b": 1, "a": 2},
		"intkey":  map[int]any{10: 1, 9: 2},
		"array":   [2]any{1, "x"},
	})
	check(t, map[string]any{"bad": badMarshaler{}})
	check(t, map[string]any{"ch": make(chan int)})
	check(t, map[string]any{"fn": func() {}})
	check(t, struct{ A int }{1})
	check(t, map[string]any{"cplx": complex(1, 2)})
}

// A map that holds itself is json.Marshal's cycle error, not a hang.
func TestCycle(t *testing.T) {
	m := map[string]any{"a": 1.0}
	m["self"] = m
	check(t, m)
	s := []any{1.0, nil}
	s[1] = s
	check(t, map[string]any{"s": s})
	_, err := Append(nil, m)
	if !errors.As(err, new(*json.UnsupportedValueError)) || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("error %v, want json.Marshal's cycle error", err)
	}
}

// Values deeper than maxDepth are written by encoding/json, identically.
func TestDeep(t *testing.T) {
	var v any = "leaf"
	for i := range 3 * maxDepth {
		if i%2 == 0 {
			v = map[string]any{"k": v, "n": float64(i)}
		} else {
			v = []any{v, 1e-7}
		}
	}
	check(t, v)
}

// The common arguments are encoded without allocating.
func TestNoAllocs(t *testing.T) {
	args := map[string]any{"message": "world", "n": 3.0, "tags": []any{"a", "b"}, "opt": map[string]any{"x": true}}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf, _ = Append(buf[:0], args) }); n != 0 {
		t.Fatalf("%v allocations per call, want 0", n)
	}
}

// FuzzAppend compares Append with json.Marshal on values decoded from the
// input (as float64s and as json.Numbers), on the input as a string, a
// json.Number and a json.RawMessage, and on floats and integers made of its
// bits.
func FuzzAppend(f *testing.F) {
	f.Add([]byte(`{"message":"world","n":1e-7,"a":[1,2.5,"<&>"],"o":{"b":null,"a":true}}`))
	f.Add([]byte(`{ "x" : "\u2028\ud800" }`))
	f.Add([]byte("\"bad\xff\""))
	f.Add([]byte(`-0`))
	f.Add([]byte(`1e21`))
	f.Add([]byte(`[[[[{"a":[[{}]]}]]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) == nil {
			check(t, v)
			check(t, map[string]any{"v": v})
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var n any
		if d.Decode(&n) == nil {
			check(t, map[string]any{"v": n})
		}
		s := string(data)
		check(t, map[string]any{s: s, "n": json.Number(s), "r": json.RawMessage(data)})
		if len(data) >= 8 {
			bits := binary.LittleEndian.Uint64(data)
			check(t, map[string]any{
				"f64": math.Float64frombits(bits), "f32": math.Float32frombits(uint32(bits)),
				"i": int64(bits), "u": bits, "i8": int8(bits), "i32": int32(bits),
			})
		}
	})
}

var benchArgs = map[string]any{"message": "world"}

var benchArgsLarger = map[string]any{
	"query": "weather in <Paris> & Lyon", "limit": 10.0, "units": "metric", "verbose": false,
	"tags": []any{"a", "b", "c"}, "filter": map[string]any{"from": "2026-11-01", "to": "2026-11-29", "score": 0.75},
}

// BenchmarkAppend compares Append into a reused buffer with json.Marshal, for
// the one-member map of the client benchmarks and a larger one.
func BenchmarkAppend(b *testing.B) {
	for _, c := range []struct {
		name string
		v    map[string]any
	}{{"message", benchArgs}, {"larger", benchArgsLarger}} {
		b.Run(c.name+"/jsonenc", func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]byte, 0, 512)
			for b.Loop() {
				var err error
				if buf, err = Append(buf[:0], c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/encoding-json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(c.v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
