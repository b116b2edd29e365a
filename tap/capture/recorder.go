package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxQueue      = 1 << 16   // records
	DefaultMaxQueueBytes = 256 << 20 // bytes of messages and text
)

// recordOverhead is what a record counts against MaxQueueBytes besides its message
// and text: the struct and its small strings, roughly.
const recordOverhead = 256

// Options configures a Recorder.
type Options struct {
	// Out receives the capture: the header line, then one line per record. Nil
	// records nothing to a file (subscribers and the summary still work). If Out
	// has a Sync method (an *os.File does), Close calls it.
	Out io.Writer
	// Header is written as the first line; its Format is set by the recorder.
	Header Header
	// MaxQueue and MaxQueueBytes bound the records waiting to be written: a record
	// that would exceed either is dropped, counted, and reported by a KindDropped
	// record as soon as there is room. Zero means the defaults.
	MaxQueue      int
	MaxQueueBytes int64
}

// Recorder takes records from the relays, numbers and timestamps them, and writes
// them to Options.Out on its own goroutine. Record never blocks on that writing:
// when the buffer between them is full it drops the record and counts it.
// Close ends the goroutine after writing everything taken.
type Recorder struct {
	out      *bufio.Writer
	syncer   interface{ Sync() error }
	maxQueue int
	maxBytes int64
	wake     chan struct{}
	closing  chan struct{} // closed by Close
	done     chan struct{}

	mu           sync.Mutex
	queue        []*Record
	queuedBytes  int64
	seq          uint64
	dropped      int64 // dropped and not yet reported by a record
	droppedTotal int64
	closed       bool

	subsMu     sync.Mutex
	subs       []*Subscription
	subsClosed bool // the recorder finished: no more subscriptions

	statsMu   sync.Mutex
	tally     tally // owned by the writer goroutine; read under statsMu
	err       error // the first write error, under statsMu
	unwritten int64 // records whose line did not reach Out whole, under statsMu

	// Owned by the writer goroutine: what is known to have reached Out.
	accepted int64   // bytes out took from write
	ends     []int64 // the end offsets of the lines out may still hold
	failed   bool    // a write failed: nothing more reaches Out
}

// NewRecorder writes the header to opts.Out and starts the recorder's goroutine.
// The caller must Close the recorder.
func NewRecorder(opts Options) (*Recorder, error) {
	rec := &Recorder{
		maxQueue: opts.MaxQueue,
		maxBytes: opts.MaxQueueBytes,
		wake:     make(chan struct{}, 1),
		closing:  make(chan struct{}),
		done:     make(chan struct{}),
	}
	rec.tally.reuse = true // no one else sees its requests
	if rec.maxQueue <= 0 {
		rec.maxQueue = DefaultMaxQueue
	}
	if rec.maxBytes <= 0 {
		rec.maxBytes = DefaultMaxQueueBytes
	}
	if opts.Out != nil {
		rec.out = bufio.NewWriterSize(opts.Out, 64<<10)
		rec.syncer, _ = opts.Out.(interface{ Sync() error })
		line, err := appendHeader(nil, opts.Header)
		if err != nil {
			return nil, fmt.Errorf("capture header: %w", err)
		}
		if _, err := rec.out.Write(line); err != nil {
			return nil, fmt.Errorf("writing the capture header: %w", err)
		}
		if err := rec.out.Flush(); err != nil {
			return nil, fmt.Errorf("writing the capture header: %w", err)
		}
	}
	go rec.run()
	return rec, nil
}

// Record takes r (which belongs to the recorder from then on), giving it the next
// sequence number and the current time. It never blocks on the writing: if the
// buffer is full, r is dropped and counted. Records after Close are dropped too.
// Record is safe for concurrent use.
func (rec *Recorder) Record(r *Record) {
	size := int64(len(r.Msg)+len(r.Text)) + recordOverhead
	rec.mu.Lock()
	if rec.closed || len(rec.queue) >= rec.maxQueue || (rec.queuedBytes > 0 && rec.queuedBytes+size > rec.maxBytes) {
		rec.dropped++
		rec.droppedTotal++
		rec.mu.Unlock()
		return
	}
	now := time.Now()
	if rec.dropped > 0 {
		rec.enqueueLocked(&Record{Kind: KindDropped, Count: rec.dropped}, now, recordOverhead)
		rec.dropped = 0
	}
	first := rec.enqueueLocked(r, now, size)
	rec.mu.Unlock()
	if first {
		select {
		case rec.wake <- struct{}{}:
		default:
		}
	}
}

