package redisstore_test

import (
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/taskstore"
	"github.com/mcpkit/mcpkit/taskstore/storetest"
)

// TestTaskStoreContract runs the taskstore contract test against Redis, one
// fresh redis-server per subtest.
func TestTaskStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
		return redisstore.NewTaskStore(open(t, redistest.Start(t)), &redisstore.TaskStoreOptions{Now: now})
	})
}
