package demo

// The conformance fixtures: the tools, resources, prompts and completions that the
// official MCP conformance suite (@modelcontextprotocol/conformance, server mode)
// calls by name — those of 0.1.16 here and in conformance_features.go, those of the
// 2026-07-28 scenarios of 0.2.0-alpha.12 in conformance_stateless.go. Each fixture's
// comment names the scenario that uses it. The names, argument names and texts are
// the suite's; the code is ours.

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// URIs of the conformance fixtures' resources.
const (
	conformanceStaticTextURI     = "test://static-text"
	conformanceStaticBinaryURI   = "test://static-binary"
	conformanceWatchedURI        = "test://watched-resource"
	conformanceTemplate          = "test://template/{id}/data"
	conformanceEmbeddedURI       = "test://embedded-resource"
	conformanceMixedResourceURI  = "test://mixed-content-resource"
	conformanceSimpleTextMessage = "This is a simple text response for testing."
	conformanceErrorMessage      = "This tool intentionally returns an error for testing"
)

// addConformanceFixtures registers everything the conformance suite's server
// scenarios expect. The pauses inside the logging and progress tools are half of
// o.CountInterval (50 ms by default, as the suite suggests).
func addConformanceFixtures(s *mcp.Server, o *Options) error {
	step := o.CountInterval / 2
	return errors.Join(
		addConformanceContentTools(s),
		addConformanceStreamingTools(s, step),
		addConformanceClientTools(s),
		addConformanceSchemaTool(s),
		addConformanceResources(s),
		addConformancePrompts(s),
		addConformanceStatelessFixtures(s),
		addConformanceTaskFixtures(s, o),
	)
}

// noArgs is the input of the fixtures that take no arguments.
type noArgs struct{}

// addConformanceContentTools adds the tools that return one fixed kind of content.
func addConformanceContentTools(s *mcp.Server) error {
	fixed := func(name, description string, content ...protocol.Content) error {
		return mcp.AddTool(s, &protocol.Tool{Name: name, Description: description},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (*protocol.CallToolResult, error) {
				return &protocol.CallToolResult{Content: content}, nil
			})
	}
	return errors.Join(
		// tools-call-simple-text
		fixed("test_simple_text", "Returns one text block (conformance: tools-call-simple-text).",
			protocol.NewTextContent(conformanceSimpleTextMessage)),
		// tools-call-image
		fixed("test_image_content", "Returns one PNG image block (conformance: tools-call-image).",
			protocol.NewImageContent(logoPNG, "image/png")),
		// tools-call-audio
		fixed("test_audio_content", "Returns one WAV audio block (conformance: tools-call-audio).",
			protocol.NewAudioContent(silentWAV, "audio/wav")),
		// tools-call-embedded-resource
		fixed("test_embedded_resource", "Returns one embedded text resource (conformance: tools-call-embedded-resource).",
			protocol.NewEmbeddedResource(protocol.NewTextResourceContents(conformanceEmbeddedURI, "text/plain", "This is an embedded resource content."))),
		// tools-call-mixed-content
		fixed("test_multiple_content_types", "Returns text, an image and an embedded resource together (conformance: tools-call-mixed-content).",
			protocol.NewTextContent("Multiple content types test:"),
			protocol.NewImageContent(logoPNG, "image/png"),
			protocol.NewEmbeddedResource(protocol.NewTextResourceContents(conformanceMixedResourceURI, "application/json", `{"test":"data","value":123}`))),
		// tools-call-error
		mcp.AddTool(s, &protocol.Tool{Name: "test_error_handling", Description: "Always fails: the result has isError true (conformance: tools-call-error)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				//lint:ignore ST1005 the suite checks this exact text
				return "", errors.New(conformanceErrorMessage)
			}),
	)
}

