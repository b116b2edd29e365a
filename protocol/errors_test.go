package protocol

import "testing"

// TestErrorDataValidates wraps each typed error data in a JSON-RPC error
// response and validates it against the schema's error definition.
func TestErrorDataValidates(t *testing.T) {
	cases := []struct {
		version, def string
		code         int
		data         any
	}{
		{Version20251125, "URLElicitationRequiredError", CodeURLElicitationRequired, URLElicitationRequiredData{Elicitations: []ElicitParams{
			{Mode: ElicitModeURL, Message: "Authorize", URL: "https://example.com/auth", ElicitationID: "e-1"}}}},
		{Version20251125, "URLElicitationRequiredError", CodeURLElicitationRequired, URLElicitationRequiredData{}},
		{Version20260728, "MissingRequiredClientCapabilityError", CodeMissingClientCapability, MissingClientCapabilityData{
			RequiredCapabilities: ClientCapabilities{Elicitation: &ElicitationCapability{}}}},
		{Version20260728, "UnsupportedProtocolVersionError", CodeUnsupportedProtocolVersion, UnsupportedProtocolVersionData{
			Requested: "2099-01-01", Supported: SupportedVersions()}},
		{Version20260728, "UnsupportedProtocolVersionError", CodeUnsupportedProtocolVersion, UnsupportedProtocolVersionData{Requested: "x"}},
		{Version20260728, "HeaderMismatchError", CodeHeaderMismatch, nil},
	}
	for _, c := range cases {
		s := loadSchema(t, c.version)
		e := map[string]any{"code": c.code, "message": "m"}
		if c.data != nil {
			e["data"] = c.data
		}
		data := mustMarshal(t, map[string]any{"jsonrpc": "2.0", "id": 1, "error": e})
		if err := s.validateJSON(t, c.def, data); err != nil {
			t.Errorf("%s: %v\n%s", c.def, err, data)
		}
		// The code constant is the one the schema pins.
		bad := mustMarshal(t, map[string]any{"jsonrpc": "2.0", "id": 1, "error": map[string]any{"code": c.code + 1, "message": "m", "data": c.data}})
		if err := s.validateJSON(t, c.def, bad); err == nil {
			t.Errorf("%s accepted code %d", c.def, c.code+1)
		}
	}
}
