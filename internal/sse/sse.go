// Package sse reads and writes Server-Sent Events (the text/event-stream format).
//
// The [Decoder] ([NewDecoder]) follows the event-stream interpretation algorithm
// of the WHATWG HTML standard ("Server-sent events", section 9.2.6), so it accepts
// every framing real servers produce: LF, CRLF or lone CR line ends (also when a
// CRLF pair is split across two reads), "field:value" with or without the space
// after the colon, comment lines, a leading byte order mark, ids that persist from
// event to event, and invalid UTF-8 (replaced with U+FFFD as the standard's UTF-8
// decoder does). It deviates on purpose in one place, documented on Decoder: an
// event still pending when the stream ends cleanly is delivered rather than
// discarded, because some servers omit the final blank line.
// [DecoderOptions].Strict restores the standard's behaviour.
//
// The [Encoder] ([NewEncoder]) writes one [Event] per Write call from a reused
// buffer, splits data on every line end so that no payload can break the framing,
// and rejects ids and event types that contain line breaks.
//
// The package knows nothing of HTTP: callers set the Content-Type header and flush
// (http.ResponseController.Flush or http.Flusher) after writing.
package sse

import "time"

// Event is one server-sent event.
type Event struct {
	// ID is the event id.
	//
	// When decoding it is the stream's last event ID when the event was dispatched:
	// an id field sets it, and it stays in force for the following events until
	// another id field changes it, as the WHATWG algorithm specifies. An event
	// without an id field therefore carries the id of an earlier one.
	//
	// When encoding, an empty ID writes no id field. An ID must not contain CR, LF
	// or NUL (a receiver would ignore an id with NUL).
	ID string

	// Type is the event type, the "event" field.
	//
	// Decoding yields "message" when the event had no event field or an empty one.
	// Encoding an empty Type writes no event field, which a receiver reads as
	// "message". A Type must not contain CR or LF.
	Type string

	// Data is the event payload, the "data" fields joined with LF.
	//
	// Decoded events own their Data: the decoder does not touch it again. Encoding
	// splits Data at every CR, LF and CRLF into separate data fields, so a receiver
	// gets the same bytes back with each line end turned into LF. Empty Data is
	// encoded as one empty data field, so the event is still dispatched.
	Data []byte

	// Retry, when positive, asks the receiver to wait this long before reconnecting.
	// It is written as a retry field in whole milliseconds. The decoder does not set
	// it: a retry field changes the stream's reconnection time, which
	// Decoder.Retry reports, whether or not an event is dispatched.
	Retry time.Duration
}
