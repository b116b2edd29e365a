package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/transport/streamable"
)

// Default retention of an EventStore.
const (
	// DefaultEventTTL is how long a stream's events are kept after the last
	// event appended to it (and a session's stream index after its last
	// append).
	DefaultEventTTL = time.Hour
)

// EventStoreOptions bound what an EventStore keeps. The zero value gives the
// defaults.
type EventStoreOptions struct {
	// MaxEventsPerStream is how many of a stream's latest events are kept, at
	// least (trimming is approximate, MAXLEN ~: Redis may keep up to one
	// stream node, 100 entries by default, more). Zero or less means
	// streamable.DefaultMaxEventsPerStream.
	MaxEventsPerStream int
	// MaxStreamsPerSession is how many streams per session are kept; beyond
	// it, the stream appended to least recently is deleted. Zero or less means
	// streamable.DefaultMaxStreamsPerSession.
	MaxStreamsPerSession int
	// TTL is how long events are kept after the stream's last append. Zero or
	// less means DefaultEventTTL.
	TTL time.Duration
}

// EventStore is a streamable.EventStore on Redis. Each SSE stream is a Redis
// Stream; a session's streams are listed in a sorted set by last use, which
// bounds their number and lets DeleteSession find them. Event ids have the
// form "<streamID>_<entry id>" (the Redis entry id, "<ms>-<seq>"), so any
// replica finds an event's stream from its id alone.
//
// Keys, for session S (the hash tag keeps them in one Cluster slot):
//
//	<prefix>{S}:x:<streamID>  STREAM  one entry per event, field "m" = the message
//	<prefix>{S}:xs            ZSET    streamID scored by last use
//
// Append and Replay each cost one round trip; DeleteSession two (it reads the
// index, then deletes what it lists), and so does an Append that evicts a
// stream (the evicted streams' keys are deleted after the script, which
// touches only the keys it declares).
type EventStore struct {
	c          *Client
	maxEvents  string
	maxStreams string
	ttlMillis  string
}

var _ streamable.EventStore = (*EventStore)(nil)

// NewEventStore returns an event store on c. opts may be nil.
func NewEventStore(c *Client, opts *EventStoreOptions) *EventStore {
	var o EventStoreOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxEventsPerStream <= 0 {
		o.MaxEventsPerStream = streamable.DefaultMaxEventsPerStream
	}
	if o.MaxStreamsPerSession <= 0 {
		o.MaxStreamsPerSession = streamable.DefaultMaxStreamsPerSession
	}
	if o.TTL <= 0 {
		o.TTL = DefaultEventTTL
	}
	return &EventStore{
		c:          c,
		maxEvents:  strconv.Itoa(o.MaxEventsPerStream),
		maxStreams: strconv.Itoa(o.MaxStreamsPerSession),
		ttlMillis:  strconv.FormatInt(max(o.TTL.Milliseconds(), 1), 10),
	}
}

