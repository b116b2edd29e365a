package llmtest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/llm"
)

// StreamDecoder is a provider's decoder of its streamed answer: Event takes
// one Server-Sent Event and reports whether the stream is done; End closes
// the stream and reports what is still open.
type StreamDecoder interface {
	Event(ev sse.Event, yield func(llm.Event) bool) (bool, error)
	End(yield func(llm.Event) bool) error
}

// FuzzStreamDecoder feeds a fresh decoder from newDecoder events of any
// content, one event per line of the input, as a model endpoint (a peer:
// --base-url may point anywhere) could send them. The seeds are the data
// lines of the package's testdata/*.sse recordings. The decoder must never
// panic, and the tool calls it reports are numbered from 0 in order of their
// start, whatever indexes the stream gave them (a wire index of 99999999
// allocates nothing).
func FuzzStreamDecoder(f *testing.F, newDecoder func() StreamDecoder) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.sse"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var seed []byte
		for _, line := range bytes.Split(raw, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				seed = append(append(seed, d...), '\n')
			}
		}
		f.Add(seed)
	}
	f.Add([]byte("{\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":99999999,\"id\":\"c\",\"function\":{\"name\":\"x\"}}]}}]}\n"))
	f.Add([]byte("{\"type\":\"content_block_delta\",\"index\":-1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newDecoder()
		starts := 0
		yield := func(ev llm.Event) bool {
			switch ev.Type {
			case llm.EventToolCallStart:
				if ev.Index != starts {
					t.Fatalf("tool call %d started as number %d", starts, ev.Index)
				}
				starts++
			case llm.EventToolCallDelta, llm.EventToolCallEnd:
				if ev.Index < 0 || ev.Index >= starts {
					t.Fatalf("event %d for tool call %d of %d started", ev.Type, ev.Index, starts)
				}
			}
			return true
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			done, err := d.Event(sse.Event{Type: "message", Data: line}, yield)
			if err != nil || done {
				return
			}
		}
		_ = d.End(yield)
	})
}
