package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/mcpkit/mcpkit/internal/safefile"
	"github.com/mcpkit/mcpkit/llm"
)

// maxSession bounds a saved conversation read back.
const maxSession = 64 << 20

// SavedSession is a conversation on disk: what the model saw, and what the
// page showed (its events, without the views and approvals, which do not
// outlive the process).
type SavedSession struct {
	// Version is 1.
	Version int `json:"version"`
	// Messages is the conversation (host.Agent.Messages).
	Messages []llm.Message `json:"messages"`
	// Events is what the page shows of it, in the page's event format.
	Events []json.RawMessage `json:"events"`
}

// ReadSession reads a conversation saved in file by either host (`mcpkit
// host --web` or the terminal host: one format, so that each goes on from
// the other's); nil, nil when the file does not exist.
func ReadSession(file string) (*SavedSession, error) {
	data, err := safefile.ReadOwn(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(data) > maxSession {
		return nil, fmt.Errorf("%s: a saved conversation of more than %d bytes", file, maxSession)
	}
	var sv SavedSession
	if err := json.Unmarshal(data, &sv); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if sv.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", file, sv.Version)
	}
	return &sv, nil
}

// WriteSession saves sv in file (not following a planted symlink), readable
// by its owner only.
func WriteSession(file string, sv *SavedSession) error {
	sv.Version = 1
	data, err := json.Marshal(sv)
	if err != nil {
		return err
	}
	return safefile.WriteOwn(file, data, 0o600)
}

// AddTurn adds a turn made outside the page (the terminal host's) to sv's
// events, as the page shows them: the user's message and the resources
// attached to it (server uri), the answer, the requests and tokens.
func (sv *SavedSession) AddTurn(user string, attached []string, answer string, steps int, u llm.Usage) {
	for _, ev := range []event{{Type: "user", Text: user, Attached: attached}, {Type: "text", Text: answer}, {Type: "turn", Text: answer, Step: steps, Usage: usageOf(u)}} {
		if ev.Type == "text" && ev.Text == "" {
			continue
		}
		if data, err := json.Marshal(ev); err == nil {
			sv.Events = append(sv.Events, data)
		}
	}
}

// load goes on from the conversation saved in opts.SessionFile, if any.
func (s *Server) load() error {
	if s.opts.SessionFile == "" {
		return nil
	}
	sv, err := ReadSession(s.opts.SessionFile)
	if err != nil || sv == nil {
		return err
	}
	s.agent.Resume(sv.Messages)
	for _, e := range sv.Events {
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(e, &ev) != nil || ev.Type == "view" || ev.Type == "approve" || ev.Type == "args" {
			continue
		}
		s.hub.history = append(s.hub.history, e)
	}
	return nil
}

// save writes the conversation to opts.SessionFile (after a turn).
func (s *Server) save() error {
	if s.opts.SessionFile == "" {
		return nil
	}
	evs, _, _ := s.hub.since(0)
	sv := &SavedSession{Messages: s.agent.Messages(), Events: make([]json.RawMessage, len(evs))}
	for i, e := range evs {
		sv.Events[i] = e
	}
	return WriteSession(s.opts.SessionFile, sv)
}
