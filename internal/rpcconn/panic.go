package rpcconn

import (
	"log/slog"
	"runtime"
	"strconv"
	"strings"
)

// maxStackFrames is how many frames of a panicking goroutine StackAttr logs.
const maxStackFrames = 48

// StackAttr returns the stack of the goroutine that panicked, for a log line
// written by the function that recovered: an attribute "stack" grouping one
// attribute per frame ("0", "1", ...: "function file:line"), the panicking
// function first, the runtime's panic machinery and the recovering code
// left out. Each frame is its own value, so a text log shows the stack
// readably on the record's one line and a JSON log as an object. Call it
// from the deferred function that called recover.
func StackAttr() slog.Attr {
	pcs := make([]uintptr, maxStackFrames+16)
	n := runtime.Callers(2, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var attrs []slog.Attr
	afterPanic := false // frames before runtime.gopanic are the recovering code's
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			afterPanic = true
		case afterPanic && (len(attrs) > 0 || !strings.HasPrefix(f.Function, "runtime.")):
			if len(attrs) == maxStackFrames {
				attrs = append(attrs, slog.String(strconv.Itoa(len(attrs)), "..."))
				more = false
				break
			}
			attrs = append(attrs, slog.String(strconv.Itoa(len(attrs)), f.Function+" "+f.File+":"+strconv.Itoa(f.Line)))
		}
		if !more {
			break
		}
	}
	return slog.Attr{Key: "stack", Value: slog.GroupValue(attrs...)}
}
