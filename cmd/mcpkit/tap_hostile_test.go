//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// tapProc is an HTTP tap run by a test: `mcpkit tap --listen 127.0.0.1:0 ...`.
type tapProc struct {
	cmd  *exec.Cmd
	url  string        // http://ADDR/PATH, as the tap announced it
	rest chan string   // what the tap writes on stderr after its announcement, at its end
	done chan struct{} // closed when stop has waited for the process
}

// startTapHTTP starts an HTTP tap in front of upstream with args added; the
// process is stopped (by its PID) when the test ends, if stop did not.
func startTapHTTP(t *testing.T, upstream string, args ...string) *tapProc {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, mcpkitBin, append([]string{"tap", "--listen", "127.0.0.1:0", "--upstream", upstream, "--no-oauth"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &tapProc{cmd: cmd, rest: make(chan string, 1), done: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		cancel()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if i := strings.Index(sc.Text(), "relaying http://"); i >= 0 {
			p.url = strings.Fields(sc.Text()[i+len("relaying "):])[0]
			break
		}
	}
	if p.url == "" {
		t.Fatalf("the tap announced no address")
	}
	go func() { b, _ := io.ReadAll(stderr); p.rest <- string(b) }()
	return p
}

// stop ends the tap with SIGTERM and returns its exit error and the rest of its
// stderr.
func (p *tapProc) stop(t *testing.T) (error, string) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest := <-p.rest
	err := p.cmd.Wait()
	close(p.done)
	return err, rest
}

// rawExchange sends req on a new connection to addr and returns what comes back
// until the tap closes the connection (bounded by 20 s).
func rawExchange(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	return string(b)
}

// TestTapHTTPHostileSizes: sizes a client announces cannot crash the tap or make
// it allocate them (break-it review T1). A Content-Length of 2^63-1 or 64 GiB, a
// chunk size of 2^63-1 and a chunked body that grows past --max-body-bytes are
// each answered with 413, recorded and logged; the tap goes on relaying, and ends
// cleanly with its summary.
func TestTapHTTPHostileSizes(t *testing.T) {
	base := serveHTTPForTest(t)
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	tp := startTapHTTP(t, base+"/mcp", "--out", capPath, "--max-body-bytes", "1048576")
	u, _ := url.Parse(tp.url)
	head := "POST /mcp HTTP/1.1\r\nHost: " + u.Host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	bigChunk := strings.Repeat("x", 600<<10)
	for _, c := range []struct{ name, req string }{
		{"Content-Length 2^63-1", head + "Content-Length: 9223372036854775807\r\n\r\n{}"},
		{"Content-Length 64 GiB", head + "Content-Length: 68719476736\r\n\r\n{}"},
		{"chunk size 2^63-1", head + "Transfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n{}"},
		{"chunks past the cap", head + "Transfer-Encoding: chunked\r\n\r\n" +
			"96000\r\n" + bigChunk + "\r\n96000\r\n" + bigChunk + "\r\n0\r\n\r\n"},
		{"Expect 100-continue over the cap", head + "Expect: 100-continue\r\nContent-Length: 2000000\r\n\r\n"},
	} {
		resp := rawExchange(t, u.Host, c.req)
		if !strings.HasPrefix(resp, "HTTP/1.1 413 ") || !strings.Contains(resp, "limit of 1048576 bytes") || strings.Contains(resp, "100 Continue") {
			t.Errorf("%s: the tap answered %.300q; want 413 naming the limit", c.name, resp)
		}
	}

	// The tap is alive and relays.
	if out, errOut, code := runURL(t, tp.url, "call", "echo", `{"message":"still here"}`); out != "hello still here\n" || code != 0 {
		t.Errorf("after the hostile requests: %q %q %d", out, errOut, code)
	}
	err, rest := tp.stop(t)
	if err != nil {
		t.Errorf("the tap after SIGTERM: %v\n%s", err, rest)
	}
	if !strings.Contains(rest, "refused a request body over the limit (413)") || !strings.Contains(rest, "records dropped") {
		t.Errorf("stderr: want one warning about the 413 and the summary:\n%s", rest)
	}
	_, recs := readCaptureFile(t, capPath)
	refused := 0
	for _, r := range recs {
		if r.Kind == capture.KindForbidden && r.HTTP != nil && r.HTTP.Status == 413 {
			refused++
		}
	}
	if refused != 5 {
		t.Errorf("%d refusals with 413 recorded, want 5", refused)
	}
}

// TestTapEscapesPeerStrings: a method name with terminal controls (a window
// title, a screen clear, BEL, CR) reaches neither the tap's exit summary nor
// `tap stats` raw (break-it review T7): both print it escaped.
func TestTapEscapesPeerStrings(t *testing.T) {
	capPath := filepath.Join(t.TempDir(), "cap.jsonl")
	req := `{"jsonrpc":"2.0","id":1,"method":"\u001b]0;PWNED-TITLE\u0007\u001b[2J\rx"}` + "\n"
	out, errOut, code := execCLI(t, cliRun{stdin: req, args: []string{"tap", "--out", capPath, "--", "sh", "-c", "cat > /dev/null"}})
	if code != 0 || out != "" {
		t.Fatalf("tap: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	const escaped = `\x1b]0;PWNED-TITLE\x07\x1b[2J\x0dx`
	if strings.ContainsAny(errOut, "\x1b\a\r") || !strings.Contains(errOut, "unanswered: c2s "+escaped+" id 1") {
		t.Errorf("the exit summary prints the method raw or not at all: %q", errOut)
	}
	out, errOut, code = execCLI(t, cliRun{args: []string{"tap", "stats", capPath}})
	if code != 0 || strings.ContainsAny(out, "\x1b\a\r") || strings.Count(out, escaped) < 2 {
		t.Errorf("tap stats: status %d, the method raw or missing (want it escaped in the table and the failure):\n%q\n%s", code, out, errOut)
	}
}

// TestTapCaptureWriteFailure: when the capture cannot be written any more (here
// its reader went away; a full disk does the same), the stdio tap still exits
// with its server's status, says on stderr why the capture is incomplete, and
// its summary counts the records that are not in it (break-it review T8: it
// said "0 records dropped" and exited 1 where the server exited 0).
func TestTapCaptureWriteFailure(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd/0"); err != nil {
		t.Skip("no /proc/self/fd to name the pipe by")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "tap", "--out", "/proc/self/fd/3", "--", "sh", "-c", "cat > /dev/null; exit 0")
	cmd.ExtraFiles = []*os.File{pw}
	stdin, _ := cmd.StdinPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = pw.Close()
	if line, err := bufio.NewReader(pr).ReadString('\n'); err != nil || !strings.Contains(line, "mcpkit-tap/1") {
		t.Fatalf("no capture header: %q %v", line, err)
	}
	_ = pr.Close() // from now on, writing the capture fails
	for i := range 200 {
		_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/n`+strconv.Itoa(i)+`"}`+"\n")
	}
	_ = stdin.Close()
	err = cmd.Wait()
	if err != nil {
		t.Errorf("the tap exited with %v; want the server's status 0\n%s", err, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "mcpkit tap: 200 messages") || !strings.Contains(s, "not written to the capture") ||
		!strings.Contains(s, "the capture is incomplete: writing the capture:") {
		t.Errorf("stderr does not say the capture is incomplete:\n%s", s)
	}
}

// TestTapStatsReadsACutCapture: `tap stats` reads a capture whose last line was
// cut short (a crash, a full disk) up to that line and says so, where it used
// to refuse the whole capture (break-it review T8).
func TestTapStatsReadsACutCapture(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"format":"mcpkit-tap/1","tool":"t","mode":"stdio"}` + "\n")
	for i := range 3 {
		id := strconv.Itoa(i + 1)
		b.WriteString(`{"seq":` + strconv.Itoa(2*i+1) + `,"time":"2026-01-01T00:00:00Z","dir":"c2s","transport":"stdio","session":"stdio","msg":{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}}` + "\n")
		b.WriteString(`{"seq":` + strconv.Itoa(2*i+2) + `,"time":"2026-01-01T00:00:01Z","dir":"s2c","transport":"stdio","session":"stdio","msg":{"jsonrpc":"2.0","id":` + id + `,"result":{}}}` + "\n")
	}
	b.WriteString(`{"seq":7,"time":"2026-01-01T00:00:02Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":4,"meth`)
	capPath := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(capPath, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := execCLI(t, cliRun{args: []string{"tap", "stats", capPath}})
	if code != 0 || !strings.Contains(out, "6 records, 6 messages") || !strings.Contains(errOut, "line 8 is cut short") {
		t.Errorf("tap stats on a cut capture: status %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
