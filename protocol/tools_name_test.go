package protocol

import (
	"encoding/json"
	"testing"
)

// nameBoth fails unless ToolCallName reads in data the name a full decode of
// CallToolParams gives.
func nameBoth(t *testing.T, data []byte) {
	t.Helper()
	var p CallToolParams
	_ = json.Unmarshal(data, &p)
	if got := ToolCallName(data); got != p.Name {
		t.Errorf("ToolCallName(%s) = %q, the decoder reads %q", data, got, p.Name)
	}
}

func TestToolCallNameAsTheDecoder(t *testing.T) {
	for _, s := range append(callToolParamsSeeds[:len(callToolParamsSeeds):len(callToolParamsSeeds)],
		`{"name":"a","name":"b"}`, `{"name":"a","name":null}`, `{"name":"a","Name":"b"}`, `{"NAME":"b"}`,
		`{"n\u0061me":"b"}`, `{"name":"\u0062"}`, `{"name":7}`, `{"name":"a","_meta":7}`, `{"name":"a","META":1}`,
		`{"_meta":{"x":1},"name":"deep","arguments":{"name":"not this"}}`, `[]`, `null`, ``, `{"name":"a"`,
		`{"name":"x","arguments":1}`, `{"name":"\xff"}`, `{"ñame":"x","name":"y"}`) {
		nameBoth(t, []byte(s))
	}
}

// TestToolCallNameAllocs: a name seen before is read without allocating.
func TestToolCallNameAllocs(t *testing.T) {
	data := []byte(`{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":1}}`)
	ToolCallName(data)
	if n := testing.AllocsPerRun(100, func() {
		if ToolCallName(data) != "echo" {
			t.Fatal("wrong name")
		}
	}); n != 0 {
		t.Errorf("ToolCallName: %v allocs, want 0", n)
	}
}

func FuzzToolCallName(f *testing.F) {
	for _, s := range callToolParamsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { nameBoth(t, data) })
}
