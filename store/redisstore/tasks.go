package redisstore

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/taskstore"
)

// expiryGrace is how long after a task's expiry (by the store's clock) Redis
// itself deletes it: the store decides expiry, Redis only collects what is
// left, so replicas whose clocks differ a little agree.
const expiryGrace = time.Minute

// TaskStoreOptions configures NewTaskStore. The zero value is ready to use.
type TaskStoreOptions struct {
	// Now is the store's clock, which decides expiry. Nil means time.Now.
	Now func() time.Time
}

// TaskStore is a taskstore.Store on Redis, shared by every replica that uses
// the same Redis and prefix. Each task is a hash (revision and record); each
// owner has an index (see tasks_lua.go) that orders List and enforces the
// Create limit. Update is optimistic: it reads, runs fn, and writes only if
// the revision did not change meanwhile (else it runs fn again). Wait listens
// on the task's Pub/Sub channel, to which every change is published.
//
// Keys (the task's id, and the owner's base64url name, are the hash tags):
//
//	<prefix>task:{<id>}                  HASH  r = revision, v = record (JSON)
//	<prefix>tasks:{o<owner>}:all|exp|live|seq  the owner's index
//	<prefix>task:{<id>}:w                channel: the new revision, or "d"
//
// Round trips: Get 1, Update 2 (3 when the task becomes final or its TTL
// changes), Create 2, Delete 2, List 2, Wait 1 + 1 per change seen.
type TaskStore struct {
	c   *Client
	now func() time.Time
}

var _ taskstore.Store = (*TaskStore)(nil)

// NewTaskStore returns a task store on c. opts may be nil.
func NewTaskStore(c *Client, opts *TaskStoreOptions) *TaskStore {
	s := &TaskStore{c: c, now: time.Now}
	if opts != nil && opts.Now != nil {
		s.now = opts.Now
	}
	return s
}

func (s *TaskStore) taskKey(id string) string { return s.c.prefix + "task:{" + id + "}" }

func (s *TaskStore) channel(id string) string { return s.c.prefix + "task:{" + id + "}:w" }

func (s *TaskStore) ownerKeys(owner string) []string {
	base := s.c.prefix + "tasks:{o" + base64.RawURLEncoding.EncodeToString([]byte(owner)) + "}:"
	return []string{base + "all", base + "exp", base + "live", base + "seq"}
}

// ownerArgs starts the ARGV of an owner-index script: now and grace, in ms.
func (s *TaskStore) ownerArgs(now time.Time, more ...string) []string {
	return append([]string{strconv.FormatInt(now.UnixMilli(), 10), strconv.FormatInt(expiryGrace.Milliseconds(), 10)}, more...)
}

