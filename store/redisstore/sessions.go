package redisstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/store"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// SessionStore is a streamable.SessionStore: the records of legacy sessions,
// so that every replica serves every session (HandlerOptions.Sessions).
//
// Key: <prefix>{<session id>}:s, a STRING holding the record the handler
// gives (compact JSON, a few hundred bytes), expiring after the session's
// idle TTL. The hash tag is the one of the session's event streams, so a
// Redis Cluster keeps a session's keys together. Every operation is one
// command, one round trip: SET NX PX (Create), GETEX PX (Load, which also
// restarts the TTL), SET XX PX (Save), DEL (Delete); Save and Delete pipeline
// a change notice, and SaveSynced then waits for the other replicas' answers
// (sessionwatch.go).
type SessionStore struct {
	c      *Client
	origin string // names this store's change notices (sessionwatch.go)
	acks   acks   // of SaveSynced (sessionwatch.go)
	// hold, when set (by tests), is called with a foreign notice's session id
	// before the notice is applied.
	hold func(id string)
	// waiting, when set (by tests), is called when SaveSynced starts waiting
	// for answers.
	waiting func()
}

var _ streamable.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns a session store on c.
func NewSessionStore(c *Client) *SessionStore { return &SessionStore{c: c, origin: rand.Text()} }

// key returns the key of a session's record; ok is false for an id that
// cannot be one (it would break the hash tag).
func (s *SessionStore) key(id string) (key string, ok bool) {
	if id == "" || strings.ContainsAny(id, "{}") {
		return "", false
	}
	return s.c.prefix + "{" + id + "}:s", true
}

// Create implements streamable.SessionStore.
func (s *SessionStore) Create(ctx context.Context, id string, record []byte, ttl time.Duration) error {
	key, ok := s.key(id)
	if !ok {
		return fmt.Errorf("redisstore: session id %q cannot be a hash tag", id)
	}
	stored, err := s.set(ctx, key, record, ttl, true, rueidis.Completed{})
	if err != nil {
		return fmt.Errorf("redisstore: creating session %s: %w", id, err)
	}
	if !stored {
		return fmt.Errorf("redisstore: creating session %s: the id exists", id)
	}
	return nil
}

// set writes a record with SET NX (create) or SET XX (replace), and PX ttl
// when ttl is positive, pipelined with notice when it is not nil (one round
// trip). It reports whether the condition held.
func (s *SessionStore) set(ctx context.Context, key string, record []byte, ttl time.Duration, create bool, notice rueidis.Completed) (bool, error) {
	reply, err := s.doWithNotice(ctx, s.setCmd(key, record, ttl, create), notice)
	if err != nil {
		return false, err
	}
	return !reply.IsNil(), nil
}

// setCmd returns the SET NX (create) or SET XX (replace) of a record, with PX
// ttl when ttl is positive.
func (s *SessionStore) setCmd(key string, record []byte, ttl time.Duration, create bool) rueidis.Completed {
	args := []string{rueidis.BinaryString(record), "XX"}
	if create {
		args[1] = "NX"
	}
	if ttl > 0 {
		args = append(args, "PX", strconv.FormatInt(max(ttl.Milliseconds(), 1), 10))
	}
	return s.c.rc.B().Arbitrary("SET").Keys(key).Args(args...).Build()
}

// Load implements streamable.SessionStore. A key holding another type of
// value gives an error wrapping both store.ErrCorrupt and
// streamable.ErrSessionNotFound: no session can be served from it.
func (s *SessionStore) Load(ctx context.Context, id string, ttl time.Duration) ([]byte, error) {
	key, ok := s.key(id)
	if !ok {
		return nil, fmt.Errorf("redisstore: session id %q: %w", id, streamable.ErrSessionNotFound)
	}
	var cmd rueidis.Completed
	if ttl > 0 {
		cmd = s.c.rc.B().Getex().Key(key).PxMilliseconds(max(ttl.Milliseconds(), 1)).Build()
	} else {
		cmd = s.c.rc.B().Get().Key(key).Build()
	}
	reply, err := s.c.do(ctx, cmd)
	if err != nil {
		if isCorrupt(err) {
			return nil, fmt.Errorf("%w: %w", err, streamable.ErrSessionNotFound)
		}
		return nil, fmt.Errorf("redisstore: loading session %s: %w", id, err)
	}
	if reply.IsNil() {
		return nil, fmt.Errorf("redisstore: session %s: %w", id, streamable.ErrSessionNotFound)
	}
	b, err := reply.AsBytes()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", corrupt(key, "not a string: %v", err), streamable.ErrSessionNotFound)
	}
	return b, nil
}

// Save implements streamable.SessionStore.
func (s *SessionStore) Save(ctx context.Context, id string, record []byte, ttl time.Duration) error {
	key, ok := s.key(id)
	if !ok {
		return fmt.Errorf("redisstore: session id %q: %w", id, streamable.ErrSessionNotFound)
	}
	stored, err := s.set(ctx, key, record, ttl, false, s.notice(s.origin, "s", id))
	if err != nil {
		return fmt.Errorf("redisstore: saving session %s: %w", id, err)
	}
	if !stored {
		return fmt.Errorf("redisstore: saving session %s: %w", id, streamable.ErrSessionNotFound)
	}
	return nil
}

// Delete implements streamable.SessionStore.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	key, ok := s.key(id)
	if !ok {
		return nil
	}
	if _, err := s.doWithNotice(ctx, s.c.rc.B().Del().Key(key).Build(), s.notice(s.origin, "d", id)); err != nil {
		return fmt.Errorf("redisstore: deleting session %s: %w", id, err)
	}
	return nil
}

// doWithNotice runs cmd, pipelined with a change notice unless notice is the
// zero command, and returns cmd's reply. A failed notice only costs the other
// replicas a late update (they check the session within their interval).
func (s *SessionStore) doWithNotice(ctx context.Context, cmd, notice rueidis.Completed) (rueidis.RedisMessage, error) {
	if notice.IsEmpty() {
		return s.c.do(ctx, cmd)
	}
	res := s.c.rc.DoMulti(ctx, cmd, notice)
	return s.c.result(ctx, res[0])
}

// isCorrupt reports an error that says a key holds a value we did not write.
func isCorrupt(err error) bool {
	return errors.Is(err, store.ErrCorrupt)
}
