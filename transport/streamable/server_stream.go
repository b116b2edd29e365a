package streamable

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpkit/mcpkit/internal/lazydone"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// streamMode is how a stream is written to its HTTP response.
type streamMode uint8

const (
	modeUndecided streamMode = iota // ResponseAuto before the first message
	modeJSON                        // one application/json body (an array for a batch)
	modeSSE                         // a text/event-stream
)

// stream is the logical stream of one POST (the answers to its requests) or of the
// session's GET. It outlives the HTTP request that writes it: when the client
// disconnects, an SSE stream keeps receiving events into the EventStore until its last
// response, and a GET with Last-Event-ID attaches a new writer to it.
type stream struct {
	s     *session
	get   bool // the standalone stream of a GET
	init  bool // answers an initialize request
	batch bool // answers a batch: a JSON answer is an array
	prime bool // open the SSE stream with a priming event (2025-11-25 and later)

	stateless   bool // answers a 2026-07-28 request: error codes map to HTTP statuses
	missingMeta bool // the stateless request lacks required _meta fields (-32602 is a 400)
	listen      bool // a subscriptions/listen stream: open until the client or the server ends it
	sseFinal    bool // ResponseAlwaysSSE for a stateless request: a final result goes on SSE too

	// ids, with a Relay, are the ids of the requests it answers (see
	// pendingEvent); a pointer, so that streams without one stay small.
	ids *[]jsonrpc.ID

	mu       sync.Mutex
	seq      uint64 // unique in the session; 0 in a one-request session
	name     string // seq in decimal, the stream's id in the EventStore: made when first needed
	mode     streamMode
	pending  int            // responses still owed
	done     bool           // nothing more will be sent on it
	failed   bool           // the initialize it answers failed
	status   int            // HTTP status of a JSON answer (0 for 200)
	queue    []event        // events for the attached writer
	first    [1]event       // queue's first array: once a writer takes it, queue starts a new one
	primerID string         // id of the priming event, until written
	writer   *lazydone.Done // the attached writer's (&streamWriter.leave), closed to make it leave; nil when detached
	wake     chan struct{}  // capacity 1: "look at the stream again"; made when a writer first waits

	// idleWriter is the attached writer while its POST's goroutine is busy
	// running the server's handler (see Handler.answer); slowTicks counts the
	// keep-alive ticks it has waited.
	idleWriter *streamWriter
	slowTicks  int
}

// event is one message to write, with its SSE event id ("" when it has none).
type event struct {
	id  string
	msg []byte
}

func newStream(s *session, mode streamMode, pending int) *stream {
	st := new(stream)
	initStream(st, s, mode, pending)
	return st
}

// initStream makes st, a zero stream, what newStream returns.
func initStream(st *stream, s *session, mode streamMode, pending int) {
	st.s, st.mode, st.pending = s, mode, pending
	st.queue = st.first[:0:1] // the first event needs no allocation of its own
	if !s.oneShot {
		s.mu.Lock()
		st.seq = s.newStreamSeqLocked()
		s.mu.Unlock()
		if s.h.incarnation != "" {
			st.name = s.h.sharedStreamName(st.seq, false)
		}
	}
}

// signalLocked wakes the attached writer without blocking (if it ever waited:
// a writer that has not yet looked at the stream will see its state anyway).
// st.mu is held.
func (st *stream) signalLocked() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// deliverResponse adds a response to the stream; nil stands for the response of a
// cancelled request, which will never come. The last response completes the stream.
// status is the HTTP status the response gets if it is answered in JSON (0 for
// 200): a stateless error's (see statelessErrorStatus), which also keeps a response
// that comes first off SSE, so that the status can still be sent.
func (st *stream) deliverResponse(msg []byte, failed bool, status int) {
	st.mu.Lock()
	if st.done {
		st.mu.Unlock()
		return
	}
	st.pending--
	last := st.pending <= 0
	if failed {
		st.failed = true
	}
	if msg != nil && (st.writer != nil || st.mode == modeSSE) {
		if st.mode == modeUndecided && last {
			if st.sseFinal && status == 0 {
				st.switchToSSELocked()
			} else {
				st.mode = modeJSON
			}
		}
		if st.mode == modeJSON && status != 0 {
			st.status = status
		}
		st.pushLocked(msg)
	}
	// Otherwise nobody can receive it: the client left a JSON exchange.
	if last {
		st.done = true
	}
	st.signalLocked()
	st.mu.Unlock()
	if last {
		st.s.forgetStream(st)
	}
}

