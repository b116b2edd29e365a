package capture

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// fullDisk keeps the first room bytes written to it, then fails as a full disk
// does, after a short write.
type fullDisk struct {
	bytes.Buffer
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if n := d.room - d.Len(); n < len(p) {
		d.Buffer.Write(p[:max(n, 0)])
		return max(n, 0), syscall.ENOSPC
	}
	return d.Buffer.Write(p)
}

// TestRecorderCountsRecordsAFullDiskLost: when writing the capture fails, the
// summary counts every record that is not whole in the file (the break-it
// review's T8: it said "0 records dropped"), Err says why, and a reader takes
// the complete records of what was written, its cut last line left out.
func TestRecorderCountsRecordsAFullDiskLost(t *testing.T) {
	disk := &fullDisk{room: 100_000}
	rec, err := NewRecorder(Options{Out: disk, Header: Header{Tool: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2000
	for i := range n {
		rec.Record(&Record{Dir: ClientToServer, Msg: []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`)})
	}
	if err := rec.Close(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Close: %v, want the full disk's error", err)
	}
	data := disk.Bytes()
	whole := bytes.Count(data, []byte("\n")) - 1 // the header's line aside
	sum := rec.Summary()
	if sum.Unwritten == 0 || sum.Unwritten != int64(n-whole) || sum.Messages != n {
		t.Errorf("%d records whole in the file of %d: the summary says %d not written (messages %d)", whole, n, sum.Unwritten, sum.Messages)
	}
	if s := sum.String(); !strings.Contains(s, strconv.FormatInt(sum.Unwritten, 10)+" not written to the capture") {
		t.Errorf("summary line: %s", s)
	}
	if data[len(data)-1] == '\n' {
		t.Fatalf("the test wants a cut last line; the capture ends in a line end")
	}

	cr, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := cr.ReadAll()
	if err != nil || len(recs) != whole || !cr.Cut() {
		t.Errorf("read %d records (want %d), error %v, cut %v", len(recs), whole, err, cr.Cut())
	}
}

// TestReaderCutLastLine: a last line cut short is left out, with Cut set; a
// complete last line without its line end is a record; a bad line that is not
// the last is an error naming it.
func TestReaderCutLastLine(t *testing.T) {
	const header = `{"format":"mcpkit-tap/1","tool":"t"}` + "\n"
	const r1 = `{"seq":1,"time":"2026-01-01T00:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","method":"a"}}`
	for _, c := range []struct {
		name    string
		data    string
		records int
		cut     bool
		err     string
	}{
		{"cut", header + r1 + "\n" + r1[:40], 1, true, ""},
		{"cut after CR", header + r1 + "\n" + r1[:40] + "\r", 1, true, ""},
		{"whole without a line end", header + r1 + "\n" + r1, 2, false, ""},
		{"bad line in the middle", header + r1[:40] + "\n" + r1 + "\n", 0, false, "capture line 2"},
	} {
		cr, err := NewReader(strings.NewReader(c.data))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := cr.ReadAll()
		if len(recs) != c.records || cr.Cut() != c.cut || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %d records, cut %v, error %v", c.name, len(recs), cr.Cut(), err)
		}
		if c.cut {
			if _, err := cr.Next(); err != io.EOF {
				t.Errorf("%s: Next after the cut: %v", c.name, err)
			}
		}
	}
}

// FuzzReader reads any bytes as a capture (a capture file may come from
// anyone): no panic, only a header of this format accepted, a line number on
// every error, and reading stops at a cut last line (Cut) rather than failing.
func FuzzReader(f *testing.F) {
	const header = `{"format":"mcpkit-tap/1","tool":"t"}` + "\n"
	f.Add([]byte(header + `{"seq":1,"time":"2026-01-01T00:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","method":"a"}}` + "\n"))
	f.Add([]byte(header + `{"seq":1,"dir":"c2s","msg":{"jsonrpc":"2.0","method":"a"}}` + "\n" + `{"seq":2,"di`))
	f.Add([]byte(header + "\r\n\n" + `{"seq":1,"kind":"http","http":{"exchange":1,"headers":{"A":["b"]}},"raw64":"AAE="}`))
	f.Add([]byte(`{"format":"other"}`))
	f.Add([]byte(header + `{"seq":2,"dir":"s2c","raw64":"AAEC","invalid":true,"size":3}` + "\n" + `{"seq":3,"msg":`))
	f.Add([]byte(header + `{"seq":-1,"t":"bad","msg":[1,2],"size":1e400}` + "\n\n" + `"x"` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cr, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		if cr.Header().Format != Format {
			t.Fatalf("accepted header of format %q", cr.Header().Format)
		}
		for range 10_000 {
			_, err := cr.Next()
			if err == io.EOF {
				if cr.Cut() && bytes.HasSuffix(data, []byte("\n")) {
					t.Fatalf("a capture ending in a line end taken for cut")
				}
				return
			}
			if err != nil && !strings.Contains(err.Error(), "capture line ") {
				t.Fatalf("an error without its line: %v", err)
			}
		}
	})
}
