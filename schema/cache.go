package schema

import "sync"

// compileKey identifies a compilation: the same schema text and options give
// an identical (immutable, shareable) Validator.
type compileKey struct {
	schema string
	opts   CompileOptions
}

// validatorCache remembers recent compilations, because a program registers
// the same tool schemas on many servers (tests especially) and compiling costs
// far more than inferring. It is bounded: when full it starts afresh, so a
// gateway compiling endless distinct schemas cannot grow it without limit.
type validatorCache struct {
	mu sync.Mutex
	m  map[compileKey]*Validator
}

const (
	maxCachedValidators = 256
	maxCachedSchemaSize = 64 << 10
)

var compiled validatorCache

func (c *validatorCache) get(k compileKey) (*Validator, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *validatorCache) put(k compileKey, v *Validator) {
	if len(k.schema) > maxCachedSchemaSize {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedValidators {
		c.m = make(map[compileKey]*Validator)
	}
	c.m[k] = v
}
