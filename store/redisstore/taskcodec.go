package redisstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/taskstore"
)

// taskFormat is the version of the stored record format. A record of another
// version is reported as corrupt, not guessed at.
const taskFormat = 1

// wireTask is how a taskstore.Record is stored (field "v" of the task's hash;
// the revision is field "r", so that Lua can compare it without decoding).
// Times are Unix nanoseconds and durations nanoseconds, so they round-trip
// exactly.
type wireTask struct {
	Format         int                              `json:"f"`
	ID             string                           `json:"id"`
	Owner          string                           `json:"owner"`
	Method         string                           `json:"method,omitempty"`
	Name           string                           `json:"name,omitempty"`
	Version        string                           `json:"pv,omitempty"`
	Status         protocol.TaskStatus              `json:"status"`
	StatusMessage  string                           `json:"msg,omitempty"`
	Created        int64                            `json:"created"`
	Updated        int64                            `json:"updated"`
	TTL            int64                            `json:"ttl,omitempty"`
	Poll           int64                            `json:"poll,omitempty"`
	Result         json.RawMessage                  `json:"result,omitempty"`
	Error          *jsonrpc.Error                   `json:"error,omitempty"`
	InputRequests  map[string]protocol.InputRequest `json:"inReq,omitempty"`
	InputResponses protocol.InputResponses          `json:"inResp,omitempty"`
}

// encodeTask returns the stored form of rec (without its revision).
func encodeTask(rec *taskstore.Record) ([]byte, error) {
	w := wireTask{
		Format: taskFormat, ID: rec.ID, Owner: rec.Owner, Method: rec.Method, Name: rec.Name,
		Version: rec.ProtocolVersion, Status: rec.Status, StatusMessage: rec.StatusMessage,
		Created: unixNano(rec.CreatedAt), Updated: unixNano(rec.UpdatedAt),
		TTL: int64(rec.TTL), Poll: int64(rec.PollInterval), Result: rec.Result, Error: rec.Error,
		InputRequests: rec.InputRequests, InputResponses: rec.InputResponses,
	}
	b, err := json.Marshal(&w)
	if err != nil {
		return nil, fmt.Errorf("redisstore: encoding task %q: %w", rec.ID, err)
	}
	return b, nil
}

// unixNano is t in Unix nanoseconds, 0 for the zero time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromUnixNano(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// errBadTask describes why a stored task did not decode.
var errBadTask = errors.New("not a task record")

// decodeTask reads a stored task: rev is field "r", data field "v". It returns
// an error wrapping errBadTask for anything encodeTask did not produce.
func decodeTask(rev string, data []byte) (*taskstore.Record, error) {
	n, err := strconv.ParseUint(rev, 10, 64)
	if err != nil || n == 0 || strconv.FormatUint(n, 10) != rev {
		return nil, fmt.Errorf("%w: revision %q", errBadTask, truncate(rev))
	}
	var w wireTask
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadTask, err)
	}
	switch {
	case w.Format != taskFormat:
		return nil, fmt.Errorf("%w: format %d, this version reads %d", errBadTask, w.Format, taskFormat)
	case w.ID == "":
		return nil, fmt.Errorf("%w: no id", errBadTask)
	case !knownStatus(w.Status):
		return nil, fmt.Errorf("%w: status %q", errBadTask, truncate(string(w.Status)))
	case w.TTL < 0 || w.Poll < 0:
		return nil, fmt.Errorf("%w: negative duration", errBadTask)
	case w.Result != nil && !json.Valid(w.Result):
		return nil, fmt.Errorf("%w: result is not JSON", errBadTask)
	}
	for k, r := range w.InputRequests {
		// Decoding is lenient where encoding is not: keep only what encodes.
		if _, err := r.MarshalJSON(); err != nil {
			return nil, fmt.Errorf("%w: input request %q: %v", errBadTask, truncate(k), err)
		}
	}
	return &taskstore.Record{
		ID: w.ID, Owner: w.Owner, Method: w.Method, Name: w.Name, ProtocolVersion: w.Version,
		Status: w.Status, StatusMessage: w.StatusMessage,
		CreatedAt: fromUnixNano(w.Created), UpdatedAt: fromUnixNano(w.Updated),
		TTL: time.Duration(w.TTL), PollInterval: time.Duration(w.Poll),
		Result: w.Result, Error: w.Error,
		InputRequests: w.InputRequests, InputResponses: w.InputResponses,
		Revision: n,
	}, nil
}

func knownStatus(s protocol.TaskStatus) bool {
	switch s {
	case protocol.TaskStatusWorking, protocol.TaskStatusInputRequired,
		protocol.TaskStatusCompleted, protocol.TaskStatusFailed, protocol.TaskStatusCancelled:
		return true
	}
	return false
}

// truncate shortens what goes into an error message from a stored value.
func truncate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
