package jsonscan_test

import (
	"fmt"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// Walk the members of an object, keeping one member's value as a sub-slice of
// the input and skipping the others.
func Example() {
	data := []byte(`{"skip": [1, {"deep": true}], "keep": {"a": "b"}}`)
	s := jsonscan.Scanner{Data: data}
	if s.Peek() != '{' {
		fmt.Println("want an object")
		return
	}
	s.Pos++
	for {
		s.SkipSpace()
		key, _, err := s.String()
		if err != nil {
			fmt.Println(err)
			return
		}
		s.SkipSpace()
		if s.Peek() != ':' {
			fmt.Println("want a colon")
			return
		}
		s.Pos++
		s.SkipSpace()
		start := s.Pos
		if err := s.SkipValue(0); err != nil {
			fmt.Println(err)
			return
		}
		if string(key) == "keep" {
			fmt.Printf("%s = %s\n", key, data[start:s.Pos])
		}
		s.SkipSpace()
		if s.Peek() != ',' {
			return
		}
		s.Pos++
	}
	// Output: keep = {"a": "b"}
}
