// Temporary: measures go-redis against rueidis on the store's hot operations.
package clientbench

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/store/redistest"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

const appendLua = `local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return id`

const casLua = `if redis.call('HGET', KEYS[1], 'r') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PUBLISH', KEYS[2], ARGV[2])
return 1`

var msg = []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"abc","progress":3,"total":10}}`)
var rec = []byte(`{"v":1,"id":"task-0123456789abcdef","owner":"alice","method":"tools/call","name":"slow","pv":"2026-07-28","status":"working","created":1785240000000,"updated":1785240000000,"ttl":60000,"poll":1000}`)

type ops struct {
	append func(ctx context.Context, key string) error
	get    func(ctx context.Context, key string) (string, error)
	update func(ctx context.Context, key string) error
	seed   func(ctx context.Context, key string) error
}

func goRedisOps(b *testing.B, addr string) ops {
	c := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	b.Cleanup(func() { c.Close() })
	app := goredis.NewScript(appendLua)
	cas := goredis.NewScript(casLua)
	return ops{
		append: func(ctx context.Context, key string) error {
			return app.Run(ctx, c, []string{key}, 1000, 7200000, msg).Err()
		},
		get: func(ctx context.Context, key string) (string, error) {
			v, err := c.HMGet(ctx, key, "r", "v").Result()
			if err != nil {
				return "", err
			}
			return v[0].(string), nil
		},
		update: func(ctx context.Context, key string) error {
			v, err := c.HMGet(ctx, key, "r", "v").Result()
			if err != nil {
				return err
			}
			r, _ := strconv.ParseUint(v[0].(string), 10, 64)
			return cas.Run(ctx, c, []string{key, key + ":ch"}, r, r+1, rec, 3600000).Err()
		},
		seed: func(ctx context.Context, key string) error {
			return c.HSet(ctx, key, "r", 1, "v", rec).Err()
		},
	}
}

func rueidisOps(b *testing.B, addr string) ops {
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	app := rueidis.NewLuaScript(appendLua)
	cas := rueidis.NewLuaScript(casLua)
	return ops{
		append: func(ctx context.Context, key string) error {
			return app.Exec(ctx, c, []string{key}, []string{"1000", "7200000", rueidis.BinaryString(msg)}).Error()
		},
		get: func(ctx context.Context, key string) (string, error) {
			v, err := c.Do(ctx, c.B().Hmget().Key(key).Field("r", "v").Build()).ToArray()
			if err != nil {
				return "", err
			}
			return v[0].ToString()
		},
		update: func(ctx context.Context, key string) error {
			v, err := c.Do(ctx, c.B().Hmget().Key(key).Field("r", "v").Build()).ToArray()
			if err != nil {
				return err
			}
			rs, _ := v[0].ToString()
			r, _ := strconv.ParseUint(rs, 10, 64)
			return cas.Exec(ctx, c, []string{key, key + ":ch"}, []string{strconv.FormatUint(r, 10), strconv.FormatUint(r+1, 10), rueidis.BinaryString(rec), "3600000"}).Error()
		},
		seed: func(ctx context.Context, key string) error {
			return c.Do(ctx, c.B().Hset().Key(key).FieldValue().FieldValue("r", "1").FieldValue("v", rueidis.BinaryString(rec)).Build()).Error()
		},
	}
}

func BenchmarkClients(b *testing.B) {
	srv := redistest.Start(b)
	for _, lib := range []struct {
		name string
		mk   func(*testing.B, string) ops
	}{{"goredis", goRedisOps}, {"rueidis", rueidisOps}} {
		b.Run(lib.name, func(b *testing.B) {
			o := lib.mk(b, srv.Addr())
			ctx := context.Background()
			for i := range 64 {
				if err := o.seed(ctx, "t:{"+strconv.Itoa(i)+"}"); err != nil {
					b.Fatal(err)
				}
			}
			for _, par := range []int{0, 8} {
				suffix := "serial"
				if par > 0 {
					suffix = "parallel16"
				}
				run := func(name string, f func(ctx context.Context, key string) error, perG bool) {
					b.Run(name+"/"+suffix, func(b *testing.B) {
						b.ReportAllocs()
						if par == 0 {
							for b.Loop() {
								if err := f(ctx, "x:{s}:1"); err != nil {
									b.Fatal(err)
								}
							}
							return
						}
						var g atomic.Int64
						b.SetParallelism(par)
						b.RunParallel(func(pb *testing.PB) {
							n := g.Add(1)
							key := "x:{s" + strconv.FormatInt(n, 10) + "}:1"
							if !perG {
								key = "t:{" + strconv.FormatInt(n%64, 10) + "}"
							}
							for pb.Next() {
								if err := f(ctx, key); err != nil {
									b.Fatal(err)
								}
							}
						})
					})
				}
				run("Append", o.append, true)
				run("TaskGet", func(ctx context.Context, key string) error {
					if key == "x:{s}:1" {
						key = "t:{0}"
					}
					_, err := o.get(ctx, key)
					return err
				}, false)
				run("TaskUpdate", func(ctx context.Context, key string) error {
					if key == "x:{s}:1" {
						key = "t:{0}"
					}
					return o.update(ctx, key)
				}, false)
			}
		})
	}
}
