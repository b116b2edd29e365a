package timeline

import (
	"errors"
	"regexp"
	"strings"

	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// schemaChecks validates messages against the official schemas (package
// internal/wirecheck): one checker per session, seen from the client, so that each
// learns its session's version from initialize or a stateless request's _meta.
type schemaChecks struct {
	bySession map[string]*wirecheck.Checker
	failed    bool // the schemas could not be loaded: checks are off
}

func newSchemaChecks() *schemaChecks {
	return &schemaChecks{bySession: map[string]*wirecheck.Checker{}}
}

// checker returns the checker of r's session. A session's first reply (recorded
// under the session id the server just gave) continues the checker of the
// connection its initialize came on.
func (m *Model) checker(r *capture.Record) *wirecheck.Checker {
	sc := m.schema
	if c := sc.bySession[r.Session]; c != nil {
		return c
	}
	if r.HTTP != nil {
		if id, ok := m.byExch[r.HTTP.Exchange]; ok {
			if pos, ok := m.index[id]; ok {
				if c := sc.bySession[m.entries[pos-m.first].Record.Session]; c != nil {
					sc.bySession[r.Session] = c
					return c
				}
			}
		}
	}
	c, err := wirecheck.NewChecker(wirecheck.Client)
	if err != nil {
		sc.failed = true
		return nil
	}
	sc.bySession[r.Session] = c
	return c
}

// checkSchema validates the message of r (the record being added) and gives its
// violations to the entry that holds it.
func (m *Model) checkSchema(r *capture.Record) {
	if m.schema.failed || r.Invalid || len(r.Msg) == 0 || !m.touchedOK {
		return
	}
	c := m.checker(r)
	if c == nil {
		return
	}
	dir := wirecheck.Outgoing
	if r.Dir == capture.ServerToClient {
		dir = wirecheck.Incoming
	}
	err := c.Check(dir, r.Msg)
	if err == nil {
		return
	}
	var found []string
	for _, e := range flatten(err) {
		found = append(found, describe(e))
	}
	m.update(m.touched, func(e *Entry) {
		e.Violations = append(e.Violations[:len(e.Violations):len(e.Violations)], found...)
	})
}

// flatten returns the errors errors.Join put together.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// describe is a violation in one line: who sent what, against which definition,
// and why.
func describe(err error) string {
	var v *wirecheck.Violation
	if !errors.As(err, &v) {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(v.Version + " " + v.Sender.String())
	if v.Method != "" {
		b.WriteString(" " + v.Method)
	}
	if v.Definition != "" {
		b.WriteString(" " + v.Definition)
	}
	why := cleanSchemaText(strings.Join(strings.Fields(v.Err.Error()), " "))
	if len(why) > 300 {
		why = why[:300] + "…"
	}
	b.WriteString(": " + why)
	return b.String()
}

var (
	// schemaPreamble is the validator's opening, naming the definition by the
	// internal URI of the embedded schema: the violation says it already.
	schemaPreamble = regexp.MustCompile(`jsonschema validation failed with '[^']*'( - )?`)
	// schemaURI is what remains of such a URI elsewhere: a reference becomes
	// the definition's name.
	schemaURI = regexp.MustCompile(`(embed|file):///[^'#\s]*#/\$defs/`)
)

// cleanSchemaText drops the embedded schemas' internal URIs from a validator's
// message.
func cleanSchemaText(s string) string {
	s = schemaPreamble.ReplaceAllString(s, "")
	return schemaURI.ReplaceAllString(s, "")
}
