package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestServeRedisURL(t *testing.T) {
	f := &serveFlags{}
	t.Setenv(redisEnv, "")
	if got := f.redisURL(); got != "" {
		t.Errorf("nothing set: %q", got)
	}
	t.Setenv(redisEnv, "redis://env:6379/1")
	if got := f.redisURL(); got != "redis://env:6379/1" {
		t.Errorf("from %s: %q", redisEnv, got)
	}
	f.redis = "redis://flag:6379/2"
	if got := f.redisURL(); got != "redis://flag:6379/2" {
		t.Errorf("the flag over the environment: %q", got)
	}
}

// TestServeRedisRefusals: --redis needs --http, and a Redis that does not
// answer stops the replica at start rather than serving with no shared state.
func TestServeRedisRefusals(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close() // nothing listens there now
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"without --http", []string{"serve", "--redis", "redis://" + closed + "/0"}, "", "needs --http"},
		{"from the environment, without --http", []string{"serve"}, "redis://" + closed + "/0", "needs --http"},
		{"Redis not answering", []string{"serve", "--http", "127.0.0.1:0", "--redis", "redis://" + closed + "/0"}, "", "--redis"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, mcpkitBin, tc.args...)
		cmd.Env = append(os.Environ(), redisEnv+"="+tc.env)
		out, err := cmd.CombinedOutput()
		cancel()
		if err == nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("%s: %v, %s; want a failure naming %q", tc.name, err, out, tc.want)
		}
	}
}
