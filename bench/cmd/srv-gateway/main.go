// Command srv-gateway serves the benchmark's echo tool through mcpkit's gateway:
// package gateway with srv-mcpkit (found beside this binary) as its one stdio
// server, tools named bare, over Streamable HTTP as `mcpkit gateway --http` does.
// The server behind it is its only child process (mcpbench's gateway mode measures
// both). It serves HTTP only; see package serverkit for its flags.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/serverkit"
	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/streamable"
	"github.com/mcpkit/mcpkit/upstream"
)

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	serverkit.Main(serverkit.Impl{
		Name: "srv-gateway",
		HTTP: func(sessionless bool) (http.Handler, error) {
			self, err := os.Executable()
			if err != nil {
				return nil, err
			}
			conf, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
				"echo": map[string]any{"command": filepath.Join(filepath.Dir(self), "srv-mcpkit"), "args": []string{"-transport", "stdio"}},
			}})
			if err != nil {
				return nil, err
			}
			cfg, err := upstream.Parse("bench.json", conf, nil)
			if err != nil {
				return nil, err
			}
			g := gateway.New(cfg, &gateway.Options{Naming: gateway.NamingBare, Logger: logger})
			g.Start(context.Background())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := g.WaitStarted(ctx); err != nil {
				return nil, err
			}
			limits := &transport.Limits{MaxSessionsPerClient: -1}
			return streamable.NewHandler(g.Server(), &streamable.HandlerOptions{Sessionless: sessionless, Logger: logger, Limits: limits}), nil
		},
		Stdio: func(context.Context, io.Reader, io.Writer) error {
			return errors.New("srv-gateway serves HTTP only")
		},
	})
}
