//go:build unix

// Package browser starts headless Chromium for the tests that look at a page the
// way a person does (the web view of `mcpkit tap`), at 1280×800, driven through
// chromedp.
package browser

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// chromiumPath finds the Debian chromium binary; without it the test skips,
// except under CI=true where scripts/test.sh installs it and its absence fails.
func chromiumPath(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (scripts/test.sh installs it)")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// Start launches headless Chromium with a fresh profile, in its own
// process group that the test kills when it ends, and returns a chromedp context
// for a tab in it.
func Start(t testing.TB, ctx context.Context) context.Context {
	t.Helper()
	cmd := exec.Command(chromiumPath(t),
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--window-size=1280,800",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"about:blank")
	testkit.OwnProcessGroup(cmd)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	t.Cleanup(func() {
		testkit.KillGroup(cmd.Process.Pid)
		<-waited
	})
	// Chromium prints "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID".
	wsURL := make(chan string, 1)
	go func() {
		defer close(waited)
		sc := bufio.NewScanner(stderr)
		found := false
		for sc.Scan() {
			if line := sc.Text(); !found && strings.HasPrefix(line, "DevTools listening on ") {
				wsURL <- strings.TrimPrefix(line, "DevTools listening on ")
				found = true
			}
		}
		close(wsURL)
		_ = cmd.Wait()
	}()
	var url string
	select {
	case url = <-wsURL:
	case <-ctx.Done():
		t.Fatal("chromium did not start in time")
	}
	if url == "" {
		t.Fatal("chromium exited without a DevTools address")
	}
	alloc, cancelAlloc := remote.NewAllocator(ctx, url, remote.NoModifyURL)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("connecting to chromium: %v", err)
	}
	return tab
}
