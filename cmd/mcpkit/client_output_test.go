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
