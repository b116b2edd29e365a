package llmtest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Call is a tool call a scripted model makes.
type Call struct {
	// ID is the call's id; empty gives a realistic one.
	ID string
	// Name is the tool's name.
	Name string
	// Args is the JSON text of the arguments, sent in fragments as it is (it
	// may be malformed on purpose).
	Args string
}

// callIDs are ids shaped like the providers' (OpenAI "call_" + 24
// characters, Anthropic "toolu_01" + 22).
var callIDs = []string{"Jq8fT2Ns0bV6wLp3Xk9mRz4C", "aV5hK1yQe7Do2Gm8Ut4Ws0Pn", "R3cZx9Lb6Tf1Hj5Nq2Yw8Ek7", "m4Ps0Vd7Gy2Kc9Bt5Xq1Fh6J"}

func callID(prefix string, i int, c Call) string {
	if c.ID != "" {
		return c.ID
	}
	id := callIDs[i%len(callIDs)]
	if prefix == "toolu_01" {
		id = id[:22]
	}
	return prefix + id
}

// OpenAIModel is the model the OpenAI fixtures report.
const OpenAIModel = "gpt-4o-2024-08-06"

// OpenAIUsage is the usage the OpenAI fixtures report: prompt and completion
// tokens.
var OpenAIUsage = [2]int{152, 18}

// OpenAI returns a Chat Completions stream, as OpenAI sends it with
// stream_options.include_usage: a first chunk with the role, the text in
// content deltas, then each tool call (id, name and empty arguments first,
// then the arguments in fragments cut mid-token), a chunk with the
// finish_reason ("tool_calls" or "stop"), a chunk with no choices and the
// usage, and the DONE sentinel.
func OpenAI(text string, calls ...Call) string {
	var b strings.Builder
	chunk := func(choices string, usage string) {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-AxQ3vK8mJ2pXnR7tY1bC4dE5fG6hI","object":"chat.completion.chunk","created":1738945321,"model":%q,"service_tier":"default","system_fingerprint":"fp_50cad350e4","choices":%s,"usage":%s}`+"\n\n",
			OpenAIModel, choices, usage)
	}
	delta := func(d, finish string) {
		chunk(`[{"index":0,"delta":`+d+`,"logprobs":null,"finish_reason":`+finish+`}]`, "null")
	}
	if text == "" && len(calls) > 0 {
		delta(`{"role":"assistant","content":null,"refusal":null}`, "null")
	} else {
		delta(`{"role":"assistant","content":"","refusal":null}`, "null")
	}
	for _, piece := range textPieces(text) {
		delta(`{"content":`+quote(piece)+`}`, "null")
	}
	for i, c := range calls {
		delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`,
			i, callID("call_", i, c), c.Name), "null")
		for _, f := range Fragments(c.Args) {
			delta(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, i, quote(f)), "null")
		}
	}
	finish := `"stop"`
	if len(calls) > 0 {
		finish = `"tool_calls"`
	}
	delta(`{}`, finish)
	chunk("[]", fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}`,
		OpenAIUsage[0], OpenAIUsage[1], OpenAIUsage[0]+OpenAIUsage[1]))
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// AnthropicModel is the model the Anthropic fixtures report.
const AnthropicModel = "claude-sonnet-4-5-20250929"

// AnthropicUsage is the usage the Anthropic fixtures report: input and
// output tokens.
var AnthropicUsage = [2]int{472, 89}

// Anthropic returns a Messages stream as the API sends it: message_start,
// a text block (content_block_start, a ping, text_delta events,
// content_block_stop) when text is not empty, one tool_use block per call
// (its input in input_json_delta fragments cut mid-token, the first one
// empty), message_delta with the stop_reason ("tool_use" or "end_turn") and
// the output tokens, and message_stop.
func Anthropic(text string, calls ...Call) string {
	var b strings.Builder
	event := func(typ, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data) }
	event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard"}}}`,
		AnthropicModel, AnthropicUsage[0]))
	index := 0
	if text != "" {
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		event("ping", `{"type": "ping"}`)
		for _, piece := range textPieces(text) {
			event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+quote(piece)+`}}`)
		}
		event("content_block_stop", `{"type":"content_block_stop","index":0}`)
		index++
	} else {
		event("ping", `{"type": "ping"}`)
	}
	for i, c := range calls {
		event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`,
			index, callID("toolu_01", i, c), c.Name))
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":""}}`, index))
		for _, f := range Fragments(c.Args) {
			event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, index, quote(f)))
		}
		event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, index))
		index++
	}
	stop := "end_turn"
	if len(calls) > 0 {
		stop = "tool_use"
	}
	event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, AnthropicUsage[1]))
	event("message_stop", `{"type":"message_stop"}`)
	return b.String()
}

// textPieces cuts text as a model streams it: a word or two at a time, the
// spaces leading the words.
func textPieces(text string) []string {
	var out []string
	for len(text) > 0 {
		i := strings.IndexByte(text[1:], ' ')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// RichSchema is an MCP tool input schema using most of JSON Schema: a
// $schema, nested objects, arrays with items, enums, a const, defaults,
// formats, bounds, patterns, a nullable type, nested anyOf, $ref into $defs
// (one with a sibling description, one recursive), required lists,
// additionalProperties, and an anyOf at the root (which providers refuse).
const RichSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "description": "The event to create.",
  "properties": {
    "title": {"type": "string", "description": "Event title", "minLength": 1, "maxLength": 200},
    "priority": {"type": "string", "enum": ["low", "normal", "high"], "default": "normal"},
    "attendees": {"type": "array", "description": "People invited", "items": {"$ref": "#/$defs/person"}, "minItems": 1, "uniqueItems": true},
    "organizer": {"$ref": "#/$defs/person", "description": "Who organizes it"},
    "when": {"type": "object", "properties": {"start": {"type": "string", "format": "date-time"}, "durationMinutes": {"type": "integer", "minimum": 5, "maximum": 480}}, "required": ["start"], "additionalProperties": false},
    "location": {"anyOf": [{"type": "string"}, {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"]}]},
    "reminder": {"type": ["integer", "null"], "description": "Minutes before"},
    "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
    "kind": {"const": "meeting"},
    "parent": {"$ref": "#/$defs/node"}
  },
  "required": ["title", "when"],
  "additionalProperties": false,
  "anyOf": [{"required": ["attendees"]}, {"required": ["organizer"]}],
  "$defs": {
    "person": {"type": "object", "description": "A person", "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}}, "required": ["email"]},
    "node": {"type": "object", "properties": {"id": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}}
  }
}`
