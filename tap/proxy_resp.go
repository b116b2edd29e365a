package tap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// smallBody is the size up to which a response body is read whole and written
// with its head in one write; larger bodies are relayed piece by piece.
const smallBody = 64 << 10

// relayResponses relays the upstream's responses to the client, in order, until
// the upstream connection ends; then it ends the client's too (mirroring it).
func (c *proxyConn) relayResponses(up net.Conn, ubr *bufio.Reader, done chan struct{}) {
	defer close(done)
	var rerr error
	for {
		if _, err := ubr.Peek(1); err != nil {
			rerr = err
			break
		}
		var x *exchange
		select {
		case x = <-c.pending:
		default:
			rerr = errors.New("the upstream sent a response to no request")
			c.p.record(&capture.Record{Kind: capture.KindUpstreamError, Dir: capture.ServerToClient, Transport: capture.TransportStreamable, Session: c.id, Text: rerr.Error()})
		}
		if x == nil {
			break
		}
		keep, err := c.relayResponse(x, ubr)
		c.mu.Lock()
		c.inflight--
		c.idleNow()
		c.cond.Broadcast()
		c.mu.Unlock()
		if err != nil || !keep {
			rerr = err
			break
		}
	}
	_ = up.Close()
	c.mu.Lock()
	c.upEnded = true
	var lost []*exchange
	for {
		select {
		case x := <-c.pending:
			lost = append(lost, x)
			continue
		default:
		}
		break
	}
	c.inflight = 0
	c.cond.Broadcast()
	c.mu.Unlock()
	for _, x := range lost {
		why := "the upstream closed the connection before answering"
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			why = fmt.Sprintf("the connection to the upstream failed before an answer: %v", rerr)
		}
		c.p.record(&capture.Record{Kind: capture.KindUpstreamError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
			HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path}, Text: why})
	}
	// The upstream ended the connection (or it broke): so does the tap, with the
	// client, as the server would have.
	_ = c.client.Close()
}

// relayResponse relays the response to x. It reports whether the connection may
// carry another exchange.
func (c *proxyConn) relayResponse(x *exchange, ubr *bufio.Reader) (bool, error) {
	h := &c.resp
	for {
		if err := c.readResponseHead(h, ubr); err != nil {
			c.badGateway(x, err)
			return false, err
		}
		if h.status >= 200 {
			break
		}
		if h.status == http.StatusSwitchingProtocols {
			err := errors.New("the upstream switched protocols, which the tap does not relay")
			c.badGateway(x, err)
			return false, err
		}
		// An interim response (103 Early Hints ...): relay it, then read on.
		if err := c.writeClient(c.appendHead(c.rout[:0], h, false, false, false)); err != nil {
			return false, err
		}
	}
	mode := bodyClose
	switch {
	case x.head || h.status == http.StatusNoContent || h.status == http.StatusNotModified:
		mode = bodyNone
	case h.chunked:
		mode = bodyChunked
	case h.contentLength >= 0:
		mode = bodyLength
	}
	if c.challenged(x, h, mode) {
		return c.reauthorize(x, h, mode, ubr)
	}
	ct, _ := h.getAs("Content-Type", &c.respLast.ct)
	sse := mode != bodyNone && isEventStream(ct)
	chunkOut := (sse || mode == bodyChunked) && x.minor >= 1
	closeOut := mode == bodyClose || ((sse || mode == bodyChunked) && x.minor == 0)
	closeAfter := x.closeAfter || h.closeConn || closeOut
	if sid, ok := h.getAs("Mcp-Session-Id", &c.respLast.sid); ok && sid != "" && x.transport == capture.TransportStreamable {
		x.session = sid // the session an initialize response opens
	}
	rd := c.responseRecorded(x)
	info := &rd.info
	*info = capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: h.status, ContentType: ct}
	if c.p.opts.Recorder != nil {
		info.SetHeaderLines(c.headerLines(h, &c.respLines))
	}
	headBytes := c.appendHead(c.rout[:0], h, chunkOut || closeOut, chunkOut, closeAfter)
	c.keepOut(headBytes)
	var err error
	if sse {
		err = c.relayStream(x, ubr, info, headBytes, mode, h.contentLength, chunkOut)
	} else {
		err = c.relayBody(x, ubr, rd, headBytes, mode, h.contentLength, chunkOut)
	}
	return !closeAfter && err == nil, err
}