// deliverInterim adds a notification or request to the stream, turning a
// ResponseAuto stream into SSE. It reports false if the stream cannot carry it: it
// answers in JSON, its client left before it turned into SSE, or it is complete.
func (st *stream) deliverInterim(msg []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return false
	}
	switch st.mode {
	case modeJSON:
		return false
	case modeUndecided:
		if st.writer == nil {
			return false
		}
		st.switchToSSELocked()
	}
	st.pushLocked(msg)
	st.startWriterLocked()
	st.signalLocked()
	return true
}

// startWriterLocked starts the idle writer, if there is one, on a goroutine of
// its own: the stream has something to send while its POST's goroutine is still
// running the handler.
func (st *stream) startWriterLocked() {
	sw := st.idleWriter
	if sw == nil {
		return
	}
	st.idleWriter = nil
	sw.finished = make(chan struct{})
	go func() {
		defer close(sw.finished)
		sw.run(sw.ctx)
		if st.s.oneShot {
			// The POST is over (answered, its client gone, or the handler
			// closing): what still runs for a one-request session is cancelled
			// now, not when it happens to return.
			st.s.end()
		}
	}()
}

// slowTick is called at each keep-alive tick while the stream's handler runs on
// its POST's goroutine. At the second tick (a full interval at least; see
// keepAliveClock) the answer is slow: a stream that may still choose turns into
// SSE and its writer starts, so that keep-alives flow.
func (st *stream) slowTick() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.idleWriter == nil || st.done || st.mode == modeJSON {
		return
	}
	st.slowTicks++
	if st.slowTicks < 2 {
		return
	}
	if st.mode == modeUndecided {
		st.switchToSSELocked()
	}
	st.startWriterLocked()
}

// switchToSSELocked makes the stream an SSE stream: it opens with a priming event if
// its client wants one, and the responses it already holds get event ids.
func (st *stream) switchToSSELocked() {
	st.mode = modeSSE
	if st.seq == 0 {
		return // a one-request session: nothing can be resumed, so no ids
	}
	switch {
	case st.ids != nil && st.prime:
		// The priming event is sent with no data; the store keeps the ids.
		st.primerID = st.appendLocked(pendingEvent(*st.ids))
	case st.ids != nil:
		st.appendLocked(pendingEvent(*st.ids)) // kept, never sent
	case st.prime:
		st.primerID = st.appendLocked(nil)
	}
	for i := range st.queue {
		st.queue[i].id = st.appendLocked(st.queue[i].msg)
	}
}

// nameLocked returns the stream's id in the EventStore. st.mu is held.
func (st *stream) nameLocked() string {
	if st.name == "" {
		st.name = strconv.FormatUint(st.seq, 10)
	}
	return st.name
}

// appendLocked stores an event of this stream and returns its id ("" if the store
// failed: the event is still sent live, without an id).
func (st *stream) appendLocked(msg []byte) string {
	h := st.s.h
	id, err := h.store.Append(h.ctx, st.s.id, st.nameLocked(), msg)
	if err != nil {
		h.log.Warn("streamable: event store append failed; the event cannot be replayed", "session", st.s.id, "error", err)
		return ""
	}
	return id
}

// pushLocked stores (SSE) and queues (if a writer is attached) one message.
func (st *stream) pushLocked(msg []byte) {
	var id string
	if st.mode == modeSSE && st.seq != 0 {
		id = st.appendLocked(msg)
	}
	if st.writer == nil {
		return // stored for a client that resumes, or nobody can ever receive it
	}
	if len(st.queue) >= maxQueuedEvents {
		// The client reads too slowly: cut its connection rather than buffer without
		// limit. It resumes from the store with Last-Event-ID (SSE streams of a
		// session), or loses the rest (a one-request session).
		st.s.h.log.Warn("streamable: dropping a client that does not keep up with its stream", "session", st.s.id, "stream", st.nameLocked())
		st.writer.Close()
		st.writer = nil
		st.dropQueueLocked()
		return
	}
	inFirst := st.queueInFirstLocked()
	st.queue = append(st.queue, event{id: id, msg: append([]byte(nil), msg...)})
	if inFirst && len(st.queue) > 1 {
		st.first = [1]event{} // copied out by append; held by no writer
	}
}

// queueInFirstLocked reports whether the queue is still st.first's array,
// which no writer holds then (a writer takes the queue and leaves nil in its
// place). st.mu is held.
func (st *stream) queueInFirstLocked() bool {
	return cap(st.queue) > 0 && &st.queue[:1][0] == &st.first[0]
}

// maxQueuedEvents bounds the events waiting for one writer.
const maxQueuedEvents = 1024

