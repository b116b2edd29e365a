package main

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

// TestGoodClientNeverRefused: against `mcpkit serve --rate-limit`, for one
// second, a greedy client's calls are refused with 429 and Retry-After while
// the good client, within its budget, has every call answered. (The figures
// come from running the command; this only checks the behaviour.)
func TestGoodClientNeverRefused(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpkit")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "./cmd/mcpkit")
	build.Dir = "../../.." // the main module
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	args, err := targetArgs(dir, bin, "serve", "50/s:10")
	if err != nil {
		t.Fatal(err)
	}
	res, err := measure(t.Context(), bin, args, load.RateConfig{GreedyWorkers: 4, GoodRate: 20, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.GoodRefused != 0 || res.GoodErrors != 0 || res.GoodCalls < 10 {
		t.Errorf("the good client: %d calls, %d refused, %d errors (%s)", res.GoodCalls, res.GoodRefused, res.GoodErrors, res.FirstError)
	}
	if res.GreedyLimited == 0 || res.GreedyNoRetry != 0 || res.GreedyOtherError != 0 {
		t.Errorf("the greedy client: %d answered, %d refused (%d without Retry-After), %d errors (%s)", res.GreedyOK, res.GreedyLimited, res.GreedyNoRetry, res.GreedyOtherError, res.FirstError)
	}
}