// readResponseHead reads and parses a response head.
func (c *proxyConn) readResponseHead(h *head, ubr *bufio.Reader) error {
	if err := h.read(ubr); err != nil {
		return noEOF(err)
	}
	if err := h.parseStatusLine(); err != nil {
		return err
	}
	return h.parseFraming()
}

// appendHead appends the response head to relay: the status line (as HTTP/1.1)
// and the upstream's header lines as they came, except the hop-by-hop ones and,
// when the tap re-frames the body, Content-Length; then the tap's own framing.
func (c *proxyConn) appendHead(b []byte, h *head, dropLength, chunked, closeConn bool) []byte {
	b = append(b, "HTTP/1.1"...)
	b = append(b, h.bytes(h.start)[8:]...)
	b = append(b, '\r', '\n')
	for _, f := range h.fields {
		if h.isHopByHop(f) || (dropLength && asciiEqualFold(h.bytes(f.name), "Content-Length")) {
			continue
		}
		b = append(b, h.bytes(f.line)...)
		b = append(b, '\r', '\n')
	}
	if chunked {
		b = append(b, "Transfer-Encoding: chunked\r\n"...)
	}
	if closeConn {
		b = append(b, "Connection: close\r\n"...)
	}
	return append(b, '\r', '\n')
}

// relayBody relays a body that is not an event stream, byte for byte, keeping a
// copy for the capture. The body is recorded before its last bytes reach the
// client: whatever the client sends once it has the answer must get a later seq
// than the answer (a next request on another connection could be recorded first
// otherwise, and the timeline would see a session used before it was opened).
func (c *proxyConn) relayBody(x *exchange, ubr *bufio.Reader, rd *recorded, headBytes []byte, mode int, length int64, chunkOut bool) error {
	info := &rd.info
	var keep []byte
	var size int64
	if mode == bodyNone || (mode == bodyLength && length <= smallBody) {
		// The common case, a JSON reply: one read, one write.
		b := headBytes
		if mode == bodyLength && length > 0 {
			keep = make([]byte, length)
			if _, err := io.ReadFull(ubr, keep); err != nil {
				c.recordBody(x, rd, keep, 0, false)
				return c.upstreamLost(x, info, noEOF(err))
			}
			size = length
			b = append(b, keep...)
		}
		c.recordBody(x, rd, keep, size, false)
		if err := c.writeClient(b); err != nil {
			return c.clientLost(err)
		}
		c.keepOut(b)
		return nil
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.cbw.Write(headBytes); err != nil {
		return c.clientLost(err)
	}
	body := newBodyReader(ubr, mode, length)
	recorded := false
	record := func() {
		if !recorded {
			recorded = true
			c.recordBody(x, rd, keep, size, size > int64(len(keep)))
		}
	}
	var chunk []byte
	for {
		p, err := body.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			record()
			_ = c.cbw.Flush()
			return c.upstreamLost(x, info, err)
		}
		size += int64(len(p))
		if room := c.p.maxKeep - len(keep); room > 0 {
			keep = append(keep, p[:min(room, len(p))]...)
		}
		if body.done {
			record() // the last piece of a Content-Length body: the client has it all once written
		}
		out := p
		if chunkOut {
			chunk = appendChunk(chunk[:0], p)
			out = chunk
		}
		if _, err := c.cbw.Write(out); err != nil {
			record()
			return c.clientLost(err)
		}
		body.release()
		if body.wouldBlock() { // nothing more has arrived: send what came
			if err := c.cbw.Flush(); err != nil {
				record()
				return c.clientLost(err)
			}
		}
	}
	body.release()
	record() // before the end of the body goes out (the last chunk, the flush)
	if chunkOut {
		_, _ = c.cbw.WriteString(lastChunk)
	}
	if err := c.cbw.Flush(); err != nil {
		return c.clientLost(err)
	}
	return nil
}

