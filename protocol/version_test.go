package protocol

import (
	"slices"
	"testing"
)

func TestVersionRegistry(t *testing.T) {
	if !slices.Equal(SupportedVersions()[1:], LegacyVersions()) || SupportedVersions()[0] != Latest || LegacyVersions()[0] != LatestLegacy {
		t.Errorf("registry inconsistent: %v %v", SupportedVersions(), LegacyVersions())
	}
	for i := 1; i < len(SupportedVersions()); i++ {
		if Compare(SupportedVersions()[i-1], SupportedVersions()[i]) != 1 || Compare(SupportedVersions()[i], SupportedVersions()[i-1]) != -1 {
			t.Errorf("not newest first at %d", i)
		}
	}
	for _, v := range allVersions {
		if !IsSupported(v) || Compare(v, v) != 0 {
			t.Errorf("%s not supported", v)
		}
		if IsLegacy(v) == IsStateless(v) {
			t.Errorf("%s: legacy %v stateless %v", v, IsLegacy(v), IsStateless(v))
		}
	}
	for _, v := range []string{"", "2024-10-07", "2099-01-01", "latest"} {
		if IsSupported(v) || IsLegacy(v) || IsStateless(v) || HasAudio(v) || HasTitle(v) || Compare(v, Version20241105) != -1 {
			t.Errorf("unknown version %q treated as known", v)
		}
	}
}

func TestNegotiate(t *testing.T) {
	cases := map[string]string{
		Version20241105: Version20241105,
		Version20250326: Version20250326,
		Version20250618: Version20250618,
		Version20251125: Version20251125,
		Version20260728: LatestLegacy, // initialize never negotiates the stateless version
		"2099-01-01":    LatestLegacy,
		"":              LatestLegacy,
	}
	for in, want := range cases {
		if got := Negotiate(in); got != want {
			t.Errorf("Negotiate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestVersionOnlyPredicates(t *testing.T) {
	// Predicates the schemas cannot show (transport-level features).
	want := map[string]bool{Version20241105: false, Version20250326: false, Version20250618: true, Version20251125: true, Version20260728: true}
	for v, w := range want {
		if HasProtocolVersionHeader(v) != w {
			t.Errorf("HasProtocolVersionHeader(%s) = %v", v, !w)
		}
	}
}

func TestLoggingLevelOrder(t *testing.T) {
	order := []LoggingLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}
	for i, l := range order {
		if l.Severity() != i || !l.IsValid() {
			t.Errorf("%s severity %d", l, l.Severity())
		}
	}
	if LoggingLevel("verbose").IsValid() || LoggingLevel("verbose").Severity() != -1 {
		t.Error("unknown level valid")
	}
	if !LevelWarning.Enabled(LevelError) || LevelWarning.Enabled(LevelInfo) || !LevelWarning.Enabled(LevelWarning) {
		t.Error("Enabled threshold wrong")
	}
	if LoggingLevel("bogus").Enabled(LevelEmergency) {
		t.Error("unknown threshold lets messages through")
	}
	// The schema's enum holds exactly these eight levels.
	for _, v := range allVersions {
		enum, _ := loadSchema(t, v).def("LoggingLevel")["enum"].([]any)
		if len(enum) != len(order) {
			t.Fatalf("%s: enum %v", v, enum)
		}
		for _, e := range enum {
			if !LoggingLevel(e.(string)).IsValid() {
				t.Errorf("%s: schema level %v unknown", v, e)
			}
		}
	}
}

func TestTaskStatusTerminal(t *testing.T) {
	for s, want := range map[TaskStatus]bool{TaskStatusWorking: false, TaskStatusInputRequired: false,
		TaskStatusCompleted: true, TaskStatusFailed: true, TaskStatusCancelled: true} {
		if s.IsTerminal() != want {
			t.Errorf("%s terminal = %v", s, !want)
		}
	}
	enum, _ := loadSchema(t, Version20251125).def("TaskStatus")["enum"].([]any)
	if len(enum) != 5 {
		t.Errorf("schema TaskStatus enum %v", enum)
	}
}

// TestVersionListsAreCopies: a caller changing the list it got does not change
// what the next caller gets.
func TestVersionListsAreCopies(t *testing.T) {
	LegacyVersions()[0] = "x"
	SupportedVersions()[0] = "x"
	if LegacyVersions()[0] != LatestLegacy || SupportedVersions()[0] != Latest {
		t.Errorf("the version lists changed: %v %v", LegacyVersions(), SupportedVersions())
	}
}
