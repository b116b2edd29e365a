package taskstore

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"
)

// MemoryOptions configures NewMemory. The zero value is ready to use.
type MemoryOptions struct {
	// Now is the store's clock, which decides expiry. Nil means time.Now;
	// tests inject a fake clock to expire tasks without waiting.
	Now func() time.Time
}

// Memory is a Store that keeps tasks in this process: right for a single
// server, and the reference for other implementations. Expired tasks are
// removed as the store is used (each operation first drops those whose TTL
// has elapsed), so memory is bounded by the tasks alive at once.
type Memory struct {
	now func() time.Time

	mu     sync.Mutex
	tasks  map[string]*memEntry
	owners map[string][]*memEntry // each owner's tasks in creation order
	expiry expiryHeap             // tasks with a TTL, soonest first
	seq    uint64                 // creation counter: orders lists, makes cursors
}

// memEntry is one stored task.
type memEntry struct {
	rec     *Record
	seq     uint64
	changed chan struct{} // closed at the record's next change or removal
	index   int           // position in the expiry heap; -1 when not in it
}

// NewMemory returns an empty in-memory store.
func NewMemory(opts *MemoryOptions) *Memory {
	m := &Memory{now: time.Now, tasks: make(map[string]*memEntry), owners: make(map[string][]*memEntry)}
	if opts != nil && opts.Now != nil {
		m.now = opts.Now
	}
	return m
}

var _ Store = (*Memory)(nil)

// Len returns the number of tasks held (expired ones not yet dropped included).
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tasks)
}

// Create implements Store.
func (m *Memory) Create(ctx context.Context, rec *Record, limit int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if rec.ID == "" {
		return errors.New("taskstore: a task needs an id")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.expireLocked(now)
	if _, ok := m.tasks[rec.ID]; ok {
		return fmt.Errorf("%w: %q", ErrExists, rec.ID)
	}
	if limit > 0 {
		active := 0
		for _, e := range m.owners[rec.Owner] {
			if !e.rec.Status.IsTerminal() {
				active++
			}
		}
		if active >= limit {
			return fmt.Errorf("%w (limit %d)", ErrLimit, limit)
		}
	}
	m.seq++
	e := &memEntry{rec: rec.Clone(), seq: m.seq, changed: make(chan struct{}), index: -1}
	e.rec.Revision = 1
	m.tasks[rec.ID] = e
	m.owners[rec.Owner] = append(m.owners[rec.Owner], e)
	if !e.rec.ExpiresAt().IsZero() {
		heap.Push(&m.expiry, e)
	}
	return nil
}

// Get implements Store.
func (m *Memory) Get(ctx context.Context, id string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expireLocked(m.now())
	e, ok := m.tasks[id]
	if !ok {
		return nil, ErrNotFound
	}
	return e.rec.Clone(), nil
}

// Update implements Store. fn runs once, under the store's lock: it must not
// call the store.
func (m *Memory) Update(ctx context.Context, id string, fn func(*Record) error) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expireLocked(m.now())
	e, ok := m.tasks[id]
	if !ok {
		return nil, ErrNotFound
	}
	c := e.rec.Clone()
	if err := fn(c); err != nil {
		return nil, err
	}
	// The identity of a task does not change.
	c.ID, c.Owner, c.CreatedAt = e.rec.ID, e.rec.Owner, e.rec.CreatedAt
	c.Revision = e.rec.Revision + 1
	oldExp := e.rec.ExpiresAt()
	e.rec = c
	if newExp := c.ExpiresAt(); !newExp.Equal(oldExp) {
		switch {
		case e.index >= 0 && newExp.IsZero():
			heap.Remove(&m.expiry, e.index)
		case e.index >= 0:
			heap.Fix(&m.expiry, e.index)
		case !newExp.IsZero():
			heap.Push(&m.expiry, e)
		}
	}
	close(e.changed)
	e.changed = make(chan struct{})
	m.expireLocked(m.now()) // a shortened TTL may have ended the task
	return c.Clone(), nil
}

// List implements Store. The cursor is the creation number of the last task
// of the previous page.
func (m *Memory) List(ctx context.Context, owner, cursor string, limit int) ([]*Record, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	var after uint64
	if cursor != "" {
		n, err := strconv.ParseUint(cursor, 36, 64)
		if err != nil || n == 0 {
			return nil, "", fmt.Errorf("%w: %q", ErrInvalidCursor, cursor)
		}
		after = n
	}
	if limit <= 0 {
		limit = 100
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expireLocked(m.now())
	list := m.owners[owner]
	start := sort.Search(len(list), func(i int) bool { return list[i].seq > after })
	end := min(start+limit, len(list))
	out := make([]*Record, 0, end-start)
	for _, e := range list[start:end] {
		out = append(out, e.rec.Clone())
	}
	next := ""
	if end < len(list) {
		next = strconv.FormatUint(list[end-1].seq, 36)
	}
	return out, next, nil
}

// Wait implements Store.
func (m *Memory) Wait(ctx context.Context, id string, after uint64) (*Record, error) {
	for {
		m.mu.Lock()
		now := m.now()
		m.expireLocked(now)
		e, ok := m.tasks[id]
		if !ok {
			m.mu.Unlock()
			return nil, ErrNotFound
		}
		if e.rec.Revision > after {
			rec := e.rec.Clone()
			m.mu.Unlock()
			return rec, nil
		}
		changed := e.changed
		var timer *time.Timer
		var expire <-chan time.Time
		if exp := e.rec.ExpiresAt(); !exp.IsZero() {
			// Wake when the task expires, to report it gone.
			timer = time.NewTimer(exp.Sub(now))
			expire = timer.C
		}
		m.mu.Unlock()
		var err error
		select {
		case <-changed:
		case <-expire:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if timer != nil {
			timer.Stop()
		}
		if err != nil {
			return nil, err
		}
	}
}

// Delete implements Store.
func (m *Memory) Delete(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.tasks[id]; ok {
		m.removeLocked(e)
	}
	return nil
}

// expireLocked removes the tasks whose TTL has elapsed at now.
func (m *Memory) expireLocked(now time.Time) {
	for len(m.expiry) > 0 && m.expiry[0].rec.Expired(now) {
		m.removeLocked(m.expiry[0])
	}
}

// removeLocked drops e from every index and wakes its waiters.
func (m *Memory) removeLocked(e *memEntry) {
	delete(m.tasks, e.rec.ID)
	list := m.owners[e.rec.Owner]
	i := sort.Search(len(list), func(i int) bool { return list[i].seq >= e.seq })
	if i < len(list) && list[i] == e {
		list = append(list[:i], list[i+1:]...)
	}
	if len(list) == 0 {
		delete(m.owners, e.rec.Owner)
	} else {
		m.owners[e.rec.Owner] = list
	}
	if e.index >= 0 {
		heap.Remove(&m.expiry, e.index)
	}
	close(e.changed)
}

// expiryHeap orders entries by expiry time, soonest first.
type expiryHeap []*memEntry

func (h expiryHeap) Len() int { return len(h) }
func (h expiryHeap) Less(i, j int) bool {
	return h[i].rec.ExpiresAt().Before(h[j].rec.ExpiresAt())
}
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *expiryHeap) Push(x any) {
	e := x.(*memEntry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}
