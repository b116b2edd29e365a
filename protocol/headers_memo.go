package protocol

import (
	"hash/maphash"
	"sync/atomic"
)

// A client sends the same _meta object (its envelope: version, capabilities,
// identity) on every request, and both ends read it on every request: the
// client to write the request metadata headers, the server to check them. So
// readMeta keeps what it found in the last _meta object it met twice in a row
// among those it read in full, and reads that object again by comparing it.
//
// What a peer can do to the memo is cost itself a hash per object read in
// full: an object is kept on its second sighting in a row only, and the memo
// holds one object of at most metaMemoMaxLen bytes.

// metaMemoMaxLen bounds the _meta objects the memo keeps.
const metaMemoMaxLen = 1024

// metaMemo is what readMeta found in one _meta object.
type metaMemo struct {
	text                  string // the object, as received
	version               string
	hasClientCapabilities bool
	ok                    bool
}

var (
	metaMemoSeed = maphash.MakeSeed()
	lastMeta     atomic.Pointer[metaMemo] // the object kept
	lastMetaRead atomic.Uint64            // the hash of the last object read in full
)

// recall sets f's protocol fields from the kept object, if meta is it, and
// reports whether it was, and ok as readMeta would.
func (f *RequestFields) recall(meta []byte) (found, ok bool) {
	m := lastMeta.Load()
	if m == nil || m.text != string(meta) {
		return false, false
	}
	f.ProtocolVersion, f.HasClientCapabilities = m.version, m.hasClientCapabilities
	return true, m.ok
}

// remember notes meta, just read in full into f with the outcome ok, and
// keeps it if it is the object read in full before it.
func (f *RequestFields) remember(meta []byte, ok bool) {
	if len(meta) > metaMemoMaxLen {
		return
	}
	h := maphash.Bytes(metaMemoSeed, meta)
	if lastMetaRead.Swap(h) != h {
		return
	}
	lastMeta.Store(&metaMemo{text: string(meta), version: f.ProtocolVersion, hasClientCapabilities: f.HasClientCapabilities, ok: ok})
}
