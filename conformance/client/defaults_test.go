package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The form of the suite's elicitation-sep1034-client-defaults scenario.
const defaultsForm = `{"type":"object","properties":{
	"name":{"type":"string","default":"John Doe"},
	"age":{"type":"integer","default":30},
	"score":{"type":"number","default":95.5},
	"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
	"verified":{"type":"boolean","default":true},
	"nickname":{"type":"string"}},"required":[]}`

func TestApplyDefaultsFillsOmittedFields(t *testing.T) {
	got, err := applyDefaults(json.RawMessage(defaultsForm), map[string]any{"age": 41.0})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "John Doe", "age": 41.0, "score": 95.5, "status": "active", "verified": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("applyDefaults = %v, want %v (given values kept, fields without a default left out)", got, want)
	}
}

func TestApplyDefaultsNilContent(t *testing.T) {
	got, err := applyDefaults(json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":3}}}`), nil)
	if err != nil || got["n"] != 3.0 {
		t.Errorf("applyDefaults(nil content) = %v, %v", got, err)
	}
}

func TestApplyDefaultsRejectsMalformedSchema(t *testing.T) {
	for _, s := range []string{``, `[]`, `{"properties":7}`} {
		if _, err := applyDefaults(json.RawMessage(s), nil); err == nil {
			t.Errorf("schema %q accepted", s)
		}
	}
}

func FuzzApplyDefaults(f *testing.F) {
	f.Add([]byte(defaultsForm))
	f.Add([]byte(`{"properties":{"a":{"default":null}}}`))
	f.Add([]byte(`{"properties":{}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		content, err := applyDefaults(json.RawMessage(schema), map[string]any{"keep": "me"})
		if err != nil {
			return
		}
		if content["keep"] != "me" {
			t.Fatalf("a given value was overwritten: %v", content)
		}
		if _, err := json.Marshal(content); err != nil {
			t.Fatalf("the result does not encode: %v", err)
		}
	})
}
