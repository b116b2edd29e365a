package requeststate_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpkit/mcpkit/requeststate"
)

// A tools/call handler asks for confirmation, seals its progress into
// requestState, and opens it again on the client's retry, possibly on another
// replica built from the same keys.
func ExampleKeyring_Seal() {
	// In production the string comes from a secret store, e.g. an env var:
	// "k2026b:<base64>,k2026a:<base64>" (the first key seals).
	key, err := requeststate.GenerateKey()
	if err != nil {
		fmt.Println(err)
		return
	}
	config := requeststate.FormatKeys(key)
	replicaA, _ := requeststate.ParseKeyring(config)
	replicaB, _ := requeststate.ParseKeyring(config)

	// First call: tools/call "delete_repo" {"repo":"demo"} by alice.
	first, _ := requeststate.NewBinding("tools/call", "delete_repo", []byte(`{"repo":"demo"}`), "alice")
	state, err := replicaA.Seal(first, []byte(`{"step":"awaiting-confirmation"}`), 5*time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}

	// The retry carries the same call (formatted differently) and the state.
	retry, _ := requeststate.NewBinding("tools/call", "delete_repo", []byte(`{ "repo" : "demo" }`), "alice")
	progress, err := replicaB.Open(retry, state)
	fmt.Println(string(progress), err)

	// The same state presented by another principal is refused.
	mallory, _ := requeststate.NewBinding("tools/call", "delete_repo", []byte(`{"repo":"demo"}`), "mallory")
	_, err = replicaB.Open(mallory, state)
	fmt.Println(errors.Is(err, requeststate.ErrMismatch), errors.Is(err, requeststate.ErrInvalidState))
	// Output:
	// {"step":"awaiting-confirmation"} <nil>
	// true true
}

// Keys print without their secrets, so they are safe in logs.
func ExampleKey() {
	key := requeststate.Key{ID: "k2026a", Secret: make([]byte, requeststate.SecretSize)}
	fmt.Println(key)
	fmt.Printf("%#v\n", key)
	// Output:
	// Key{ID:k2026a Secret:[redacted]}
	// requeststate.Key{ID:"k2026a", Secret:[redacted]}
}
