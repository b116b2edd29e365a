package protocol

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// sampleKind says how a sample is wrapped before validation.
type sampleKind int

const (
	kindValue        sampleKind = iota // validated as is
	kindRequest                        // wrapped in a JSON-RPC request
	kindNotification                   // wrapped in a JSON-RPC notification
)

// sample is one representative value and the schema definition it must
// satisfy.
type sample struct {
	name   string
	def    string
	kind   sampleKind
	method string
	value  any
}

func ptr[T any](v T) *T { return &v }

// reqMeta returns a request _meta valid for version v: the stateless keys for
// 2026-07-28, a progress token otherwise.
func reqMeta(v string) Meta {
	if IsStateless(v) {
		return NewRequestMeta(RequestMeta{
			ProtocolVersion:    v,
			ClientCapabilities: &ClientCapabilities{Sampling: &SamplingCapability{}},
			ClientInfo:         &Implementation{Name: "test-client", Version: "1.0.0"},
			LogLevel:           LevelInfo,
			ProgressToken:      "tok-1",
		})
	}
	return Meta{}.SetProgressToken(7)
}

// resultType returns "complete" for stateless versions.
func resultType(v string) ResultType {
	if HasResultType(v) {
		return ResultTypeComplete
	}
	return ""
}

// cacheHint returns a cache hint for stateless versions.
func cacheHint(v string) CacheHint {
	var h CacheHint
	if IsStateless(v) {
		h.SetCache(5*time.Minute, CacheScopePublic)
	}
	return h
}

func sampleIcons() []Icon {
	return []Icon{{Src: "https://example.com/icon.png", MimeType: "image/png", Sizes: []string{"48x48"}, Theme: IconThemeDark}}
}

func sampleImpl(v string) Implementation {
	impl := Implementation{Name: "mcpkit", Title: "MCP Kit", Version: "0.1.0", Description: "toolkit",
		WebsiteURL: "https://example.com", Icons: sampleIcons()}
	return *impl.ForVersion(v)
}

