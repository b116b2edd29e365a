package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/bench/internal/load"
)

// Implementations: each is a server binary cmd/srv-<name> in this module.
const (
	implMcpkit  = "mcpkit"
	implGoSDK   = "gosdk"
	implMcpGo   = "mcpgo"
	implCeiling = "ceiling"
)

// allImpls lists the implementations in the order the table shows them.
var allImpls = []string{implMcpkit, implGoSDK, implMcpGo, implCeiling}

// benchModule is the module path of the benchmark.
const benchModule = "github.com/mcpkit/mcpkit/bench"

// moduleDir returns the directory of the bench module, which must be the module of
// the working directory.
func moduleDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	b, err := os.ReadFile(gomod)
	if err != nil || !bytes.HasPrefix(b, []byte("module "+benchModule+"\n")) {
		return "", fmt.Errorf("run mcpbench from the bench directory (the module %s), not from %q", benchModule, gomod)
	}
	return filepath.Dir(gomod), nil
}

// buildServers builds the server binaries of impls into dir (relative to the
// working directory) with one go build, and returns each one's path.
func buildServers(ctx context.Context, dir string, impls []string) (map[string]string, error) {
	mod, err := moduleDir(ctx)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, err
	}
	args := []string{"build", "-o", abs + string(filepath.Separator)}
	bins := map[string]string{}
	for _, impl := range impls {
		args = append(args, "./cmd/srv-"+impl)
		bins[impl] = filepath.Join(abs, "srv-"+impl)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = mod
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return bins, nil
}

// canPin reports whether the machine has the two CPUs and the taskset command that
// pinning needs.
func canPin() bool {
	if runtime.NumCPU() < 2 {
		return false
	}
	_, err := exec.LookPath("taskset")
	return err == nil
}

// runChild runs one configuration in a load generator child process (pinned to
// CPU 1 with GOMAXPROCS=1 when pin is set) and returns its result.
func runChild(ctx context.Context, self string, cfg load.Config, pin bool) (*load.Result, error) {
	config, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, runTimeout(cfg)+30*time.Second)
	defer cancel()
	name, args := self, []string{"load", "-config", string(config)}
	if pin {
		name, args = "taskset", append([]string{"-c", "1", self}, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = os.Environ()
	if pin {
		cmd.Env = append(cmd.Env, "GOMAXPROCS=1")
	}
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("load generator: %w", err)
	}
	var res load.Result
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("load generator output %.200q: %w", out, err)
	}
	if res.Impl != cfg.Impl || res.Mode != cfg.Mode {
		return nil, errors.New("load generator answered for another configuration")
	}
	return &res, nil
}