// enqueueLocked numbers r and queues it, reporting whether the queue was empty.
func (rec *Recorder) enqueueLocked(r *Record, now time.Time, size int64) bool {
	rec.seq++
	r.Seq, r.Time = rec.seq, now
	rec.queue = append(rec.queue, r)
	rec.queuedBytes += size
	return len(rec.queue) == 1
}

// batchInterval is how long the writer lets records gather before writing a batch:
// it wakes at most about this often rather than once per record, its work stays
// out of the round trip that produced the records, and the capture file is written
// in large pieces. Subscribers see records up to this much later.
const batchInterval = time.Millisecond

// run is the recorder's goroutine: it writes what Record queued, in batches,
// flushing when the queue is empty, until Close.
func (rec *Recorder) run() {
	defer close(rec.done)
	var spare []*Record
	var line []byte
	pause := time.NewTimer(time.Hour)
	pause.Stop()
	for {
		select {
		case <-rec.wake:
		case <-rec.closing:
		}
		for {
			// Let records gather (and keep this work off the moment the relay
			// that woke us is busy): a batch a millisecond.
			pause.Reset(batchInterval)
			select {
			case <-pause.C:
			case <-rec.closing:
				pause.Stop()
			}
			rec.mu.Lock()
			batch := rec.queue
			rec.queue, spare = spare[:0], nil
			rec.queuedBytes = 0
			closed := rec.closed
			if closed && len(batch) == 0 && rec.dropped > 0 {
				// Report drops nobody reported yet: Close is the last chance.
				rec.seq++
				batch = append(batch, &Record{Seq: rec.seq, Time: time.Now(), Kind: KindDropped, Count: rec.dropped})
				rec.dropped = 0
			}
			rec.mu.Unlock()
			if len(batch) == 0 {
				rec.flush()
				if closed {
					rec.finish()
					return
				}
				break
			}
			for i, r := range batch {
				line = rec.take(r, line)
				batch[i] = nil
			}
			spare = batch
			if cap(line) > 1<<20 {
				line = nil // do not keep a huge message's buffer
			}
		}
	}
}

// take is the work of run for one record: it accounts for r, writes its line
// (built in line, returned for the next) and hands r to the subscribers.
func (rec *Recorder) take(r *Record, line []byte) []byte {
	msgs := normalize(r)
	rec.statsMu.Lock()
	rec.tally.observe(r, msgs, nil)
	rec.statsMu.Unlock()
	if rec.out != nil {
		line = AppendRecord(line[:0], r)
		rec.write(line)
	}
	rec.deliver(r)
	return line
}

// write writes one record's line. Once a write fails (a full disk), no line
// reaches Out any more (the writer's error sticks): the records whose lines were
// not all written are counted, so that the summary does not claim a complete
// capture.
func (rec *Recorder) write(line []byte) {
	if rec.failed {
		rec.countUnwritten(1)
		return
	}
	n, err := rec.out.Write(line)
	rec.accepted += int64(n)
	if n == len(line) {
		rec.ends = append(rec.ends, rec.accepted)
	}
	if err != nil {
		rec.writeFailed(err, n < len(line))
		return
	}
	rec.settle()
}

func (rec *Recorder) flush() {
	if rec.out == nil || rec.failed {
		return
	}
	if err := rec.out.Flush(); err != nil {
		rec.writeFailed(err, false)
		return
	}
	rec.ends = rec.ends[:0]
}

// settle forgets the lines that have reached Out: those that end before the
// bytes the writer still buffers.
func (rec *Recorder) settle() {
	out := rec.accepted - int64(rec.out.Buffered())
	i := 0
	for i < len(rec.ends) && rec.ends[i] <= out {
		i++
	}
	if i == len(rec.ends) {
		rec.ends = rec.ends[:0]
	} else if i > 0 {
		rec.ends = append(rec.ends[:0], rec.ends[i:]...)
	}
}

