package redisstore_test

import (
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/taskstore"
	"github.com/mcpkit/mcpkit/taskstore/storetest"
)

// TestTaskStoreContract runs the taskstore contract test against Redis, one
// fresh redis-server per subtest.
func TestTaskStoreContract(t *testing.T) { taskStoreContract(t, newRedis) }

// taskStoreContract runs the taskstore contract on a Redis from redis, one
// per subtest.
func taskStoreContract(t *testing.T, redis func(testing.TB) clients) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) taskstore.Store {
		return redisstore.NewTaskStore(redis(t)(t), &redisstore.TaskStoreOptions{Now: now})
	})
}