func sampleTool(v string) Tool {
	t := Tool{
		Name:         "get_weather",
		Title:        "Weather",
		Description:  "Gets the weather",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}}}`),
		Annotations:  &ToolAnnotations{Title: "Weather", ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
		Execution:    &ToolExecution{TaskSupport: TaskSupportOptional},
		Icons:        sampleIcons(),
		Meta:         Meta{"com.example/x": "y"},
	}
	return *t.ForVersion(v)
}

func sampleResource() Resource {
	return Resource{URI: "file:///project/a.txt", Name: "a.txt", Title: "A", Description: "file a",
		MimeType: "text/plain", Size: ptr(int64(12)), Annotations: &Annotations{Audience: []Role{RoleUser}, Priority: ptr(0.5)},
		Icons: sampleIcons(), Meta: Meta{"k": "v"}}
}

// allContent returns one block of every type valid in a CallToolResult of
// version v (before adaptation).
func allContent() []Content {
	res := sampleResource()
	return []Content{
		NewTextContent("hello <world> & \"friends\"\n"),
		NewTextContent(""),
		{Type: ContentTypeText, Text: "annotated", Annotations: &Annotations{Audience: []Role{RoleAssistant}, Priority: ptr(1.0), LastModified: "2025-01-12T15:00:58Z"}, Meta: Meta{"a": 1.0}},
		NewImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
		NewAudioContent([]byte("RIFF...."), "audio/wav"),
		NewResourceLink(&res),
		NewEmbeddedResource(NewTextResourceContents("file:///a.txt", "text/plain", "text body")),
		NewEmbeddedResource(NewBlobResourceContents("file:///a.bin", "application/octet-stream", []byte{0, 1, 2, 3})),
	}
}

// samples returns representative values of every type for version v.
func samples(v string) []sample {
	stateless := IsStateless(v)
	rm := reqMeta(v)
	rt := resultType(v)
	ch := cacheHint(v)
	clientCaps := ClientCapabilities{
		Experimental: map[string]map[string]any{"x": {}},
		Roots:        &RootsCapability{ListChanged: true},
		Sampling:     &SamplingCapability{Context: &Supported{}, Tools: &Supported{}},
		Elicitation:  &ElicitationCapability{Form: &Supported{}, URL: &Supported{}},
		Tasks: &ClientTasksCapability{List: &Supported{}, Cancel: &Supported{},
			Requests: &ClientTaskRequests{Sampling: &SamplingTaskRequests{CreateMessage: &Supported{}}, Elicitation: &ElicitationTaskRequests{Create: &Supported{}}}},
	}
	if stateless {
		clientCaps.Tasks = nil
		clientCaps.Extensions = map[string]map[string]any{"io.modelcontextprotocol/ui": {"mimeTypes": []any{"text/html"}}}
	}
	serverCaps := ServerCapabilities{
		Experimental: map[string]map[string]any{"x": {"k": "v"}},
		Extensions:   map[string]map[string]any{"io.modelcontextprotocol/tasks": {}},
		Logging:      &Supported{},
		Completions:  &Supported{},
		Prompts:      &PromptsCapability{ListChanged: true},
		Resources:    &ResourcesCapability{Subscribe: true, ListChanged: true},
		Tools:        &ToolsCapability{ListChanged: true},
		Tasks: &ServerTasksCapability{List: &Supported{}, Cancel: &Supported{},
			Requests: &ServerTaskRequests{Tools: &ToolsTaskRequests{Call: &Supported{}}}},
	}
	serverCaps = *serverCaps.ForVersion(v)

	content := allContent()
	callResult := &CallToolResult{Content: content, StructuredContent: map[string]any{"temp": 21.5}, IsError: false, ResultType: rt, Meta: Meta{"m": "v"}}
	task := Task{TaskID: "t-1", Status: TaskStatusWorking, StatusMessage: "busy", CreatedAt: "2025-11-25T10:00:00Z",
		LastUpdatedAt: "2025-11-25T10:00:01Z", TTL: ptr(int64(60000)), PollInterval: ptr(int64(1000))}
	samplingMsgs := []SamplingMessage{
		{Role: RoleUser, Content: SamplingContent{NewTextContent("What is the weather?")}},
		{Role: RoleAssistant, Content: SamplingContent{NewImageContent([]byte{1, 2}, "image/png")}},
	}
	if HasSamplingTools(v) {
		samplingMsgs = append(samplingMsgs,
			SamplingMessage{Role: RoleAssistant, Content: SamplingContent{
				NewToolUseContent("call_1", "get_weather", json.RawMessage(`{"city":"Paris"}`)),
				NewToolUseContent("call_2", "get_weather", nil),
			}},
			SamplingMessage{Role: RoleUser, Content: SamplingContent{
				NewToolResultContent("call_1", []Content{NewTextContent("18C")}, false),
				{Type: ContentTypeToolResult, ToolUseID: "call_2", StructuredContent: map[string]any{"t": 15.0}, IsError: true},
			}, Meta: Meta{"k": "v"}})
	}
	createParams := &CreateMessageParams{
		Messages:         samplingMsgs,
		ModelPreferences: &ModelPreferences{Hints: []ModelHint{{Name: "claude"}}, CostPriority: ptr(0.2), SpeedPriority: ptr(0.3), IntelligencePriority: ptr(0.9)},
		SystemPrompt:     "be brief",
		IncludeContext:   IncludeContextNone,
		Temperature:      ptr(0.7),
		MaxTokens:        100,
		StopSequences:    []string{"\n\n"},
		Metadata:         map[string]any{"provider": "x"},
	}
	if HasSamplingTools(v) {
		createParams.Tools = []Tool{sampleTool(v)}
		createParams.ToolChoice = &ToolChoice{Mode: ToolChoiceAuto}
	}
	if HasTasks(v) {
		createParams.Task = &TaskMetadata{TTL: ptr(int64(1000))}
	}
	formSchema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"},"age":{"type":"integer","minimum":0}},"required":["name"]}`)

	callParams := &CallToolParams{Meta: rm, Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`)}
	if HasTasks(v) {
		callParams.Task = &TaskMetadata{TTL: ptr(int64(60000))}
	}
	if stateless {
		callParams.RequestState = "opaque-state"
		callParams.InputResponses, _ = InputResponses(nil).Set("login", ElicitResult{Action: ElicitActionAccept, Content: map[string]any{"name": "octocat"}})
	}

	s := []sample{
		// Requests.
		{name: "initialize", def: "InitializeRequest", kind: kindRequest, method: MethodInitialize,
			value: &InitializeParams{ProtocolVersion: v, Capabilities: clientCaps, ClientInfo: sampleImpl(v)}},
		{name: "ping", def: "PingRequest", kind: kindRequest, method: MethodPing, value: &PingParams{}},
		{name: "tools/list", def: "ListToolsRequest", kind: kindRequest, method: MethodToolsList, value: &ListToolsParams{Meta: rm, Cursor: "c1"}},
		{name: "tools/call", def: "CallToolRequest", kind: kindRequest, method: MethodToolsCall, value: callParams},
		{name: "resources/list", def: "ListResourcesRequest", kind: kindRequest, method: MethodResourcesList, value: &ListResourcesParams{Meta: rm}},
		{name: "resources/templates/list", def: "ListResourceTemplatesRequest", kind: kindRequest, method: MethodResourcesTemplatesList, value: &ListResourceTemplatesParams{Meta: rm}},
		{name: "resources/read", def: "ReadResourceRequest", kind: kindRequest, method: MethodResourcesRead, value: &ReadResourceParams{Meta: rm, URI: "file:///a.txt"}},
		{name: "resources/subscribe", def: "SubscribeRequest", kind: kindRequest, method: MethodResourcesSubscribe, value: &SubscribeParams{Meta: rm, URI: "file:///a.txt"}},
		{name: "resources/unsubscribe", def: "UnsubscribeRequest", kind: kindRequest, method: MethodResourcesUnsubscribe, value: &UnsubscribeParams{Meta: rm, URI: "file:///a.txt"}},
		{name: "prompts/list", def: "ListPromptsRequest", kind: kindRequest, method: MethodPromptsList, value: &ListPromptsParams{Meta: rm, Cursor: "p2"}},
		{name: "prompts/get", def: "GetPromptRequest", kind: kindRequest, method: MethodPromptsGet, value: &GetPromptParams{Meta: rm, Name: "review", Arguments: map[string]string{"code": "x := 1"}}},
		{name: "completion/complete prompt", def: "CompleteRequest", kind: kindRequest, method: MethodCompletionComplete, value: &CompleteParams{Meta: rm,
			Ref: CompleteReference{Type: RefTypePrompt, Name: "review"}, Argument: CompleteArgument{Name: "language", Value: "py"}}},
		{name: "completion/complete resource", def: "CompleteRequest", kind: kindRequest, method: MethodCompletionComplete, value: &CompleteParams{Meta: rm,
			Ref: CompleteReference{Type: RefTypeResource, URI: "file:///{path}"}, Argument: CompleteArgument{Name: "path", Value: "a"},
			Context: &CompleteContext{Arguments: map[string]string{"root": "/"}}}},
		{name: "logging/setLevel", def: "SetLevelRequest", kind: kindRequest, method: MethodLoggingSetLevel, value: &SetLevelParams{Level: LevelWarning}},
		{name: "sampling/createMessage", def: "CreateMessageRequest", kind: kindRequest, method: MethodSamplingCreateMessage, value: createParams},
		{name: "elicitation/create form", def: "ElicitRequest", kind: kindRequest, method: MethodElicitationCreate, value: &ElicitParams{Message: "Your name?", RequestedSchema: formSchema}},
		{name: "roots/list", def: "ListRootsRequest", kind: kindRequest, method: MethodRootsList, value: &ListRootsParams{}},
		{name: "tasks/get", def: "GetTaskRequest", kind: kindRequest, method: MethodTasksGet, value: &GetTaskParams{TaskID: "t-1"}},
		{name: "tasks/result", def: "GetTaskPayloadRequest", kind: kindRequest, method: MethodTasksResult, value: &GetTaskPayloadParams{TaskID: "t-1"}},
		{name: "tasks/cancel", def: "CancelTaskRequest", kind: kindRequest, method: MethodTasksCancel, value: &CancelTaskParams{TaskID: "t-1"}},
		{name: "tasks/list", def: "ListTasksRequest", kind: kindRequest, method: MethodTasksList, value: &ListTasksParams{Cursor: "x"}},
		{name: "server/discover", def: "DiscoverRequest", kind: kindRequest, method: MethodServerDiscover, value: &DiscoverParams{Meta: rm}},
		{name: "subscriptions/listen", def: "SubscriptionsListenRequest", kind: kindRequest, method: MethodSubscriptionsListen, value: &SubscriptionsListenParams{Meta: rm,
			Notifications: SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"file:///a.txt"}}}},

		// Notifications.
		{name: "initialized", def: "InitializedNotification", kind: kindNotification, method: NotificationInitialized, value: &InitializedParams{}},
		{name: "cancelled", def: "CancelledNotification", kind: kindNotification, method: NotificationCancelled, value: &CancelledParams{RequestID: int64(42), Reason: "user"}},
		{name: "cancelled string id", def: "CancelledNotification", kind: kindNotification, method: NotificationCancelled, value: &CancelledParams{RequestID: "req-1"}},
		{name: "progress", def: "ProgressNotification", kind: kindNotification, method: NotificationProgress, value: &ProgressParams{ProgressToken: "tok", Progress: 50, Total: 100, Message: "halfway"}},
		{name: "message", def: "LoggingMessageNotification", kind: kindNotification, method: NotificationMessage, value: &LoggingMessageParams{Level: LevelError, Logger: "db", Data: map[string]any{"err": "boom"}}},
		{name: "resources/updated", def: "ResourceUpdatedNotification", kind: kindNotification, method: NotificationResourcesUpdated, value: &ResourceUpdatedParams{URI: "file:///a.txt"}},
		{name: "resources/list_changed", def: "ResourceListChangedNotification", kind: kindNotification, method: NotificationResourcesListChanged, value: &ListChangedParams{}},
		{name: "tools/list_changed", def: "ToolListChangedNotification", kind: kindNotification, method: NotificationToolsListChanged, value: &ListChangedParams{}},
		{name: "prompts/list_changed", def: "PromptListChangedNotification", kind: kindNotification, method: NotificationPromptsListChanged, value: &ListChangedParams{Meta: Meta{"k": "v"}}},
		{name: "roots/list_changed", def: "RootsListChangedNotification", kind: kindNotification, method: NotificationRootsListChanged, value: &ListChangedParams{}},
		{name: "elicitation/complete", def: "ElicitationCompleteNotification", kind: kindNotification, method: NotificationElicitationComplete, value: &ElicitationCompleteParams{ElicitationID: "e-1"}},
		{name: "tasks/status", def: "TaskStatusNotification", kind: kindNotification, method: NotificationTasksStatus, value: &TaskStatusParams{Task: task}},
		{name: "subscriptions/acknowledged", def: "SubscriptionsAcknowledgedNotification", kind: kindNotification, method: NotificationSubscriptionsAcknowledged,
			value: &SubscriptionsAcknowledgedParams{Meta: Meta{MetaKeySubscriptionID: "listen-1"}, Notifications: SubscriptionFilter{ToolsListChanged: true}}},

		// Results.
		{name: "InitializeResult", def: "InitializeResult", value: &InitializeResult{ProtocolVersion: v, Capabilities: serverCaps, ServerInfo: sampleImpl(v), Instructions: "use tools"}},
		{name: "EmptyResult", def: "EmptyResult", value: &EmptyResult{ResultType: rt}},
		{name: "ListToolsResult", def: "ListToolsResult", value: &ListToolsResult{Tools: []Tool{sampleTool(v), {Name: "bare"}}, NextCursor: "n", ResultType: rt, CacheHint: ch}},
		{name: "ListToolsResult nil", def: "ListToolsResult", value: &ListToolsResult{ResultType: rt, CacheHint: ch}},
		{name: "CallToolResult", def: "CallToolResult", value: callResult.ForVersion(v)},
		{name: "CallToolResult nil content", def: "CallToolResult", value: &CallToolResult{IsError: true, ResultType: rt}},
		{name: "ListResourcesResult", def: "ListResourcesResult", value: &ListResourcesResult{Resources: []Resource{*ptr(sampleResource()).ForVersion(v)}, ResultType: rt, CacheHint: ch}},
		{name: "ListResourcesResult nil", def: "ListResourcesResult", value: &ListResourcesResult{ResultType: rt, CacheHint: ch}},
		{name: "ListResourceTemplatesResult", def: "ListResourceTemplatesResult", value: &ListResourceTemplatesResult{ResourceTemplates: []ResourceTemplate{{
			URITemplate: "file:///{path}", Name: "files", Title: "Files", MimeType: "text/plain", Icons: sampleIcons()}}, ResultType: rt, CacheHint: ch}},
		{name: "ListResourceTemplatesResult nil", def: "ListResourceTemplatesResult", value: &ListResourceTemplatesResult{ResultType: rt, CacheHint: ch}},
		{name: "ReadResourceResult", def: "ReadResourceResult", value: &ReadResourceResult{Contents: []*ResourceContents{
			NewTextResourceContents("file:///a.txt", "text/plain", ""), NewBlobResourceContents("file:///b", "", nil)}, ResultType: rt, CacheHint: ch}},
		{name: "ReadResourceResult nil", def: "ReadResourceResult", value: &ReadResourceResult{ResultType: rt, CacheHint: ch}},
		{name: "ListPromptsResult", def: "ListPromptsResult", value: &ListPromptsResult{Prompts: []Prompt{*(&Prompt{Name: "review", Title: "Review",
			Description: "reviews code", Arguments: []PromptArgument{{Name: "code", Title: "Code", Required: true}}, Icons: sampleIcons()}).ForVersion(v)}, ResultType: rt, CacheHint: ch}},
		{name: "ListPromptsResult nil", def: "ListPromptsResult", value: &ListPromptsResult{ResultType: rt, CacheHint: ch}},
		{name: "GetPromptResult", def: "GetPromptResult", value: (&GetPromptResult{Description: "d", ResultType: rt, Messages: []PromptMessage{
			{Role: RoleUser, Content: NewTextContent("review this")},
			{Role: RoleAssistant, Content: NewAudioContent([]byte{1}, "audio/wav")},
			{Role: RoleUser, Content: content[5]},
			{Role: RoleUser, Content: content[6]},
		}}).ForVersion(v)},
		{name: "GetPromptResult nil", def: "GetPromptResult", value: &GetPromptResult{ResultType: rt}},
		{name: "CompleteResult", def: "CompleteResult", value: &CompleteResult{Completion: Completion{Values: []string{"python", "pytorch"}, Total: ptr(10), HasMore: true}, ResultType: rt}},
		{name: "CompleteResult nil", def: "CompleteResult", value: &CompleteResult{ResultType: rt}},
		{name: "CreateMessageResult", def: "CreateMessageResult", value: &CreateMessageResult{Role: RoleAssistant, Content: SamplingContent{NewTextContent("Paris")}, Model: "m", StopReason: StopReasonEndTurn}},
		{name: "ElicitResult", def: "ElicitResult", value: &ElicitResult{Action: ElicitActionAccept, Content: map[string]any{"name": "octocat", "age": 30, "ok": true}}},
		{name: "ElicitResult decline", def: "ElicitResult", value: &ElicitResult{Action: ElicitActionDecline}},
		{name: "ListRootsResult", def: "ListRootsResult", value: &ListRootsResult{Roots: []Root{{URI: "file:///home/u/p", Name: "p"}}}},
		{name: "ListRootsResult nil", def: "ListRootsResult", value: &ListRootsResult{}},
		{name: "CreateTaskResult", def: "CreateTaskResult", value: &CreateTaskResult{Task: task}},
		{name: "CreateTaskResult unlimited", def: "CreateTaskResult", value: &CreateTaskResult{Task: Task{TaskID: "t", Status: TaskStatusCompleted, CreatedAt: "x", LastUpdatedAt: "y"}}},
		{name: "GetTaskResult", def: "GetTaskResult", value: &GetTaskResult{Task: task}},
		{name: "CancelTaskResult", def: "CancelTaskResult", value: &CancelTaskResult{Task: task, Meta: Meta{"k": "v"}}},
		{name: "ListTasksResult", def: "ListTasksResult", value: &ListTasksResult{Tasks: []Task{task}, NextCursor: "n"}},
		{name: "ListTasksResult nil", def: "ListTasksResult", value: &ListTasksResult{}},
		{name: "DiscoverResult", def: "DiscoverResult", value: &DiscoverResult{ResultType: ResultTypeComplete, SupportedVersions: []string{Version20260728},
			Capabilities: serverCaps, Instructions: "hi", CacheHint: ch, Meta: Meta{MetaKeyServerInfo: &Implementation{Name: "s", Version: "1"}}}},
		{name: "InputRequiredResult", def: "InputRequiredResult", value: &InputRequiredResult{ResultType: ResultTypeInputRequired, RequestState: "s",
			InputRequests: map[string]InputRequest{
				"login":   NewElicitInputRequest(&ElicitParams{Message: "name?", RequestedSchema: formSchema}),
				"sample":  NewCreateMessageInputRequest(&CreateMessageParams{Messages: samplingMsgs[:1], MaxTokens: 10}),
				"roots":   NewListRootsInputRequest(),
				"consent": NewElicitInputRequest(&ElicitParams{Mode: ElicitModeURL, Message: "go", URL: "https://example.com/auth"}),
			}}},
		{name: "SubscriptionsListenResult", def: "SubscriptionsListenResult", value: &SubscriptionsListenResult{ResultType: ResultTypeComplete, Meta: Meta{MetaKeySubscriptionID: "listen-1"}}},

		// Standalone objects.
		{name: "Tool", def: "Tool", value: ptr(sampleTool(v))},
		{name: "Tool empty schema", def: "Tool", value: &Tool{Name: "noargs"}},
		{name: "Implementation", def: "Implementation", value: ptr(sampleImpl(v))},
		{name: "ClientCapabilities", def: "ClientCapabilities", value: &clientCaps},
		{name: "ServerCapabilities", def: "ServerCapabilities", value: &serverCaps},
		{name: "Root", def: "Root", value: &Root{URI: "file:///r", Meta: Meta{"k": "v"}}},
		{name: "ModelPreferences", def: "ModelPreferences", value: createParams.ModelPreferences},
		{name: "PromptMessage", def: "PromptMessage", value: &PromptMessage{Role: RoleUser, Content: NewTextContent("")}},
		{name: "SamplingMessage", def: "SamplingMessage", value: &samplingMsgs[0]},
		{name: "TextResourceContents", def: "TextResourceContents", value: NewTextResourceContents("file:///a", "", "")},
		{name: "BlobResourceContents", def: "BlobResourceContents", value: NewBlobResourceContents("file:///a", "image/png", []byte{1, 2, 3})},
	}

	if HasURLElicitation(v) {
		urlElicit := &ElicitParams{Mode: ElicitModeURL, Message: "Authorize", URL: "https://example.com/auth", ElicitationID: "e-1"}
		if stateless {
			urlElicit.ElicitationID = ""
		}
		s = append(s,
			sample{name: "elicitation/create url", def: "ElicitRequest", kind: kindRequest, method: MethodElicitationCreate, value: urlElicit},
			sample{name: "elicitation/create form explicit", def: "ElicitRequest", kind: kindRequest, method: MethodElicitationCreate,
				value: &ElicitParams{Mode: ElicitModeForm, Message: "m", RequestedSchema: formSchema}},
			sample{name: "ElicitResult multi-select", def: "ElicitResult", value: &ElicitResult{Action: ElicitActionAccept, Content: map[string]any{"colors": []string{"red"}}}},
		)
	}
	if HasSamplingTools(v) {
		s = append(s, sample{name: "CreateMessageResult tool_use", def: "CreateMessageResult", value: &CreateMessageResult{Role: RoleAssistant,
			Content: SamplingContent{NewToolUseContent("c1", "get_weather", json.RawMessage(`{"city":"Paris"}`)), NewToolUseContent("c2", "get_weather", json.RawMessage(`{}`))},
			Model:   "m", StopReason: StopReasonToolUse}})
	}
	for _, c := range content {
		def := map[string]string{ContentTypeText: "TextContent", ContentTypeImage: "ImageContent", ContentTypeAudio: "AudioContent",
			ContentTypeResourceLink: "ResourceLink", ContentTypeResource: "EmbeddedResource"}[c.Type]
		s = append(s, sample{name: "content " + c.Type, def: def, value: c})
	}
	if HasSamplingTools(v) {
		s = append(s,
			sample{name: "content tool_use", def: "ToolUseContent", value: NewToolUseContent("c", "n", nil)},
			sample{name: "content tool_result", def: "ToolResultContent", value: NewToolResultContent("c", nil, true)},
		)
	}
	return s
}

// encodeSample marshals a sample, wrapping requests and notifications in
// their JSON-RPC envelope.
func encodeSample(t testing.TB, s sample) []byte {
	t.Helper()
	params := mustMarshal(t, s.value)
	switch s.kind {
	case kindRequest:
		return mustMarshal(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": s.method, "params": json.RawMessage(params)})
	case kindNotification:
		return mustMarshal(t, map[string]any{"jsonrpc": "2.0", "method": s.method, "params": json.RawMessage(params)})
	}
	return params
}

// TestSamplesValidateAgainstSchemas marshals representative values of every
// type and validates them against each version's schema definition.
func TestSamplesValidateAgainstSchemas(t *testing.T) {
	for _, v := range allVersions {
		t.Run(v, func(t *testing.T) {
			s := loadSchema(t, v)
			validated := 0
			for _, smp := range samples(v) {
				if !s.has(smp.def) {
					continue
				}
				data := encodeSample(t, smp)
				if err := s.validateJSON(t, smp.def, data); err != nil {
					t.Errorf("%s (%s): %v\n%s", smp.name, smp.def, err, data)
				}
				validated++
			}
			if validated < 40 {
				t.Errorf("only %d samples validated for %s", validated, v)
			}
		})
	}
}

// TestAdaptationIsNeeded shows that the ForVersion adapters matter: the
// unadapted values are rejected by the older schemas, the adapted ones pass.
func TestAdaptationIsNeeded(t *testing.T) {
	old := loadSchema(t, Version20241105)
	full := &CallToolResult{Content: allContent(), StructuredContent: map[string]any{"a": 1.0}}
	if err := old.validateJSON(t, "CallToolResult", mustMarshal(t, full)); err == nil {
		t.Fatal("2024-11-05 accepted audio and resource_link blocks")
	}
	adapted := full.ForVersion(Version20241105)
	if err := old.validateJSON(t, "CallToolResult", mustMarshal(t, adapted)); err != nil {
		t.Fatalf("adapted result rejected: %v", err)
	}
	if adapted.StructuredContent != nil {
		t.Error("structuredContent kept for 2024-11-05")
	}
	for _, c := range adapted.Content {
		if c.Type == ContentTypeAudio || c.Type == ContentTypeResourceLink {
			t.Errorf("block of type %s kept for 2024-11-05", c.Type)
		}
	}
	if full.Content[4].Type != ContentTypeAudio {
		t.Error("ForVersion modified the original content")
	}

	s0618 := loadSchema(t, Version20250618)
	toolResult := &CreateMessageResult{Role: RoleAssistant, Model: "m",
		Content: SamplingContent{NewToolUseContent("c", "n", nil)}}
	if err := s0618.validateJSON(t, "CreateMessageResult", mustMarshal(t, toolResult)); err == nil {
		t.Error("2025-06-18 accepted tool_use sampling content")
	}
	stateless := loadSchema(t, Version20260728)
	if err := stateless.validateJSON(t, "CallToolResult", mustMarshal(t, NewToolResultText("x"))); err == nil ||
		!strings.Contains(err.Error(), "resultType") {
		t.Errorf("2026-07-28 accepted a result without resultType: %v", err)
	}
}
