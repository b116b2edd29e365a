package wirecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestSpecExamples2026 validates every example shipped with the 2026-07-28 schema.
// Examples live in examples/<Definition>/<name>.json. Each must validate against its
// definition; and wherever the example is, or can be wrapped into, a message, it is
// pushed through a Checker so that the table's mapping (method -> definition, request
// -> result, error code -> definition) is exercised on the spec's own data.
func TestSpecExamples2026(t *testing.T) {
	specs := testSpecs(t)
	vs := specs.versions[statelessVersion]
	examples := testkit.Examples(statelessVersion)
	if len(examples) < 50 {
		t.Fatalf("found %d examples; the layout changed?", len(examples))
	}
	routed := map[string]int{}
	for _, ex := range examples {
		t.Run(ex.Definition+"/"+strings.TrimSuffix(ex.Name, ".json"), func(t *testing.T) {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ex.JSON))
			if err != nil {
				t.Fatal(err)
			}
			if err := vs.validate(ex.Definition, doc); err != nil {
				t.Fatalf("example does not validate against %s: %v", ex.Definition, err)
			}
			if kind := routeExample(t, vs.table, ex.Definition, ex.Name, doc.(map[string]any), ex.JSON); kind != "" {
				routed[kind]++
			}
		})
	}
	for _, kind := range []string{"request", "notification", "input request", "response", "result", "input required", "error"} {
		if routed[kind] == 0 {
			t.Errorf("no example was routed as %s", kind)
		}
	}
}

// staleExamples are examples that match their *ResultResponse definition only through
// its InputRequiredResult branch (which accepts any object with a resultType) although
// they say "resultType": "complete". The Checker picks the branch by resultType, so it
// checks them against the method's own result, which they fail: the value is the
// definition they violate.
var staleExamples = map[string]string{
	// Lacks the ttlMs and cacheScope that ReadResourceResult requires (the
	// -with-ttl example beside it has them).
	"ReadResourceResultResponse/read-resource-result-response.json": "ReadResourceResult",
}

// routeExample checks one example through the table and a Checker, and returns how it
// was routed ("" when it is a fragment, such as params or capabilities).
func routeExample(t *testing.T, tb *table, def, name string, ex map[string]any, data []byte) string {
	t.Helper()
	method, _ := ex["method"].(string)
	switch {
	case method != "":
		row := tb.methods[method]
		if row == nil || row.def != def {
			t.Fatalf("table row for %s = %+v, want definition %s", method, row, def)
		}
		if row.kind == kindInputRequest {
			return row.kind.String() // not a wire message in this version
		}
		sender := Client
		if !row.fromClient {
			sender = Server
		}
		expectOutcome(t, 0, newTestChecker(t, sender).Check(Outgoing, data), valid)
		return row.kind.String()

	case strings.HasSuffix(def, "ResultResponse"):
		row := rowByDef(t, tb, strings.TrimSuffix(def, "ResultResponse")+"Request")
		want := valid
		if stale := staleExamples[def+"/"+name]; stale != "" {
			want = bad(stale)
		}
		answer(t, row.method, ex["id"], data, want)
		return "response"

	case ex["jsonrpc"] != nil && ex["error"] != nil:
		code, _ := ex["error"].(map[string]any)["code"].(json.Number).Int64()
		if spec := tb.errorCodes[code]; spec.def != def || !spec.wholeMessage {
			t.Fatalf("error code %d maps to %+v, want whole-message %s", code, spec, def)
		}
		answer(t, "tools/call", ex["id"], data, valid)
		return "error"

	case strings.HasSuffix(def, "Error"):
		code, _ := ex["code"].(json.Number).Int64()
		if spec := tb.errorCodes[code]; spec.def != def || spec.wholeMessage {
			t.Fatalf("error code %d maps to %+v, want error object %s", code, spec, def)
		}
		answer(t, "tools/call", "e", []byte(mustJSON(obj{"jsonrpc": "2.0", "id": "e", "error": json.RawMessage(data)})), valid)
		return "error"

	case def == tb.inputRequiredDef:
		for _, m := range []string{"tools/call", "prompts/get", "resources/read"} {
			answer(t, m, "r", []byte(mustJSON(obj{"jsonrpc": "2.0", "id": "r", "result": json.RawMessage(data)})), valid)
		}
		return "input required"
	}
	for _, row := range tb.methods {
		if row.resultDef == def && row.kind == kindRequest {
			answer(t, row.method, "r", []byte(mustJSON(obj{"jsonrpc": "2.0", "id": "r", "result": json.RawMessage(data)})), valid)
			return "result"
		}
	}
	return ""
}

