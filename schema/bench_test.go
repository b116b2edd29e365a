package schema

import (
	"encoding/json"
	"testing"
)

type benchEcho struct {
	Message string `json:"message"`
}

type benchSearch struct {
	Query string   `json:"query" jsonschema:"minLength=1"`
	Limit int      `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100"`
	Sort  string   `json:"sort,omitempty" jsonschema:"enum=relevance|date"`
	Exact bool     `json:"exact,omitempty"`
	Score float64  `json:"score,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

var (
	benchEchoArgs   = json.RawMessage(`{"message":"hello, world"}`)
	benchSearchArgs = json.RawMessage(`{"query":"model context protocol","limit":20,"sort":"date","exact":true,"score":0.75,"tags":["go","mcp"]}`)
)

func benchValidator[T any](b *testing.B, fast bool) *Validator {
	s, err := For[T](nil)
	if err != nil {
		b.Fatal(err)
	}
	v, err := Compile(s, nil)
	if err != nil {
		b.Fatal(err)
	}
	if v.fast == nil {
		b.Fatal("fast path unavailable")
	}
	if !fast {
		// A copy: Compile's cache shares v with other callers.
		slow := *v
		slow.fast = nil
		return &slow
	}
	return v
}

func BenchmarkValidate(b *testing.B) {
	for _, c := range []struct {
		name string
		v    func(*testing.B, bool) *Validator
		args json.RawMessage
	}{
		{"1prop", benchValidator[benchEcho], benchEchoArgs},
		{"6props", benchValidator[benchSearch], benchSearchArgs},
	} {
		for _, fast := range []bool{true, false} {
			name := c.name + "/fast"
			if !fast {
				name = c.name + "/library"
			}
			b.Run(name, func(b *testing.B) {
				v := c.v(b, fast)
				b.ReportAllocs()
				for b.Loop() {
					if err := v.Validate(c.args); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkCompile(b *testing.B) {
	s, err := For[benchSearch](nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compile(s, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := compile(s, CompileOptions{Name: "arguments"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkFor(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := For[benchSearch](nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateInvalid measures the failure path: the fast path declines,
// the library validates and the violations are formatted.
func BenchmarkValidateInvalid(b *testing.B) {
	v := benchValidator[benchSearch](b, true)
	args := json.RawMessage(`{"query":"","limit":"20","sort":"date"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Validate(args); err == nil {
			b.Fatal("accepted")
		} else {
			_ = err.Error()
		}
	}
}

func BenchmarkApplyDefaults(b *testing.B) {
	type input struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty" jsonschema:"default=10"`
	}
	v := benchValidator[input](b, true)
	for _, c := range []struct {
		name string
		args json.RawMessage
	}{
		{"present", json.RawMessage(`{"query":"q","limit":5}`)},
		{"missing", json.RawMessage(`{"query":"q"}`)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = v.ApplyDefaults(c.args)
			}
		})
	}
}
