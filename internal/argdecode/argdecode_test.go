package argdecode

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

type argLevel string

// echoIn is the one-string input of the usual echo tool.
type echoIn struct {
	Message string `json:"message"`
}

// argsAll has a field of every kind the fast decoder handles.
type argsAll struct {
	S        string   `json:"s"`
	B        bool     `json:"b"`
	I        int      `json:"i"`
	I8       int8     `json:"i8"`
	I64      int64    `json:"i64"`
	U        uint     `json:"u"`
	U16      uint16   `json:"u16"`
	F        float64  `json:"f"`
	F32      float32  `json:"f32"`
	P        *string  `json:"p"`
	PI       *int     `json:"pi"`
	PB       *bool    `json:"pb,omitempty"`
	Level    argLevel `json:"level"`
	D        time.Duration
	Untagged string
	Skipped  string `json:"-"`
	//lint:ignore SA5008 on purpose: a field named "-" is one of encoding/json's rules under test
	Dash     string `json:"-,"`
	OnlyOpts string `json:",omitempty"`
	//lint:ignore U1000 on purpose: an unexported field must be left alone, as encoding/json does
	unhandled string
}

// argDecodeBoth decodes data into a fresh T with the fast decoder and with
// encoding/json, and fails when the fast decoder claims success where
// encoding/json disagrees, or when Into (fast path and fallback) differs
// from encoding/json in value or in failing.
func argDecodeBoth[T any](t *testing.T, data []byte) {
	t.Helper()
	dec := For(reflect.TypeFor[T]())
	if dec == nil {
		t.Fatalf("no fast decoder for %T", *new(T))
	}
	var std T
	stdErr := json.Unmarshal(data, &std)
	var fast T
	if dec.Decode(data, reflect.ValueOf(&fast).Elem()) {
		if stdErr != nil {
			t.Fatalf("%q: fast decoder accepted what encoding/json refuses: %v", data, stdErr)
		}
		if !reflect.DeepEqual(fast, std) {
			t.Fatalf("%q:\nfast          %#v\nencoding/json %#v", data, fast, std)
		}
	}
	var got T
	err := Into(dec, data, &got)
	if (err == nil) != (stdErr == nil) {
		t.Fatalf("%q: Into error %v, encoding/json error %v", data, err, stdErr)
	}
	if !reflect.DeepEqual(got, std) {
		t.Fatalf("%q:\ndecodeArgs    %#v\nencoding/json %#v", data, got, std)
	}
}

var argSeeds = []string{
	`{"s":"hello","b":true,"i":-3,"i8":127,"i64":9007199254740993,"u":7,"u16":65535,"f":1.5e3,"f32":3.4028235e38,"p":"x","pi":4,"level":"warn","D":1000,"Untagged":"u","-":"dash","OnlyOpts":"o"}`,
	`{"s":null,"b":null,"i":null,"p":null,"pi":null}`,
	`{"p":"a","p":null,"pi":1,"pi":2,"s":"x","s":"y"}`,
	`{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud800 \udc00x \ud800\u0041"}`,
	"{\"s\":\"bad \xff utf8 \xed\xa0\x80\"}",
	`{"i8":128}`, `{"u":-1}`, `{"i":1.0}`, `{"i":1e2}`, `{"f32":1e39}`, `{"f":-0}`, `{"u16":65536}`,
	`{"S":"case"}`, `{"Skipped":"x"}`, `{"unhandled":"x"}`, `{"other":{"deep":[1,{"x":null}]},"s":"kept"}`,
	`{"s":1}`, `{"b":"true"}`, `{"i":"1"}`, `{"p":5}`,
	"{\"\u212aey\":1}", `{"\u0073":"escaped key"}`,
	`{}`, ` { "s" : "spaces" } `, `[]`, `null`, `"s"`, `{"s":"x"} trailing`, `{"s":"x",}`, `{"s"}`, ``, `{"s":"unterminated`,
}

func TestArgDecoderMatchesEncodingJSON(t *testing.T) {
	for _, s := range argSeeds {
		argDecodeBoth[argsAll](t, []byte(s))
		argDecodeBoth[echoIn](t, []byte(s))
	}
}

func FuzzArgDecoder(f *testing.F) {
	for _, s := range argSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		argDecodeBoth[argsAll](t, data)
		argDecodeBoth[echoIn](t, data)
	})
}

// TestArgDecoderFastPathTaken checks that the common inputs do not fall back
// to encoding/json, which would make the decoder pointless.
func TestArgDecoderFastPathTaken(t *testing.T) {
	dec := For(reflect.TypeFor[argsAll]())
	for _, s := range []string{
		`{"s":"hello","i":3,"f":0.5,"b":false,"p":"x","unknown":[1,2]}`,
		`{"s":"line\nbreak \u00e9"}`,
		`{}`,
	} {
		var v argsAll
		if !dec.Decode([]byte(s), reflect.ValueOf(&v).Elem()) {
			t.Errorf("%s: fast decoder gave up", s)
		}
	}
}

type customText struct{ v string }

func (c *customText) UnmarshalText(b []byte) error { c.v = string(b); return nil }

type customArgs struct{ V json.Number }

func (c *customArgs) UnmarshalJSON([]byte) error { return nil }

type embeddedArgs struct {
	echoIn
	X string
}

func TestArgDecoderDeclinesWhatItDoesNotCopy(t *testing.T) {
	for name, typ := range map[string]reflect.Type{
		"not a struct":       reflect.TypeFor[map[string]any](),
		"pointer":            reflect.TypeFor[*echoIn](),
		"struct unmarshaler": reflect.TypeFor[customArgs](),
		"field unmarshaler":  reflect.TypeFor[struct{ T customText }](),
		"embedded":           reflect.TypeFor[embeddedArgs](),
		"string option": reflect.TypeFor[struct {
			N int `json:"n,string"`
		}](),
		"duplicate name": reflect.StructOf([]reflect.StructField{ // built at run time: vet rejects the literal
			{Name: "A", Type: reflect.TypeFor[string](), Tag: `json:"a"`},
			{Name: "B", Type: reflect.TypeFor[string](), Tag: `json:"a"`},
		}),
		"slice field":     reflect.TypeFor[struct{ L []string }](),
		"nested struct":   reflect.TypeFor[struct{ N echoIn }](),
		"interface field": reflect.TypeFor[struct{ V any }](),
		"unusual tag name": reflect.TypeFor[struct {
			V string `json:"é"`
		}](),
		"pointer to pointer":  reflect.TypeFor[struct{ P **string }](),
		"json.Number (named)": reflect.TypeFor[struct{ N json.Number }](),
	} {
		if For(typ) != nil {
			t.Errorf("%s: For(%v) should decline", name, typ)
		}
	}
}

func BenchmarkDecodeArgs(b *testing.B) {
	data := []byte(`{"message":"world"}`)
	dec := For(reflect.TypeFor[echoIn]())
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in echoIn
			if err := Into(dec, data, &in); err != nil || in.Message != "world" {
				b.Fatal(in, err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var in echoIn
			if err := json.Unmarshal(data, &in); err != nil || in.Message != "world" {
				b.Fatal(in, err)
			}
		}
	})
}
