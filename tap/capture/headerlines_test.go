package capture

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestHeaderLines: headers given with SetHeaderLines are written exactly as the
// same headers given as a map, and a subscriber finds them in Headers, for a
// few fields and for more than appendHeaderLines holds on its stack.
func TestHeaderLines(t *testing.T) {
	many := map[string][]string{}
	var manyLines strings.Builder
	for i := range 40 {
		name := fmt.Sprintf("X-F%02d", 39-i)
		v := fmt.Sprintf("v%d", i)
		many[name] = append(many[name], v)
		fmt.Fprintf(&manyLines, "%s:%s\n", name, v)
		if i%7 == 0 {
			many[name] = append(many[name], "again")
			fmt.Fprintf(&manyLines, "%s:again\n", name)
		}
	}
	for _, tc := range []struct {
		lines string
		m     map[string][]string
	}{
		{"Host:h\nSet-Cookie:a=[REDACTED]\nContent-Type:application/json\nSet-Cookie:b=1; Path=/\nX-Empty:\nX-Quote:\"\\\u2028:x\n",
			map[string][]string{"Host": {"h"}, "Set-Cookie": {"a=[REDACTED]", "b=1; Path=/"}, "Content-Type": {"application/json"},
				"X-Empty": {""}, "X-Quote": {"\"\\\u2028:x"}}},
		{manyLines.String(), many},
	} {
		rm := &Record{Seq: 1, HTTP: &HTTPInfo{Exchange: 1, Method: "POST", Path: "/", Headers: tc.m}}
		li := &HTTPInfo{Exchange: 1, Method: "POST", Path: "/"}
		li.SetHeaderLines(tc.lines)
		rl := &Record{Seq: 1, HTTP: li}
		if got, want := string(AppendRecord(nil, rl)), string(AppendRecord(nil, rm)); got != want {
			t.Errorf("from lines:\n%s\nfrom the map:\n%s", got, want)
		}
		if li.Headers != nil {
			t.Errorf("writing built Headers")
		}
		li.buildHeaders()
		if !reflect.DeepEqual(li.Headers, tc.m) {
			t.Errorf("built %v, want %v", li.Headers, tc.m)
		}
	}
}
