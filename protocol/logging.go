package protocol

// LoggingLevel is a syslog (RFC 5424) severity.
type LoggingLevel string

// Logging levels, from least to most severe.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

// Severity orders levels: debug is 0, emergency 7; an unknown level is -1.
// A message at level m passes a threshold t when m.Severity() >= t.Severity().
func (l LoggingLevel) Severity() int {
	switch l {
	case LevelDebug:
		return 0
	case LevelInfo:
		return 1
	case LevelNotice:
		return 2
	case LevelWarning:
		return 3
	case LevelError:
		return 4
	case LevelCritical:
		return 5
	case LevelAlert:
		return 6
	case LevelEmergency:
		return 7
	}
	return -1
}

// IsValid reports whether l is one of the eight defined levels.
func (l LoggingLevel) IsValid() bool { return l.Severity() >= 0 }

// Enabled reports whether a message at level msg passes the threshold l. An
// unknown threshold lets nothing through.
func (l LoggingLevel) Enabled(msg LoggingLevel) bool {
	t := l.Severity()
	return t >= 0 && msg.Severity() >= t
}

// SetLevelParams are the params of logging/setLevel (legacy versions;
// 2026-07-28 sends the level in each request's _meta).
type SetLevelParams struct {
	// Meta is the request's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Level is the minimum level the client wants to receive.
	Level LoggingLevel `json:"level"`
}

// LoggingMessageParams are the params of notifications/message.
type LoggingMessageParams struct {
	// Meta is the notification's _meta object.
	Meta Meta `json:"_meta,omitempty"`
	// Level is the message's severity.
	Level LoggingLevel `json:"level"`
	// Logger names the logger that produced the message.
	Logger string `json:"logger,omitempty"`
	// Data is the message: any JSON value (a string or an object is usual).
	Data any `json:"data"`
}
