package stdio

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// joinWhileYielding makes c's next batch writer, when it gives way, let msgs
// join its batch as writes made meanwhile would, and returns where the
// number of the batch each joined will be (0 when one could not).
func joinWhileYielding(c *lineConn, msgs ...string) *[]uint64 {
	var joined []uint64
	c.yield = func() {
		c.yield = func() {} // only this writer lets them join
		for _, m := range msgs {
			seq, _ := c.join([]byte(m))
			joined = append(joined, seq)
		}
	}
	return &joined
}

func TestWritesMadeMeanwhileShareOneCall(t *testing.T) {
	ctx := testkit.Context(t)
	w := &recordingWriter{}
	c := newLineConn(strings.NewReader(""), w, 0, false)
	defer c.close()
	joined := joinWhileYielding(c, `{"n":2}`, `{"n":3}`)

	if err := c.write(ctx, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	if len(w.calls) != 1 || string(w.calls[0]) != "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n" {
		t.Fatalf("write calls %q, want the three lines in order in one call", w.calls)
	}
	for i, seq := range *joined {
		if seq == 0 {
			t.Fatalf("write %d did not join the open batch", i+2)
		}
		if err := c.await(seq); err != nil { // returns at once: the batch is written
			t.Fatalf("write %d: %v", i+2, err)
		}
	}

	// Once written, the batch takes no more lines, and the next write makes a
	// call of its own with its line alone.
	if _, ok := c.join([]byte(`{"late":1}`)); ok {
		t.Fatal("a write joined a batch already written")
	}
	if err := c.write(ctx, []byte(`{"n":4}`)); err != nil {
		t.Fatal(err)
	}
	if len(w.calls) != 2 || string(w.calls[1]) != "{\"n\":4}\n" {
		t.Fatalf("write calls %q, want a second call with the fourth line alone", w.calls)
	}
}

func TestJoinedWritesGetTheBatchError(t *testing.T) {
	ctx := testkit.Context(t)
	w := &failingWriter{}
	c := newLineConn(strings.NewReader(""), w, 0, false)
	defer c.close()
	// One joiner waits from before the batch is written, as a concurrent
	// write does; the other asks after.
	waited := make(chan error, 1)
	c.yield = func() {
		c.yield = func() {}
		seq, _ := c.join([]byte(`{"n":2}`))
		go func() { waited <- c.await(seq) }()
	}
	err := c.write(ctx, []byte(`{"n":1}`))
	if !errors.Is(err, errWriting) || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("batch writer: %v, want the writer's error", err)
	}
	if got := <-waited; got != err {
		t.Fatalf("waiting joined write: %v, want the batch's error %v", got, err)
	}
	if w.calls != 1 {
		t.Fatalf("writer called %d times, want once for the batch", w.calls)
	}

	// Every later write fails without a call, joined or not.
	joined := joinWhileYielding(c, `{"n":4}`)

	if err2 := c.write(ctx, []byte(`{"n":3}`)); err2 != err {
		t.Fatalf("write after the failure: %v, want %v", err2, err)
	}
	if len(*joined) != 0 {
		t.Fatal("a batch was opened after the output failed")
	}
	if w.calls != 1 {
		t.Fatalf("writer called %d times, want once", w.calls)
	}
}

func TestNoJoiningAfterClose(t *testing.T) {
	ctx := testkit.Context(t)
	var out bytes.Buffer
	c := newLineConn(strings.NewReader(""), &out, 0, false)
	joined := false
	c.yield = func() {
		c.close()
		_, joined = c.join([]byte(`{"n":2}`))
	}
	if err := c.write(ctx, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err) // closed after its checks: a write in progress completes
	}
	if joined {
		t.Fatal("a write joined a batch after close")
	}
	if out.String() != "{\"n\":1}\n" {
		t.Fatalf("output %q, want the first line alone", out.String())
	}
}

// A connection used one call at a time gives way once in probeEvery writes
// only; one whose batch was joined gives way at its next write.
func TestWriterGivesWayWhenBatchesForm(t *testing.T) {
	ctx := testkit.Context(t)
	c := newLineConn(strings.NewReader(""), &bytes.Buffer{}, 0, false)
	defer c.close()
	yields := 0
	c.yield = func() { yields++ }
	for range 2*probeEvery + 1 {
		if err := c.write(ctx, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	if yields != 3 {
		t.Fatalf("gave way %d times in %d lone writes, want 3", yields, 2*probeEvery+1)
	}

	// A fresh connection: its first write probes, and its batch is joined.
	c = newLineConn(strings.NewReader(""), &bytes.Buffer{}, 0, false)
	defer c.close()
	joinWhileYielding(c, `{"joined":1}`)
	if err := c.write(ctx, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	yields = 0
	c.yield = func() { yields++ }
	c.write(ctx, []byte(`{}`)) // gives way: the last batch was joined
	c.write(ctx, []byte(`{}`)) // does not: that one was not
	if yields != 1 {
		t.Fatalf("gave way %d times in the two writes after a joined batch, want once", yields)
	}
}

func TestBatchesAreBounded(t *testing.T) {
	ctx := testkit.Context(t)
	w := &recordingWriter{}
	c := newLineConn(strings.NewReader(""), w, 0, false)
	defer c.close()
	fits := `"` + strings.Repeat("a", maxBatchBytes-len(`{"n":1}`+"\n")-3) + `"` // with its '\n', it fills the batch
	tooLong := `"a` + fits[1:]                                                   // one byte more than there is room for
	joined := joinWhileYielding(c, tooLong, fits, `{}`)
	if err := c.write(ctx, []byte(`{"n":1}`)); err != nil {
		t.Fatal(err)
	}
	if j := *joined; j[0] != 0 || j[1] == 0 || j[2] != 0 {
		t.Fatalf("joins %v: want the line that fills the batch taken, and the others refused", j)
	}
	if len(w.calls) != 1 || len(w.calls[0]) != maxBatchBytes {
		t.Fatalf("%d calls, the first of %d bytes: want one of %d", len(w.calls), len(w.calls[0]), maxBatchBytes)
	}
}