// addConformanceStreamingTools adds the tools that talk to the client while they
// run: log messages, progress, and a stream that the transport may cut.
func addConformanceStreamingTools(s *mcp.Server, step time.Duration) error {
	return errors.Join(
		// tools-call-with-logging: three info messages, a pause between each.
		mcp.AddTool(s, &protocol.Tool{Name: "test_tool_with_logging", Description: "Sends three info log messages while it runs (conformance: tools-call-with-logging)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				msgs := []string{"Tool execution started", "Tool processing data", "Tool execution completed"}
				for i, m := range msgs {
					if i > 0 {
						if err := pause(ctx, step); err != nil {
							return "", err
						}
					}
					if err := req.Log(ctx, protocol.LevelInfo, "conformance", m); err != nil {
						return "", fmt.Errorf("sending log message %d: %w", i+1, err)
					}
				}
				return "Tool with logging executed successfully", nil
			}),
		// tools-call-with-progress: 0, 50 and 100 of 100, a pause between each.
		mcp.AddTool(s, &protocol.Tool{Name: "test_tool_with_progress", Description: "Reports progress 0, 50 and 100 of 100 while it runs (conformance: tools-call-with-progress)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				for i, p := range []float64{0, 50, 100} {
					if i > 0 {
						if err := pause(ctx, step); err != nil {
							return "", err
						}
					}
					if err := req.ReportProgress(ctx, p, 100, fmt.Sprintf("Completed step %v of 100", p)); err != nil {
						return "", fmt.Errorf("reporting progress %v: %w", p, err)
					}
				}
				return "Progress tool finished after reporting 0, 50 and 100 of 100", nil
			}),
		// server-sse-polling (a pending scenario): the suite expects the server to close
		// the request's SSE stream mid-call and deliver the result after the client
		// reconnects. Closing a stream is the transport's business; this tool only
		// takes a moment before answering, which is what the suite's reference does
		// after it has asked its transport to close the stream.
		mcp.AddTool(s, &protocol.Tool{Name: "test_reconnection", Description: "Answers after a short pause; a resumable transport may cut its stream meanwhile (conformance: server-sse-polling)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				if err := pause(ctx, 2*step); err != nil {
					return "", err
				}
				return "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.", nil
			}),
	)
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// json2020Schema is the input schema of json_schema_2020_12_tool: it uses $schema,
// $defs with an $anchor and a $ref, composition (allOf/anyOf), a conditional
// (if/then/else) and additionalProperties, which servers must pass on verbatim
// (SEP-1613, SEP-2106).
var json2020Schema = json.RawMessage(`{` +
	`"$schema":"https://json-schema.org/draft/2020-12/schema",` +
	`"type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},` +
	`"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},` +
	`"then":{"required":["phone"]},` +
	`"else":{"required":["email"]},` +
	`"additionalProperties":false}`)

// addConformanceSchemaTool adds json_schema_2020_12_tool (json-schema-2020-12, a
// pending scenario): its arguments are validated against the 2020-12 schema and
// echoed back.
func addConformanceSchemaTool(s *mcp.Server) error {
	return s.AddRawTool(&protocol.Tool{Name: "json_schema_2020_12_tool", Description: "Tool with JSON Schema 2020-12 features (conformance: json-schema-2020-12).", InputSchema: json2020Schema},
		func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return protocol.NewToolResultText("JSON Schema 2020-12 tool called with: " + string(req.Params.Arguments)), nil
		})
}

// silentWAV is a valid WAV file: 16-bit mono PCM at 8 kHz holding two samples of
// silence.
var silentWAV = func() []byte {
	const (
		sampleRate    = 8000
		channels      = 1
		bitsPerSample = 16
		samples       = 2
		dataSize      = samples * channels * bitsPerSample / 8
	)
	b := make([]byte, 0, 44+dataSize)
	le := binary.LittleEndian
	b = append(b, "RIFF"...)
	b = le.AppendUint32(b, 36+dataSize)
	b = append(b, "WAVE"...)
	b = append(b, "fmt "...)
	b = le.AppendUint32(b, 16) // fmt chunk size
	b = le.AppendUint16(b, 1)  // PCM
	b = le.AppendUint16(b, channels)
	b = le.AppendUint32(b, sampleRate)
	b = le.AppendUint32(b, sampleRate*channels*bitsPerSample/8) // byte rate
	b = le.AppendUint16(b, channels*bitsPerSample/8)            // block align
	b = le.AppendUint16(b, bitsPerSample)
	b = append(b, "data"...)
	b = le.AppendUint32(b, dataSize)
	return append(b, make([]byte, dataSize)...)
}()

// textOf joins the text blocks of content.
func textOf(content []protocol.Content) string {
	var b strings.Builder
	for _, c := range content {
		if c.Type == protocol.ContentTypeText {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
