package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// readOutcome is one outcome of lineReader.next, in a form tests can compare.
type readOutcome struct {
	msg      string
	tooLarge int    // size of a dropped line, or 0
	prefix   string // the first bytes of a dropped line kept for its id
}

func (o readOutcome) String() string {
	if o.tooLarge > 0 {
		return fmt.Sprintf("<dropped %d bytes starting %q>", o.tooLarge, o.prefix)
	}
	return fmt.Sprintf("%q", o.msg)
}

// readAll runs a lineReader to the end and checks the invariants every result must
// satisfy.
func readAll(t *testing.T, r *lineReader) []readOutcome {
	t.Helper()
	var out []readOutcome
	for i := 0; ; i++ {
		if i > 1<<20 {
			t.Fatal("lineReader does not stop")
		}
		msg, err := r.next()
		switch {
		case err == nil:
			if bytes.IndexByte(msg, '\n') >= 0 {
				t.Fatalf("message %q contains a newline", msg)
			}
			if len(msg) > r.max {
				t.Fatalf("message of %d bytes exceeds the bound %d", len(msg), r.max)
			}
			if isBlank(msg) {
				t.Fatalf("blank message %q returned", msg)
			}
			out = append(out, readOutcome{msg: string(msg)})
		case errors.Is(err, jsonrpc.ErrMessageTooLarge):
			if msg != nil {
				t.Fatalf("message returned with a too-large error")
			}
			var tl *jsonrpc.TooLargeError
			if !errors.As(err, &tl) || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes exceeds the limit of %d bytes", tl.Size, tl.Limit)) {
				t.Fatalf("too-large error %q does not give the sizes", err)
			}
			size, limit := tl.Size, tl.Limit
			if limit != r.max || size <= limit {
				t.Fatalf("too-large error %q: size %d, limit %d, bound %d", err, size, limit, r.max)
			}
			out = append(out, readOutcome{tooLarge: size, prefix: string(tl.Prefix)})
		case errors.Is(err, os.ErrDeadlineExceeded):
			if msg != nil {
				t.Fatalf("message returned with a timeout")
			}
			continue // an interrupted read: the line goes on at the next call
		case err == io.EOF:
			if _, again := r.next(); again != io.EOF {
				t.Fatalf("after io.EOF, next returned %v", again)
			}
			return out
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
}

// modelRead is the specification of lineReader, written as plainly as possible. A
// dropped line keeps as many of its first bytes as the buffer of bufSize holds, up to
// tooLargePrefix.
func modelRead(data []byte, max, bufSize int) []readOutcome {
	var out []readOutcome
	lines := bytes.Split(data, []byte("\n"))
	for _, line := range lines {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.Trim(line, " \t\r")) == 0 {
			continue
		}
		if len(line) > max {
			keep := min(len(line), bufSize, tooLargePrefix)
			out = append(out, readOutcome{tooLarge: len(line), prefix: string(line[:keep])})
			continue
		}
		out = append(out, readOutcome{msg: string(line)})
	}
	return out
}

func sameOutcomes(a, b []readOutcome) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// chunkReader returns data in pieces whose sizes cycle through sizes (0 means a
// zero-length read, which io.Reader allows; a negative size a read that times
// out, as a read of a pipe past its deadline does).
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if len(r.sizes) > 0 {
		n = r.sizes[r.i%len(r.sizes)]
		r.i++
	}
	if n < 0 {
		return 0, &os.PathError{Op: "read", Path: "|0", Err: os.ErrDeadlineExceeded}
	}
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

