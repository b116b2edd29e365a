package timeline

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

func TestFilter(t *testing.T) {
	b := newRecs()
	b.msg(c2s, "alpha", req("1", "tools/call"))                                             // 1
	b.msg(c2s, "alpha", req("2", "tools/list"))                                             // 2
	b.msg(s2c, "beta", req("1", "sampling/createMessage"))                                  // 3
	b.add(&capture.Record{Kind: capture.KindStderr, Text: "Disk FULL"})                     // 4
	b.msg(s2c, "alpha", `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"Weather"}]}}`) // 5: 3 ms
	b.add(&capture.Record{Dir: s2c, Session: "alpha", Invalid: true, Raw: "oops"})          // 6
	for range 20 {
		b.add(&capture.Record{Kind: capture.KindStderr, Text: "tick"})
	}
	b.msg(s2c, "alpha", res("1")) // 27: 26 ms
	s := b.model(0).Snapshot()
	cases := []struct {
		name string
		f    Filter
		want string
	}{
		{"zero", Filter{}, "1 2 3 4 6"},
		{"substring", Filter{Method: "tools"}, "1 2"},
		{"glob", Filter{Method: "tools/l*"}, "2"},
		{"glob no match", Filter{Method: "call"}, "1"},
		{"direction", Filter{Dir: s2c}, "3 6"},
		{"session", Filter{Session: "bet"}, "3"},
		{"errors", Filter{ErrorsOnly: true}, "6"},
		{"latency", Filter{MinLatency: 10 * time.Millisecond}, "1 3"},
		{"text in response, any case", Filter{Text: "weather"}, "2"},
		{"text in event", Filter{Text: "disk full"}, "4"},
		{"text in invalid raw", Filter{Text: "OOPS"}, "6"},
		{"combined", Filter{Dir: c2s, Method: "tools/*", MinLatency: 5 * time.Millisecond}, "1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, e := range s.Apply(c.f) {
				if e.Event == capture.KindStderr && e.Record.Text == "tick" {
					continue
				}
				got = append(got, e.ID.String())
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("%+v selects %v, want %s", c.f, got, c.want)
			}
		})
	}
}

func TestFilterValidate(t *testing.T) {
	for _, f := range []Filter{{Dir: "up"}, {Method: "[a"}, {MinLatency: -1}} {
		if f.Validate() == nil {
			t.Errorf("%+v: no error", f)
		}
	}
	if f := (Filter{Dir: c2s, Method: "tools/*"}); f.Validate() != nil {
		t.Errorf("valid filter refused: %v", f.Validate())
	}
}

func TestDetail(t *testing.T) {
	b := newRecs()
	b.msg(c2s, "s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	b.msg(s2c, "s", res("1"))
	s := b.model(0).Snapshot()
	d := s.Entries[0].Detail()
	for _, want := range []string{"#1 request tools/call", "\"name\": \"x\"", "response after 1ms", "record 2"} {
		if !strings.Contains(d, want) {
			t.Errorf("detail lacks %q:\n%s", want, d)
		}
	}
	if got := Pretty([]byte(`{"a":[1]}`)); got != "{\n  \"a\": [\n    1\n  ]\n}" {
		t.Errorf("Pretty = %q", got)
	}
	if got := Pretty([]byte("not json")); got != "not json" {
		t.Errorf("Pretty of non-JSON = %q", got)
	}
}
