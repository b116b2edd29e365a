package openai

import (
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
)

// FuzzDecoder fuzzes the stream decoder with the shared contract of
// llmtest.FuzzStreamDecoder.
func FuzzDecoder(f *testing.F) {
	llmtest.FuzzStreamDecoder(f, func() llmtest.StreamDecoder { return &decoder{} })
}