// recordBody records a response body (or its absence) and, for a status of 400
// or more, the error. It is called once per response: the first record it
// makes is rd.rec.
func (c *proxyConn) recordBody(x *exchange, rd *recorded, body []byte, size int64, truncated bool) {
	if c.p.opts.Recorder == nil {
		return
	}
	info := &rd.info
	var r *capture.Record
	if size > 0 {
		r = c.bodyRecord(&rd.rec, capture.ServerToClient, x, info, info.ContentType, body, size, truncated)
	}
	if info.Status >= 400 {
		text := fmt.Sprintf("%d %s", info.Status, http.StatusText(info.Status))
		e := &rd.rec // unless it holds the message
		if r != nil && r.IsMessage() {
			c.p.record(r)
			e = new(capture.Record)
		} else if len(body) > 0 && jsonishOrText(info.ContentType) && (c.p.opts.NoRedact || !holdsCredentials(body)) {
			text += ": " + excerpt(body)
		}
		*e = capture.Record{Kind: capture.KindHTTPError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session, HTTP: info, Text: text, Size: size}
		c.p.record(e)
		return
	}
	if r == nil {
		r = &rd.rec
		*r = capture.Record{Kind: capture.KindHTTP, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session, HTTP: info}
	}
	c.p.record(r)
}

// relayStream relays an event stream event by event as it arrives, recording each
// event, and rewriting the URL of an HTTP+SSE endpoint event so that the client
// posts back through the tap.
func (c *proxyConn) relayStream(x *exchange, ubr *bufio.Reader, info *capture.HTTPInfo, headBytes []byte, mode int, length int64, chunkOut bool) error {
	c.p.record(&capture.Record{Kind: capture.KindStreamOpen, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session, HTTP: info})
	if info.Status >= 400 {
		c.p.record(&capture.Record{Kind: capture.KindHTTPError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
			HTTP: info, Text: fmt.Sprintf("%d %s", info.Status, http.StatusText(info.Status))})
	}
	var events int64
	f := &sseFramer{maxKeep: c.p.maxKeep}
	f.rewrite = func(data string) (string, bool) {
		rewritten, changed, session, note := c.p.rewriteEndpoint(data, x.clientHost)
		if session != "" {
			c.p.learnSSESession(session)
			x.transport, x.session = capture.TransportHTTPSSE, session
		}
		text := data
		if !c.p.opts.NoRedact {
			text = redactTarget(data)
		}
		r := &capture.Record{Kind: capture.KindEndpoint, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session, Text: text, Endpoint: rewritten,
			HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: info.Status, Event: "endpoint"}}
		if !c.p.opts.NoRedact {
			r.Endpoint = redactTarget(rewritten)
		}
		if note != "" {
			r.Text += " (" + note + ")"
		}
		c.p.record(r)
		return rewritten, changed
	}
	lastID := ""
	f.onEvent = func(ev sseEvent) {
		events++
		lastID = ev.ID
		if ev.Type == "endpoint" || (len(bytes.TrimSpace(ev.Data)) == 0 && !ev.Truncated) {
			return // recorded by rewrite; or no message (an event that primes a stream's id)
		}
		rd := new(recorded) // the record and its HTTPInfo in one allocation
		ei := &rd.info
		*ei = capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: info.Status, ContentType: info.ContentType, EventID: ev.ID}
		if ev.Type != "message" {
			ei.Event = ev.Type
		}
		rd.rec = capture.Record{Dir: capture.ServerToClient, Transport: x.transport, Session: x.session, HTTP: ei, Msg: ev.Data, Size: ev.Size, Truncated: ev.Truncated}
		c.p.record(&rd.rec)
	}
	end := func(how string, err error) error {
		r := &capture.Record{Kind: capture.KindStreamClose, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
			HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: info.Status}, Text: how, Count: events, LastEventID: lastID}
		if err != nil && how == capture.EndUpstreamLost {
			r.Text += ": " + err.Error()
		}
		c.p.record(r)
		return err
	}

	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.cbw.Write(headBytes); err != nil {
		return end(c.lostHow(capture.EndClientClosed), err)
	}
	if err := c.cbw.Flush(); err != nil {
		return end(c.lostHow(capture.EndClientClosed), err)
	}
	body := newBodyReader(ubr, mode, length)
	var out, chunk []byte
	write := func(p []byte) error {
		if len(p) == 0 {
			return nil
		}
		if chunkOut {
			chunk = appendChunk(chunk[:0], p)
			p = chunk
		}
		_, err := c.cbw.Write(p)
		return err
	}
	for {
		p, err := body.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			f.rewrite = nil
			_ = write(f.end(out[:0]))
			_ = c.cbw.Flush()
			return end(c.lostHow(capture.EndUpstreamLost), err)
		}
		out = f.feed(p, out[:0])
		body.release()
		if err := write(out); err != nil {
			return end(c.lostHow(capture.EndClientClosed), err)
		}
		if body.wouldBlock() { // nothing more has arrived: send what came
			if err := c.cbw.Flush(); err != nil {
				return end(c.lostHow(capture.EndClientClosed), err)
			}
		}
		if cap(out) > holdLimit {
			out = nil
		}
	}
	body.release()
	err := write(f.end(out[:0]))
	if err == nil && chunkOut {
		_, err = c.cbw.WriteString(lastChunk)
	}
	if err == nil {
		err = c.cbw.Flush()
	}
	if err != nil {
		return end(c.lostHow(capture.EndClientClosed), err)
	}
	return end(capture.EndEOF, nil)
}

