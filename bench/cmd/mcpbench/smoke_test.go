package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

// TestMain lets the test binary act as the load generator child ("load -config"),
// as the mcpbench binary does, so that runChild can be tested.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "load" {
		if err := loadMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "load:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSmoke builds every server and runs every implementation in every mode
// briefly, unpinned, with low concurrency: each run must complete calls and see no
// error, so that the harness cannot rot. One run goes through the load generator
// child process, as mcpbench does it.
func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bins, err := buildServers(ctx, t.TempDir(), allImpls)
	if err != nil {
		t.Fatal(err)
	}
	o := &options{
		impls: allImpls, modes: load.AllModes,
		duration: 300 * time.Millisecond, warmup: 100 * time.Millisecond, repeats: 1,
		concurrency: 2, inFlight: 4, sessions: 20,
	}
	var results []*load.Result
	for i, cfg := range planRuns(o, bins) {
		t.Run(cfg.Mode+"/"+cfg.Impl, func(t *testing.T) {
			var res *load.Result
			var err error
			if i == 0 {
				self, serr := os.Executable()
				if serr != nil {
					t.Fatal(serr)
				}
				res, err = runChild(ctx, self, cfg, false)
			} else {
				res, err = load.Run(ctx, cfg)
			}
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if res.Errors != 0 {
				t.Errorf("%d errors, first: %s", res.Errors, res.FirstError)
			}
			if res.ServerError != "" {
				t.Errorf("server: %s", res.ServerError)
			}
			if res.Calls <= 0 {
				t.Errorf("no call completed")
			}
			if cfg.Mode == load.ModeIdle {
				if res.Sessions != cfg.Sessions {
					t.Errorf("%d sessions opened, want %d", res.Sessions, cfg.Sessions)
				}
			} else if res.P50Ms <= 0 || res.P99Ms < res.P50Ms || res.RSSBytes <= 0 || res.AllocsPerCall <= 0 {
				t.Errorf("implausible figures: p50 %v p99 %v RSS %d allocs/call %v", res.P50Ms, res.P99Ms, res.RSSBytes, res.AllocsPerCall)
			}
			results = append(results, res)
		})
	}
	var out bytes.Buffer
	printReport(&out, o, results)
	for _, want := range []string{"| http-stateful | mcpkit |", "| redis | mcpkit redis ×3 |", "mode redis", "| stdio-pipelined | ceiling |", "| gosdk | 20 |", "| ceiling | 20 |", "mcpkit / ceiling calls/s", "idle (issue 20): mcpkit / ceiling live bytes per session"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report has no %q:\n%s", want, out.String())
		}
	}
}
