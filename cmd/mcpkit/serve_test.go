package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestServeRejectsBadStateKeysWithoutPrintingThem(t *testing.T) {
	const secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQ" // not 32 bytes: refused
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpkitBin, "serve")
	cmd.Env = append(os.Environ(), stateKeysEnv+"=k1:"+secret)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		t.Fatal("serve started with an invalid key")
	}
	if !strings.Contains(stderr.String(), stateKeysEnv) {
		t.Errorf("the error does not name %s: %s", stateKeysEnv, stderr.String())
	}
	if strings.Contains(stderr.String(), secret) {
		t.Errorf("the error prints the secret: %s", stderr.String())
	}
}

func TestKeyringFromEnv(t *testing.T) {
	t.Setenv(stateKeysEnv, "")
	if kr, err := keyringFromEnv(); kr != nil || err != nil {
		t.Fatalf("unset: %v, %v", kr, err)
	}
	t.Setenv(stateKeysEnv, "k1:"+strings.Repeat("A", 43)+"=")
	kr, err := keyringFromEnv()
	if err != nil || kr == nil || kr.Current() != "k1" {
		t.Fatalf("set: %v, %v", kr, err)
	}
}
