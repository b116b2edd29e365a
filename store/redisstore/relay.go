package redisstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/mcpkit/mcpkit/transport"
)

// Liveness defaults of a Relay.
const (
	// DefaultRelayTTL is how long a replica's liveness key and claims outlive
	// its last heartbeat: a replica that died is known dead within it.
	DefaultRelayTTL = 15 * time.Second
	// relayHeartbeats is how many heartbeats a TTL holds.
	relayHeartbeats = 3
	// incarnationLen is the length of the random part of a relay id: 50 bits.
	incarnationLen = 10
)

// RelayOptions configures NewRelay. The zero value gives the defaults.
type RelayOptions struct {
	// Replica names this replica (letters and digits: a pod's name, say;
	// empty for none). The relay's id (Relay.Replica) is the name followed
	// by 10 random characters drawn by each NewRelay, so that a process
	// restarted under the same name never reuses the ids its previous
	// incarnation gave out (the ids of streams and of requests to clients
	// name the relay id), nor keeps that incarnation's liveness key alive.
	Replica string
	// TTL is how long the liveness key and the claims live without a
	// heartbeat (sent every TTL/3). Zero or less means DefaultRelayTTL.
	TTL time.Duration
	// Logger receives the relay's diagnostics. Nil means slog.Default().
	Logger *slog.Logger
}

