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

// saved is a conversation on disk: what the model saw, and what the page
// showed (its events, without the views and approvals, which do not outlive
// the process).
type saved struct {
	Version  int               `json:"version"`
	Messages []llm.Message     `json:"messages"`
	Events   []json.RawMessage `json:"events"`
}

// load goes on from the conversation saved in opts.SessionFile, if any.
func (s *Server) load() error {
	if s.opts.SessionFile == "" {
		return nil
	}
	data, err := safefile.ReadOwn(s.opts.SessionFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(data) > maxSession {
		return fmt.Errorf("%s: a saved conversation of more than %d bytes", s.opts.SessionFile, maxSession)
	}
	var sv saved
	if err := json.Unmarshal(data, &sv); err != nil {
		return fmt.Errorf("%s: %w", s.opts.SessionFile, err)
	}
	if sv.Version != 1 {
		return fmt.Errorf("%s: version %d, want 1", s.opts.SessionFile, sv.Version)
	}
	s.agent.Resume(sv.Messages)
	for _, e := range sv.Events {
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(e, &ev) != nil || ev.Type == "view" || ev.Type == "approve" {
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
	sv := saved{Version: 1, Messages: s.agent.Messages(), Events: make([]json.RawMessage, len(evs))}
	for i, e := range evs {
		sv.Events[i] = e
	}
	data, err := json.Marshal(sv)
	if err != nil {
		return err
	}
	return safefile.WriteOwn(s.opts.SessionFile, data, 0o600)
}