// expiryArgs returns the index's expiry score of rec ("" for none) and the
// PEXPIRE of its hash ("" for none, "-1" when it has already expired at now).
func expiryArgs(rec *taskstore.Record, now time.Time) (score, pexpire string) {
	exp := rec.ExpiresAt()
	if exp.IsZero() {
		return "", ""
	}
	left := exp.Sub(now)
	if left <= 0 {
		return strconv.FormatInt(exp.UnixMilli(), 10), "-1"
	}
	return strconv.FormatInt(exp.UnixMilli(), 10), strconv.FormatInt((left + expiryGrace).Milliseconds(), 10)
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Create implements taskstore.Store.
func (s *TaskStore) Create(ctx context.Context, rec *taskstore.Record, limit int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if rec.ID == "" {
		return errors.New("redisstore: a task needs an id")
	}
	c := rec.Clone()
	c.Revision = 1
	data, err := encodeTask(c)
	if err != nil {
		return err
	}
	now := s.now()
	score, pexpire := expiryArgs(c, now)
	if pexpire == "-1" {
		pexpire = "1" // already expired: the next look drops it
	}
	owner := s.ownerKeys(c.Owner)
	for attempt := 0; ; attempt++ {
		reply, err := s.c.exec(ctx, reserveScript, owner, s.ownerArgs(now, c.ID, strconv.Itoa(limit), flag(!c.Status.IsTerminal()), score))
		if err != nil {
			return fmt.Errorf("redisstore: creating task %q: %w", c.ID, err)
		}
		code, err := firstInt(reply)
		if err != nil {
			return corrupt(owner[0], "reserve reply: %v", err)
		}
		switch code {
		case 2:
			return fmt.Errorf("%w (limit %d)", taskstore.ErrLimit, limit)
		case 1:
			// The owner's index has the id. A live task: a duplicate. A
			// leftover of a deleted task: drop it and try again.
			exists, err := s.c.do(ctx, s.c.rc.B().Exists().Key(s.taskKey(c.ID)).Build())
			if err != nil {
				return fmt.Errorf("redisstore: creating task %q: %w", c.ID, err)
			}
			if n, _ := exists.AsInt64(); n == 1 || attempt > 0 {
				return fmt.Errorf("%w: %q", taskstore.ErrExists, c.ID)
			}
			if err := s.unindex(ctx, c.Owner, c.ID, now); err != nil {
				return err
			}
			continue
		}
		break
	}
	reply, err := s.c.exec(ctx, createScript, []string{s.taskKey(c.ID)}, []string{rueidis.BinaryString(data), pexpire})
	if err != nil {
		_ = s.unindex(context.WithoutCancel(ctx), c.Owner, c.ID, now)
		return fmt.Errorf("redisstore: creating task %q: %w", c.ID, err)
	}
	if n, _ := reply.AsInt64(); n != 1 {
		// Another owner has a task with this id: undo the reservation.
		if err := s.unindex(ctx, c.Owner, c.ID, now); err != nil {
			return err
		}
		return fmt.Errorf("%w: %q", taskstore.ErrExists, c.ID)
	}
	return nil
}

// unindex removes a task from its owner's index.
func (s *TaskStore) unindex(ctx context.Context, owner, id string, now time.Time) error {
	if _, err := s.c.exec(ctx, syncScript, s.ownerKeys(owner), s.ownerArgs(now, id, "del", "", "")); err != nil {
		return fmt.Errorf("redisstore: updating the task index: %w", err)
	}
	return nil
}

// firstInt reads the first element of an array reply.
func firstInt(reply rueidis.RedisMessage) (int64, error) {
	arr, err := reply.ToArray()
	if err != nil || len(arr) == 0 {
		return 0, fmt.Errorf("not an array: %v", err)
	}
	return arr[0].AsInt64()
}

// load reads a task: nil (no error) when it does not exist.
func (s *TaskStore) load(ctx context.Context, id string) (*taskstore.Record, error) {
	key := s.taskKey(id)
	reply, err := s.c.do(ctx, s.c.rc.B().Hmget().Key(key).Field("r", "v").Build())
	if err != nil {
		return nil, fmt.Errorf("redisstore: reading task %q: %w", id, err)
	}
	return decodeTaskReply(key, id, reply)
}

// decodeTaskReply decodes an HMGET r v reply of the task id.
func decodeTaskReply(key, id string, reply rueidis.RedisMessage) (*taskstore.Record, error) {
	fields, err := reply.ToArray()
	if err != nil || len(fields) != 2 {
		return nil, corrupt(key, "HMGET reply is not two fields")
	}
	if fields[0].IsNil() && fields[1].IsNil() {
		return nil, nil
	}
	rev, err1 := fields[0].ToString()
	data, err2 := fields[1].AsBytes()
	if err1 != nil || err2 != nil {
		return nil, corrupt(key, "the hash lacks its revision or record")
	}
	rec, err := decodeTask(rev, data)
	if err != nil {
		return nil, corrupt(key, "%v", err)
	}
	if rec.ID != id {
		return nil, corrupt(key, "holds task %q", truncate(rec.ID))
	}
	return rec, nil
}

// get reads a live task: ErrNotFound when it does not exist or has expired
// (an expired task is deleted, which wakes its waiters).
func (s *TaskStore) get(ctx context.Context, id string) (*taskstore.Record, error) {
	rec, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		return nil, taskstore.ErrNotFound
	}
	if now := s.now(); rec.Expired(now) {
		if err := s.expire(ctx, rec, now); err != nil {
			return nil, err
		}
		return nil, taskstore.ErrNotFound
	}
	return rec, nil
}

// expire deletes a task found expired (unless it changed meanwhile) and
// removes it from its owner's index.
func (s *TaskStore) expire(ctx context.Context, rec *taskstore.Record, now time.Time) error {
	rev := strconv.FormatUint(rec.Revision, 10)
	if _, err := s.c.exec(ctx, casScript, []string{s.taskKey(rec.ID)}, []string{rev, rev, "", "-1", s.channel(rec.ID)}); err != nil {
		return fmt.Errorf("redisstore: deleting expired task %q: %w", rec.ID, err)
	}
	return s.unindex(ctx, rec.Owner, rec.ID, now)
}

// Get implements taskstore.Store.
func (s *TaskStore) Get(ctx context.Context, id string) (*taskstore.Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.get(ctx, id)
}

