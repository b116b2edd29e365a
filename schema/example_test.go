package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/schema"
)

type EchoInput struct {
	Message string `json:"message" description:"Text to echo back."`
	Times   int    `json:"times,omitempty" jsonschema:"minimum=1,maximum=5,default=1"`
	Style   string `json:"style,omitempty" jsonschema:"enum=plain|shout"`
}

func ExampleFor() {
	s, err := schema.For[EchoInput](nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(s))

	_, err = schema.For[int](nil)
	fmt.Println(errors.Is(err, schema.ErrNotObject))
	// Output:
	// {"type":"object","properties":{"message":{"type":"string","description":"Text to echo back."},"times":{"type":"integer","default":1,"minimum":1,"maximum":5},"style":{"type":"string","enum":["plain","shout"]}},"required":["message"],"additionalProperties":false}
	// true
}

func ExampleCompile() {
	s, _ := schema.For[EchoInput](nil)
	v, err := schema.Compile(s, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v.Validate(json.RawMessage(`{"message":"hi","times":2}`)))

	err = v.Validate(json.RawMessage(`{"times":"2","style":"loud"}`))
	fmt.Println(err)

	var ve *schema.ValidationError
	if errors.As(err, &ve) {
		for _, violation := range ve.Violations {
			fmt.Printf("%q: %s\n", violation.Path, violation.Message)
		}
	}

	_, err = schema.Compile(json.RawMessage(`{"type":12}`), nil)
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// arguments: missing property "message"; /style: got "loud", want one of "plain", "shout"; /times: got string, want integer
	// "": missing property "message"
	// "/style": got "loud", want one of "plain", "shout"
	// "/times": got string, want integer
	// true
}

func ExampleValidator_ApplyDefaults() {
	s, _ := schema.For[EchoInput](nil)
	v, _ := schema.Compile(s, nil)
	args := v.ApplyDefaults(json.RawMessage(`{"message":"hi"}`))
	fmt.Println(string(args))

	var in EchoInput
	_ = json.Unmarshal(args, &in)
	fmt.Println(in.Times)
	// Output:
	// {"message":"hi","times":1}
	// 1
}
