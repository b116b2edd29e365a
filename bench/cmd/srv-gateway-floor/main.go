// Command srv-gateway-floor is the gateway's floor: no MCP library, the least
// work any gateway must do to put a stdio server behind Streamable HTTP. It runs
// srv-mcpkit (found beside this binary) as its one stdio child, as srv-gateway
// does, and initializes it once. Then, for each HTTP POST:
//
//   - initialize is answered here with a fixed result and a new session ID, a
//     notification with 202;
//   - tools/call (in a known session) is decoded once with encoding/json, sent to
//     the child under an ID of its own on one shared pipe, matched to its answer
//     by that ID, and the child's result is written back raw under the caller's
//     ID.
//
// mcpbench's gateway rows run it beside srv-gateway, so that the gateway's
// figures can be read against what forwarding itself costs (issue 20). It
// serves HTTP only; see package serverkit for its flags.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/bench/internal/serverkit"
)

// request is an incoming JSON-RPC message.
type request struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// answer is a message from the child: a response to one of our IDs.
type answer struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// initializeResult is the fixed answer to an HTTP client's initialize.
const initializeResult = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"bench-gateway-floor","version":"1.0.0"}}`

// maxLine bounds one line from the child (a longer one ends the forwarder,
// failing the calls waiting) and one HTTP body.
const maxLine = 16 << 20

// forwarder is the one stdio child and the calls waiting for its answers.
type forwarder struct {
	mu      sync.Mutex // guards w, next and pending
	w       io.Writer  // the child's standard input
	buf     []byte
	next    uint64
	pending map[uint64]chan answer

	sessions sync.Map // session ID → struct{}; never removed: a run opens a few
	nextSID  atomic.Uint64
}

// start runs bin as a stdio server, initializes it and reads its answers.
func start(bin string) (*forwarder, error) {
	cmd := exec.Command(bin, "-transport", "stdio")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	f := &forwarder{w: in, pending: make(map[uint64]chan answer)}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	// The handshake, before the reader takes over.
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-gateway-floor","version":"1.0.0"}}}`+"\n"); err != nil {
		return nil, err
	}
	if !sc.Scan() {
		return nil, fmt.Errorf("child initialize: no answer (%v)", sc.Err())
	}
	var a answer
	if err := json.Unmarshal(sc.Bytes(), &a); err != nil || len(a.Result) == 0 {
		return nil, fmt.Errorf("child initialize answered %.200q", sc.Bytes())
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return nil, err
	}
	f.next = 1
	go f.read(sc)
	return f, nil
}

// read hands each answer of the child to the call waiting for it, and fails every
// waiting call when the child's output ends.
func (f *forwarder) read(sc *bufio.Scanner) {
	for sc.Scan() {
		var a answer
		if json.Unmarshal(sc.Bytes(), &a) != nil {
			continue // not ours (a notification, or noise)
		}
		// The raw fields point into the scanner's buffer: copy them before the
		// next line.
		a.Result = append(json.RawMessage(nil), a.Result...)
		a.Error = append(json.RawMessage(nil), a.Error...)
		f.mu.Lock()
		c := f.pending[a.ID]
		delete(f.pending, a.ID)
		f.mu.Unlock()
		if c != nil {
			c <- a
		}
	}
	f.mu.Lock()
	for id, c := range f.pending {
		delete(f.pending, id)
		c <- answer{Error: json.RawMessage(`{"code":-32603,"message":"the server behind the gateway ended"}`)}
	}
	f.w = nil
	f.mu.Unlock()
}

// call sends a tools/call with params to the child and waits for its answer.
func (f *forwarder) call(ctx context.Context, params json.RawMessage) (answer, error) {
	c := make(chan answer, 1)
	f.mu.Lock()
	if f.w == nil {
		f.mu.Unlock()
		return answer{}, errors.New("the server behind the gateway ended")
	}
	id := f.next
	f.next++
	f.pending[id] = c
	f.buf = append(f.buf[:0], `{"jsonrpc":"2.0","id":`...)
	f.buf = strconv.AppendUint(f.buf, id, 10)
	f.buf = append(f.buf, `,"method":"tools/call","params":`...)
	f.buf = append(f.buf, params...)
	f.buf = append(f.buf, "}\n"...)
	_, err := f.w.Write(f.buf)
	if err != nil {
		delete(f.pending, id)
	}
	f.mu.Unlock()
	if err != nil {
		return answer{}, err
	}
	select {
	case a := <-c:
		return a, nil
	case <-ctx.Done():
		f.mu.Lock()
		delete(f.pending, id)
		f.mu.Unlock()
		return answer{}, ctx.Err()
	}
}

// ServeHTTP answers one POST.
func (f *forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var req request
	if err := json.NewDecoder(io.LimitReader(r.Body, maxLine)).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var body []byte
	switch req.Method {
	case "initialize":
		sid := strconv.FormatUint(f.nextSID.Add(1), 36)
		f.sessions.Store(sid, struct{}{})
		w.Header().Set("Mcp-Session-Id", sid)
		body = reply(req.ID, "result", json.RawMessage(initializeResult))
	case "tools/call":
		if _, ok := f.sessions.Load(r.Header.Get("Mcp-Session-Id")); !ok {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
		a, err := f.call(r.Context(), req.Params)
		switch {
		case err != nil:
			msg, _ := json.Marshal(err.Error()) // a JSON string, whatever the error says
			body = reply(req.ID, "error", json.RawMessage(`{"code":-32603,"message":`+string(msg)+`}`))
		case len(a.Error) > 0:
			body = reply(req.ID, "error", a.Error)
		default:
			body = reply(req.ID, "result", a.Result)
		}
	default:
		body = reply(req.ID, "error", json.RawMessage(`{"code":-32601,"message":"method not found"}`))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// reply is a JSON-RPC response with id and one member, result or error.
func reply(id json.RawMessage, member string, v json.RawMessage) []byte {
	b := make([]byte, 0, 40+len(id)+len(v))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"`...)
	b = append(b, member...)
	b = append(b, `":`...)
	b = append(b, v...)
	return append(b, "}\n"...)
}

func main() {
	serverkit.Main(serverkit.Impl{
		Name: "srv-gateway-floor",
		HTTP: func(sessionless bool) (http.Handler, error) {
			if sessionless {
				return nil, errors.New("srv-gateway-floor serves stateful HTTP only")
			}
			self, err := os.Executable()
			if err != nil {
				return nil, err
			}
			// The child ends with this process: its input closes when we exit.
			f, err := start(filepath.Join(filepath.Dir(self), "srv-mcpkit"))
			if err != nil {
				return nil, err
			}
			return f, nil
		},
		Stdio: func(context.Context, io.Reader, io.Writer) error {
			return errors.New("srv-gateway-floor serves HTTP only")
		},
	})
}
