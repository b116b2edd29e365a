package upstream

import (
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// maxRedactorSecrets bounds the secrets a Redactor keeps from the
// configurations before the current one.
const maxRedactorSecrets = 256

// Redactor redacts the secrets of a configuration that is reloaded: those of
// the configuration it was made with and of every one added since ([Redactor.Add],
// which [Supervisor.Apply] calls), so that a line logged after a reload shows
// neither a new server's secrets nor, while it stops, a removed one's. The
// secrets of earlier configurations are kept (at most 4,096 besides the
// current ones, the oldest dropped first). It is safe for concurrent use.
type Redactor struct {
	mu      sync.Mutex
	secrets []string // in the order they were added
	r       atomic.Pointer[strings.Replacer]
}

// NewRedactor returns a redactor of cfg's secrets (none when cfg is nil).
func NewRedactor(cfg *Config) *Redactor {
	r := &Redactor{}
	if cfg != nil {
		r.Add(cfg)
	}
	return r
}

// Add adds cfg's secrets to the ones r redacts.
func (r *Redactor) Add(cfg *Config) {
	current := cfg.secretValues(nil)
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.secrets)
	for _, v := range current {
		if !slices.Contains(r.secrets, v) {
			r.secrets = append(r.secrets, v)
		}
	}
	if len(r.secrets) == n {
		return
	}
	if over := len(r.secrets) - len(current) - maxRedactorSecrets; over > 0 {
		r.secrets = slices.DeleteFunc(r.secrets, func(v string) bool {
			if over > 0 && !slices.Contains(current, v) {
				over--
				return true
			}
			return false
		})
	}
	r.r.Store(replacerOf(r.secrets))
}

// Redact returns text with every secret r knows replaced by Redacted.
func (r *Redactor) Redact(text string) string {
	if rep := r.r.Load(); rep != nil {
		return rep.Replace(text)
	}
	return text
}

// Handler returns a handler that passes what it handles to h with the
// secrets r knows at the time of each line replaced, as
// [Config.RedactHandler] does for one configuration. h itself is returned
// when it already is r's.
func (r *Redactor) Handler(h slog.Handler) slog.Handler {
	if rh, ok := h.(*redactHandler); ok && rh.live == r {
		return h
	}
	return &redactHandler{inner: h, live: r}
}
