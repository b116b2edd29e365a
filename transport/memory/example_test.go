package memory_test

import (
	"context"
	"fmt"

	"github.com/mcpkit/mcpkit/transport/memory"
)

func ExampleNewPair() {
	ctx := context.Background()
	client, server := memory.NewPair()
	defer server.Close()

	client.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	client.Close() // the server reads what was sent, then io.EOF

	for {
		msg, err := server.Read(ctx)
		if err != nil {
			fmt.Println("server:", err)
			return
		}
		fmt.Println("server got:", string(msg))
	}
	// Output:
	// server got: {"jsonrpc":"2.0","id":1,"method":"ping"}
	// server: EOF
}
