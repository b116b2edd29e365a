// Package ratelimit holds token buckets per key (a principal, a client
// address, a tool) in a map of bounded size: however many distinct keys
// arrive, at most Max buckets are kept, the least recently used one evicted
// first. An evicted key starts again with a full bucket: bounding memory
// against a flood of new keys costs, at worst, a fresh burst for a key not
// seen for a while. The buckets are golang.org/x/time/rate's.
package ratelimit

import (
	"container/list"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limit is a rate and a burst, as a flag spells it: "10/s", "600/m", "5/s:20"
// (the burst after the colon; by default the rate per second, at least 1).
type Limit struct {
	Rate  rate.Limit // tokens per second
	Burst int
	spec  string
}

// String returns the limit as it was spelled.
func (l Limit) String() string { return l.spec }

// ParseLimit reads "N/s", "N/m" or "N/h", optionally followed by ":BURST".
func ParseLimit(s string) (Limit, error) {
	spec := s
	s, burstText, hasBurst := strings.Cut(s, ":")
	num, unit, ok := strings.Cut(s, "/")
	n, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return Limit{}, fmt.Errorf("rate %q: want N/s, N/m or N/h with N > 0", spec)
	}
	per := map[string]float64{"s": 1, "m": 60, "h": 3600}[unit]
	if per == 0 {
		return Limit{}, fmt.Errorf("rate %q: the unit is s, m or h", spec)
	}
	l := Limit{Rate: rate.Limit(n / per), spec: spec}
	l.Burst = max(1, int(math.Ceil(n/per)))
	if hasBurst {
		b, err := strconv.Atoi(burstText)
		if err != nil || b < 1 {
			return Limit{}, fmt.Errorf("rate %q: the burst after ':' is a whole number ≥ 1", spec)
		}
		l.Burst = b
	}
	return l, nil
}

// DefaultMaxKeys is how many keys a Keyed keeps when Max is not set.
const DefaultMaxKeys = 10000

// Keyed is a token bucket per key, at most max of them. It is safe for
// concurrent use.
type Keyed struct {
	limit Limit
	max   int

	mu  sync.Mutex
	m   map[string]*list.Element
	lru list.List // of *entry, most recent first
}

type entry struct {
	key string
	lim *rate.Limiter
}

// NewKeyed returns buckets of limit l for at most maxKeys keys (0:
// DefaultMaxKeys).
func NewKeyed(l Limit, maxKeys int) *Keyed {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	return &Keyed{limit: l, max: maxKeys, m: make(map[string]*list.Element)}
}

// Limit returns the limit of every bucket.
func (k *Keyed) Limit() Limit { return k.limit }

// Len returns how many buckets are kept.
func (k *Keyed) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}

// Allow takes a token from key's bucket at now. When there is none it takes
// nothing and returns how long until there is one.
func (k *Keyed) Allow(key string, now time.Time) (ok bool, retryAfter time.Duration) {
	k.mu.Lock()
	defer k.mu.Unlock()
	var lim *rate.Limiter
	if el, found := k.m[key]; found {
		k.lru.MoveToFront(el)
		lim = el.Value.(*entry).lim
	} else {
		if len(k.m) >= k.max {
			oldest := k.lru.Back()
			e := oldest.Value.(*entry)
			delete(k.m, e.key)
			// Reuse the evicted entry and its list element.
			e.key, e.lim = key, rate.NewLimiter(k.limit.Rate, k.limit.Burst)
			k.lru.MoveToFront(oldest)
			k.m[key] = oldest
			lim = e.lim
		} else {
			lim = rate.NewLimiter(k.limit.Rate, k.limit.Burst)
			k.m[key] = k.lru.PushFront(&entry{key: key, lim: lim})
		}
	}
	if lim.AllowN(now, 1) {
		return true, 0
	}
	missing := 1 - lim.TokensAt(now)
	return false, time.Duration(missing / float64(k.limit.Rate) * float64(time.Second))
}

// ErrLimited is the error a caller over its limit gets (wrapped by Exceeded).
var ErrLimited = errors.New("rate limit exceeded")

// RetryAfterSeconds is the Retry-After value for d: whole seconds, at least 1.
func RetryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}