// Relay is a transport.Relay on Redis: each replica subscribes to a channel
// of its own (its inbox), keeps a liveness key, and renews the claims it
// holds, all from one heartbeat goroutine; sending is one script (one round
// trip) that checks the addressee is alive, or finds the claim's holder, and
// PUBLISHes.
//
// Keys and channels (P is the client's prefix):
//
//	P replica:<id>        STRING "1", PX TTL          the replica is alive
//	Pc:<kind>:{<id>}      STRING holder id, PX TTL    a claim named "<kind>:<id>" (a session's: its hash tag)
//	P r:<id>              channel                     the replica's inbox: "<topic>\n<payload>"
//
// Close stops the goroutines and removes the liveness key.
type Relay struct {
	c       *Client
	id      string
	ttl     time.Duration
	ttlArg  string
	log     *slog.Logger
	junk    junkWarner // of the messages onMessage ignores
	alive   string     // the liveness key
	channel string     // the inbox

	hmu      sync.RWMutex
	handlers map[string]func([]byte)

	cmu    sync.Mutex
	claims map[string]struct{} // claim keys held

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

var _ transport.Relay = (*Relay)(nil)

// NewRelay starts a relay on c: it marks the replica alive and subscribes to
// its inbox before returning, so that messages sent to it from then on arrive.
func NewRelay(ctx context.Context, c *Client, opts *RelayOptions) (*Relay, error) {
	var o RelayOptions
	if opts != nil {
		o = *opts
	}
	if o.Replica != "" && !isAlnum(o.Replica) {
		return nil, fmt.Errorf("redisstore: relay replica name %q: letters and digits only", o.Replica)
	}
	o.Replica += rand.Text()[:incarnationLen]
	if o.TTL <= 0 {
		o.TTL = DefaultRelayTTL
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	r := &Relay{
		c: c, id: o.Replica, ttl: o.TTL, ttlArg: fmt.Sprint(max(o.TTL.Milliseconds(), 1)), log: o.Logger,
		alive: c.prefix + "replica:" + o.Replica, channel: c.prefix + "r:" + o.Replica,
		handlers: make(map[string]func([]byte)), claims: make(map[string]struct{}),
	}
	if err := r.beat(ctx); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	subscribed := make(chan struct{})
	r.wg.Add(2)
	go r.receive(rctx, subscribed)
	go r.heartbeat(rctx)
	select {
	case <-subscribed:
		return r, nil
	case <-ctx.Done():
		r.Close()
		return nil, fmt.Errorf("redisstore: subscribing to the relay inbox: %w", ctx.Err())
	}
}

func isAlnum(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Close stops the relay and removes its liveness key: the others see it gone.
func (r *Relay) Close() {
	r.cancel()
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = r.c.do(ctx, r.c.rc.B().Del().Key(r.alive).Build())
}

// Replica implements transport.Relay: RelayOptions.Replica followed by
// random characters (uppercase letters and digits), new with each NewRelay.
func (r *Relay) Replica() string { return r.id }

// Handle implements transport.Relay.
func (r *Relay) Handle(topic string, fn func([]byte)) {
	r.hmu.Lock()
	r.handlers[topic] = fn
	r.hmu.Unlock()
}

// sendScript publishes to a replica's inbox if it is alive.
//
//	KEYS[1] liveness key; ARGV[1] channel, ARGV[2] message
var sendScript = rueidis.NewLuaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('PUBLISH', ARGV[1], ARGV[2])`)

// Send implements transport.Relay: one round trip.
func (r *Relay) Send(ctx context.Context, replica, topic string, payload []byte) error {
	if !isAlnum(replica) {
		return fmt.Errorf("redisstore: relay to %q: %w", replica, transport.ErrReplicaGone)
	}
	reply, err := r.c.exec(ctx, sendScript, []string{r.c.prefix + "replica:" + replica},
		[]string{r.c.prefix + "r:" + replica, topic + "\n" + rueidis.BinaryString(payload)})
	if err != nil {
		return fmt.Errorf("redisstore: relay to %s: %w", replica, err)
	}
	if n, err := reply.AsInt64(); err != nil || n < 0 {
		return fmt.Errorf("redisstore: relay to %s: %w", replica, transport.ErrReplicaGone)
	}
	return nil
}

// claimKey is the key of a claim: "Pc:<kind>:{<id>}" for a name
// "<kind>:<id>" (the part after the last colon is the hash tag, so that the
// claims of a session, "get:<session id>", share the slot of its other keys
// in a Redis Cluster), "Pc:{<name>}" for a name without a colon.
func (r *Relay) claimKey(name string) (string, error) {
	i := strings.LastIndexByte(name, ':')
	if name == "" || i == len(name)-1 || strings.ContainsAny(name, "{}") {
		return "", fmt.Errorf("redisstore: claim name %q cannot be a hash tag", name)
	}
	return r.c.prefix + "c:" + name[:i+1] + "{" + name[i+1:] + "}", nil
}

// claimScript takes a claim unless someone else holds it (and takeover is 0).
//
//	KEYS[1] claim key; ARGV[1] me, ARGV[2] TTL ms, ARGV[3] takeover
var claimScript = rueidis.NewLuaScript(`
local h = redis.call('GET', KEYS[1])
if h and h ~= ARGV[1] and ARGV[3] == '0' then return h end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]`)

// Claim implements transport.Relay: one round trip.
func (r *Relay) Claim(ctx context.Context, name string, takeover bool) (string, error) {
	key, err := r.claimKey(name)
	if err != nil {
		return "", err
	}
	t := "0"
	if takeover {
		t = "1"
	}
	reply, err := r.c.exec(ctx, claimScript, []string{key}, []string{r.id, r.ttlArg, t})
	if err != nil {
		return "", fmt.Errorf("redisstore: claiming %s: %w", key, err)
	}
	holder, err := reply.ToString()
	if err != nil || !isAlnum(holder) {
		return "", corrupt(key, "the holder is %q", holder)
	}
	if holder == r.id {
		r.cmu.Lock()
		r.claims[key] = struct{}{}
		r.cmu.Unlock()
	}
	return holder, nil
}

// releaseScript deletes a claim if it is still mine.
//
//	KEYS[1] claim key; ARGV[1] me
var releaseScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)

// Release implements transport.Relay: one round trip.
func (r *Relay) Release(ctx context.Context, name string) error {
	key, err := r.claimKey(name)
	if err != nil {
		return err
	}
	r.cmu.Lock()
	delete(r.claims, key)
	r.cmu.Unlock()
	if _, err := r.c.exec(ctx, releaseScript, []string{key}, []string{r.id}); err != nil {
		return fmt.Errorf("redisstore: releasing %s: %w", key, err)
	}
	return nil
}

// sendHolderScript publishes to the inbox of a claim's holder.
//
//	KEYS[1] claim key; ARGV[1] inbox channel prefix, ARGV[2] message
var sendHolderScript = rueidis.NewLuaScript(`
local h = redis.call('GET', KEYS[1])
if not h then return false end
redis.call('PUBLISH', ARGV[1] .. h, ARGV[2])
return h`)

// SendToHolder implements transport.Relay: one round trip.
func (r *Relay) SendToHolder(ctx context.Context, name, topic string, payload []byte) (string, error) {
	key, err := r.claimKey(name)
	if err != nil {
		return "", fmt.Errorf("%w: %w", transport.ErrNotClaimed, err)
	}
	reply, err := r.c.exec(ctx, sendHolderScript, []string{key},
		[]string{r.c.prefix + "r:", topic + "\n" + rueidis.BinaryString(payload)})
	if err != nil {
		return "", fmt.Errorf("redisstore: relay to the holder of %s: %w", key, err)
	}
	if reply.IsNil() {
		return "", fmt.Errorf("redisstore: relay to the holder of %s: %w", key, transport.ErrNotClaimed)
	}
	holder, err := reply.ToString()
	if err != nil || !isAlnum(holder) {
		return "", corrupt(key, "the holder is %q", holder)
	}
	return holder, nil
}

// Alive implements transport.Relay: one round trip.
func (r *Relay) Alive(ctx context.Context, replica string) (bool, error) {
	if !isAlnum(replica) {
		return false, nil
	}
	reply, err := r.c.do(ctx, r.c.rc.B().Exists().Key(r.c.prefix+"replica:"+replica).Build())
	if err != nil {
		return false, fmt.Errorf("redisstore: is %s alive: %w", replica, err)
	}
	n, err := reply.AsInt64()
	return err == nil && n == 1, nil
}

// renewScript restarts a claim's TTL if it is still mine; 0 when it is not.
//
//	KEYS[1] claim key; ARGV[1] me, ARGV[2] TTL ms
var renewScript = rueidis.NewLuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)

// beat renews the liveness key and the claims held: one pipelined round trip
// for the key, one per claim.
func (r *Relay) beat(ctx context.Context) error {
	if _, err := r.c.do(ctx, r.c.rc.B().Set().Key(r.alive).Value("1").PxMilliseconds(r.ttl.Milliseconds()).Build()); err != nil {
		return fmt.Errorf("redisstore: relay liveness: %w", err)
	}
	r.cmu.Lock()
	keys := make([]string, 0, len(r.claims))
	for k := range r.claims {
		keys = append(keys, k)
	}
	r.cmu.Unlock()
	for _, k := range keys {
		reply, err := r.c.exec(ctx, renewScript, []string{k}, []string{r.id, r.ttlArg})
		if err != nil {
			return fmt.Errorf("redisstore: renewing %s: %w", k, err)
		}
		if n, _ := reply.AsInt64(); n == 0 {
			r.cmu.Lock()
			delete(r.claims, k) // taken over, or expired while Redis was away
			r.cmu.Unlock()
		}
	}
	return nil
}

func (r *Relay) heartbeat(ctx context.Context) {
	defer r.wg.Done()
	t := time.NewTicker(r.ttl / relayHeartbeats)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := r.beat(ctx); err != nil && ctx.Err() == nil {
				r.log.Warn("redisstore: relay heartbeat failed", "replica", r.id, "error", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// receive holds the inbox subscription, re-subscribing after failures.
func (r *Relay) receive(ctx context.Context, subscribed chan struct{}) {
	defer r.wg.Done()
	var once sync.Once
	var up atomic.Bool
	hook := rueidis.WithOnSubscriptionHook(ctx, func(e rueidis.PubSubSubscription) {
		if e.Kind == "subscribe" {
			up.Store(true)
			once.Do(func() { close(subscribed) })
		}
	})
	var back backoff
	for {
		err := r.c.rc.Receive(hook, r.c.rc.B().Subscribe().Channel(r.channel).Build(), r.onMessage)
		if ctx.Err() != nil {
			return
		}
		if up.Swap(false) {
			back.reset()
		}
		if back.n == 0 {
			r.log.Warn("redisstore: relay inbox subscription lost; reconnecting", "channel", r.channel, "error", err)
		}
		if !back.wait(ctx) {
			return
		}
	}
}

// errNoTopic is a relay message without its topic line.
var errNoTopic = errors.New("no topic line")

// decodeRelayMessage splits "<topic>\n<payload>".
func decodeRelayMessage(m string) (topic string, payload []byte, err error) {
	topic, rest, ok := strings.Cut(m, "\n")
	if !ok || topic == "" {
		return "", nil, errNoTopic
	}
	return topic, []byte(rest), nil
}

func (r *Relay) onMessage(m rueidis.PubSubMessage) {
	topic, payload, err := decodeRelayMessage(m.Message)
	if err != nil {
		r.junk.ignore(r.log, "redisstore: ignoring messages in the relay inbox", "channel", r.channel, "error", err)
		return
	}
	r.hmu.RLock()
	fn := r.handlers[topic]
	r.hmu.RUnlock()
	if fn == nil {
		r.log.Debug("redisstore: no handler for a relay topic", "topic", topic)
		return
	}
	fn(payload)
}
