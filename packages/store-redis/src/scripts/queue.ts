/**
 * Lua shared by the scripts that move tasks: how a task is read back, whether a caller still holds its lease, and
 * how proposed tasks are admitted.
 *
 * A task's place in its job's `open` queue is the member `<seq, 10 digits><task id>` (its seq is the task's number
 * in admission order): equal due times then sort by admission order (Redis orders equal scores by member), and the
 * id is the member's tail.
 */

/** The fields of a task hash, in the order `taskReply` answers them (after the id). */
export const TASK_FIELDS = [
  "job",
  "url",
  "key",
  "depth",
  "host",
  "status",
  "attempts",
  "notBefore",
  "owner",
  "until",
  "code",
  "message",
] as const

/** Task arguments: each proposed task is this many `ARGV` entries (see `taskArgs`). */
export const TASK_ARGS = 6

export const queue = `
local TASK_FIELDS = {${TASK_FIELDS.map((field) => `'${field}'`).join(", ")}}
local function memberOf(seq, id) return string.format('%010d', seq) .. id end
local function taskId(member) return string.sub(member, 11) end
local function taskReply(id)
  local reply = redis.call('HMGET', K.task .. id, unpack(TASK_FIELDS))
  table.insert(reply, 1, id)
  return reply
end
-- The task's job and queue member when \`owner\` and \`untilAt\` are still its lease and its job still runs (the
-- tasks of a stopped job are not rewritten: see stopJob).
local function heldTask(id, owner, untilAt)
  local t = redis.call('HMGET', K.task .. id, 'job', 'status', 'owner', 'until', 'seq', 'url')
  if t[2] ~= 'leased' or t[3] ~= owner or t[4] ~= untilAt then return nil end
  if redis.call('HGET', K.job .. t[1], 'status') ~= 'scraping' then return nil end
  return { job = t[1], member = memberOf(tonumber(t[5]), id), url = t[6] }
end
-- Admits the proposed tasks in ARGV[first..] (${TASK_ARGS} entries each: id, url, key, depth, host, notBefore): the
-- first of each key the job has not seen, while it has room under its limit. Updates the job's total; returns how
-- many.
local function admit(jobId, first)
  local jk = K.job .. jobId
  local job = redis.call('HMGET', jk, 'limit', 'total', 'seq', 'ttl')
  local room, seq, ttl = tonumber(job[1]) - tonumber(job[2]), tonumber(job[3]), job[4]
  local admitted = 0
  for i = first, #ARGV - ${TASK_ARGS - 1}, ${TASK_ARGS} do
    if admitted >= room then break end
    local id, key, notBefore = ARGV[i], ARGV[i + 2], ARGV[i + 5]
    if redis.call('SADD', part(jobId, 'keys'), key) == 1 then
      redis.call('HSET', K.task .. id, 'job', jobId, 'url', ARGV[i + 1], 'key', key, 'depth', ARGV[i + 3],
        'host', ARGV[i + 4], 'status', 'pending', 'attempts', '0', 'notBefore', notBefore, 'seq', int(seq))
      redis.call('PEXPIREAT', K.task .. id, ttl)
      redis.call('RPUSH', part(jobId, 'tasks'), id)
      redis.call('ZADD', part(jobId, 'open'), notBefore, memberOf(seq, id))
      seq = seq + 1
      admitted = admitted + 1
    end
  end
  if admitted > 0 then
    redis.call('HSET', jk, 'seq', int(seq), 'total', int(tonumber(job[2]) + admitted))
    for _, name in ipairs({'keys', 'tasks', 'open'}) do keep(part(jobId, name), ttl) end
  end
  return admitted
end`