func TestLineReaderCases(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int
	}{
		{"simple", "{\"a\":1}\n{\"b\":2}\n", 100},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", 100},
		{"blank lines", "\n\n{\"a\":1}\n\r\n  \t \n{\"b\":2}\n\n", 100},
		{"no final newline", "{\"a\":1}\n{\"b\":2}", 100},
		{"final cr without newline", "{\"a\":1}\r", 100},
		{"only one cr stripped", "{\"a\":1}\r\r\n", 100},
		{"exactly at bound", "12345\n123456\n1234\n", 5},
		{"cr does not count", "12345\r\n123456\r\n", 5},
		{"too large then ok", strings.Repeat("x", 300) + "\nok\n", 100},
		{"bound below the buffer", strings.Repeat("y", 5000) + "\r\n" + strings.Repeat("z", 9) + "\n", 8},
		{"empty input", "", 100},
		{"inner spaces kept", "  {\"a\": 1}  \n", 100},
	}
	for _, tt := range tests {
		for _, bufSize := range []int{16, 64, 4096} {
			t.Run(fmt.Sprintf("%s/buf%d", tt.name, bufSize), func(t *testing.T) {
				r := newLineReader(strings.NewReader(tt.in), tt.max, bufSize)
				got := readAll(t, r)
				want := modelRead([]byte(tt.in), tt.max, bufSize)
				if !sameOutcomes(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
	}
}

func TestLineReaderReturnsOwnedCopies(t *testing.T) {
	r := newLineReader(strings.NewReader("first\nsecond\n"), 100, 16)
	first, err := r.next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.next(); err != nil {
		t.Fatal(err)
	}
	if string(first) != "first" {
		t.Fatalf("first message changed to %q by the next read", first)
	}
}

func TestLineReaderDoesNotKeepHugeSpill(t *testing.T) {
	big := strings.Repeat("x", 5<<20)
	mid := strings.Repeat("y", 200<<10)
	r := newLineReader(strings.NewReader(mid+"\n"+big+"\n"+mid+"\n"), DefaultMaxMessageSize, readBufferSize)
	msg, err := r.next()
	if err != nil || string(msg) != mid {
		t.Fatalf("first line: %d bytes, %v", len(msg), err)
	}
	if len(r.spill) == 0 {
		t.Fatal("spill blocks not kept after a 200 KiB line")
	}
	if msg, err = r.next(); err != nil || string(msg) != big {
		t.Fatalf("big line: %d bytes, %v", len(msg), err)
	}
	if cap(msg) != len(msg) {
		t.Fatalf("message of %d bytes holds %d", len(msg), cap(msg))
	}
	if kept := len(r.spill) * readBufferSize; kept > maxRetainedSpill+readBufferSize {
		t.Fatalf("reader keeps %d bytes after a 5 MiB line", kept)
	}
	if msg, err = r.next(); err != nil || string(msg) != mid {
		t.Fatalf("line after the big one: %d bytes, %v", len(msg), err)
	}
}

// A reader error other than EOF is final and returned after the last partial line.
func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := newLineReader(io.MultiReader(strings.NewReader("a\nb"), &errReader{boom}), 100, 16)
	for _, want := range []string{"a", "b"} {
		msg, err := r.next()
		if err != nil || string(msg) != want {
			t.Fatalf("got %q, %v; want %q", msg, err, want)
		}
	}
	for range 2 {
		if _, err := r.next(); !errors.Is(err, boom) {
			t.Fatalf("got %v, want the read error", err)
		}
	}
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

// FuzzReadLine feeds arbitrary bytes, split into arbitrary pieces, through the line
// reader and compares the result with a plain model: it must never panic, never
// return a message with a newline or over the bound, and agree with the model on
// every message and every dropped line. The bound ranges over 1..512 and the buffer
// over 16..128 bytes, so bounds both below and above the buffer size are covered.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"), uint16(100), []byte{3, 1, 7})
	f.Add([]byte("\r\n\r\n  \n{}\r\n"), uint16(2), []byte{1})
	f.Add([]byte(strings.Repeat("x", 100)+"\r\nok"), uint16(40), []byte{17, 0, 5})
	f.Add([]byte("12345678901234567\r"), uint16(17), []byte{16})
	f.Add([]byte("1234567890123456\r\n"), uint16(16), []byte{})
	f.Add([]byte("\n\n\n"), uint16(0), []byte{2})
	f.Add([]byte(strings.Repeat("x", 300)+"\nok\n"), uint16(3<<9|9), []byte{200})
	f.Fuzz(func(t *testing.T, data []byte, max uint16, splits []byte) {
		limit := int(max%512) + 1
		bufSize := 16 << (max >> 9 % 4)
		if len(splits) > 40 {
			splits = splits[:40] // bufio gives up after 100 empty reads in a row
		}
		sizes := make([]int, len(splits))
		for i, s := range splits {
			sizes[i] = int(s % 40)
		}
		if len(sizes) > 0 && allZero(sizes) {
			sizes = append(sizes, 1) // a reader must make progress eventually
		}
		r := newLineReader(&chunkReader{data: data, sizes: sizes}, limit, bufSize)
		got := readAll(t, r)
		if want := modelRead(data, limit, bufSize); !sameOutcomes(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

// FuzzReadLineInterrupted is FuzzReadLine with reads that time out at arbitrary
// points (split bytes from 200 up), as a direct read does when its context ends or
// the connection closes: next returns the timeout, and the lines it interrupted
// come out intact, or dropped with their own first bytes, at the next calls.
func FuzzReadLineInterrupted(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{\"b\":2}\n"), uint16(100), []byte{3, 255, 1, 7, 200})
	f.Add([]byte(strings.Repeat("x", 100)+"\r\nok"), uint16(40), []byte{17, 250, 0, 5})
	f.Add([]byte(strings.Repeat("y", 300)+"\nok\n"), uint16(3<<9|9), []byte{5, 201, 200, 39})
	f.Add([]byte("  \t"+strings.Repeat(" ", 70)+"\r\n{}\n"), uint16(8), []byte{2, 222, 30})
	f.Fuzz(func(t *testing.T, data []byte, max uint16, splits []byte) {
		limit := int(max%512) + 1
		bufSize := 16 << (max >> 9 % 4)
		if len(splits) > 40 {
			splits = splits[:40]
		}
		sizes := make([]int, len(splits))
		for i, s := range splits {
			sizes[i] = int(s % 40)
			if s >= 200 {
				sizes[i] = -1
			}
		}
		if len(sizes) > 0 && !anyPositive(sizes) {
			sizes = append(sizes, 1)
		}
		r := newLineReader(&chunkReader{data: data, sizes: sizes}, limit, bufSize)
		got := readAll(t, r)
		if want := modelRead(data, limit, bufSize); !sameOutcomes(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}

// A timeout between lines and in the middle of one (short or longer than the
// buffer) loses nothing and is not final.
func TestLineReaderTimeoutIsNotFinal(t *testing.T) {
	long := strings.Repeat("z", 50)
	data := []byte(`{"a":1}` + "\n" + `{"b":` + "2}\n" + long + "\n")
	// 16-byte buffer: 8 bytes, a timeout, 5, a timeout, 4, then the long line in
	// pieces of 20 with a timeout after each.
	sizes := []int{8, -1, 5, -1, 4, 20, -1, 20, -1, 20, -1}
	r := newLineReader(&chunkReader{data: data, sizes: sizes}, 100, 16)
	var got []string
	timeouts := 0
	for {
		msg, err := r.next()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if timeouts++; timeouts > 5 {
				t.Fatalf("more timeouts than the reader returned: %v", err)
			}
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(msg))
	}
	if want := []string{`{"a":1}`, `{"b":2}`, long}; fmt.Sprint(got) != fmt.Sprint(want) || timeouts != 5 {
		t.Fatalf("got %q after %d timeouts, want %q after 5", got, timeouts, want)
	}
}

func allZero(s []int) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}

func anyPositive(s []int) bool {
	for _, v := range s {
		if v > 0 {
			return true
		}
	}
	return false
}

// tooLargePrefix is how many leading bytes of a dropped line a TooLargeError
// keeps, read from jsonrpc itself rather than restated.
var tooLargePrefix = len(jsonrpc.NewTooLargeError(1<<20, 0, make([]byte, 1<<20)).Prefix)