// Update implements taskstore.Store. fn runs once per attempt: again when
// another replica changed the task between the read and the write.
func (s *TaskStore) Update(ctx context.Context, id string, fn func(*taskstore.Record) error) (*taskstore.Record, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cur, err := s.get(ctx, id)
		if err != nil {
			return nil, err
		}
		c := cur.Clone()
		if err := fn(c); err != nil {
			return nil, err
		}
		// The identity of a task does not change.
		c.ID, c.Owner, c.CreatedAt = cur.ID, cur.Owner, cur.CreatedAt
		c.Revision = cur.Revision + 1
		data, err := encodeTask(c)
		if err != nil {
			return nil, err
		}
		now := s.now()
		score, pexpire := expiryArgs(c, now)
		reply, err := s.c.exec(ctx, casScript, []string{s.taskKey(id)}, []string{
			strconv.FormatUint(cur.Revision, 10), strconv.FormatUint(c.Revision, 10),
			rueidis.BinaryString(data), pexpire, s.channel(id),
		})
		if err != nil {
			return nil, fmt.Errorf("redisstore: updating task %q: %w", id, err)
		}
		switch n, _ := reply.AsInt64(); n {
		case 0:
			continue // changed meanwhile: run fn on the new record
		case -1:
			return nil, taskstore.ErrNotFound
		}
		switch {
		case pexpire == "-1": // a TTL shortened into the past ends the task at once
			err = s.unindex(ctx, c.Owner, id, now)
		case cur.Status.IsTerminal() != c.Status.IsTerminal() || !cur.ExpiresAt().Equal(c.ExpiresAt()):
			_, err = s.c.exec(ctx, syncScript, s.ownerKeys(c.Owner), s.ownerArgs(now, id, "set", flag(!c.Status.IsTerminal()), score))
		}
		if err != nil {
			return nil, fmt.Errorf("redisstore: updating the index of task %q: %w", id, err)
		}
		return c, nil
	}
}

// List implements taskstore.Store. The cursor is the owner's creation number
// of the last task of the previous page, in base 36.
func (s *TaskStore) List(ctx context.Context, owner, cursor string, limit int) ([]*taskstore.Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	var after uint64
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 36, 64)
		if err != nil || n == 0 {
			return nil, "", fmt.Errorf("%w: %q", taskstore.ErrInvalidCursor, cursor)
		}
		after = n
	}
	if limit <= 0 {
		limit = 100
	}
	now := s.now()
	keys := s.ownerKeys(owner)
	reply, err := s.c.exec(ctx, listScript, keys, s.ownerArgs(now, strconv.FormatUint(after, 10), strconv.Itoa(limit+1)))
	if err != nil {
		return nil, "", fmt.Errorf("redisstore: listing tasks: %w", err)
	}
	flat, err := reply.AsStrSlice()
	if err != nil || len(flat)%2 != 0 {
		return nil, "", corrupt(keys[0], "not an index of tasks")
	}
	n := len(flat) / 2
	more := n > limit
	n = min(n, limit)
	cmds := make(rueidis.Commands, n)
	for i := range n {
		cmds[i] = s.c.rc.B().Hmget().Key(s.taskKey(flat[2*i])).Field("r", "v").Build()
	}
	out := make([]*taskstore.Record, 0, n)
	for i, res := range s.c.rc.DoMulti(ctx, cmds...) {
		id := flat[2*i]
		reply, err := s.c.result(ctx, res)
		if err != nil {
			return nil, "", fmt.Errorf("redisstore: listing tasks: %w", err)
		}
		rec, err := decodeTaskReply(s.taskKey(id), id, reply)
		if err != nil {
			return nil, "", err
		}
		if rec == nil || rec.Owner != owner || rec.Expired(now) {
			continue // deleted or expired meanwhile, or the id is another owner's now
		}
		out = append(out, rec)
	}
	next := ""
	if more {
		seq, err := strconv.ParseFloat(flat[2*n-1], 64)
		if err != nil || seq < 1 {
			return nil, "", corrupt(keys[0], "creation number %q", truncate(flat[2*n-1]))
		}
		next = strconv.FormatUint(uint64(seq), 36)
	}
	return out, next, nil
}

// Delete implements taskstore.Store.
func (s *TaskStore) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	key := s.taskKey(id)
	reply, err := s.c.exec(ctx, deleteTaskScript, []string{key}, []string{s.channel(id)})
	if err != nil {
		return fmt.Errorf("redisstore: deleting task %q: %w", id, err)
	}
	if reply.IsNil() {
		return nil
	}
	data, err := reply.AsBytes()
	if err != nil {
		return nil // deleted; what it held was not ours, so no index names it
	}
	rec, err := decodeTask("1", data)
	if err != nil {
		return nil // likewise
	}
	return s.unindex(ctx, rec.Owner, id, s.now())
}
