package stdio

import (
	"bytes"
	"context"
	"fmt"
	"sync"
)

// batches is how writes made together share one call to the underlying
// writer (see write).
type batches struct {
	mu   sync.Mutex
	cond sync.Cond // L is &mu: broadcast when a joined batch has been written
	// buf holds the lines of the batch being made or written. Its writer,
	// holding the write slot, owns it, but shares it under mu while open.
	buf     []byte
	open    bool   // the batch takes joiners
	seq     uint64 // the number of the batch last opened
	joined  bool   // the open batch was joined
	written uint64 // the number of the last joined batch written, or failed
	failed  uint64 // the number of the batch whose write failed; 0 while none has
	err     error  // that batch's error
	alone   int    // guarded by the write slot: batches written since one was joined
}

// maxBatchBytes bounds the lines that writes may add to a batch: a write
// whose line would take it over waits for the slot instead. (A pipe holds
// 64 KiB: a bigger batch would wait for the peer's reading anyway.)
const maxBatchBytes = 64 << 10

// probeEvery is how often a writer gives way to possible joiners when the last
// batches had none: once in so many writes, so that a connection used one
// call at a time seldom pays for it, and one that becomes busy soon batches.
const probeEvery = 8

// write sends msg and a '\n' to the underlying writer.
//
// Writes made together are batched. The writer holding the write slot gives
// way once before writing (runtime.Gosched), and the writes made meanwhile
// append their lines to its batch instead of waiting for the slot, then wait
// for that one call to the writer. Calls in flight together on one pipe — a
// gateway's to a server — thus cost the two ends one system call and one
// wake-up per batch instead of one per message. A writer gives way only if
// the last batch was joined, or once in probeEvery writes. A write that joins
// a batch is in progress: it runs to completion like the batch's writer, and
// returns that write's error. Lines keep the order of the writes.
func (c *lineConn) write(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(msg) == 0 {
		return errEmptyMessage
	}
	if bytes.IndexByte(msg, '\n') >= 0 {
		return fmt.Errorf("stdio: refusing to write: %w", ErrNewlineInMessage)
	}
	if seq, ok := c.join(msg); ok {
		return c.await(seq)
	}
	select {
	case c.writeSlot <- struct{}{}: // free: no need to watch anything else
	default:
		select {
		case c.writeSlot <- struct{}{}:
		case <-c.closed:
			return c.errWriteClosed()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-c.writeSlot }()
	if c.isClosed() {
		return c.errWriteClosed()
	}
	if c.writeErr != nil {
		return c.writeErr
	}
	b := &c.batches
	joined := false
	if b.alone%probeEvery == 0 {
		b.mu.Lock()
		b.buf = append(append(b.buf[:0], msg...), '\n')
		b.seq++
		b.open = true
		b.mu.Unlock()
		c.yield()
		b.mu.Lock()
		b.open = false
		joined, b.joined = b.joined, false
		b.mu.Unlock()
	} else {
		b.buf = append(append(b.buf[:0], msg...), '\n')
	}
	if joined {
		b.alone = 0
	} else {
		b.alone++
	}

	_, err := c.out.Write(b.buf)
	if cap(b.buf) > maxRetainedWriteBuffer {
		b.buf = nil
	}
	if err != nil {
		// A partly written line cannot be taken back: fail every later write too.
		c.writeErr = fmt.Errorf("%w: %w", errWriting, err)
		err = c.writeErr
	}
	if joined {
		b.mu.Lock()
		b.written = b.seq
		if err != nil {
			b.failed, b.err = b.seq, err
		}
		b.mu.Unlock()
		b.cond.Broadcast()
	}
	return err
}

// join appends msg and its '\n' to the batch about to be written, if there is
// one, it has room (maxBatchBytes) and the connection is open, and returns the
// batch's number; ok says whether it did.
func (c *lineConn) join(msg []byte) (seq uint64, ok bool) {
	b := &c.batches
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.open || len(b.buf)+len(msg) >= maxBatchBytes || c.isClosed() {
		return 0, false
	}
	b.buf = append(append(b.buf, msg...), '\n')
	b.joined = true
	return b.seq, true
}

// await waits until the batch seq, which a write joined, is written, and
// returns the error of its writing.
func (c *lineConn) await(seq uint64) error {
	b := &c.batches
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.written < seq {
		b.cond.Wait()
	}
	if b.failed == seq {
		return b.err
	}
	return nil
}