// lostHow says why a stream broke: the tap was stopped, the client went away, or
// otherwise the given cause.
func (c *proxyConn) lostHow(otherwise string) string {
	switch {
	case c.aborted.Load():
		return capture.EndShutdown
	case c.clientGone.Load():
		return capture.EndClientClosed
	}
	return otherwise
}

// badGateway answers x with a 502 when the upstream's response cannot be read.
func (c *proxyConn) badGateway(x *exchange, err error) {
	msg := fmt.Sprintf("mcpkit tap: the upstream's response could not be read: %v", err)
	if c.lostHow("") != "" {
		msg = "mcpkit tap: the connection ended before the upstream answered"
	}
	c.p.record(&capture.Record{Kind: capture.KindUpstreamError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
		HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: http.StatusBadGateway}, Text: msg})
	if c.lostHow("") == "" {
		_ = c.writeLocal(http.StatusBadGateway, msg, true)
	}
}

// upstreamLost records a body cut short by the upstream.
func (c *proxyConn) upstreamLost(x *exchange, info *capture.HTTPInfo, err error) error {
	how := c.lostHow("")
	if how == "" {
		c.p.record(&capture.Record{Kind: capture.KindUpstreamError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
			HTTP: info, Text: "the upstream's response broke off: " + err.Error()})
	}
	return err
}

// clientLost notes that writing to the client failed.
func (c *proxyConn) clientLost(err error) error {
	if !c.aborted.Load() {
		c.clientGone.Store(true)
	}
	return err
}

// keepOut keeps b as the response buffer for the next exchange, unless it is large.
func (c *proxyConn) keepOut(b []byte) {
	if cap(b) <= 1<<20 {
		c.rout = b[:0]
	}
}

// excerpt returns the start of a body, for an error record.
func excerpt(b []byte) string {
	const n = 512
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// jsonishOrText reports whether a Content-Type is JSON or text, worth quoting.
func jsonishOrText(ct string) bool {
	return jsonish(ct) || len(ct) >= 5 && asciiEqualFold(ct[:5], "text/")
}
