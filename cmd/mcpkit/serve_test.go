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

// TestServeSessionlessFlagAndDeprecatedAlias: --sessionless selects the
// sessionless Streamable HTTP mode, and the old name --stateless still does, hidden
// from the help and with a deprecation notice.
func TestServeSessionlessFlagAndDeprecatedAlias(t *testing.T) {
	for _, flag := range []string{"--sessionless", "--stateless"} {
		cmd := newServeCmd(&globalFlags{})
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		if err := cmd.ParseFlags([]string{flag}); err != nil {
			t.Fatalf("%s: %v", flag, err)
		}
		on, err := cmd.Flags().GetBool("sessionless")
		if err != nil || !on {
			t.Errorf("%s: sessionless = %v, %v; want true", flag, on, err)
		}
		deprecated := strings.Contains(out.String(), "--stateless has been deprecated, use --sessionless")
		if deprecated != (flag == "--stateless") {
			t.Errorf("%s: deprecation notice %v (output %q)", flag, deprecated, out.String())
		}
	}
	help := newServeCmd(&globalFlags{})
	var out bytes.Buffer
	help.SetOut(&out)
	if err := help.Usage(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "--sessionless") || strings.Contains(out.String(), "--stateless") {
		t.Errorf("the help should show --sessionless and hide --stateless:\n%s", out.String())
	}
}
