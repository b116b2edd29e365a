package storetest_test

import (
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/store/storetest"
)

// TestMemoryChangeFeedContract runs the ChangeFeed contract against the SDK's
// in-process feed (both "replicas" are the one feed).
func TestMemoryChangeFeedContract(t *testing.T) {
	storetest.RunChangeFeed(t, func(*testing.T) (mcp.ChangeFeed, mcp.ChangeFeed) {
		f := mcp.NewMemoryChangeFeed()
		return f, f
	})
}
