// Command ratebench measures `mcpkit serve` and `mcpkit gateway` under a
// per-client rate limit (issue 24, part 3): two clients with their own
// static tokens call the echo tool at once, a greedy one with many workers
// far over its budget and a good one paced within it. The greedy one must
// get 429s (with Retry-After), the good one none, and the good one's latency
// is reported.
//
//	cd bench && go run ./cmd/ratebench            # serve and gateway, 10 s each
//	go run ./cmd/ratebench -targets gateway -d 30s -greedy 16
//
// It builds cmd/mcpkit of the main module (../) into a temporary directory,
// starts each target on 127.0.0.1 with --rate-limit and --auth-token-file,
// runs load.RunRateLimit against it, stops it by its PID, and prints a
// Markdown table (-json FILE for the raw results).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ratebench:", err)
		os.Exit(1)
	}
}

// result is one target's run.
type result struct {
	Target string `json:"target"`
	Limit  string `json:"limit"`
	load.RateResult
}

func run() error {
	targets := flag.String("targets", "serve,gateway", "what to measure: serve, gateway (comma-separated)")
	limit := flag.String("limit", "100/s:20", "each client's budget (--rate-limit)")
	greedy := flag.Int("greedy", 8, "the greedy client's workers")
	goodRate := flag.Int("good", 50, "the good client's calls per second (within its budget)")
	d := flag.Duration("d", 10*time.Second, "the measured window per target")
	bin := flag.String("mcpkit", "", "the mcpkit binary (default: build ../cmd/mcpkit)")
	jsonOut := flag.String("json", "", "write the raw results to this file")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir, err := os.MkdirTemp("", "ratebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "mcpkit")
		build := exec.CommandContext(ctx, "go", "build", "-o", *bin, "./cmd/mcpkit")
		build.Dir = ".."
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building mcpkit (run from the bench directory): %w", err)
		}
	}
	var results []result
	for _, target := range strings.Split(*targets, ",") {
		args, err := targetArgs(dir, *bin, target, *limit)
		if err != nil {
			return err
		}
		for _, workers := range []int{0, *greedy} {
			fmt.Fprintf(os.Stderr, "ratebench: %s, %s per client, %d greedy workers, good client at %d/s, %s\n", target, *limit, workers, *goodRate, *d)
			res, err := measure(ctx, *bin, args, load.RateConfig{GreedyWorkers: workers, GoodRate: *goodRate, Duration: *d})
			if err != nil {
				return fmt.Errorf("%s: %w", target, err)
			}
			name := target
			if workers == 0 {
				name += " (good client alone)"
			}
			results = append(results, result{Target: name, Limit: *limit, RateResult: res})
		}
	}
	fmt.Printf("Go %s, %s/%s, %d CPUs; %d greedy workers, good client paced at %d/s, %s per target\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), *greedy, *goodRate, *d)
	fmt.Println("| target | budget per client | greedy: answered | greedy: 429 | 429 without Retry-After | greedy: other errors | good: calls | good: refused | good: errors | good: calls/s | good: p50 ms | good: p99 ms |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range results {
		fmt.Printf("| %s | %s | %d | %d | %d | %d | %d | %d | %d | %.1f | %.2f | %.2f |\n", r.Target, r.Limit,
			r.GreedyOK, r.GreedyLimited, r.GreedyNoRetry, r.GreedyOtherError, r.GoodCalls, r.GoodRefused, r.GoodErrors, r.GoodPerSec, r.GoodP50Ms, r.GoodP99Ms)
	}
	for _, r := range results {
		if r.FirstError != "" {
			fmt.Printf("\n%s: first error: %s\n", r.Target, r.FirstError)
		}
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	for _, r := range results {
		if r.GoodRefused != 0 || r.GoodErrors != 0 || (r.GreedyLimited == 0 && r.GreedyOK > 0) {
			return fmt.Errorf("%s: the good client was refused %d times (%d errors), the greedy one %d times", r.Target, r.GoodRefused, r.GoodErrors, r.GreedyLimited)
		}
	}
	return nil
}

// The clients' static tokens.
const greedyToken, goodToken = "greedy-token-0123456789abcdef", "good-token-0123456789abcdefgh"

// targetArgs writes the token file (and for the gateway its configuration:
// bin serve as its one server) into dir and returns the arguments of target
// with the per-client limit.
func targetArgs(dir, bin, target, limit string) ([]string, error) {
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("greedy:"+greedyToken+"\ngood:"+goodToken+"\n"), 0o600); err != nil {
		return nil, err
	}
	args := []string{"--http", "127.0.0.1:0", "--auth-token-file", tokens, "--rate-limit", limit}
	switch target {
	case "serve":
		return append([]string{"serve"}, args...), nil
	case "gateway":
		config := filepath.Join(dir, "mcp.json")
		cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"demo": map[string]any{"command": bin, "args": []string{"serve"}}}})
		if err := os.WriteFile(config, cfg, 0o600); err != nil {
			return nil, err
		}
		return append([]string{"gateway", "--config", config, "--names", "bare"}, args...), nil
	}
	return nil, fmt.Errorf("-targets: %q is neither serve nor gateway", target)
}

// measure starts mcpkit with args, waits for its address, runs the load
// (with the clients' tokens) and stops it (by its PID).
func measure(ctx context.Context, bin string, args []string, cfg load.RateConfig) (load.RateResult, error) {
	cfg.GreedyToken, cfg.GoodToken = greedyToken, goodToken
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return load.RateResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return load.RateResult{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	addr, err := announced(stderr, 60*time.Second)
	if err != nil {
		return load.RateResult{}, err
	}
	cfg.Addr = addr
	return load.RunRateLimit(ctx, cfg)
}

// announced reads the process's stderr until it says where it serves, and
// discards the rest in the background.
func announced(stderr io.Reader, timeout time.Duration) (string, error) {
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), " at http://"); ok {
				select {
				case found <- strings.TrimSuffix(strings.Fields(rest)[0], "/mcp"):
				default:
				}
			}
		}
		close(found)
	}()
	select {
	case addr, ok := <-found:
		if !ok {
			return "", errors.New("it ended before announcing its address")
		}
		return addr, nil
	case <-time.After(timeout):
		return "", errors.New("no address announced")
	}
}
