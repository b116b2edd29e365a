package mcpkit_test

import (
	"context"
	"os"
	"testing"

	"github.com/mcpkit/mcpkit"
)

// exampleServerEnv, when set, makes this test binary the greeter server on
// standard input and output instead of running the tests: the server
// ExampleConnectCommand starts.
const exampleServerEnv = "MCPKIT_EXAMPLE_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(exampleServerEnv) != "" {
		if err := mcpkit.ServeStdio(context.Background(), newGreeter()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Setenv(exampleServerEnv, "1") // for the processes the tests start
	os.Exit(m.Run())
}
