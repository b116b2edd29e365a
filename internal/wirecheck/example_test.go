package wirecheck_test

import (
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/wirecheck"
)

// A server-side checker follows the conversation: it learns the version from
// initialize and checks each response against the result of the method it answers.
func ExampleChecker() {
	c, err := wirecheck.NewChecker(wirecheck.Server)
	if err != nil {
		fmt.Println(err)
		return
	}
	c.Observe(wirecheck.Incoming, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{
		"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	err = c.Check(wirecheck.Outgoing, []byte(`{"jsonrpc":"2.0","id":1,"result":{
		"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`))
	fmt.Println(c.Version(), err)

	c.Observe(wirecheck.Incoming, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`))
	err = c.Check(wirecheck.Outgoing, []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"text":"no type"}]}}`))
	var v *wirecheck.Violation
	if errors.As(err, &v) {
		fmt.Println(v.Method, v.Definition)
	}
	// Output:
	// 2025-06-18 <nil>
	// tools/call CallToolResult
}