func rowByDef(t *testing.T, tb *table, def string) *methodSpec {
	t.Helper()
	for _, row := range tb.methods {
		if row.def == def {
			return row
		}
	}
	t.Fatalf("no table row has definition %s", def)
	return nil
}

// answer checks response as a server's answer to a method request with the given id.
func answer(t *testing.T, method string, id any, response []byte, want outcome) {
	t.Helper()
	c := newTestChecker(t, Server, InitialVersion(statelessVersion))
	c.Observe(Incoming, []byte(mustJSON(obj{"jsonrpc": "2.0", "id": id, "method": method})))
	expectOutcome(t, 0, c.Check(Outgoing, response), want)
}

// TestWireCaptures replays traffic captured from real peers (the captures embedded in
// package testkit).
func TestWireCaptures(t *testing.T) {
	t.Run("vscode downgrade", func(t *testing.T) {
		var capture struct {
			ClientMessages []json.RawMessage `json:"client_messages"`
			ServerMessages []json.RawMessage `json:"server_messages"`
		}
		testkit.LoadWireCapture(t, testkit.CaptureVSCode, &capture)
		if len(capture.ClientMessages) < 2 || len(capture.ServerMessages) < 2 {
			t.Fatal("capture too short")
		}
		c := newTestChecker(t, Server)
		lines := []line{{Client, string(capture.ClientMessages[0]), valid}, {Server, string(capture.ServerMessages[0]), valid}}
		for _, m := range capture.ClientMessages[1:] {
			lines = append(lines, line{Client, string(m), valid})
		}
		for _, m := range capture.ServerMessages[1:] {
			lines = append(lines, line{Server, string(m), valid})
		}
		converse(t, c, lines)
		if got := c.Version(); got != "2024-11-05" {
			t.Errorf("Version() = %q, want the downgrade to 2024-11-05", got)
		}
	})

	t.Run("csharp streamable http", func(t *testing.T) {
		var capture struct {
			Exchanges []struct {
				Note     string
				Request  struct{ Body json.RawMessage }
				Response struct {
					BodyText string `json:"body_text"`
				}
			}
		}
		testkit.LoadWireCapture(t, testkit.CaptureCSharpStreamableHTTP, &capture)
		c := newTestChecker(t, Client)
		var unmatched int
		for _, ex := range capture.Exchanges {
			if len(ex.Request.Body) > 0 && string(ex.Request.Body) != "null" {
				expectOutcome(t, 0, c.Check(Outgoing, ex.Request.Body), valid)
			}
			for _, data := range sseData(ex.Response.BodyText) {
				err := c.Check(Incoming, []byte(data))
				// This server repeats the initialize result on the POST of
				// notifications/initialized: a response to a request already answered.
				if errors.Is(err, ErrUnmatchedResponse) && strings.HasPrefix(ex.Note, "notifications/initialized") {
					unmatched++
					continue
				}
				expectOutcome(t, 0, err, valid)
			}
		}
		if unmatched != 1 {
			t.Errorf("caught %d repeated responses, want the 1 the capture holds", unmatched)
		}
	})
}

// sseData returns the data of each event in an SSE body (enough for the captures).
func sseData(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if rest, ok := strings.CutPrefix(l, "data:"); ok {
			out = append(out, strings.TrimPrefix(strings.TrimSuffix(rest, "\r"), " "))
		}
	}
	return out
}
