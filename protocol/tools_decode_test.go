package protocol

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"sync"
	"testing"
)

// decodeBoth decodes data with the fast path (UnmarshalJSON) and with plain
// encoding/json, and fails unless both agree on the value and on failing.
func decodeBoth(t *testing.T, data []byte) {
	t.Helper()
	var fast CallToolParams
	fastErr := json.Unmarshal(data, &fast)
	var std callToolParamsWire
	stdErr := json.Unmarshal(data, &std)
	if (fastErr == nil) != (stdErr == nil) {
		t.Fatalf("%q: fast error %v, encoding/json error %v", data, fastErr, stdErr)
	}
	if fastErr != nil {
		return
	}
	if !reflect.DeepEqual(fast, CallToolParams(std)) {
		t.Fatalf("%q:\nfast          %#v\nencoding/json %#v", data, fast, CallToolParams(std))
	}
}

var callToolParamsSeeds = []string{
	`{"name":"echo","arguments":{"message":"hi"}}`,
	`{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":7}}`,
	` { "name" : "a\u00e9" , "arguments" : null } `,
	`{"name":null,"arguments":[1,2],"extra":{"deep":[{}]}}`,
	`{"NAME":"x","Arguments":{}}`,
	`{"name":"x","name":"y"}`,
	`{"name":5}`,
	`{"name":"bad \xff utf8"}`,
	`{"name":"t","task":{"ttl":1000},"inputResponses":{"k":{"action":"accept"}},"requestState":"s"}`,
	`{"name":"t","task":null,"inputResponses":null,"requestState":null,"_meta":null}`,
	`{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}`,
	`{}`, `[]`, `null`, `{"name":"x"} trailing`, `{"name":"x",}`, `{"name"}`, ``,
}

func TestCallToolParamsDecodeMatchesEncodingJSON(t *testing.T) {
	for _, s := range callToolParamsSeeds {
		decodeBoth(t, []byte(s))
	}
}

func FuzzCallToolParamsDecode(f *testing.F) {
	for _, s := range callToolParamsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { decodeBoth(t, data) })
}

func BenchmarkCallToolParamsDecode(b *testing.B) {
	data := []byte(`{"name":"echo","arguments":{"message":"world"},"_meta":{"progressToken":1}}`)
	b.ReportAllocs()
	for b.Loop() {
		var p CallToolParams
		if err := json.Unmarshal(data, &p); err != nil || p.Name != "echo" {
			b.Fatal(p, err)
		}
	}
}

func TestInternToolName(t *testing.T) {
	names := make([][]byte, 300) // more names than slots: collisions replace entries
	for i := range names {
		names[i] = []byte("tool-" + strconv.Itoa(i))
	}
	for round := 0; round < 2; round++ {
		for _, n := range names {
			if got := internName(n); got != string(n) {
				t.Fatalf("internName(%q) = %q", n, got)
			}
		}
	}
	long := bytes.Repeat([]byte("x"), 200)
	if internName(long) != string(long) {
		t.Fatal("a long name came back changed")
	}
	echo := []byte("echo")
	internName(echo)
	if allocs := testing.AllocsPerRun(100, func() { _ = internName(echo) }); allocs != 0 {
		t.Errorf("a known name allocates %v times", allocs)
	}
}

func TestInternToolNameConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				n := []byte("t" + strconv.Itoa((i*7+g)%97))
				if got := internName(n); got != string(n) {
					t.Errorf("internName(%q) = %q", n, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}