// appendScript adds an event to a stream, refreshes the TTLs, marks the stream
// as the session's most recently used, and drops the least recently used
// streams beyond the limit from the index. It returns the new entry's id
// followed by the ids of the streams dropped, whose keys the caller deletes:
// a script touches only the keys it declares (Redis Cluster, and stores
// that lock declared keys, rely on it).
//
//	KEYS[1] stream, KEYS[2] session index
//	ARGV[1] max events, ARGV[2] TTL ms, ARGV[3] message, ARGV[4] stream id,
//	ARGV[5] max streams
var appendScript = rueidis.NewLuaScript(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
local score = 1
if top[2] then score = tonumber(top[2]) + 1 end
redis.call('ZADD', KEYS[2], score, ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local out = {id}
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if extra > 0 then
  local old = redis.call('ZPOPMIN', KEYS[2], extra)
  for i = 1, #old, 2 do out[#out + 1] = old[i] end
end
return out`)

// deleteScript deletes the streams it is given and removes them from the
// session's index, which it deletes once empty; it returns how many streams
// the index still lists (added since the caller read it).
//
//	KEYS[1] session index, KEYS[2..] the streams; ARGV the streams' ids
var deleteScript = rueidis.NewLuaScript(`
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
for i = 1, #ARGV do redis.call('ZREM', KEYS[1], ARGV[i]) end
local left = redis.call('ZCARD', KEYS[1])
if left == 0 then redis.call('DEL', KEYS[1]) end
return left`)

// deletePasses bounds the passes of DeleteSession over streams that keep
// being added while it deletes them.
const deletePasses = 4

// sessionKeys returns the prefix of the session's stream keys and its index key.
func (s *EventStore) sessionKeys(sessionID string) (streamPrefix, index string, err error) {
	if sessionID == "" || strings.ContainsAny(sessionID, "{}") {
		return "", "", fmt.Errorf("redisstore: session id %q cannot be a hash tag", sessionID)
	}
	base := s.c.prefix + "{" + sessionID + "}:x"
	return base + ":", base + "s", nil
}

// Append implements streamable.EventStore.
func (s *EventStore) Append(ctx context.Context, sessionID, streamID string, msg []byte) (string, error) {
	streamPrefix, index, err := s.sessionKeys(sessionID)
	if err != nil {
		return "", err
	}
	key := streamPrefix + streamID
	reply, err := s.c.exec(ctx, appendScript, []string{key, index},
		[]string{s.maxEvents, s.ttlMillis, rueidis.BinaryString(msg), streamID, s.maxStreams})
	if err != nil {
		return "", fmt.Errorf("redisstore: appending to %s: %w", key, err)
	}
	out, err := reply.AsStrSlice()
	if err != nil || len(out) == 0 || !validEntryID(out[0]) {
		return "", corrupt(key, "the append script returned %v (%v)", out, err)
	}
	if evicted := out[1:]; len(evicted) > 0 {
		keys := make([]string, len(evicted))
		for i, id := range evicted {
			keys[i] = streamPrefix + id
		}
		if _, err := s.c.do(ctx, s.c.rc.B().Del().Key(keys...).Build()); err != nil {
			// Out of the index already: the stream only lingers until its TTL.
			return "", fmt.Errorf("redisstore: deleting the streams evicted from %s: %w", index, err)
		}
	}
	return streamID + "_" + out[0], nil
}

// Replay implements streamable.EventStore. It reads the stream from the given
// entry on (XRANGE, inclusive): an empty answer means the id was never issued
// or the stream is gone; otherwise every entry after the id is replayed,
// which skips the events trimmed since.
func (s *EventStore) Replay(ctx context.Context, sessionID, eventID string, fn func(eventID string, msg []byte) error) (string, error) {
	streamID, entry, ok := parseEventID(eventID)
	if !ok {
		return "", fmt.Errorf("%w: malformed event id %q", streamable.ErrEventNotFound, eventID)
	}
	streamPrefix, _, err := s.sessionKeys(sessionID)
	if err != nil {
		return "", fmt.Errorf("%w: %w", streamable.ErrEventNotFound, err)
	}
	key := streamPrefix + streamID
	reply, err := s.c.do(ctx, s.c.rc.B().Xrange().Key(key).Start(entry).End("+").Build())
	if err != nil {
		return "", fmt.Errorf("redisstore: replaying %s: %w", key, err)
	}
	entries, err := decodeStreamEntries(key, reply)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "", fmt.Errorf("%w: %q", streamable.ErrEventNotFound, eventID)
	}
	if entries[0].id == entry {
		entries = entries[1:]
	}
	for _, e := range entries {
		if err := fn(streamID+"_"+e.id, e.msg); err != nil {
			return streamID, err
		}
	}
	return streamID, nil
}

// DeleteSession implements streamable.EventStore.
func (s *EventStore) DeleteSession(ctx context.Context, sessionID string) error {
	streamPrefix, index, err := s.sessionKeys(sessionID)
	if err != nil {
		return nil // no such session can have events
	}
	for range deletePasses {
		reply, err := s.c.do(ctx, s.c.rc.B().Zrange().Key(index).Min("0").Max("-1").Build())
		if err != nil {
			return fmt.Errorf("redisstore: deleting the events of session %q: %w", sessionID, err)
		}
		ids, err := reply.AsStrSlice()
		if err != nil {
			return fmt.Errorf("redisstore: deleting the events of session %q: %w", sessionID, corrupt(index, "not a stream index: %v", err))
		}
		keys := make([]string, 1, 1+len(ids))
		keys[0] = index
		for _, id := range ids {
			keys = append(keys, streamPrefix+id)
		}
		reply, err = s.c.exec(ctx, deleteScript, keys, ids)
		if err != nil {
			return fmt.Errorf("redisstore: deleting the events of session %q: %w", sessionID, err)
		}
		if left, err := reply.AsInt64(); err == nil && left == 0 {
			return nil
		}
	}
	return fmt.Errorf("redisstore: deleting the events of session %q: streams kept being added", sessionID)
}

// streamEntry is one decoded event.
type streamEntry struct {
	id  string
	msg []byte
}

// decodeStreamEntries reads an XRANGE reply: an array of [id, [field, value,
// ...]] whose only field is "m". Anything else was not written by Append.
func decodeStreamEntries(key string, reply rueidis.RedisMessage) ([]streamEntry, error) {
	if reply.IsNil() {
		return nil, nil
	}
	items, err := reply.ToArray()
	if err != nil {
		return nil, corrupt(key, "not a stream reply: %v", err)
	}
	out := make([]streamEntry, 0, len(items))
	for _, it := range items {
		pair, err := it.ToArray()
		if err != nil || len(pair) != 2 {
			return nil, corrupt(key, "a stream entry is not [id, fields]")
		}
		id, err := pair[0].ToString()
		if err != nil || !validEntryID(id) {
			return nil, corrupt(key, "a stream entry has no valid id")
		}
		fields, err := pair[1].AsStrSlice()
		if err != nil || len(fields) != 2 || fields[0] != "m" {
			return nil, corrupt(key, "entry %s is not an event (fields %q)", id, fields)
		}
		out = append(out, streamEntry{id: id, msg: []byte(fields[1])})
	}
	return out, nil
}

// parseEventID splits "<streamID>_<ms>-<seq>" at the last '_'.
func parseEventID(id string) (streamID, entry string, ok bool) {
	i := strings.LastIndexByte(id, '_')
	if i <= 0 || !validEntryID(id[i+1:]) {
		return "", "", false
	}
	return id[:i], id[i+1:], true
}

// validEntryID reports whether e is a Redis stream entry id: two decimal
// numbers that fit in 64 bits, joined by '-'.
func validEntryID(e string) bool {
	ms, seq, ok := strings.Cut(e, "-")
	return ok && isUint64(ms) && isUint64(seq)
}

// isUint64 reports whether s is a decimal uint64 in canonical form (no sign,
// no leading zeros), so each entry id has one spelling.
func isUint64(s string) bool {
	n, err := strconv.ParseUint(s, 10, 64)
	return err == nil && strconv.FormatUint(n, 10) == s
}

var _ streamable.StreamReader = (*EventStore)(nil)

// ReplayStream implements streamable.StreamReader: one XRANGE of the whole
// stream (bounded by MaxEventsPerStream).
func (s *EventStore) ReplayStream(ctx context.Context, sessionID, streamID string, fn func(eventID string, msg []byte) error) error {
	streamPrefix, _, err := s.sessionKeys(sessionID)
	if err != nil {
		return fmt.Errorf("%w: %w", streamable.ErrEventNotFound, err)
	}
	key := streamPrefix + streamID
	reply, err := s.c.do(ctx, s.c.rc.B().Xrange().Key(key).Start("-").End("+").Build())
	if err != nil {
		return fmt.Errorf("redisstore: reading %s: %w", key, err)
	}
	entries, err := decodeStreamEntries(key, reply)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := fn(streamID+"_"+e.id, e.msg); err != nil {
			return err
		}
	}
	return nil
}
