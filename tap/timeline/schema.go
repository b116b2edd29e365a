package timeline

import "github.com/mcpkit/mcpkit/tap/capture"

// schemaChecks validates messages against the official schemas, one checker per
// session.
type schemaChecks struct{}

func newSchemaChecks() *schemaChecks { return &schemaChecks{} }

// checkSchema validates the messages of r (the record just added).
func (m *Model) checkSchema(r *capture.Record) { _ = r }
