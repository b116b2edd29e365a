package redisstore_test

import (
	"testing"

	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/storetest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// TestEventStoreContract runs the EventStore contract against Redis; each
// "replica" is a store on its own client (its own connections).
func TestEventStoreContract(t *testing.T) { eventStoreContract(t, newRedis) }

// eventStoreContract runs the EventStore contract on a Redis from redis, one
// per subtest.
func eventStoreContract(t *testing.T, redis func(testing.TB) clients) {
	var replica clients
	var limits *redisstore.EventStoreOptions
	storetest.RunEventStore(t, storetest.EventStores{
		New: func(t *testing.T, l storetest.Limits) streamable.EventStore {
			replica = redis(t)
			limits = &redisstore.EventStoreOptions{MaxEventsPerStream: l.MaxEventsPerStream, MaxStreamsPerSession: l.MaxStreamsPerSession}
			return redisstore.NewEventStore(replica(t), limits)
		},
		Replica: func(t *testing.T) streamable.EventStore {
			return redisstore.NewEventStore(replica(t), limits)
		},
		TrimSlack: 100, // stream-node-max-entries, the granularity of MAXLEN ~
	})
}
