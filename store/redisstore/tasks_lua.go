package redisstore

import "github.com/redis/rueidis"

// The task store's Lua scripts. Those on a task's hash touch only that key (its
// slot); those on an owner's index touch only the owner's four keys, which
// share the owner's hash tag:
//
//	KEYS[1] all  ZSET  task id scored by creation number (List order, cursors)
//	KEYS[2] exp  ZSET  task id scored by expiry, Unix ms of the store's clock
//	KEYS[3] live SET   ids of the tasks that are not final (the Create limit)
//	KEYS[4] seq  STRING the owner's creation counter
//
// and take ARGV[1] = now (ms, the store's clock) and ARGV[2] = grace (ms).
// prune drops the expired tasks from the index; keepalive makes the index
// expire with the owner's last task (never while a task has no TTL) and
// deletes it when it is empty.
const ownerLuaPrelude = `
local now, grace = tonumber(ARGV[1]), tonumber(ARGV[2])
local function prune()
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
  for _, g in ipairs(gone) do
    redis.call('ZREM', KEYS[1], g)
    redis.call('SREM', KEYS[3], g)
  end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now) end
end
local function keepalive()
  local n = redis.call('ZCARD', KEYS[1])
  if n == 0 then
    redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
  elseif n == redis.call('ZCARD', KEYS[2]) then
    local top = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
    local ms = math.max(math.floor(tonumber(top[2]) - now + grace), 1)
    for i = 1, 4 do redis.call('PEXPIRE', KEYS[i], ms) end
  else
    for i = 1, 4 do redis.call('PERSIST', KEYS[i]) end
  end
end
prune()
`

// reserveScript enters a new task in its owner's index, unless the index has
// it already (reply {1}) or the owner is at the limit of unfinished tasks
// (reply {2}); otherwise the reply is {0, creation number}.
//
//	ARGV[3] id, ARGV[4] limit (0: none), ARGV[5] "1" if the task is not
//	final, ARGV[6] expiry ms or ""
var reserveScript = rueidis.NewLuaScript(ownerLuaPrelude + `
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then return {1, 0} end
local limit = tonumber(ARGV[4])
if limit > 0 and redis.call('SCARD', KEYS[3]) >= limit then return {2, 0} end
local seq = redis.call('INCR', KEYS[4])
redis.call('ZADD', KEYS[1], seq, ARGV[3])
if ARGV[6] ~= '' then redis.call('ZADD', KEYS[2], ARGV[6], ARGV[3]) end
if ARGV[5] == '1' then redis.call('SADD', KEYS[3], ARGV[3]) end
keepalive()
return {0, seq}`)

// syncScript brings a task's index entry up to date after a change of its
// record: ARGV[4] "del" removes it; "set" records whether it is unfinished
// (ARGV[5] "1") and its expiry (ARGV[6] ms, or "" for none), if the entry
// still exists.
var syncScript = rueidis.NewLuaScript(ownerLuaPrelude + `
local id = ARGV[3]
if ARGV[4] == 'del' then
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('SREM', KEYS[3], id)
elseif redis.call('ZSCORE', KEYS[1], id) then
  if ARGV[5] == '1' then redis.call('SADD', KEYS[3], id) else redis.call('SREM', KEYS[3], id) end
  if ARGV[6] ~= '' then redis.call('ZADD', KEYS[2], ARGV[6], id) else redis.call('ZREM', KEYS[2], id) end
end
keepalive()
return 1`)

// listScript returns up to ARGV[4] entries of the index after creation number
// ARGV[3], as a flat [id, number, id, number, ...] array.
var listScript = rueidis.NewLuaScript(ownerLuaPrelude + `
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[3], '+inf', 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[4]))`)

// createScript stores a new task's hash unless the key exists (reply 0).
//
//	KEYS[1] the task; ARGV[1] record, ARGV[2] PEXPIRE ms or ""
var createScript = rueidis.NewLuaScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'r', '1', 'v', ARGV[1])
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`)

// casScript replaces a task's record if its revision is still ARGV[1] (reply
// 1; 0 when it changed meanwhile, -1 when the task is gone) and tells Wait.
//
//	KEYS[1] the task; ARGV[2] new revision, ARGV[3] record, ARGV[4] PEXPIRE
//	ms, "" for none, "-1" to delete the task (it expired); ARGV[5] channel
var casScript = rueidis.NewLuaScript(`
local cur = redis.call('HGET', KEYS[1], 'r')
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
if ARGV[4] == '-1' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', ARGV[3])
  if ARGV[4] == '' then redis.call('PERSIST', KEYS[1]) else redis.call('PEXPIRE', KEYS[1], ARGV[4]) end
end
redis.call('PUBLISH', ARGV[5], ARGV[2])
return 1`)

// deleteTaskScript deletes a task, tells Wait, and returns the record it had
// (nil if none) so that the caller can clean its owner's index.
//
//	KEYS[1] the task; ARGV[1] channel
var deleteTaskScript = rueidis.NewLuaScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if redis.call('DEL', KEYS[1]) == 1 then redis.call('PUBLISH', ARGV[1], 'd') end
return v`)
