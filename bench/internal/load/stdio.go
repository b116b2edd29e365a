package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// stdioClient talks to a server over its standard input and output.
type stdioClient struct {
	w    *bufio.Writer
	r    *bufio.Reader
	line []byte // a line longer than the reader's buffer is assembled here
	// setReadDeadline bounds the wait for the server's output, when the pipe
	// supports it (an *os.File does).
	setReadDeadline func(time.Time) error
}

// newStdioClient wraps the server's pipes.
func newStdioClient(stdin io.Writer, stdout io.Reader) *stdioClient {
	c := &stdioClient{w: bufio.NewWriterSize(stdin, 64<<10), r: bufio.NewReaderSize(stdout, 256<<10)}
	if d, ok := stdout.(interface{ SetReadDeadline(time.Time) error }); ok {
		c.setReadDeadline = d.SetReadDeadline
	}
	return c
}

// send writes one message and its newline, and flushes.
func (c *stdioClient) send(msg []byte) error {
	c.w.Write(msg)
	c.w.WriteByte('\n')
	return c.w.Flush()
}

// readLine returns the next non-blank line; it is valid until the next call.
func (c *stdioClient) readLine() ([]byte, error) {
	for {
		line, err := c.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			c.line = append(c.line[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = c.r.ReadSlice('\n')
				c.line = append(c.line, line...)
			}
			line = c.line
		}
		if err != nil {
			return nil, err
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) > 0 {
			return line, nil
		}
	}
}

// await reads lines until the reply to id (skipping notifications and, as
// errors, replies to other ids) and returns it.
func (c *stdioClient) await(id int64) (*reply, error) {
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, err
		}
		r, replyID, ok, err := decodeReply(line)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			continue // a notification
		case replyID != id:
			return nil, fmt.Errorf("reply to id %d while waiting for %d", replyID, id)
		}
		return r, nil
	}
}

// handshake sends initialize (id 0) and notifications/initialized.
func (c *stdioClient) handshake() error {
	if err := c.send(appendInitialize(nil, 0)); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	r, err := c.await(0)
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if r.Error != nil || r.Result == nil || r.Result.ProtocolVersion == "" {
		return fmt.Errorf("initialize: unexpected reply %+v", r)
	}
	return c.send(initializedNotification)
}

// runStdio measures tools/call over stdio: one request at a time
// (ModeStdioSerial) or cfg.InFlight at once (ModeStdioPipelined).
func runStdio(ctx context.Context, cfg Config, p *serverProc, res *Result) error {
	c := newStdioClient(p.stdin, p.stdout)
	if c.setReadDeadline != nil {
		// A server that stops answering must not hold the run until ctx ends.
		_ = c.setReadDeadline(time.Now().Add(cfg.Warmup + cfg.Duration + cfg.RequestTimeout))
	}
	if err := c.handshake(); err != nil {
		return fmt.Errorf("%w; server stderr:\n%s", err, p.tail)
	}
	if cfg.Mode == ModeStdioSerial {
		return runWorkers(ctx, cfg, p, res, 1, func(ctx context.Context, _ int, phase *atomic.Int32, rec *recorder) {
			var body, msg, want []byte
			for seq := int64(1); phase.Load() != phaseDone && ctx.Err() == nil; seq++ {
				msg = appendMessage(msg[:0], 0, seq)
				want = append(append(want[:0], "hello "...), msg...)
				body = appendCall(body[:0], seq, msg)
				start := time.Now()
				err := c.send(body)
				var r *reply
				if err == nil {
					r, err = c.await(seq)
				}
				if err == nil {
					err = checkCallReply(r, seq, want)
				}
				elapsed := time.Since(start)
				if err != nil {
					rec.fail(err)
					if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
						return // the server is gone
					}
					continue
				}
				if phase.Load() == phaseMeasure {
					rec.latencies = append(rec.latencies, int64(elapsed))
				}
			}
		})
	}
	return runWorkers(ctx, cfg, p, res, 1, func(ctx context.Context, _ int, phase *atomic.Int32, rec *recorder) {
		pipeline(ctx, c, cfg.InFlight, cfg.RequestTimeout, phase, rec)
	})
}

// pending is a request sent and not yet answered.
type pending struct {
	start time.Time
	want  []byte
}

// pipeline keeps inFlight requests outstanding: a writer goroutine sends a request
// whenever a slot is free; this goroutine reads and checks the replies. Once the
// phase is done it stops the writer and reads the replies still due, for at most
// timeout when the pipe supports deadlines (otherwise Run's watchdog kills a server
// that never answers when ctx ends).
func pipeline(ctx context.Context, c *stdioClient, inFlight int, timeout time.Duration, phase *atomic.Int32, rec *recorder) {
	slots := make(chan struct{}, inFlight)
	stop := make(chan struct{})
	var mu sync.Mutex
	outstanding := make(map[int64]pending, inFlight)
	writerDone := make(chan struct{})
	var sent int64 // read only after writerDone
	var writeErr error
	go func() {
		defer close(writerDone)
		var body, msg []byte
		for seq := int64(1); ; seq++ {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			case <-ctx.Done():
				return
			}
			// No look at the phase here: only the reader stops the writer, so
			// that the reader never waits for a reply to a request not sent.
			msg = appendMessage(msg[:0], 0, seq)
			want := append([]byte("hello "), msg...)
			body = appendCall(body[:0], seq, msg)
			mu.Lock()
			outstanding[seq] = pending{start: time.Now(), want: want}
			mu.Unlock()
			sent++
			if err := c.send(body); err != nil {
				writeErr = err
				return
			}
		}
	}()
	received := int64(0)
	stopped := false
	var readErr error
	for {
		if !stopped && phase.Load() == phaseDone {
			close(stop)
			<-writerDone
			stopped = true
			if c.setReadDeadline != nil {
				_ = c.setReadDeadline(time.Now().Add(timeout))
			}
		}
		if stopped && received >= sent {
			break
		}
		line, err := c.readLine()
		if err != nil {
			readErr = err
			break
		}
		r, id, ok, err := decodeReply(line)
		if err != nil {
			rec.fail(err)
			continue
		}
		if !ok {
			continue // a notification
		}
		mu.Lock()
		pend, found := outstanding[id]
		delete(outstanding, id)
		mu.Unlock()
		if !found {
			rec.fail(fmt.Errorf("reply to unknown id %d", id))
			continue
		}
		received++
		err = checkCallReply(r, id, pend.want)
		elapsed := time.Since(pend.start)
		<-slots
		if err != nil {
			rec.fail(err)
			continue
		}
		if phase.Load() == phaseMeasure {
			rec.latencies = append(rec.latencies, int64(elapsed))
		}
	}
	if !stopped {
		close(stop)
		<-writerDone
	}
	if writeErr != nil {
		rec.fail(fmt.Errorf("write: %w", writeErr))
	}
	if n := sent - received; n > 0 {
		mu.Lock()
		ids := make([]int64, 0, len(outstanding))
		for id := range outstanding {
			ids = append(ids, id)
		}
		mu.Unlock()
		slices.Sort(ids)
		rec.fail(fmt.Errorf("%d requests never answered (ids %v of %d sent); read: %v", n, ids, sent, readErr))
	} else if readErr != nil {
		rec.fail(fmt.Errorf("read: %w", readErr))
	}
}
