package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

// TestClientSmoke runs every row of `mcpbench client` briefly, unpinned: each must
// complete calls without error and report the client's CPU time, and the gateway
// rows (mcpkit's and the hand-written floor) the CPU time of the server behind.
func TestClientSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bins, err := buildServers(ctx, t.TempDir(), []string{implMcpkit, "gateway", gatewayFloor})
	if err != nil {
		t.Fatal(err)
	}
	results := map[string][]*load.Result{}
	for _, row := range clientRows {
		t.Run(row.label, func(t *testing.T) {
			cfg := load.Config{
				Impl: row.label, Mode: row.mode, Client: row.client, ServerBin: bins[row.server],
				Warmup: 100 * time.Millisecond, Duration: 300 * time.Millisecond, Concurrency: 2, InFlight: 4,
				RequireSession: true,
			}
			res, err := load.Run(ctx, cfg)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if res.Errors != 0 || res.Calls <= 0 {
				t.Fatalf("%d calls, %d errors, first: %s", res.Calls, res.Errors, res.FirstError)
			}
			if clientCPUPerCall(res) <= 0 || res.LoadGenAllocsPerCall <= 0 {
				t.Errorf("no client figures: %v µs, %v allocs", clientCPUPerCall(res), res.LoadGenAllocsPerCall)
			}
			if row.mode == load.ModeGateway && res.UpstreamCPUSeconds <= 0 {
				t.Error("no CPU time for the server behind the gateway")
			}
			results[row.label] = append(results[row.label], res)
		})
	}
	var out bytes.Buffer
	printClientReport(&out, clientRows, results, time.Second, 0, 1, 2, false, "?")
	for _, want := range []string{"| HTTP go-sdk client |", "| stdio mcpkit, raw args |", "| HTTP 2026-07-28 mcpkit, raw args |", "| gateway: ", "| gateway floor: ",
		"÷ the hand-written gateway floor (gateway-floor, the same server behind it): calls/s per round "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report has no %q:\n%s", want, out.String())
		}
	}
}
