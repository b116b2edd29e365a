package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/tap"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// tapFlags are the flags of `mcpkit tap`.
type tapFlags struct {
	out      string
	listen   string
	upstream string
	noRedact bool
	origins  []string
	ui       bool   // the terminal UI
	web      string // the web view's address
	oauth    oauthFlags
	noOAuth  bool
	maxBody  int64 // HTTP tap: the largest request body relayed
	// telemetry: --metrics-addr; OTLP from OTEL_* (telemetry.go)
	telemetry telemetryFlags
}

func newTapCmd() *cobra.Command {
	f := &tapFlags{}
	cmd := &cobra.Command{
		Use:   "tap [--out FILE.jsonl] (-- COMMAND [ARGS...] | --listen ADDR --upstream URL)",
		Short: "Sit between an MCP client and server, relay everything unchanged, record every message",
		Example: `  # stdio: in a host's configuration, in front of the server command
  mcpkit tap --out /tmp/mcp.jsonl -- mcpkit serve
  # HTTP: point the client at http://127.0.0.1:8081/mcp instead of the server
  mcpkit tap --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080/mcp --out /tmp/mcp.jsonl
  # watch it live: in a terminal UI, or in a browser
  mcpkit tap --listen 127.0.0.1:8081 --upstream http://127.0.0.1:8080/mcp --ui
  mcpkit tap --web 127.0.0.1:8090 -- mcpkit serve`,
		Long: `Sit between a client (a host such as an IDE or a desktop app) and a server, relay
everything between them unchanged, and record every message.

On stdio, put "mcpkit tap --out FILE.jsonl --" in front of the server command in the
host's configuration: the tap starts the server, relays standard input, output and
error byte for byte, forwards SIGINT and SIGTERM, and exits with the server's status.

Over HTTP, "mcpkit tap --listen 127.0.0.1:PORT --upstream URL" is a reverse proxy in
front of the server at URL (http or https): point the client at the tap's address
with the same path. It relays Streamable HTTP (JSON and SSE replies, GET streams,
DELETE, resumption), the 2024-11-05 HTTP+SSE transport (the endpoint event is pointed
at the tap) and 2026-07-28 stateless requests, streams event by event as they arrive.
The listener binds loopback unless a host is named, and checks Host and Origin as
"mcpkit serve" does, and bounds its clients as it does (header and idle timeouts, a
connection cap). A request body over --max-body-bytes is answered with 413 and not
relayed (the tap holds a body whole to record it).

An OAuth-protected upstream is reached with the tap's own authorization, as the
client commands and the gateway reach one: a token stored by "mcpkit auth login
--url URL", else the browser flow (or --oauth-client-credentials), before the tap
starts relaying and again whenever the upstream asks. The client needs none: the tap
removes any Authorization it sends (no token passes through) and relays the request
with its own token, which no capture holds. --no-oauth relays the client's
Authorization unchanged instead (a server with static credentials).

The capture (--out) is one JSON object per line: a header, then one record per
message or event (format mcpkit-tap/1, described in tap/FORMAT.md). Secrets
(Authorization, cookies, API keys, tokens in query strings) are redacted unless
--no-redact. "{pid}" and "{time}" in FILE are replaced by the tap's process id and
start time, so that several taps started by one configuration write apart. On exit the
tap prints a summary to standard error: messages, requests never answered, records
dropped.

--ui shows the live timeline in a terminal UI (keys as in "mcpkit tap view"): over
HTTP it takes the terminal and quitting it stops the tap; a stdio tap draws it on
/dev/tty (standard input and output carry MCP), and fails without a terminal. --web
ADDR serves the same views to a browser (loopback unless a host is named; Host and
Origin are checked). "mcpkit tap view FILE" opens them on a saved capture.

` + telemetryHelp + `
The tap's metrics are its counts: mcpkit.tap.messages by direction,
mcpkit.tap.jsonrpc.messages by type, mcpkit.tap.problems by kind.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTap(cmd.Context(), f, cmd.ArgsLenAtDash(), args)
		},
	}
	cmd.Flags().StringVar(&f.out, "out", "", "write the capture to this file (JSON lines), replacing it")
	cmd.Flags().StringVar(&f.listen, "listen", "", "HTTP tap: listen on this address (e.g. 127.0.0.1:8081 or :8081)")
	cmd.Flags().StringVar(&f.upstream, "upstream", "", "HTTP tap: the server's MCP endpoint URL (http:// or https://)")
	cmd.Flags().BoolVar(&f.noRedact, "no-redact", false, "keep credentials, cookies and tokens in the capture")
	cmd.Flags().StringSliceVar(&f.origins, "allow-origin", nil, "HTTP tap: also accept requests from this Origin (repeatable; \"*\" for any)")
	cmd.Flags().BoolVar(&f.ui, "ui", false, "show the live timeline in a terminal UI (a stdio tap draws on /dev/tty)")
	cmd.Flags().StringVar(&f.web, "web", "", "serve the live timeline to a browser on this address (e.g. 127.0.0.1:8090)")
	cmd.Flags().BoolVar(&f.noOAuth, "no-oauth", false, "HTTP tap: do not authorize to the upstream; relay the client's Authorization as it is")
	cmd.Flags().Int64Var(&f.maxBody, "max-body-bytes", tap.DefaultMaxBody, "HTTP tap: largest request body relayed (413 beyond)")
	f.oauth.register(cmd.Flags())
	f.telemetry.register(cmd.Flags())
	cmd.AddCommand(newTapExportCmd(), newTapStatsCmd(), newTapViewCmd(), newTapReplayServerCmd(), newTapReplayCmd(), newTapInstallCmd(), newTapUninstallCmd())
	return cmd
}

func runTap(ctx context.Context, f *tapFlags, dash int, args []string) error {
	httpMode := f.listen != "" || f.upstream != ""
	switch {
	case httpMode && (f.listen == "" || f.upstream == ""):
		return errors.New("tap: an HTTP tap needs both --listen and --upstream")
	case httpMode && len(args) > 0:
		return errors.New("tap: give either a server command after -- or --listen and --upstream, not both")
	case !httpMode && (len(args) == 0 || dash != 0):
		return errors.New("tap: give the server command after -- (mcpkit tap -- COMMAND [ARGS...]), or --listen and --upstream")
	}
	header := capture.Header{Tool: "mcpkit tap " + clientVersion(), Redacted: !f.noRedact}
	if httpMode {
		header.Mode, header.Listen, header.Upstream = "http", f.listen, f.upstream
		if !f.noRedact {
			header.Upstream = tap.RedactURL(f.upstream)
		}
	} else {
		header.Mode, header.Command = "stdio", args
		if !f.noRedact {
			header.Command = tap.RedactArgs(args)
		}
	}
	rec, file, err := openCapture(f.out, header)
	if err != nil {
		return err
	}
	tel, err := startTelemetry(ctx, &f.telemetry, "mcpkit tap")
	if err == nil {
		if err = tel.observeTap(rec); err != nil {
			_ = tel.close()
		}
	}
	if err != nil {
		_ = rec.Close()
		if file != nil {
			_ = file.Close()
		}
		return err
	}
	// After the summary below: the last export has the final counts.
	defer func() {
		if err := tel.close(); err != nil {
			fmt.Fprintf(os.Stderr, "mcpkit tap: telemetry: the last export failed: %v\n", err)
		}
	}()
	views, err := startTapViews(ctx, f, httpMode, header, rec)
	if err != nil {
		_ = rec.Close()
		if file != nil {
			_ = file.Close()
		}
		return err
	}
	var code int
	switch {
	case views != nil && f.ui:
		code, err = runTapWithUI(ctx, f, httpMode, args, rec, views)
	case httpMode:
		err = runHTTPTap(ctx, f, rec)
	default:
		code, err = runStdioTap(args, rec, os.Stdin)
	}
	// A capture that could not be written (a full disk) is reported, not made
	// the tap's failure: a stdio tap stands for its server, and exits with the
	// server's status; an HTTP tap, which has no server's status, exits with 1.
	captureErr := rec.Close()
	if verr := views.stop(); verr != nil && err == nil {
		err = verr
	}
	if file != nil {
		if cerr := file.Close(); cerr != nil && captureErr == nil {
			captureErr = fmt.Errorf("closing the capture: %w", cerr)
		}
	}
	sum := rec.Summary()
	where := ""
	if file != nil {
		where = "; capture " + file.Name()
	}
	fmt.Fprintf(os.Stderr, "mcpkit tap: %s%s\n", sum.String(), where)
	if captureErr != nil {
		fmt.Fprintf(os.Stderr, "mcpkit tap: the capture is incomplete: %v\n", captureErr)
	}
	if err != nil {
		return err
	}
	if code == 0 && captureErr != nil && httpMode {
		code = 1
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// openCapture creates the capture file (if any) and the recorder writing to it.
func openCapture(path string, header capture.Header) (*capture.Recorder, *os.File, error) {
	header.Time = time.Now()
	var file *os.File
	opts := capture.Options{Header: header}
	if path != "" {
		path = strings.ReplaceAll(path, "{pid}", strconv.Itoa(os.Getpid()))
		path = strings.ReplaceAll(path, "{time}", header.Time.UTC().Format("20060102T150405Z"))
		var err error
		if file, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600); err != nil {
			return nil, nil, fmt.Errorf("tap: %w", err)
		}
		opts.Out = file
	}
	rec, err := capture.NewRecorder(opts)
	if err != nil {
		if file != nil {
			_ = file.Close()
		}
		return nil, nil, fmt.Errorf("tap: %w", err)
	}
	return rec, file, nil
}

// runStdioTap runs the server command behind a stdio tap. Signals go to the
// server, not to the tap: the tap ends when the server does.
func runStdioTap(args []string, rec *capture.Recorder, stdin io.Reader) (int, error) {
	signals, stop := tap.NotifySignals()
	defer stop()
	code, err := tap.RunStdio(context.Background(), tap.StdioOptions{
		Command: args[0], Args: args[1:],
		Stdin: stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Recorder: rec, Signals: signals,
	})
	if err != nil {
		return 127, fmt.Errorf("tap: starting %s: %w", args[0], err)
	}
	return code, nil
}

// runHTTPTap serves an HTTP tap until ctx ends (SIGINT, SIGTERM).
func runHTTPTap(ctx context.Context, f *tapFlags, rec *capture.Recorder) error {
	up, err := url.Parse(f.upstream)
	if err != nil {
		return fmt.Errorf("tap: --upstream: %w", err)
	}
	host, port, err := net.SplitHostPort(f.listen)
	if err != nil {
		return fmt.Errorf("tap: --listen %q: %w", f.listen, err)
	}
	if host == "" {
		host = "127.0.0.1" // loopback unless a host is named
	}
	opts := tap.HTTPOptions{Upstream: up, Recorder: rec, NoRedact: f.noRedact, AllowedOrigins: f.origins, MaxBody: f.maxBody,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	if !f.noOAuth {
		tr, cleanup, err := tapAuthorizer(ctx, f)
		if err != nil {
			return err
		}
		defer cleanup()
		opts.Authorizer = tr
	}
	t, err := tap.NewHTTPTap(opts)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("tap: %w", err)
	}
	path := up.EscapedPath()
	if path == "" {
		path = "/"
	}
	shown := f.upstream
	if !f.noRedact {
		shown = tap.RedactURL(shown)
	}
	fmt.Fprintf(os.Stderr, "mcpkit tap: relaying http://%s%s to %s\n", ln.Addr(), path, shown)
	errc := make(chan error, 1)
	go func() { errc <- t.Serve(ln) }()
	select {
	case err = <-errc:
		_ = t.Close()
		return err
	case <-ctx.Done():
	}
	err = t.Close()
	if serr := <-errc; serr != nil {
		return serr
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// tapAuthBound bounds the exchanges of the tap's first authorization with the
// upstream (the user's time in the browser aside).
const tapAuthBound = 30 * time.Second

// tapAuthorizer returns the OAuth layer of an HTTP tap's requests to the
// upstream: the CLI's (authTransport), having sent the upstream a first ping so
// that an authorization it asks for happens before the tap relays anything. An
// upstream that cannot be reached now is no error (the tap authorizes when it
// asks); a failed authorization is. The cleanup stops the redirect listener.
func tapAuthorizer(ctx context.Context, f *tapFlags) (*auth.Transport, func(), error) {
	tr, cleanup, err := authTransport(&f.oauth, os.Stderr, nil, browserWait)
	if err != nil {
		return nil, nil, fmt.Errorf("tap: OAuth to the upstream (--no-oauth relays without): %w", err)
	}
	clock := newRequestClock(tapAuthBound)
	err = authorizeFirst(ctx, &http.Client{Transport: tr}, clock, f.upstream, nil)
	if err == nil {
		return tr, cleanup, nil
	}
	msg := err.Error()
	if !f.noRedact { // the error may quote the upstream's URL, secrets and all
		msg = strings.ReplaceAll(msg, f.upstream, tap.RedactURL(f.upstream))
	}
	if auth.Transient(err) {
		fmt.Fprintf(os.Stderr, "mcpkit tap: the upstream could not be reached to authorize (%s); the tap authorizes when it asks\n", msg)
		return tr, cleanup, nil
	}
	cleanup()
	return nil, nil, fmt.Errorf("tap: authorizing to the upstream: %s", msg)
}

// runTapWithUI runs the tap with the terminal UI. Over HTTP the UI owns the
// terminal and quitting it stops the tap; on stdio the UI draws on /dev/tty, the
// relay goes on if the user quits it, and it closes when the server ends (run by
// hand on a terminal, quitting the UI ends the server's input, so the tap too).
func runTapWithUI(ctx context.Context, f *tapFlags, httpMode bool, args []string, rec *capture.Recorder, views *tapViews) (int, error) {
	if httpMode {
		tapCtx, stop := context.WithCancel(ctx)
		defer stop()
		errc := make(chan error, 1)
		go func() {
			errc <- runHTTPTap(tapCtx, f, rec)
			stop() // a tap that ends (it could not listen) ends the UI
		}()
		uiErr := views.runUI(tapCtx)
		stop()
		if err := <-errc; err != nil {
			return 0, err
		}
		return 0, uiErr
	}
	// Run by hand, standard input is the terminal the UI reads its keys from:
	// relaying it too would give the server half the keys (q, Ctrl-C) and the UI
	// could not be quit. No client talks on a terminal, so the server gets an
	// input that ends when the UI is quit, which ends the tap.
	stdin, endInput := io.Reader(os.Stdin), func() {}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		r, w := io.Pipe()
		stdin, endInput = r, func() { _ = w.Close() }
		fmt.Fprintln(os.Stderr, "mcpkit tap: standard input is this terminal, so it is the UI's: no client talks to the server, and quitting the UI (q) ends the tap")
	}
	uiCtx, stopUI := context.WithCancel(ctx)
	uiDone := make(chan error, 1)
	go func() {
		err := views.runUI(uiCtx)
		endInput()
		uiDone <- err
	}()
	code, err := runStdioTap(args, rec, stdin)
	stopUI()
	if uiErr := <-uiDone; uiErr != nil && err == nil {
		err = uiErr
	}
	return code, err
}
