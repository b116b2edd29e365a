package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/upstream"
)

// globalFlags hold the command line's flags: -v, which every command has, and the
// client commands' own flags (registered on each of them by addClientFlags).
type globalFlags struct {
	verbose bool
	json    bool
	timeout time.Duration
	url     string
	headers []string
	// protocol forces a protocol version (and so an era) on the client commands;
	// empty detects the server's era.
	protocol string
	// roots are the directories offered to the server as roots (--root).
	roots []string
	// elicitAnswers names a JSON file of answers to the server's elicitation forms.
	elicitAnswers string
	// oauth are the OAuth flags of --url targets.
	oauth oauthFlags
	// maxMessage bounds one message from the server (--max-message-bytes).
	maxMessage int
	// logLevel asks the server for its log messages at this level and above
	// (--log-level), shown on stderr; "" asks for none.
	logLevel string
}

// addClientFlags registers the flags of a command that talks to a target server.
func addClientFlags(cmd *cobra.Command, g *globalFlags) {
	f := cmd.Flags()
	f.BoolVar(&g.json, "json", false, "print raw JSON results")
	f.DurationVar(&g.timeout, "timeout", defaultTimeout, "give up on a request the server has not answered in this long (time spent answering a prompt does not count); 0 waits for ever")
	f.StringVar(&g.url, "url", "", "the target server's URL (Streamable HTTP, falling back to HTTP+SSE), instead of a command after --")
	f.StringArrayVar(&g.headers, "header", nil, "an HTTP header for --url, as 'Name: value' (repeatable; ${env:VAR} is replaced from the environment)")
	f.StringVar(&g.protocol, "protocol", "", "speak this protocol version: 2026-07-28 (stateless) or a legacy one such as 2025-11-25 (initialize); default: detect the server's era")
	f.StringArrayVar(&g.roots, "root", nil, "offer this directory to the server as a root (repeatable; sent as a file:// URI); without it the client declares no roots")
	f.StringVar(&g.elicitAnswers, "elicit-answers", "", "answer the server's elicitation forms from this JSON file (an object of field values) instead of prompting on the terminal")
	f.StringVar(&g.logLevel, "log-level", "", "show the server's log messages at this level and above on stderr (debug, info, notice, warning, error, ...)")
	g.oauth.register(f)
	registerMaxMessage(f, &g.maxMessage)
}

// registerMaxMessage registers --max-message-bytes, the bound on one message
// from a server, of the commands that are a client.
func registerMaxMessage(f *pflag.FlagSet, v *int) {
	f.IntVar(v, "max-message-bytes", transport.DefaultClientMaxMessageSize,
		"the largest message accepted from a server, in bytes (a request whose answer is larger fails saying so)")
}

// splitTarget separates a command's own arguments from the target after "--". With
// --url there is no command to run, and no "--".
func splitTarget(cmd *cobra.Command, g *globalFlags, args []string) (own, target []string, err error) {
	dash := cmd.ArgsLenAtDash()
	if g.url != "" {
		if dash >= 0 {
			return nil, nil, errors.New("give the target server either as --url or as a command after --, not both")
		}
		return args, nil, nil
	}
	if dash < 0 {
		return nil, nil, fmt.Errorf("no target server: put the command to run after --, e.g. %s -- mcpkit serve, or use --url", cmd.CommandPath())
	}
	own, target = args[:dash], args[dash:]
	if len(target) == 0 {
		return nil, nil, errors.New("no target server: nothing follows --")
	}
	return own, target, nil
}