// sseWriteTimeout bounds each write to an SSE stream. It replaces the http.Server's
// WriteTimeout for the stream (which would otherwise cut every long stream), while a
// client that stops reading is still detected.
const sseWriteTimeout = 30 * time.Second

// attachLocked makes me the stream's writer, telling a previous writer to leave.
func (st *stream) attachLocked(me *lazydone.Done) {
	if st.writer != nil {
		st.writer.Close()
	}
	st.writer = me
	st.dropQueueLocked()
}

// dropQueueLocked forgets the events no writer has taken, clearing st.first
// when the queue is still there: a stream that lives on keeps no message
// alive. st.mu is held.
func (st *stream) dropQueueLocked() {
	if st.queueInFirstLocked() {
		st.first = [1]event{}
	}
	st.queue = nil
}

// detach removes me as the stream's writer, if it still is.
func (st *stream) detach(me *lazydone.Done) {
	st.mu.Lock()
	if st.writer == me {
		st.writer = nil
		st.dropQueueLocked()
	}
	st.mu.Unlock()
}

// forgetStream drops a complete stream from the resumable set (its events stay in
// the store until the store's retention or the session's end drops them).
func (s *session) forgetStream(st *stream) {
	if st.seq == 0 {
		return
	}
	s.mu.Lock()
	s.streams.remove(st)
	s.mu.Unlock()
}

// streamWriter writes a stream to one HTTP response.
type streamWriter struct {
	h             *Handler
	w             http.ResponseWriter
	rc            *http.ResponseController
	enc           *sse.Encoder
	st            *stream
	leave         lazydone.Done   // closed to make the writer leave (a channel only if it waits); &leave is its identity on its stream (stream.writer)
	sessionHeader string          // Mcp-Session-Id to send with the response headers
	ctx           context.Context // the POST's, for a writer started late (see stream.startWriterLocked)
	finished      chan struct{}   // closed when a writer started late has returned
	started       bool            // the response headers were sent
	broken        bool            // a write failed: the client is gone
	deadline      bool            // a write deadline was set on the connection
}

// controller returns the response's controller, made at first use: an answer
// in JSON needs none.
func (sw *streamWriter) controller() *http.ResponseController {
	if sw.rc == nil {
		sw.rc = http.NewResponseController(sw.w)
	}
	return sw.rc
}

// extendDeadline gives the next write sseWriteTimeout to complete.
func (sw *streamWriter) extendDeadline() {
	if sw.controller().SetWriteDeadline(time.Now().Add(sseWriteTimeout)) == nil {
		sw.deadline = true
	}
}

// clearDeadline removes the write deadline, which would otherwise outlive the
// response on a kept-alive connection and cut a later response short.
func (sw *streamWriter) clearDeadline() {
	if sw.deadline {
		_ = sw.controller().SetWriteDeadline(time.Time{})
		sw.deadline = false
	}
}

func (h *Handler) newStreamWriter(w http.ResponseWriter, st *stream) *streamWriter {
	return h.streamWriterIn(new(streamWriter), w, st)
}

// streamWriterIn is newStreamWriter making the writer in *sw, a zero
// streamWriter (a oneShotSession's).
func (h *Handler) streamWriterIn(sw *streamWriter, w http.ResponseWriter, st *stream) *streamWriter {
	sw.h, sw.w, sw.st = h, w, st
	return sw
}

