package redisstore

import (
	"log/slog"
	"sync/atomic"
	"time"
)

// junkWarner logs the messages a subscription ignores (another program's, or
// a hostile one's, on the same channel) at most once a minute, with how many
// were ignored since the last line: a flood of garbage must not become a
// flood of log lines. The zero value is ready.
type junkWarner struct {
	last    atomic.Int64 // UnixNano of the last line
	ignored atomic.Int64 // since the last line
}

// junkEvery is how often a junkWarner may log.
const junkEvery = time.Minute

// ignore counts one ignored message and logs msg with the count and args
// (the error of this one) when the last line is old enough.
func (w *junkWarner) ignore(log *slog.Logger, msg string, args ...any) {
	n := w.ignored.Add(1)
	now := time.Now().UnixNano()
	last := w.last.Load()
	if last != 0 && now-last < int64(junkEvery) || !w.last.CompareAndSwap(last, now) {
		return
	}
	w.ignored.Add(-n)
	log.Warn(msg+" (logged at most once a minute)", append(args, "ignored", n)...)
}
