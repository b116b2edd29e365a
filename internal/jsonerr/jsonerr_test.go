package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type inner struct {
	Type string `json:"type"`
}

type params struct {
	URI   string            `json:"uri"`
	Ref   inner             `json:"ref"`
	Count uint8             `json:"count"`
	Ratio float64           `json:"ratio"`
	Flag  bool              `json:"flag"`
	Tags  []string          `json:"tags"`
	Args  map[string]string `json:"arguments"`
	Data  []byte            `json:"data"`
}

func TestMessageNamesJSONMembers(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"uri":5}`, "uri: got number, want string"},
		{`{"ref":{"type":1}}`, "ref.type: got number, want string"},
		{`{"count":300}`, "count: got number 300, want integer from 0 to 255"},
		{`{"count":-1}`, "count: got number -1, want integer from 0 to 255"},
		{`{"ratio":"x"}`, "ratio: got string, want number"},
		{`{"flag":"yes"}`, "flag: got string, want boolean"},
		{`{"tags":{}}`, "tags: got object, want array"},
		{`{"arguments":[]}`, "arguments: got array, want object"},
		{`{"data":true}`, "data: got boolean, want string (base64)"},
		{`[1]`, "got array, want object"},
	}
	for _, tt := range tests {
		var p params
		err := json.Unmarshal([]byte(tt.in), &p)
		if err == nil {
			t.Fatalf("%s decoded", tt.in)
		}
		wrapped := fmt.Errorf("invalid params: %w", err)
		got := Message(wrapped)
		if got != "invalid params: "+tt.want {
			t.Errorf("%s: got %q, want %q", tt.in, got, "invalid params: "+tt.want)
		}
		if strings.Contains(got, "Go ") || strings.Contains(got, "params.") {
			t.Errorf("%s: %q names Go types", tt.in, got)
		}
	}
}

func TestMessageLeavesOtherErrorsAlone(t *testing.T) {
	var p params
	err := json.Unmarshal([]byte(`{"uri":`), &p)
	if got := Message(err); got != err.Error() {
		t.Errorf("syntax error restated as %q", got)
	}
	if got := Message(errors.New("plain")); got != "plain" {
		t.Errorf("got %q", got)
	}
}
