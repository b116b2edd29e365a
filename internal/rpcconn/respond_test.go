package rpcconn

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// responsePipe is a pipe that takes success responses through WriteResponse
// and records the id it was given.
type responsePipe struct {
	*pipe
	ids chan jsonrpc.ID
}

func (p *responsePipe) WriteResponse(ctx context.Context, id jsonrpc.ID, msg []byte) error {
	p.ids <- id
	return p.Write(ctx, msg)
}

// A success response goes to WriteResponse with its request's id, as the
// bytes Write would have been given; an error response, which a transport may
// need to read (an HTTP status follows its code), goes to Write.
func TestConnWritesResponsesWithTheirID(t *testing.T) {
	a, peer := newPipe()
	rp := &responsePipe{pipe: a, ids: make(chan jsonrpc.ID, 4)}
	c := NewConn(rp, ConnOptions{Handler: echoHandler()})
	c.Start(context.Background())
	t.Cleanup(func() { _ = c.Close() })

	got := exchange(t, peer, `{"jsonrpc":"2.0","id":"a-1","method":"echo","params":{"x":1}}`)
	if want := `{"jsonrpc":"2.0","id":"a-1","result":{"x":1}}`; got != want {
		t.Fatalf("response = %s, want %s", got, want)
	}
	select {
	case id := <-rp.ids:
		if id != jsonrpc.StringID("a-1") {
			t.Fatalf("WriteResponse got id %v, want a-1", id)
		}
	default:
		t.Fatal("the success response was not written with WriteResponse")
	}

	got = exchange(t, peer, `{"jsonrpc":"2.0","id":9,"method":"fail"}`)
	if want := `{"jsonrpc":"2.0","id":9,"error":{"code":7,"message":"custom"}}`; got != want {
		t.Fatalf("error response = %s, want %s", got, want)
	}
	select {
	case id := <-rp.ids:
		t.Fatalf("the error response went to WriteResponse (id %v)", id)
	default:
	}
}
