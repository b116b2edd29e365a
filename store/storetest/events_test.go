package storetest_test

import (
	"testing"

	"github.com/mcpkit/mcpkit/store/storetest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// TestMemoryEventStoreContract runs the EventStore contract against the SDK's
// in-memory store: the reference every shared store is held to.
func TestMemoryEventStoreContract(t *testing.T) {
	var last streamable.EventStore
	storetest.RunEventStore(t, storetest.EventStores{
		New: func(t *testing.T, l storetest.Limits) streamable.EventStore {
			last = streamable.NewMemoryEventStore(&streamable.MemoryEventStoreOptions{
				MaxEventsPerStream: l.MaxEventsPerStream, MaxStreamsPerSession: l.MaxStreamsPerSession,
			})
			return last
		},
		Replica: func(*testing.T) streamable.EventStore { return last },
	})
}
