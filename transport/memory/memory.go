// Package memory provides an in-process transport: two connected [transport.Conn]
// ends ([NewPair]) that pass messages as byte slices, for tests and for embedding a
// server and a client in one program.
//
// Each direction is an unbounded queue. Write never blocks (it copies the message and
// appends it), so two peers that both write before reading cannot deadlock each other;
// the price is that a reader that never reads lets its queue grow without limit.
package memory

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/mcpkit/mcpkit/transport"
)

// NewPair returns two connected ends. A message written on one end is read, in order,
// on the other.
//
// Closing one end makes its own pending and later Reads return io.EOF at once and its
// Writes fail; the other end's Read returns the messages already sent and then io.EOF,
// and its Writes fail with an error wrapping io.ErrClosedPipe.
func NewPair() (client, server transport.Conn) {
	toServer := newQueue()
	toClient := newQueue()
	c := &end{name: "client", recv: toClient, send: toServer, closed: make(chan struct{})}
	s := &end{name: "server", recv: toServer, send: toClient, closed: make(chan struct{})}
	return c, s
}

// queue is one direction of a pair: a FIFO of owned messages guarded by a mutex, plus
// a one-slot channel that wakes the reader when something changes.
type queue struct {
	mu         sync.Mutex
	msgs       [][]byte // msgs[head:] are waiting to be read
	head       int
	senderDone bool // the writing end closed: drain, then EOF
	readerDone bool // the reading end closed: drop everything, refuse writes

	notify chan struct{} // capacity 1; a token means "look at the queue again"
}

func newQueue() *queue {
	return &queue{notify: make(chan struct{}, 1)}
}

// wake leaves a token for the reader without ever blocking.
func (q *queue) wake() {
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// push appends an owned message. It fails if either end has closed.
func (q *queue) push(msg []byte) error {
	q.mu.Lock()
	if q.senderDone || q.readerDone {
		q.mu.Unlock()
		return io.ErrClosedPipe
	}
	q.msgs = append(q.msgs, msg)
	q.mu.Unlock()
	q.wake()
	return nil
}

// pop removes the oldest message. ok is false when the queue is empty; eof is true
// when it is empty and the sender has closed.
func (q *queue) pop() (msg []byte, ok, eof bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.msgs) {
		return nil, false, q.senderDone
	}
	msg = q.msgs[q.head]
	q.msgs[q.head] = nil // let the reader own it alone
	q.head++
	switch {
	case q.head == len(q.msgs):
		// Drained: start again at the front, keeping the capacity.
		q.msgs = q.msgs[:0]
		q.head = 0
	case q.head >= 64 && q.head*2 >= len(q.msgs):
		// A reader that never quite catches up: slide the live part to the front so
		// the backing array does not grow forever. Amortised O(1) per message.
		n := copy(q.msgs, q.msgs[q.head:])
		clear(q.msgs[n:])
		q.msgs = q.msgs[:n]
		q.head = 0
	}
	return msg, true, false
}

// closeSender marks the writing end as gone; the reader drains and then sees EOF.
func (q *queue) closeSender() {
	q.mu.Lock()
	q.senderDone = true
	q.mu.Unlock()
	q.wake()
}

// closeReader marks the reading end as gone and frees what it will never read.
func (q *queue) closeReader() {
	q.mu.Lock()
	q.readerDone = true
	clear(q.msgs)
	q.msgs = nil
	q.head = 0
	q.mu.Unlock()
}

// end is one side of a pair.
type end struct {
	name   string
	recv   *queue // messages for this end
	send   *queue // messages from this end
	closed chan struct{}
	once   sync.Once
}

// Read returns the next message, which the caller owns. It returns io.EOF once the
// peer has closed and everything it sent has been read, or as soon as this end is
// closed. It returns ctx.Err() if ctx ends first.
func (e *end) Read(ctx context.Context) ([]byte, error) {
	for {
		select {
		case <-e.closed:
			return nil, io.EOF
		default:
		}
		msg, ok, eof := e.recv.pop()
		if ok {
			return msg, nil
		}
		if eof {
			return nil, io.EOF
		}
		select {
		case <-e.recv.notify:
		case <-e.closed:
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Write queues a copy of msg for the peer; it never blocks. It fails if ctx has
// already ended or if either end has closed.
func (e *end) Write(ctx context.Context, msg []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-e.closed:
		return fmt.Errorf("memory: %s write: %w", e.name, io.ErrClosedPipe)
	default:
	}
	owned := make([]byte, len(msg))
	copy(owned, msg)
	if err := e.send.push(owned); err != nil {
		return fmt.Errorf("memory: %s write: %w", e.name, err)
	}
	return nil
}

// Close ends this side: pending Reads and Writes return, the peer reads what was
// already sent and then io.EOF. Close always returns nil and may be called again.
func (e *end) Close() error {
	e.once.Do(func() {
		close(e.closed)
		e.send.closeSender()
		e.recv.closeReader()
	})
	return nil
}
