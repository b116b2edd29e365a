package main

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// A property's type is printed as the schema gives it; one without a type prints as
// "any", never as Go's "<nil>".
func TestToolTextPropertyTypes(t *testing.T) {
	tool := &protocol.Tool{
		Name:        "ship",
		Description: "Ships a parcel",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"address":{"description":"where to"},
			"weight":{"type":"number"},
			"note":{"type":["string","null"],"description":"for the courier"},
			"odd":{"type":7}
		},"required":["address"]}`),
	}
	want := "ship — Ships a parcel\n" +
		"    address (any, required) where to\n" +
		"    note (string|null) for the courier\n" +
		"    odd (any)\n" +
		"    weight (number)\n"
	if got := toolText(tool); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// Enums, defaults and $refs are shown: the choices of a string, the default
// value, and a referenced object named after its definition with its fields
// (it read "address (any)").
func TestToolTextEnumsDefaultsRefs(t *testing.T) {
	tool := &protocol.Tool{
		Name: "ship",
		InputSchema: json.RawMessage(`{"type":"object","properties":{
			"address":{"$ref":"#/$defs/Address"},
			"speed":{"type":"string","enum":["slow","fast"],"default":"slow"},
			"count":{"type":"integer","default":1},
			"far":{"$ref":"https://example.com/x.json"}
		},"required":["address"],"$defs":{"Address":{"type":"object","description":"a postal address","properties":{"street":{"type":"string"},"city":{"type":"string"}}}}}`),
	}
	want := "ship\n" +
		"    address (object Address {city, street}, required) a postal address\n" +
		"    count (integer) default: 1\n" +
		"    far (see https://example.com/x.json)\n" +
		"    speed (string) one of: slow, fast default: \"slow\"\n"
	if got := toolText(tool); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
