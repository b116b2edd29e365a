package jsonrpc

import (
	"fmt"
	"strconv"
)

type idKind uint8

const (
	idAbsent idKind = iota // no "id" member: the message is a notification
	idNull                 // "id": null (only valid in error responses)
	idNumber
	idString
)

// ID is a JSON-RPC request id: a string or an integer. It remembers which of the two
// it was, so an echoed id keeps its JSON type, and 0 is a valid id distinct from a
// missing one. The zero ID is "absent". IDs are comparable and usable as map keys.
type ID struct {
	str  string
	num  int64
	kind idKind
}

// Int64ID returns a numeric ID.
func Int64ID(n int64) ID { return ID{num: n, kind: idNumber} }

// StringID returns a string ID.
func StringID(s string) ID { return ID{str: s, kind: idString} }

// NullID returns the null ID used in error responses to messages whose id could not be read.
func NullID() ID { return ID{kind: idNull} }

// IsValid reports whether the id is a string or a number (neither absent nor null).
func (id ID) IsValid() bool { return id.kind == idNumber || id.kind == idString }

// IsAbsent reports whether the message had no id member at all.
func (id ID) IsAbsent() bool { return id.kind == idAbsent }

// IsNull reports whether the id was JSON null.
func (id ID) IsNull() bool { return id.kind == idNull }

// Raw returns the id's Go value: a string, an int64, or nil.
func (id ID) Raw() any {
	switch id.kind {
	case idNumber:
		return id.num
	case idString:
		return id.str
	}
	return nil
}

// String returns a human-readable form: numbers plain, strings quoted.
func (id ID) String() string {
	switch id.kind {
	case idNumber:
		return strconv.FormatInt(id.num, 10)
	case idString:
		return strconv.Quote(id.str)
	case idNull:
		return "null"
	}
	return "<absent>"
}

// AppendJSON appends the id's JSON form (null for an absent id).
func (id ID) AppendJSON(b []byte) []byte {
	switch id.kind {
	case idNumber:
		return strconv.AppendInt(b, id.num, 10)
	case idString:
		return AppendString(b, id.str)
	}
	return append(b, "null"...)
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) { return id.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler. It accepts a string, an integer or null.
func (id *ID) UnmarshalJSON(data []byte) error {
	s := newScanner(data)
	s.SkipSpace()
	v, err := s.id(0)
	if err != nil {
		return err
	}
	s.SkipSpace()
	if s.Pos != len(data) {
		return fmt.Errorf("jsonrpc: trailing data after id")
	}
	*id = v
	return nil
}
