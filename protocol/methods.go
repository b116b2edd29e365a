package protocol

// Request method names.
const (
	// MethodInitialize starts a legacy session.
	MethodInitialize = "initialize"
	// MethodPing checks that the peer is alive (legacy versions).
	MethodPing = "ping"
	// MethodToolsList lists tools.
	MethodToolsList = "tools/list"
	// MethodToolsCall calls a tool.
	MethodToolsCall = "tools/call"
	// MethodResourcesList lists resources.
	MethodResourcesList = "resources/list"
	// MethodResourcesTemplatesList lists resource templates.
	MethodResourcesTemplatesList = "resources/templates/list"
	// MethodResourcesRead reads a resource.
	MethodResourcesRead = "resources/read"
	// MethodResourcesSubscribe subscribes to a resource's updates (legacy
	// versions).
	MethodResourcesSubscribe = "resources/subscribe"
	// MethodResourcesUnsubscribe cancels a subscription (legacy versions).
	MethodResourcesUnsubscribe = "resources/unsubscribe"
	// MethodPromptsList lists prompts.
	MethodPromptsList = "prompts/list"
	// MethodPromptsGet gets a prompt.
	MethodPromptsGet = "prompts/get"
	// MethodCompletionComplete asks for argument completions.
	MethodCompletionComplete = "completion/complete"
	// MethodLoggingSetLevel sets the log level (legacy versions).
	MethodLoggingSetLevel = "logging/setLevel"
	// MethodSamplingCreateMessage asks the client to sample an LLM.
	MethodSamplingCreateMessage = "sampling/createMessage"
	// MethodElicitationCreate asks the client to elicit user input. Added in
	// 2025-06-18.
	MethodElicitationCreate = "elicitation/create"
	// MethodRootsList asks the client for its roots.
	MethodRootsList = "roots/list"
	// MethodTasksGet polls a task's status. Added in 2025-11-25.
	MethodTasksGet = "tasks/get"
	// MethodTasksResult fetches a finished task's result. Added in
	// 2025-11-25.
	MethodTasksResult = "tasks/result"
	// MethodTasksCancel cancels a task. Added in 2025-11-25.
	MethodTasksCancel = "tasks/cancel"
	// MethodTasksList lists tasks. Added in 2025-11-25.
	MethodTasksList = "tasks/list"
	// MethodServerDiscover asks a stateless server for its versions and
	// capabilities. Added in 2026-07-28.
	MethodServerDiscover = "server/discover"
	// MethodSubscriptionsListen opens a notification stream. Added in
	// 2026-07-28.
	MethodSubscriptionsListen = "subscriptions/listen"
)

// Notification method names.
const (
	// NotificationInitialized ends the legacy handshake.
	NotificationInitialized = "notifications/initialized"
	// NotificationCancelled cancels an in-flight request.
	NotificationCancelled = "notifications/cancelled"
	// NotificationProgress reports progress on a request.
	NotificationProgress = "notifications/progress"
	// NotificationMessage carries a log message.
	NotificationMessage = "notifications/message"
	// NotificationResourcesUpdated says a subscribed resource changed.
	NotificationResourcesUpdated = "notifications/resources/updated"
	// NotificationResourcesListChanged says the resource list changed.
	NotificationResourcesListChanged = "notifications/resources/list_changed"
	// NotificationToolsListChanged says the tool list changed.
	NotificationToolsListChanged = "notifications/tools/list_changed"
	// NotificationPromptsListChanged says the prompt list changed.
	NotificationPromptsListChanged = "notifications/prompts/list_changed"
	// NotificationRootsListChanged says the client's roots changed (legacy
	// versions).
	NotificationRootsListChanged = "notifications/roots/list_changed"
	// NotificationElicitationComplete says a URL-mode elicitation finished.
	// Added in 2025-11-25.
	NotificationElicitationComplete = "notifications/elicitation/complete"
	// NotificationTasksStatus reports a task's status. Added in 2025-11-25.
	NotificationTasksStatus = "notifications/tasks/status"
	// NotificationSubscriptionsAcknowledged confirms a subscriptions/listen
	// stream. Added in 2026-07-28.
	NotificationSubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)
