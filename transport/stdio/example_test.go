package stdio_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"strings"

	"github.com/mcpkit/mcpkit/transport/stdio"
)

// A server reads requests from its input, one per line, and answers on its output.
func ExampleNewServerConn() {
	ctx := context.Background()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n\n")
	conn := stdio.NewServerConn(in, os.Stdout, nil)
	defer conn.Close()

	for {
		msg, err := conn.Read(ctx)
		if err == io.EOF {
			return
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "got %s\n", msg) // logs go to stderr, never stdout
		conn.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{}}
}

// A client runs a server as a subprocess. Close stops it: end of input, then
// SIGTERM, then SIGKILL, each after a bounded wait.
func ExampleNewCommandConn() {
	ctx := context.Background()
	cmd := exec.Command("npx", "-y", "@modelcontextprotocol/server-everything")
	conn, err := stdio.NewCommandConn(ctx, cmd, &stdio.CommandOptions{
		Stderr: func(line string) { log.Printf("server: %s", line) },
	})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	if err := conn.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		log.Fatal(err)
	}
	msg, err := conn.Read(ctx)
	var exit *stdio.ExitError
	if errors.As(err, &exit) {
		// The server died: the error holds its exit status and last stderr lines.
		log.Fatal(exit)
	}
	fmt.Printf("%s\n", msg)
}
