package sse_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpkit/mcpkit/internal/sse"
)

func ExampleDecoder() {
	// Framing as real servers send it: CRLF line ends, no space after the colon, a
	// keep-alive comment, a multi-line event, and a last event without a blank line.
	stream := "event:endpoint\r\ndata:/messages?sessionId=abc\r\n\r\n" +
		": ping\r\n\r\n" +
		"id: 7\ndata: first line\ndata: second line\n\n" +
		"data: {\"jsonrpc\":\"2.0\"}\n"

	dec := sse.NewDecoder(strings.NewReader(stream))
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		fmt.Printf("id=%q type=%q data=%q\n", ev.ID, ev.Type, ev.Data)
	}
	fmt.Println("last event id:", dec.LastEventID())
	// Output:
	// id="" type="endpoint" data="/messages?sessionId=abc"
	// id="7" type="message" data="first line\nsecond line"
	// id="7" type="message" data="{\"jsonrpc\":\"2.0\"}"
	// last event id: 7
}

func ExampleNewDecoderWithOptions() {
	// OnComment sees keep-alive comments, for example to reset an idle timer.
	pings := 0
	dec := sse.NewDecoderWithOptions(strings.NewReader(": ping\n\n: ping\n\nretry: 3000\ndata: hi\n\n"),
		sse.DecoderOptions{
			MaxEventSize: 1 << 20,
			OnComment:    func(text []byte) { pings++ },
		})
	ev, err := dec.Next()
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	retry, _ := dec.Retry()
	fmt.Printf("%s after %d pings; reconnect after %v\n", ev.Data, pings, retry)
	// Output:
	// hi after 2 pings; reconnect after 3s
}

func ExampleEncoder() {
	enc := sse.NewEncoder(os.Stdout) // an HTTP handler writes to the ResponseWriter and flushes
	if err := enc.Prime("s1-0"); err != nil {
		fmt.Println("error:", err)
	}
	if err := enc.Encode(sse.Event{ID: "s1-1", Type: "message", Data: []byte("{\n  \"jsonrpc\": \"2.0\"\n}")}); err != nil {
		fmt.Println("error:", err)
	}
	if err := enc.Comment("keep-alive"); err != nil {
		fmt.Println("error:", err)
	}
	if err := enc.Encode(sse.Event{ID: "bad\nid"}); err != nil {
		fmt.Println("error:", err)
	}
	// Output:
	// id: s1-0
	// data:
	//
	// id: s1-1
	// event: message
	// data: {
	// data:   "jsonrpc": "2.0"
	// data: }
	//
	// : keep-alive
	// error: sse: invalid event: id "bad\nid" contains a line break or NUL
}