// writeFailed records the first write error and counts the records that did
// not reach Out: those still in the writer's buffer, and the one being written
// when it did not go in whole.
func (rec *Recorder) writeFailed(err error, current bool) {
	rec.failed = true
	rec.fail(fmt.Errorf("writing the capture: %w", err))
	rec.settle()
	n := int64(len(rec.ends))
	if current {
		n++
	}
	rec.ends = nil
	rec.countUnwritten(n)
}

func (rec *Recorder) countUnwritten(n int64) {
	rec.statsMu.Lock()
	rec.unwritten += n
	rec.statsMu.Unlock()
}

// finish syncs the output and ends the subscriptions.
func (rec *Recorder) finish() {
	if rec.syncer != nil {
		if err := rec.syncer.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
			// EINVAL, ENOTSUP: a pipe or a terminal, which cannot be synced.
			rec.fail(fmt.Errorf("syncing the capture: %w", err))
		}
	}
	rec.subsMu.Lock()
	for _, s := range rec.subs {
		close(s.c)
	}
	rec.subs = nil
	rec.subsClosed = true
	rec.subsMu.Unlock()
}

func (rec *Recorder) fail(err error) {
	rec.statsMu.Lock()
	if rec.err == nil {
		rec.err = err
	}
	rec.statsMu.Unlock()
}

// Close stops taking records, writes those taken (and a final KindDropped record
// if drops are still unreported), flushes and syncs the output, and ends every
// subscription. It returns the first error writing met. Close does not close
// Options.Out.
func (rec *Recorder) Close() error {
	rec.mu.Lock()
	already := rec.closed
	rec.closed = true
	rec.mu.Unlock()
	if !already {
		close(rec.closing)
	}
	<-rec.done
	return rec.Err()
}

// Err returns the first error writing the capture met, if any.
func (rec *Recorder) Err() error {
	rec.statsMu.Lock()
	defer rec.statsMu.Unlock()
	return rec.err
}

// Summary returns the account of the records written so far; after Close, of all.
func (rec *Recorder) Summary() Summary {
	rec.statsMu.Lock()
	s := rec.tally.summary()
	s.Unwritten = rec.unwritten
	rec.statsMu.Unlock()
	rec.mu.Lock()
	s.Dropped = rec.droppedTotal
	rec.mu.Unlock()
	return s
}

// Subscription delivers a recorder's records as they are written: the live feed of
// a view. A subscriber that falls behind by more than its buffer misses records;
// it then receives a KindDropped record counting them (with Seq 0: it is not part
// of the capture) before the next one it gets.
type Subscription struct {
	// C receives the records, in order; it is closed when the subscription or the
	// recorder is closed.
	C <-chan *Record

	c      chan *Record
	rec    *Recorder
	missed int64 // records not delivered and not yet reported
}

// Subscribe returns a subscription to the records written from now on, buffering
// up to buffer of them (at least 1).
func (rec *Recorder) Subscribe(buffer int) *Subscription {
	c := make(chan *Record, max(buffer, 1))
	s := &Subscription{C: c, c: c, rec: rec}
	rec.subsMu.Lock()
	if rec.subsClosed {
		close(c) // the recorder is closed: nothing will come
	} else {
		rec.subs = append(rec.subs, s)
	}
	rec.subsMu.Unlock()
	return s
}

// Close ends the subscription: C is closed and receives nothing more.
func (s *Subscription) Close() {
	rec := s.rec
	rec.subsMu.Lock()
	defer rec.subsMu.Unlock()
	for i, x := range rec.subs {
		if x == s {
			rec.subs = append(rec.subs[:i], rec.subs[i+1:]...)
			close(s.c)
			return
		}
	}
}

// deliver hands r to every subscriber that has room.
func (rec *Recorder) deliver(r *Record) {
	rec.subsMu.Lock()
	defer rec.subsMu.Unlock()
	if len(rec.subs) > 0 && r.HTTP != nil {
		r.HTTP.buildHeaders()
	}
	for _, s := range rec.subs {
		if s.missed > 0 {
			select {
			case s.c <- &Record{Time: r.Time, Kind: KindDropped, Count: s.missed}:
				s.missed = 0
			default:
				s.missed++
				continue
			}
		}
		select {
		case s.c <- r:
		default:
			s.missed++
		}
	}
}
