package rpcconn

import (
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// replyStream answers every request through the reply handler, on the writer's
// goroutine, and never through Read.
type replyStream struct {
	reply  func([]byte) bool
	taken  chan bool // what the handler said, per reply
	closed chan struct{}
}

func (s *replyStream) SetReplyHandler(f func([]byte) bool) { s.reply = f }

func (s *replyStream) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.closed:
		return nil, io.EOF
	}
}

func (s *replyStream) Write(_ context.Context, msg []byte) error {
	m, err := jsonrpc.Decode(msg)
	if err != nil || !m.IsRequest() {
		return err
	}
	s.taken <- s.reply(jsonrpc.AppendResult(nil, m.ID, json.RawMessage(`{"ok":true}`)))
	return nil
}

func (s *replyStream) Close() error { close(s.closed); return nil }

// A stream with a reply handler (rpcconn.ReplyStream) delivers a call's response
// without the read loop: here Read never returns one.
func TestConnTakesRepliesFromTheStream(t *testing.T) {
	s := &replyStream{taken: make(chan bool, 2), closed: make(chan struct{})}
	c := NewConn(s, ConnOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.Start(ctx)
	defer c.Close()
	for range 2 {
		var res struct{ OK bool }
		if err := c.Call(ctx, "m", nil, &res); err != nil || !res.OK {
			t.Fatalf("Call = %+v, %v", res, err)
		}
		if !<-s.taken {
			t.Fatal("the reply handler did not take the response")
		}
	}
	// Not a response: left to the stream.
	if s.reply([]byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)) || s.reply([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`)) {
		t.Error("the reply handler took a notification or a batch")
	}
}

// decodedStream is a replyStream that also hands replies over decoded.
type decodedStream struct {
	replyStream
	decoded func(*jsonrpc.Message) bool
}

func (s *decodedStream) SetDecodedReplyHandler(f func(*jsonrpc.Message) bool) { s.decoded = f }

func (s *decodedStream) Write(_ context.Context, msg []byte) error {
	m, err := jsonrpc.Decode(msg)
	if err != nil || !m.IsRequest() {
		return err
	}
	s.taken <- s.decoded(&jsonrpc.Message{ID: m.ID, Result: json.RawMessage(`{"ok":true}`)})
	return nil
}

// A stream that hands replies over decoded (rpcconn.DecodedReplyStream) gets
// the decoded handler, not the raw one.
func TestConnTakesDecodedReplies(t *testing.T) {
	s := &decodedStream{replyStream: replyStream{taken: make(chan bool, 2), closed: make(chan struct{})}}
	c := NewConn(s, ConnOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c.Start(ctx)
	defer c.Close()
	if s.reply != nil {
		t.Fatal("the raw reply handler was set too")
	}
	for range 2 {
		var res struct{ OK bool }
		if err := c.Call(ctx, "m", nil, &res); err != nil || !res.OK {
			t.Fatalf("Call = %+v, %v", res, err)
		}
		if !<-s.taken {
			t.Fatal("the decoded reply handler did not take the response")
		}
	}
	if s.decoded(&jsonrpc.Message{Method: "notifications/x"}) {
		t.Error("the decoded reply handler took a notification")
	}
}