// run writes the stream until it is complete, the client leaves, another writer takes
// over, the session ends or the handler shuts down. It returns with the stream
// detached from this writer.
func (sw *streamWriter) run(ctx context.Context) {
	st := sw.st
	defer st.detach(&sw.leave)
	defer sw.clearDeadline()
	// The handler's shared clock: its first tick may come at once, so a stream
	// waits for a second one (a full interval at least) before it decides the
	// answer is slow; keep-alive comments are harmless early.
	ticks := 0
	var draining <-chan struct{}
	if st.get || (st.listen && sw.h.endListens == nil) {
		// Streams that could stay open for ever end at once (after what they
		// hold); a listen stream the server ends gracefully waits for its
		// final result.
		draining = sw.h.draining
	}
	ending := false
	for {
		st.mu.Lock()
		mode, done, failed, status := st.mode, st.done, st.failed, st.status
		var q []event
		var primer string
		if mode == modeSSE || done || ending {
			// Otherwise responses are held until the stream knows its mode.
			q, primer = st.queue, st.primerID
			st.queue, st.primerID = nil, ""
		}
		if !done && !ending && st.wake == nil {
			// This writer may wait: from now on it must be woken.
			st.wake = make(chan struct{}, 1)
		}
		wake := st.wake
		st.mu.Unlock()
		if failed {
			sw.sessionHeader = ""
		}
		switch {
		case mode == modeSSE:
			sw.writeEvents(primer, q)
			clear(q) // this writer's alone (maybe st.first): keep no message alive
			if done || ending || sw.broken {
				return
			}
		case done && mode == modeJSON:
			sw.writeJSON(q, status)
			return
		case done:
			// Every request was cancelled: there is nothing to answer.
			if !sw.started {
				sw.w.WriteHeader(http.StatusAccepted)
			}
			return
		case ending:
			sw.writeEnded()
			return
		}
		select {
		case <-wake:
		case <-sw.h.clock.tick():
			ticks++
			if mode == modeUndecided && ticks < 2 {
				continue
			}
			if mode == modeUndecided {
				// Slow to answer: stream, so that keep-alives can flow.
				st.mu.Lock()
				if st.mode == modeUndecided && st.writer == &sw.leave {
					st.switchToSSELocked()
				}
				st.mu.Unlock()
			} else if sw.started {
				sw.extendDeadline()
				if sw.enc.Comment("keep-alive") != nil || sw.controller().Flush() != nil {
					return
				}
			}
		case <-sw.leave.Wait():
			return // another writer took over
		case <-ctx.Done():
			return // the client left
		case <-draining:
			ending = true
		case <-st.s.done.Wait():
			ending = true
		case <-sw.h.done:
			ending = true
		}
	}
}

// startSSE sends the response headers of an event stream.
func (sw *streamWriter) startSSE() {
	hdr := sw.w.Header()
	hdr["Content-Type"] = hdrEventStream
	hdr["Cache-Control"] = hdrNoCache
	hdr["X-Accel-Buffering"] = hdrNo
	if sw.sessionHeader != "" {
		hdr[HeaderSessionID] = []string{sw.sessionHeader}
	}
	sw.extendDeadline()
	sw.w.WriteHeader(http.StatusOK)
	sw.enc = sse.NewEncoder(sw.w)
	sw.started = true
}

// writeEvents writes the priming event (if primer is set) and q, then flushes.
func (sw *streamWriter) writeEvents(primer string, q []event) {
	if !sw.started {
		sw.startSSE()
		if err := sw.controller().Flush(); err != nil {
			sw.broken = true
			return
		}
	}
	if primer == "" && len(q) == 0 {
		return
	}
	sw.extendDeadline()
	if primer != "" {
		ev := sse.Event{ID: primer}
		if sw.h.retry > 0 {
			ev.Retry = sw.h.retry
		}
		if sw.enc.Encode(ev) != nil {
			sw.broken = true
			return
		}
	}
	for _, ev := range q {
		if sw.enc.Encode(sse.Event{ID: ev.id, Data: ev.msg}) != nil {
			sw.broken = true
			return
		}
	}
	if sw.controller().Flush() != nil {
		sw.broken = true
	}
}

// writeJSON writes the held responses as one JSON body, with status (0 for 200).
func (sw *streamWriter) writeJSON(q []event, status int) {
	if len(q) == 0 {
		sw.w.WriteHeader(http.StatusAccepted)
		return
	}
	if sw.sessionHeader != "" {
		sw.w.Header()[HeaderSessionID] = []string{sw.sessionHeader}
	}
	if status == 0 {
		status = http.StatusOK
	}
	if status == http.StatusServiceUnavailable {
		sw.w.Header()["Retry-After"] = storeRetryAfter
	}
	if !sw.st.batch {
		writeJSONBody(sw.w, status, q[0].msg)
		return
	}
	n := 1
	for _, ev := range q {
		n += len(ev.msg) + 1
	}
	body := make([]byte, 0, n)
	body = append(body, '[')
	for i, ev := range q {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, ev.msg...)
	}
	body = append(body, ']')
	writeJSONBody(sw.w, http.StatusOK, body)
}

// writeEnded answers a POST whose session ended before anything was sent.
func (sw *streamWriter) writeEnded() {
	select {
	case <-sw.h.done:
		writeError(sw.w, http.StatusServiceUnavailable, jsonrpc.CodeInternalError, "the MCP server is shutting down")
	default:
		writeError(sw.w, http.StatusNotFound, jsonrpc.CodeInvalidRequest, "session ended")
	}
}

// wantsPriming reports whether a client of version v expects the priming event and
// retry field of 2025-11-25: older clients may not expect an event with empty data.
func wantsPriming(v string) bool {
	return v != "" && protocol.Compare(v, protocol.Version20251125) >= 0
}
