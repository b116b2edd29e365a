//go:build unix

// Package chromium starts headless Chromium for tests that drive a page with
// chromedp: the tap's web view and the MCP Apps view in interop.
package chromium

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// Path finds the Debian chromium binary; without it the test skips, except
// under CI=true where scripts/test.sh installs it and its absence fails.
func Path(t testing.TB) string {
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

// Start launches headless Chromium with a fresh profile (and the extra
// command-line flags), in its own process group that the test kills when it
// ends, and returns a chromedp context for a tab in it. ctx bounds the start.
func Start(t testing.TB, ctx context.Context, flags ...string) context.Context {
	t.Helper()
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--window-size=1280,800",
		"--user-data-dir=" + t.TempDir(), "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
	}
	cmd := exec.Command(Path(t), append(append(args, flags...), "about:blank")...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Chromium prints "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID".
	url := testkit.StartAnnounced(t, ctx, cmd, stderr, "DevTools listening on ")
	alloc, cancelAlloc := remote.NewAllocator(ctx, url, remote.NoModifyURL)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("connecting to chromium: %v", err)
	}
	return tab
}