// connect reaches the target — a command to run (stdio) or a URL (Streamable HTTP,
// falling back to the old HTTP+SSE transport, with OAuth when the server asks for
// it) — and opens a client session: in the era the server speaks (stateless
// 2026-07-28 first, else initialize), or at the version --protocol names. clock
// is --timeout's (nil: none). done releases what the session needed beyond it
// (the OAuth redirect listener); call it after closing the session.
func connect(ctx context.Context, g *globalFlags, clock *requestClock, target []string, opts *mcp.ClientOptions) (cs *mcp.ClientSession, done func(), err error) {
	logger := slog.New(slog.DiscardHandler)
	if g.verbose {
		// The secrets of --url and --header are redacted as a
		// configuration's are (the gateway's, host --config's).
		logger = slog.New(targetSecrets(g).RedactHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	opts.Logger = logger
	opts.ProtocolVersion = g.protocol
	if g.url == "" {
		// A server started with npx or uvx may take seconds to install before it
		// reads its input: its era probe gets longer than the default to answer.
		opts.ProbeTimeout = stdioProbeTimeout
	} else {
		// The era probe is the session's first request, so it is the one a
		// protected server answers 401, and the user may then spend minutes in
		// the browser: the probe's own bound allows for that, while --timeout's
		// clock (paused during the browser flow) bounds a silent server.
		opts.ProbeTimeout = browserWait + httpProbeTimeout
	}
	client := mcp.NewClient(protocol.Implementation{Name: "mcpkit", Version: clientVersion()}, opts)
	conn, done, err := dialTarget(ctx, g, clock, target, logger)
	if err != nil {
		return nil, nil, err
	}
	hctx, cancel := handshakeContext(ctx, g)
	defer cancel()
	cs, err = client.Connect(hctx, conn)
	if err != nil {
		_ = conn.Close()
		done()
		return nil, nil, notFoundHint(g.url, handshakeError(hctx, err), logger)
	}
	if g.verbose {
		fmt.Fprintf(os.Stderr, "mcpkit: connected to %s, protocol %s (%s)\n", serverName(cs), cs.ProtocolVersion(), eraName(cs))
	}
	return cs, done, nil
}

// targetSecrets describes --url and --header as a configuration, whose
// secrets (the URL's password and query values, the headers' values)
// upstream.Config.RedactHandler redacts.
func targetSecrets(g *globalFlags) *upstream.Config {
	sc := &upstream.ServerConfig{Name: "target", URL: g.url, Headers: map[string]string{}}
	if flags, err := parseHeaderFlags(g.headers, false); err == nil {
		if header, err := headerFor(flags, ""); err == nil {
			for name := range header {
				sc.Headers[name] = header.Get(name)
			}
		}
	}
	return &upstream.Config{Servers: map[string]*upstream.ServerConfig{sc.Name: sc}}
}

// notFoundHint turns the error of a URL that has no MCP endpoint (404 to the
// Streamable HTTP POST and to the HTTP+SSE GET) into one sentence that says so
// and what to try: the same URL with /mcp. Other errors, and a URL that
// already ends in /mcp, are returned as they are; the whole chain goes to the
// -v log.
func notFoundHint(rawURL string, err error, logger *slog.Logger) error {
	if rawURL == "" || !strings.Contains(err.Error(), "404") {
		return err
	}
	u, perr := url.Parse(rawURL)
	if perr != nil || strings.HasSuffix(u.Path, "/mcp") {
		return err
	}
	logger.Debug("connecting", "url", rawURL, "error", err)
	u.Path = strings.TrimSuffix(u.Path, "/") + "/mcp"
	u.RawPath = ""
	return fmt.Errorf("no MCP endpoint at %s (404 Not Found); did you mean %s?", rawURL, u)
}

// serverName names the server as it introduced itself.
func serverName(cs *mcp.ClientSession) string {
	info := cs.InitializeResult().ServerInfo
	if info.Name == "" {
		return "the server"
	}
	return info.Name + " " + info.Version
}

// eraName says which era a session speaks.
func eraName(cs *mcp.ClientSession) string {
	if cs.IsStateless() {
		return "stateless"
	}
	return "legacy session"
}

// validProtocol checks a --protocol value before anything is started.
func validProtocol(v string) error {
	if v == "" || protocol.IsSupported(v) {
		return nil
	}
	return fmt.Errorf("--protocol %q: not a version mcpkit speaks (%s)", v, strings.Join(protocol.SupportedVersions(), ", "))
}

// handshakeTimeoutError is the cause of a handshake that --timeout ended.
type handshakeTimeoutError struct{ after time.Duration }

func (e *handshakeTimeoutError) Error() string {
	return fmt.Sprintf("the server did not complete the connection within %v (the era probe, initialize and any fallback together; --timeout sets the bound, 0 waits for ever)", e.after)
}

// handshakeContext bounds the whole handshake — the era probe, initialize, the
// fallback to HTTP+SSE — by --timeout: the flag bounds what the user waits
// for, not each of the handshake's requests in turn.
func handshakeContext(ctx context.Context, g *globalFlags) (context.Context, context.CancelFunc) {
	if g.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeoutCause(ctx, g.timeout, &handshakeTimeoutError{g.timeout})
}

// handshakeError returns err, or the handshake's timeout when that ended it.
// The request clock times initialize with the same --timeout, from a little
// later: when both are due at once (a loaded machine runs their timers late),
// the clock's may end the request before the handshake's context has its
// cause, and the handshake's deadline having passed then says which it was.
func handshakeError(hctx context.Context, err error) error {
	var te *handshakeTimeoutError
	if cause := context.Cause(hctx); errors.As(cause, &te) {
		return te
	}
	var na *noAnswerError
	if d, ok := hctx.Deadline(); ok && !time.Now().Before(d) && errors.As(err, &na) {
		return &handshakeTimeoutError{na.after}
	}
	return err
}

// dialTarget opens the transport to the target: the command after "--" (its
// stderr shown with -v, else kept for error reports only), or --url by
// Streamable HTTP, falling back to the old HTTP+SSE transport for a server that
// only speaks that, with the --header values. Unless --header sets
// Authorization (the user's own credentials), a URL's requests go through the
// CLI's OAuth layer (authTransport): a server that wants authorization says so
// with a 401 to the session's first request, which the layer answers (a stored
// token, or the grant the flags choose) and sends again, so no request goes out
// only to ask whether authorization is needed. done stops
// the OAuth redirect listener; call it after closing the connection.
func dialTarget(ctx context.Context, g *globalFlags, clock *requestClock, target []string, logger *slog.Logger) (conn transport.Conn, done func(), err error) {
	done = func() {}
	if g.url == "" {
		stderr := func(string) {} // kept by the transport for error reports only
		if g.verbose {
			stderr = func(line string) { fmt.Fprintln(os.Stderr, "server:", line) }
		}
		conn, err := mcpkit.Dial(ctx, mcpkit.Target{Command: target}, &mcpkit.DialOptions{Logger: logger, Stderr: stderr, MaxMessageSize: g.maxMessage})
		return conn, done, err
	}
	flags, err := parseHeaderFlags(g.headers, false)
	if err != nil {
		return nil, nil, err
	}
	header, err := headerFor(flags, "")
	if err != nil {
		return nil, nil, err
	}
	var hc *http.Client
	if header.Get("Authorization") == "" {
		tr, cleanup, err := authTransport(&g.oauth, os.Stderr, clock, browserWait)
		if err != nil {
			return nil, nil, err
		}
		tr.Logger = logger
		hc = &http.Client{Transport: tr}
		done = cleanup
	}
	conn, err = mcpkit.Dial(ctx, mcpkit.Target{URL: g.url, Header: header}, &mcpkit.DialOptions{
		HTTPClient:     hc,
		Logger:         logger,
		MaxMessageSize: g.maxMessage,
		OnSessionExpired: func(oldID, newID string, err error) {
			if err == nil {
				fmt.Fprintf(os.Stderr, "mcpkit: the server forgot session %s; re-initialized as %s\n", oldID, newID)
			}
		},
	})
	if err != nil {
		done()
		return nil, nil, err
	}
	return conn, done, nil
}

// stdioProbeTimeout bounds the era probe of a server the CLI starts: time for a
// package runner to install it, since a server that is silent until then is taken
// for a legacy one.
const stdioProbeTimeout = 10 * time.Second

// httpProbeTimeout is the part of a URL's era probe bound that is not the
// user's time in the browser.
const httpProbeTimeout = 10 * time.Second
