package mcp

import (
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// statelessMetaPathsAgree reads params with parseStatelessMeta (which tries the
// one-pass fromParams first) and with parseStatelessMetaGeneral: they must
// give the same answer — the same error code or the same declarations.
// It reports whether the one-pass path took the request.
func statelessMetaPathsAgree(t *testing.T, srv *Server, params []byte) (fast bool) {
	t.Helper()
	var one, gen statelessCall
	fast = one.fromParams(params)
	one = statelessCall{}
	errOne := srv.parseStatelessMeta(&one, protocol.MethodResourcesRead, params)
	errGen := srv.parseStatelessMetaGeneral(&gen, protocol.MethodResourcesRead, params)
	if (errOne == nil) != (errGen == nil) || (errOne != nil && errOne.Error() != errGen.Error()) {
		t.Fatalf("%s: parseStatelessMeta %v, general %v", params, errOne, errGen)
	}
	if errOne != nil {
		if fast {
			t.Fatalf("%s: the one-pass path accepted what the general path refuses (%v)", params, errGen)
		}
		return fast
	}
	if one.version != gen.version || one.logLevel != gen.logLevel || one.method != gen.method || one.input != gen.input {
		t.Fatalf("%s: one-pass %q %q %q, general %q %q %q", params, one.version, one.logLevel, one.method, gen.version, gen.logLevel, gen.method)
	}
	if !reflect.DeepEqual(one.caps, gen.caps) {
		t.Fatalf("%s: capabilities\none-pass %#v\ngeneral  %#v", params, one.caps, gen.caps)
	}
	if a, b := (&Request{stateless: &one}).ClientInfo(), (&Request{stateless: &gen}).ClientInfo(); !reflect.DeepEqual(a, b) {
		t.Fatalf("%s: client info\none-pass %#v\ngeneral  %#v", params, a, b)
	}
	return fast
}

// statelessMetaParams are requests of other methods than tools/call, beside
// the tools/call ones of stateless_toolcall_test.go.
var statelessMetaParams = []string{
	`{"uri":"file:///a",` + metaMin + `}`,
	`{` + metaFull + `}`,
	`{"cursor":"c",` + metaFull + `,"uri":{"deep":[1,2,{"x":null}]}}`,
	`{"uri":"x",` + metaMin + `,"extra":tru}`,
	`{"uri":"x",` + metaMin + `,"extra":1e999}`,
	`{"uri":"x",` + metaMin + `,}`,
	`{"uri":"\u00e9",` + metaMin + `}`,
	`{"uri":"x","_Meta":{},` + metaMin + `}`,
}

// TestStatelessMetaPathsAgree checks the one-pass reading of a stateless
// request's _meta against the general one, and that it takes the common
// requests (which is what makes it worth having).
func TestStatelessMetaPathsAgree(t *testing.T) {
	srv := benchEchoServer(t)
	for _, s := range append(append([]string{}, fastToolCalls...), statelessMetaParams[:3]...) {
		if !statelessMetaPathsAgree(t, srv, []byte(s)) {
			t.Errorf("%s: the one-pass path declined a common request", s)
		}
	}
	for _, s := range append(append([]string{}, otherToolCalls...), statelessMetaParams[3:]...) {
		statelessMetaPathsAgree(t, srv, []byte(s))
	}
}

func FuzzStatelessMetaPaths(f *testing.F) {
	for _, s := range append(append(append([]string{}, fastToolCalls...), otherToolCalls...), statelessMetaParams...) {
		f.Add([]byte(s))
	}
	srv := benchEchoServer(f)
	f.Fuzz(func(t *testing.T, params []byte) {
		statelessMetaPathsAgree(t, srv, params)
	})
}
