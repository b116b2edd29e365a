package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/cowmap"
)

// gatewayCaps are the capabilities mcpkit's gateway sends its servers: an
// extension with settings, which the fast decoder leaves to encoding/json.
const gatewayCaps = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}}`

// envelope is a request's _meta with these capabilities and client info.
func envelope(caps, info string) []byte {
	return fmt.Appendf(nil, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s,"io.modelcontextprotocol/clientInfo":%s}`, caps, info)
}

func decodeMeta(t *testing.T, data []byte) Meta {
	t.Helper()
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return m
}

// TestSharedMetaValues: the same bytes decode to one shared value, equal to
// encoding/json's decoding of them; other bytes to another value.
func TestSharedMetaValues(t *testing.T) {
	info := `{"name":"shared-test","version":"1"}`
	a := decodeMeta(t, envelope(gatewayCaps, info))
	b := decodeMeta(t, envelope(gatewayCaps, info))
	capsA, _ := a.ClientCapabilities()
	capsB, _ := b.ClientCapabilities()
	if capsA != capsB {
		t.Error("the same capabilities decoded twice are two values")
	}
	var want ClientCapabilities
	if err := json.Unmarshal([]byte(gatewayCaps), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*capsA, want) {
		t.Errorf("shared capabilities = %#v, want %#v", *capsA, want)
	}
	if a[MetaKeyClientInfo].(*Implementation) != b[MetaKeyClientInfo].(*Implementation) {
		t.Error("the same client info decoded twice is two values")
	}
	if got := a[MetaKeyClientInfo].(*Implementation).Name; got != "shared-test" {
		t.Errorf("client info name = %q", got)
	}
	// Other bytes get their own value, even when it is equal.
	c := decodeMeta(t, envelope(strings.Replace(gatewayCaps, `"roots":{}`, `"roots": {}`, 1), info))
	if capsC, _ := c.ClientCapabilities(); capsC == capsA || !reflect.DeepEqual(*capsC, want) {
		t.Errorf("capabilities of other bytes: same value %v, equal %v", capsC == capsA, reflect.DeepEqual(*capsC, want))
	}
	// A server's identity in a result's _meta is shared as well.
	s1 := decodeMeta(t, []byte(`{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"2"}}`))
	s2 := decodeMeta(t, []byte(`{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"2"}}`))
	if s1[MetaKeyServerInfo] != s2[MetaKeyServerInfo] {
		t.Error("the same server info decoded twice is two values")
	}
}

// TestSharedMetaValuesBounded: values that fail to decode and values longer
// than sharedValueBytesMax are not kept, and the map never holds more than
// sharedValuesMax values however many distinct ones a peer sends.
func TestSharedMetaValuesBounded(t *testing.T) {
	c := cowmap.New[string, *ClientCapabilities](sharedValuesMax)
	for i := range 3 * sharedValuesMax {
		raw := fmt.Appendf(nil, `{"experimental":{"x%d":{}}}`, i)
		v, ok, err := decodeSharedValue(c, MetaKeyClientCapabilities, raw)
		if !ok || err != nil || v == nil {
			t.Fatalf("%s: %v %v %v", raw, v, ok, err)
		}
		if c.Load()[string(raw)] != v {
			t.Fatalf("%s: not kept right after its decode", raw)
		}
		if n := len(c.Load()); n > sharedValuesMax {
			t.Fatalf("%d values kept, at most %d expected", n, sharedValuesMax)
		}
	}
	bad := []byte(`{"roots":true}`)
	if _, _, err := decodeSharedValue(c, MetaKeyClientCapabilities, bad); err == nil {
		t.Fatal("capabilities with roots true decoded")
	}
	if c.Load()[string(bad)] != nil {
		t.Error("a value that failed to decode was kept")
	}
	long := []byte(`{"experimental":{"` + strings.Repeat("x", sharedValueBytesMax) + `":{}}}`)
	if _, _, err := decodeSharedValue(c, MetaKeyClientCapabilities, long); err != nil {
		t.Fatal(err)
	}
	if c.Load()[string(long)] != nil {
		t.Errorf("a value of %d bytes was kept", len(long))
	}
}

// TestSharedMetaValuesConcurrent decodes the same and new bytes from several
// goroutines (run under -race): each decode gets a value equal to
// encoding/json's.
func TestSharedMetaValuesConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				caps := gatewayCaps
				if i%3 == 0 {
					caps = fmt.Sprintf(`{"experimental":{"g%d-%d":{}}}`, g, i)
				}
				var m Meta
				if err := m.UnmarshalJSON(envelope(caps, `{"name":"c","version":"1"}`)); err != nil {
					errs <- err
					return
				}
				var want ClientCapabilities
				_ = json.Unmarshal([]byte(caps), &want)
				if got, _ := m.ClientCapabilities(); !reflect.DeepEqual(*got, want) {
					errs <- fmt.Errorf("%s decoded to %#v", caps, *got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
