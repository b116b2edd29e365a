package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DefaultIgnore are the JSON paths of a result that change from run to run and
// are not compared: metadata (which carries the server's identity and timings in
// the stateless era), opaque pagination cursors, sealed request state, task ids
// and timestamps, and the server's version. "**." matches at any depth, "*" one
// member or index.
var DefaultIgnore = []string{"**._meta", "**.nextCursor", "**.requestState", "**.taskId", "**.createdAt", "**.lastUpdatedAt", "serverInfo.version"}

// Kinds of Difference.
const (
	KindAdded         = "added"          // a tool, prompt, resource or template the live server has and the capture did not
	KindRemoved       = "removed"        // one the capture had and the live server has not
	KindChanged       = "changed"        // one both have, described differently (Fields)
	KindResult        = "result"         // a result that differs (Fields)
	KindErrorAppeared = "error-appeared" // the recorded request succeeded; the live one failed
	KindErrorVanished = "error-vanished" // the recorded request failed; the live one succeeded
	KindErrorChanged  = "error-changed"  // both failed, with another code
	KindNoResponse    = "no-response"    // the live server did not answer in time
	KindInitialize    = "initialize"     // the initialize result differs (Fields)
)

// Difference is one way the live server answered differently from the capture.
type Difference struct {
	// Seq is the capture record of the request.
	Seq uint64 `json:"seq"`
	// Method is the request's method.
	Method string `json:"method"`
	// Kind is one of the Kind constants.
	Kind string `json:"kind"`
	// Item names what differs: `tool "echo"`, or the request's params.
	Item string `json:"item"`
	// Fields are the JSON paths that differ, sorted (at most maxFields).
	Fields []string `json:"fields,omitempty"`
	// Recorded and Live are what each side had: an error's code and message, or
	// the value at the first differing field.
	Recorded string `json:"recorded,omitempty"`
	Live     string `json:"live,omitempty"`
}

// maxFields bounds the fields a Difference lists.
const maxFields = 8

// String is the difference as one line of the human report.
func (d Difference) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (record %d): ", d.Method, d.Seq)
	switch d.Kind {
	case KindAdded, KindRemoved:
		fmt.Fprintf(&b, "%s %s", d.Item, d.Kind)
	case KindChanged:
		fmt.Fprintf(&b, "%s changed: %s", d.Item, strings.Join(d.Fields, ", "))
	case KindNoResponse:
		fmt.Fprintf(&b, "%s: no response (%s)", d.Item, d.Live)
	default:
		fmt.Fprintf(&b, "%s: %s", d.Item, d.Kind)
		if len(d.Fields) > 0 {
			fmt.Fprintf(&b, " at %s", strings.Join(d.Fields, ", "))
		}
	}
	if d.Recorded != "" || d.Live != "" {
		if d.Kind != KindNoResponse {
			fmt.Fprintf(&b, ": recorded %s, live %s", orNone(d.Recorded), orNone(d.Live))
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// ignorer matches JSON paths against the ignored patterns.
type ignorer [][]string

func newIgnorer(patterns []string) ignorer {
	out := make(ignorer, 0, len(patterns))
	for _, p := range patterns {
		p = strings.TrimPrefix(strings.TrimPrefix(p, "$"), ".")
		if p != "" {
			out = append(out, strings.Split(p, "."))
		}
	}
	return out
}

func (ig ignorer) ignored(path []string) bool {
	for _, p := range ig {
		if matchPath(p, path) {
			return true
		}
	}
	return false
}

func matchPath(pat, path []string) bool {
	if len(pat) > 0 && pat[0] == "**" {
		for i := 0; i <= len(path); i++ {
			if matchPath(pat[1:], path[i:]) {
				return true
			}
		}
		return false
	}
	if len(pat) != len(path) {
		return false
	}
	for i := range pat {
		if pat[i] != "*" && pat[i] != path[i] {
			return false
		}
	}
	return true
}

// diffJSON returns the paths at which a and b differ (not below an ignored
// path), sorted, with the recorded and live values at the first.
func diffJSON(a, b json.RawMessage, ig ignorer) (fields []string, recorded, live string) {
	return diffJSONAt(nil, a, b, ig)
}

// diffJSONAt is diffJSON for values found at base: ignored paths are matched
// from the root, the fields reported are relative to base.
func diffJSONAt(base []string, a, b json.RawMessage, ig ignorer) (fields []string, recorded, live string) {
	va, erra := decodeAny(a)
	vb, errb := decodeAny(b)
	if erra != nil || errb != nil {
		if bytes.Equal(a, b) {
			return nil, "", ""
		}
		return []string{"(whole)"}, string(a), string(b)
	}
	var out []diffAt
	walkDiff(base, va, vb, ig, &out)
	if len(out) == 0 {
		return nil, "", ""
	}
	for i, d := range out {
		if i == maxFields {
			fields = append(fields, fmt.Sprintf("… %d more", len(out)-maxFields))
			break
		}
		f := strings.Join(d.path[len(base):], ".")
		if f == "" {
			f = "(whole)"
		}
		fields = append(fields, f)
	}
	return fields, short(out[0].a), short(out[0].b)
}

type diffAt struct {
	path []string
	a, b any
}

// absent marks a member one side does not have.
type absentValue struct{}

func walkDiff(path []string, a, b any, ig ignorer, out *[]diffAt) {
	if ig.ignored(path) {
		return
	}
	ma, oka := a.(map[string]any)
	mb, okb := b.(map[string]any)
	if oka && okb {
		for _, k := range unionKeys(ma, mb) {
			va, ina := ma[k]
			vb, inb := mb[k]
			if !ina {
				va = absentValue{}
			}
			if !inb {
				vb = absentValue{}
			}
			walkDiff(append(path[:len(path):len(path)], k), va, vb, ig, out)
		}
		return
	}
	la, oka := a.([]any)
	lb, okb := b.([]any)
	if oka && okb {
		for i := 0; i < max(len(la), len(lb)); i++ {
			var va, vb any = absentValue{}, absentValue{}
			if i < len(la) {
				va = la[i]
			}
			if i < len(lb) {
				vb = lb[i]
			}
			walkDiff(append(path[:len(path):len(path)], strconv.Itoa(i)), va, vb, ig, out)
		}
		return
	}
	if !bytes.Equal(appendValue(a), appendValue(b)) {
		*out = append(*out, diffAt{slices.Clone(path), a, b})
	}
}

func appendValue(v any) []byte {
	if _, ok := v.(absentValue); ok {
		return nil
	}
	return appendCanonical(nil, v)
}

// short renders a value for the report, cut at 80 bytes.
func short(v any) string {
	s := string(appendValue(v))
	if s == "" {
		return "(absent)"
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// unionKeys returns the keys of a and b, sorted, each once.
func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, dup := a[k]; !dup {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
