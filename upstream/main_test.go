package upstream

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// serverEnv makes the test binary run testServer instead of the tests: the
// supervisor tests start it as a real stdio server.
const serverEnv = "UPSTREAM_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		os.Exit(testServer())
	}
	os.Exit(m.Run())
}

// testServer serves, on stdio, the tools the supervisor tests use: pid (the
// process id), crash (exits with status 3 after a line on stderr) and grow
// (adds a tool, so that the client hears list_changed). With
// UPSTREAM_TEST_STDERR=N it first writes N numbered lines to stderr, and with
// UPSTREAM_TEST_TOKEN the token.
func testServer() int {
	n, _ := strconv.Atoi(os.Getenv("UPSTREAM_TEST_STDERR"))
	for i := range n {
		fmt.Fprintf(os.Stderr, "line %d\n", i)
	}
	if v := os.Getenv("UPSTREAM_TEST_TOKEN"); v != "" {
		fmt.Fprintf(os.Stderr, "starting with token=%s\n", v) // a server that prints its secret
	}
	srv := mcp.NewServer(protocol.Implementation{Name: "upstream-test", Version: "1"}, nil)
	type none struct{}
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "pid"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
		return strconv.Itoa(os.Getpid()), nil
	})
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "crash"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
		fmt.Fprintln(os.Stderr, "fatal: crash requested")
		os.Exit(3)
		return "", nil
	})
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "grow"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
		return "grown", mcp.AddTool(srv, &protocol.Tool{Name: "new"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) { return "", nil })
	})
	if err := srv.Run(context.Background(), stdio.NewProcessServerConn(nil)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
