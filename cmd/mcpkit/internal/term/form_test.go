package term

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// everyField is a requested schema with every kind of field the specification
// allows, listed out of alphabetical order.
const everyField = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","description":"Your name","minLength":2,"maxLength":20},
	"email":{"type":"string","format":"email"},
	"age":{"type":"integer","minimum":0,"maximum":150,"default":30},
	"score":{"type":"number","maximum":1.5},
	"subscribe":{"type":"boolean","default":false},
	"color":{"type":"string","enum":["red","green"]},
	"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
	"legacy":{"type":"string","enum":["a","b"],"enumNames":["Alpha","Beta"]},
	"tags":{"type":"array","items":{"type":"string","enum":["x","y","z"]},"maxItems":2},
	"langs":{"type":"array","items":{"anyOf":[{"const":"go","title":"Go"},{"const":"rs","title":"Rust"}]},"minItems":1}
},"required":["name","color","size"]}`

func mustParseForm(t *testing.T, schema string) []Field {
	t.Helper()
	fields, err := ParseForm(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return fields
}

func TestParseFormKeepsOrderKindsAndRequired(t *testing.T) {
	fields := mustParseForm(t, everyField)
	var got []string
	for _, f := range fields {
		got = append(got, f.name)
	}
	if want := "name email age score subscribe color size legacy tags langs"; strings.Join(got, " ") != want {
		t.Fatalf("order %q, want %q", got, want)
	}
	want := map[string]struct {
		kind     fieldKind
		required bool
		def      any
		options  int
	}{
		"name": {kindText, true, nil, 0}, "email": {kindText, false, nil, 0}, "age": {kindInteger, false, int64(30), 0},
		"score": {kindNumber, false, nil, 0}, "subscribe": {kindBoolean, false, false, 0}, "color": {kindChoice, true, nil, 2},
		"size": {kindChoice, true, nil, 2}, "legacy": {kindChoice, false, nil, 2}, "tags": {kindChoices, false, nil, 3},
		"langs": {kindChoices, false, nil, 2},
	}
	for _, f := range fields {
		w := want[f.name]
		if f.kind != w.kind || f.required != w.required || !reflect.DeepEqual(f.def, w.def) || len(f.options) != w.options {
			t.Errorf("%s: kind %v required %v default %#v options %d; want %+v", f.name, f.kind, f.required, f.def, len(f.options), w)
		}
	}
	if fields[7].options[1] != (option{value: "b", title: "Beta"}) {
		t.Errorf("legacy enumNames: %+v", fields[7].options)
	}
	for _, bad := range []string{`{"type":"array"}`, `{"properties":{"x":{"type":"object"}}}`, `{"properties":{"x":{"type":"array","items":{"type":"string"}}}}`, `[1]`} {
		if _, err := ParseForm(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseForm(%s) accepted", bad)
		}
	}
	if fields, err := ParseForm(nil); err != nil || len(fields) != 0 {
		t.Errorf("no schema: %v %v", fields, err)
	}
}

func TestParseInputChecksEachKind(t *testing.T) {
	byName := map[string]*Field{}
	fields := mustParseForm(t, everyField)
	for i := range fields {
		byName[fields[i].name] = &fields[i]
	}
	for _, c := range []struct {
		field, input string
		want         any // nil: refused
	}{
		{"name", "Ada", "Ada"}, {"name", "A", nil}, {"name", strings.Repeat("é", 21), nil},
		{"email", "ada@example.com", "ada@example.com"}, {"email", "Ada <ada@example.com>", nil}, {"email", "nope", nil},
		{"age", "42", int64(42)}, {"age", "4.5", nil}, {"age", "-1", nil}, {"age", "151", nil}, {"age", "old", nil},
		{"score", "1.25", 1.25}, {"score", "2", nil},
		{"subscribe", "yes", true}, {"subscribe", "N", false}, {"subscribe", "maybe", nil},
		{"color", "green", "green"}, {"color", "1", "red"}, {"color", "blue", nil}, {"color", "3", nil},
		{"size", "Large", "l"}, {"size", "s", "s"}, {"size", "2", "l"}, {"size", "medium", nil},
		{"tags", "x, 3", []string{"x", "z"}}, {"tags", "x,y,z", nil}, {"tags", "w", nil},
		{"langs", "Rust,go", []string{"rs", "go"}}, {"langs", "", nil},
	} {
		got, err := byName[c.field].parseInput(c.input)
		if c.want == nil {
			if err == nil {
				t.Errorf("%s %q: accepted as %#v", c.field, c.input, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q = %#v, %v; want %#v", c.field, c.input, got, err, c.want)
		}
	}
	dates := mustParseForm(t, `{"properties":{"d":{"type":"string","format":"date"},"t":{"type":"string","format":"date-time"},"u":{"type":"string","format":"uri"}}}`)
	for _, c := range []struct {
		i      int
		in     string
		accept bool
	}{{0, "2026-07-28", true}, {0, "28/07/2026", false}, {1, "2026-07-28T10:00:00Z", true}, {1, "2026-07-28", false}, {2, "https://example.com", true}, {2, "example", false}} {
		if _, err := dates[c.i].parseInput(c.in); (err == nil) != c.accept {
			t.Errorf("%s %q: err %v, want accepted %v", dates[c.i].format, c.in, err, c.accept)
		}
	}
}

func TestAnswersFor(t *testing.T) {
	fields := mustParseForm(t, everyField)
	got, err := AnswersFor(fields, map[string]json.RawMessage{
		"name": json.RawMessage(`"Ada"`), "color": json.RawMessage(`"red"`), "size": json.RawMessage(`"l"`),
		"tags": json.RawMessage(`["y"]`), "other": json.RawMessage(`1`),
	})
	want := map[string]any{"name": "Ada", "color": "red", "size": "l", "tags": []string{"y"}, "age": int64(30), "subscribe": false}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("AnswersFor = %#v, %v; want %#v", got, err, want)
	}
	if _, err := AnswersFor(fields, map[string]json.RawMessage{"name": json.RawMessage(`"Ada"`)}); err == nil || !strings.Contains(err.Error(), `"color", "size"`) {
		t.Errorf("missing required fields: %v", err)
	}
	if _, err := AnswersFor(fields, map[string]json.RawMessage{"name": json.RawMessage(`7`), "color": json.RawMessage(`"red"`), "size": json.RawMessage(`"l"`)}); err == nil || !strings.Contains(err.Error(), `field "name"`) {
		t.Errorf("a number for a text field: %v", err)
	}
}

// AskForm on a scripted input: wrong answers are asked again, Enter takes a
// default or skips an optional field, and the result carries what was typed.
func TestAskForm(t *testing.T) {
	fields := mustParseForm(t, `{"type":"object","properties":{
		"name":{"type":"string","description":"Your name"},
		"age":{"type":"integer","minimum":0,"default":30},
		"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]},
		"note":{"type":"string"},
		"ok":{"type":"boolean"}
	},"required":["name","color","ok"]}`)
	input := strings.Join([]string{"", "Ada", "", "7", "Green", "", "maybe", "y"}, "\n") + "\n"
	var screen strings.Builder
	res, err := AskForm(t.Context(), NewLineReader(strings.NewReader(input)), &screen, "Tell me", fields)
	want := map[string]any{"name": "Ada", "age": int64(30), "color": "g", "ok": true}
	if err != nil || res.Action != protocol.ElicitActionAccept || !reflect.DeepEqual(res.Content, want) {
		t.Fatalf("AskForm = %+v, %v; want accept %v\nscreen:\n%s", res, err, want, screen.String())
	}
	for _, s := range []string{"the server asks: Tell me", "name — Your name (text, required)", "this field is required",
		"age (a whole number, at least 0, optional, default 30)", "1) Red [r]", "2) Green [g]", `want one of "r", "g"; try again`,
		"note (text, optional)", "answer yes or no; try again"} {
		if !strings.Contains(screen.String(), s) {
			t.Errorf("the screen lacks %q:\n%s", s, screen.String())
		}
	}
	for _, c := range []struct {
		input string
		want  protocol.ElicitAction
	}{{wordDecline + "\n", protocol.ElicitActionDecline}, {"Ada\n" + wordCancel + "\n", protocol.ElicitActionCancel}, {"Ada\n", protocol.ElicitActionCancel}} {
		res, err := AskForm(t.Context(), NewLineReader(strings.NewReader(c.input)), io.Discard, "Tell me", fields)
		if err != nil || res.Action != c.want || res.Content != nil {
			t.Errorf("input %q: %+v, %v; want %s", c.input, res, err, c.want)
		}
	}
}
