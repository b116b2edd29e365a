package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// ChangeKind says what changed on a server.
type ChangeKind uint8

// Kinds of change.
const (
	ToolsChanged     ChangeKind = iota + 1 // the tool list changed
	PromptsChanged                         // the prompt list changed
	ResourcesChanged                       // the resource (or template) list changed
	ResourceUpdated                        // the resource at Change.URI changed
	TaskUpdated                            // the task Change.TaskID changed status (experimental: tasks)
)

// Change is one change to a server's features that subscriptions/listen
// streams may want to hear about.
type Change struct {
	Kind   ChangeKind
	URI    string // for ResourceUpdated
	TaskID string // for TaskUpdated
}

// ChangeFeed carries changes from where they happen to the listen streams that
// want them. The [Server] publishes every [Change] of its own features to it and
// every subscriptions/listen stream subscribes. The in-process feed
// ([NewMemoryChangeFeed]) is the default ([ServerOptions].Changes); replicas
// behind a load balancer share a feed backed by a message bus so that a change
// made on one reaches streams held by the others.
type ChangeFeed interface {
	// Publish delivers c to every current subscriber.
	Publish(ctx context.Context, c Change) error
	// Subscribe calls deliver for every change published until stop is called.
	// deliver must not block: it runs on the publisher's goroutine.
	Subscribe(deliver func(Change)) (stop func())
}

// NewMemoryChangeFeed returns a ChangeFeed for one process.
func NewMemoryChangeFeed() ChangeFeed { return &memoryFeed{subs: make(map[*func(Change)]struct{})} }

type memoryFeed struct {
	mu   sync.RWMutex
	subs map[*func(Change)]struct{}
}

func (f *memoryFeed) Publish(_ context.Context, c Change) error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	for fn := range f.subs {
		(*fn)(c)
	}
	return nil
}

func (f *memoryFeed) Subscribe(deliver func(Change)) func() {
	key := &deliver
	f.mu.Lock()
	f.subs[key] = struct{}{}
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		delete(f.subs, key)
		f.mu.Unlock()
	}
}

// publish tells the change feed (and so every listen stream) about c.
func (s *Server) publish(c Change) {
	if err := s.opts.Changes.Publish(context.Background(), c); err != nil {
		s.log.Warn("mcp: publishing a change failed", "kind", c.Kind, "uri", c.URI, "error", err)
	}
}

// EndSubscriptions ends every subscriptions/listen stream open now, gracefully:
// each gets its final result (so the client knows the end was intended, not a
// dropped connection). Call it before shutting a server down.
func (s *Server) EndSubscriptions() {
	s.mu.Lock()
	if s.listenEnd == nil {
		s.listenEnd = make(chan struct{})
	}
	close(s.listenEnd)
	s.listenEnd = make(chan struct{})
	s.mu.Unlock()
}

// listenEndChan returns the channel EndSubscriptions will close next.
func (s *Server) listenEndChan() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listenEnd == nil {
		s.listenEnd = make(chan struct{})
	}
	return s.listenEnd
}

// listener collects the changes one stream wants. Changes are idempotent
// signals, so pending ones coalesce: a burst of tool changes becomes one
// list_changed, and no change is ever dropped or blocks the publisher.
type listener struct {
	filter protocol.SubscriptionFilter
	uris   map[string]struct{}
	tasks  map[string]struct{}
	wake   chan struct{}

	mu      sync.Mutex
	kinds   [TaskUpdated + 1]bool
	updated []string
	seen    map[string]struct{}
	changed []string // task ids
	recheck bool     // RefreshVisibility ran (deliverView)
}

