package jsonscan

import (
	"hash/maphash"
	"sync/atomic"
)

// A 2026-07-28 peer repeats its envelope in every message, byte for byte: a
// client its capabilities and identity in each request's _meta, a server its
// identity in each result's. A request is scanned two or three times on its way
// in (its framing, its params, its _meta), and skipping the 340-byte _meta of
// mcpkit's gateway took about 300 ns each time. So the scanner remembers the
// values of _meta members that are objects long enough to be worth it and that
// it met twice in a row, and skips the same bytes met again with one
// comparison. No other value is looked up: a message's other members change
// from one message to the next, and looking them up would only cost.
//
// A remembered object is exactly bytes that the scanner validated: a text that
// starts with them holds that very object (its extent is fixed by its own
// bytes), so a match skips exactly what a scan would, with the same verdict.
// What a peer can do to the memo is cost itself a scan, as without it: an
// object is kept on its second sighting only, and the memo holds at most
// memoSetCount×memoWays objects of at most memoMaxLen bytes (512 KiB).

// The memo's bounds.
const (
	memoMinLen   = 64   // shorter objects are skipped about as fast as compared
	memoMaxLen   = 2048 // longer ones are not kept
	memoSetCount = 64   // objects are spread over the sets by their first memoMinLen bytes
	memoWays     = 4    // objects kept per set; a fifth replaces the oldest
	memoSeenLen  = 256  // hashes of objects met once
	// memoMaxDepth is the deepest level at which a remembered object is
	// skipped: one of memoMaxLen bytes nests at most memoMaxLen/2 levels
	// inside, so it stays within MaxDepth wherever it was validated.
	memoMaxDepth = MaxDepth - memoMaxLen/2
)

// isMetaKey reports whether the raw key (its bytes between the quotes, still
// escaped) is _meta. A key written with escapes never is: the memo is for
// what peers send, and they write it plainly.
func isMetaKey(raw []byte) bool { return string(raw) == "_meta" }

// memoEntry is one remembered object.
type memoEntry struct {
	text        string // its bytes
	maxExponent int    // the Scanner.MaxExponent it was validated under
}

// fits reports whether e's verdict holds under maxExponent: an object
// validated with a limit passes the same or any looser one (none included),
// one validated without a limit only without one.
func (e *memoEntry) fits(maxExponent int) bool {
	return e.maxExponent == maxExponent || (e.maxExponent > 0 && (maxExponent == 0 || maxExponent > e.maxExponent))
}

// memoSet is one set of remembered objects.
type memoSet struct {
	ways [memoWays]atomic.Pointer[memoEntry]
	next atomic.Uint32 // turns: the way the next object replaces
}

var (
	memoSeed  = maphash.MakeSeed()
	memoTable [memoSetCount]memoSet
	memoSeen  [memoSeenLen]atomic.Uint64 // by hash, the hash of the last object met once
)

// skipMeta is skipValue for the value of a _meta member at i: a remembered
// object is skipped by comparing it, another object of the memo's sizes is
// scanned and remembered if met twice in a row.
func skipMeta(d []byte, i, depth, maxExponent int) (int, error) {
	if i >= len(d) || d[i] != '{' || len(d)-i < memoMinLen || depth > memoMaxDepth {
		return skipValue(d, i, depth, maxExponent)
	}
	set := &memoTable[maphash.Bytes(memoSeed, d[i:i+memoMinLen])%memoSetCount]
	for w := range set.ways {
		if e := set.ways[w].Load(); e != nil && len(d)-i >= len(e.text) && string(d[i:i+len(e.text)]) == e.text && e.fits(maxExponent) {
			return i + len(e.text), nil
		}
	}
	end, err := skipValue(d, i, depth, maxExponent)
	if err == nil && end-i >= memoMinLen && end-i <= memoMaxLen {
		set.saw(d[i:end], maxExponent)
	}
	return end, err
}

// saw notes that text, a valid object of set, was scanned, and keeps it if it
// was the last object met with its hash.
func (set *memoSet) saw(text []byte, maxExponent int) {
	h := maphash.Bytes(memoSeed, text)
	seen := &memoSeen[h%memoSeenLen]
	if seen.Load() != h {
		seen.Store(h) // the first sighting
		return
	}
	seen.Store(0) // kept now: should it be replaced, two more sightings bring it back
	e := &memoEntry{text: string(text), maxExponent: maxExponent}
	set.ways[set.next.Add(1)%memoWays].Store(e)
}