func (l *listener) deliver(c Change) {
	switch c.Kind {
	case ToolsChanged:
		if !l.filter.ToolsListChanged {
			return
		}
	case PromptsChanged:
		if !l.filter.PromptsListChanged {
			return
		}
	case ResourcesChanged:
		if !l.filter.ResourcesListChanged {
			return
		}
	case ResourceUpdated:
		if _, ok := l.uris[c.URI]; !ok {
			return
		}
	case TaskUpdated:
		if _, ok := l.tasks[c.TaskID]; !ok {
			return
		}
	default:
		return
	}
	l.mu.Lock()
	if c.Kind == TaskUpdated {
		if _, dup := l.seen["task:"+c.TaskID]; !dup {
			l.seen["task:"+c.TaskID] = struct{}{}
			l.changed = append(l.changed, c.TaskID)
		}
	} else if c.Kind == ResourceUpdated {
		if _, dup := l.seen[c.URI]; !dup {
			l.seen[c.URI] = struct{}{}
			l.updated = append(l.updated, c.URI)
		}
	} else {
		l.kinds[c.Kind] = true
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// deliverView notes that RefreshVisibility asks the stream to check its view.
func (l *listener) deliverView(Change) {
	l.mu.Lock()
	l.recheck = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// take returns and clears the pending changes, and whether the view is to
// be checked.
func (l *listener) take() (kinds [TaskUpdated + 1]bool, uris, tasks []string, recheck bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kinds, uris, tasks, recheck = l.kinds, l.updated, l.changed, l.recheck
	l.kinds, l.updated, l.changed, l.recheck = [TaskUpdated + 1]bool{}, nil, nil, false
	clear(l.seen)
	return kinds, uris, tasks, recheck
}

// acceptedFilter is the part of f the server honours: list_changed for the
// features whose capability allows it, and resource updates when resources can
// be subscribed to.
func (s *Server) acceptedFilter(f protocol.SubscriptionFilter) protocol.SubscriptionFilter {
	caps := s.opts.Capabilities
	if caps == nil {
		return f // the server tracks every change of its own features
	}
	out := protocol.SubscriptionFilter{}
	if f.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged {
		out.ToolsListChanged = true
	}
	if f.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged {
		out.PromptsListChanged = true
	}
	if caps.Resources != nil {
		out.ResourcesListChanged = f.ResourcesListChanged && caps.Resources.ListChanged
		if caps.Resources.Subscribe {
			out.ResourceSubscriptions = f.ResourceSubscriptions
		}
	}
	return out
}

// listen serves subscriptions/listen: an acknowledgment first, then the changes
// the client asked for, each tagged with the subscription id (the request's
// id), until the client goes away (no answer) or the server ends the stream
// (a final result).
func listen(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.SubscriptionsListenParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	id, ok := jsonrpc.RelatedRequest(ctx)
	if !ok {
		return nil, errorf(CodeInvalidRequest, "invalid request: subscriptions/listen needs a request id")
	}
	subID := id.Raw()
	s := r.server()
	l := &listener{filter: s.acceptedFilter(p.Notifications), wake: make(chan struct{}, 1), seen: make(map[string]struct{})}
	l.uris = make(map[string]struct{}, len(l.filter.ResourceSubscriptions))
	for _, u := range l.filter.ResourceSubscriptions {
		l.uris[u] = struct{}{}
	}
	if len(p.Notifications.TaskIDs) > 0 {
		if err := requireTasksExtension(r); err != nil {
			return nil, err
		}
	}
	// Only tasks the requestor may see are agreed to; others are left out of
	// the acknowledgment, as unknown ids would be.
	l.filter.TaskIDs, l.tasks = nil, make(map[string]struct{}, len(p.Notifications.TaskIDs))
	owner := s.tasks.owner(ctx, r)
	for _, id := range p.Notifications.TaskIDs {
		if _, err := s.tasks.lookup(ctx, id, owner); err == nil {
			l.filter.TaskIDs = append(l.filter.TaskIDs, id)
			l.tasks[id] = struct{}{}
		}
	}
	end := s.listenEndChan()
	stop := s.opts.Changes.Subscribe(l.deliver)
	defer stop()
	// Under a VisibleFunc the stream also hears RefreshVisibility, and tells
	// its client when what it may see changed (visibility.go). It listens
	// before it fingerprints: a refresh in between is checked again.
	if s.opts.Visible != nil {
		stopViews := s.views.Subscribe(l.deliverView)
		defer stopViews()
	}
	view := s.newListenView(ctx, r, l.filter)

	tag := protocol.Meta{protocol.MetaKeySubscriptionID: subID}
	ack := &protocol.SubscriptionsAcknowledgedParams{Meta: tag, Notifications: l.filter}
	if err := r.Session.notify(ctx, protocol.NotificationSubscriptionsAcknowledged, ack); err != nil {
		return nil, err
	}
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-end:
			return &protocol.SubscriptionsListenResult{Meta: protocol.Meta{protocol.MetaKeySubscriptionID: subID}}, nil
		case <-l.wake:
		}
		if ctx.Err() != nil { // cancelled while a change was waiting: send nothing more
			return nil, ctx.Err()
		}
		kinds, uris, tasks, recheck := l.take()
		if view != nil && (recheck || kinds[ToolsChanged] || kinds[PromptsChanged] || kinds[ResourcesChanged]) {
			view.update(ctx, r, &kinds)
		}
		for _, n := range [...]struct {
			kind   ChangeKind
			method string
		}{
			{ToolsChanged, protocol.NotificationToolsListChanged},
			{PromptsChanged, protocol.NotificationPromptsListChanged},
			{ResourcesChanged, protocol.NotificationResourcesListChanged},
		} {
			if kinds[n.kind] {
				if err := r.Session.notify(ctx, n.method, &protocol.NotificationParams{Meta: tag}); err != nil {
					return nil, listenSendError(err)
				}
			}
		}
		for _, u := range uris {
			if err := r.Session.notify(ctx, protocol.NotificationResourcesUpdated, &protocol.ResourceUpdatedParams{Meta: tag, URI: u}); err != nil {
				return nil, listenSendError(err)
			}
		}
		for _, id := range tasks {
			rec, err := s.tasks.store.Get(ctx, id)
			if err != nil {
				continue // expired or deleted meanwhile: nothing to report
			}
			d := detailedTask(rec)
			d.Meta = tag
			if err := r.Session.notify(ctx, protocol.NotificationTasks, d); err != nil {
				return nil, listenSendError(err)
			}
		}
	}
}

func listenSendError(err error) error {
	if errors.Is(err, jsonrpc.ErrClosed) {
		return err
	}
	return errors.Join(errors.New("mcp: subscriptions/listen stream broken"), err)
}
