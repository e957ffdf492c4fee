/** Scripts that lease tasks and end leases. */
import { script } from "../Script.js"
import { queueDelivery } from "./outbox.js"
import { prelude } from "./prelude.js"
import { queue } from "./queue.js"

/** The scraping jobs are read this many at a time. */
const JOB_PAGE = 100

/**
 * ARGV: prefix, worker, now, leaseUntil, max. Returns the leased tasks (see `taskReply`).
 *
 * The fairness rule of core's `fairLease`, here so that it runs inside the one atomic script. The jobs with a task
 * due now, least recently served first (lowest turn; never served is 0, ties by id, which is time-ordered), grouped
 * by owner (no owner is one more), owners least recently served first (in the order of their last job). Each owner
 * first gets up to an equal share of \`max\`, split among its jobs, each within its free \`maxConcurrency\` slots;
 * leftovers then go to the jobs that have more, in the same order.
 */
export const leaseTasks = script(
  "leaseTasks",
  prelude,
  queue,
  `
local worker, now, untilAt, max = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if max <= 0 then return {} end
local leased, served, seen, room = {}, {}, {}, {}

-- Leases up to n due tasks of the job, earliest due first; returns how many.
local function take(jobId, n)
  local due = redis.call('ZRANGEBYSCORE', part(jobId, 'open'), '-inf', now, 'LIMIT', 0, n)
  for _, member in ipairs(due) do
    local id = taskId(member)
    local tk = K.task .. id
    -- A lease that ran out was an attempt that never reported back.
    if redis.call('HGET', tk, 'status') == 'leased' then redis.call('HINCRBY', tk, 'attempts', 1) end
    redis.call('HSET', tk, 'status', 'leased', 'owner', worker, 'until', untilAt)
    redis.call('ZADD', part(jobId, 'open'), untilAt, member)
    redis.call('ZADD', part(jobId, 'leases'), untilAt, member)
    leased[#leased + 1] = taskReply(id)
  end
  if #due > 0 then keep(part(jobId, 'leases'), redis.call('HGET', K.job .. jobId, 'ttl')) end
  return #due
end

-- Leases up to limit tasks of the job within its free slots (room) and the request; returns how many.
local function serve(jobId, limit)
  local free = room[jobId]
  if not free then
    free = math.huge
    local maxConcurrency = redis.call('HGET', K.job .. jobId, 'maxConcurrency')
    if maxConcurrency then
      free = math.max(0, tonumber(maxConcurrency) - redis.call('ZCOUNT', part(jobId, 'leases'), '(' .. now, '+inf'))
    end
  end
  local want = math.min(free, limit, max - #leased)
  if want == 0 then
    room[jobId] = free
    return 0
  end
  local got = take(jobId, want)
  if got > 0 and not seen[jobId] then
    seen[jobId] = true
    served[#served + 1] = jobId
  end
  -- A job that had fewer due tasks than asked has no more.
  if got < want then room[jobId] = 0 else room[jobId] = free - got end
  return got
end

local owners, ownerOf, position = {}, {}, 0
local jobs = redis.call('ZCARD', K.scraping)
for start = 0, jobs - 1, ${JOB_PAGE} do
  for _, jobId in ipairs(redis.call('ZRANGE', K.scraping, start, start + ${JOB_PAGE - 1})) do
    if #redis.call('ZRANGEBYSCORE', part(jobId, 'open'), '-inf', now, 'LIMIT', 0, 1) > 0 then
      position = position + 1
      local owner = redis.call('HGET', K.job .. jobId, 'owner')
      local name = owner and ('=' .. owner) or 'none'
      local group = ownerOf[name]
      if not group then
        group = {jobs = {}}
        ownerOf[name] = group
        owners[#owners + 1] = group
      end
      group.last = position
      group.jobs[#group.jobs + 1] = jobId
    end
  end
end
if #owners == 0 then return {} end
table.sort(owners, function(a, b) return a.last < b.last end)

local ownerShare = math.ceil(max / #owners)
for _, owner in ipairs(owners) do
  if #leased >= max then break end
  local jobShare, left = math.ceil(ownerShare / #owner.jobs), ownerShare
  for _, jobId in ipairs(owner.jobs) do
    if left == 0 or #leased >= max then break end
    left = left - serve(jobId, math.min(jobShare, left))
  end
end
-- Work-conserving: what the shares left goes to the jobs that have more.
for _, owner in ipairs(owners) do
  if #leased >= max then break end
  for _, jobId in ipairs(owner.jobs) do
    if #leased >= max then break end
    serve(jobId, math.huge)
  end
end
for _, jobId in ipairs(served) do
  redis.call('ZADD', K.scraping, 'XX', redis.call('INCR', K.turn), jobId)
end
return leased`,
)

/**
 * ARGV: prefix, now. Returns {due, the earliest due time after now of a pending task or nil}, read in one script so
 * that both agree.
 *
 * A job's open queue holds its live leases after \`now\` too, each with the same score in its \`leases\`; so with L of
 * them, its first pending task after \`now\` is among the first L + 1 members there.
 */
export const pendingWork = script(
  "pendingWork",
  prelude,
  `
local now = ARGV[2]
local due, nextDue = 0, nil
for _, jobId in ipairs(redis.call('ZRANGE', K.scraping, 0, -1)) do
  local open, leases = part(jobId, 'open'), part(jobId, 'leases')
  due = due + redis.call('ZCOUNT', open, '-inf', now)
  local live = redis.call('ZCOUNT', leases, '(' .. now, '+inf')
  local later = redis.call('ZRANGEBYSCORE', open, '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, live + 1)
  for i = 1, #later, 2 do
    if not redis.call('ZSCORE', leases, later[i]) then
      if not nextDue or tonumber(later[i + 1]) < tonumber(nextDue) then nextDue = later[i + 1] end
      break
    end
  end
end
return {due, nextDue or false}`,
)

/**
 * Lua: calls \`visit(jobId, member, owner)\` for every leased task. Only scraping jobs hold leases: stopping or
 * completing a job ends them all.
 */
const eachLease = `
local function eachLease(visit)
  for _, jobId in ipairs(redis.call('ZRANGE', K.scraping, 0, -1)) do
    for _, member in ipairs(redis.call('ZRANGE', part(jobId, 'leases'), 0, -1)) do
      visit(jobId, member, redis.call('HGET', K.task .. taskId(member), 'owner'))
    end
  end
end`

/** ARGV: prefix, name prefix. Returns the distinct lease holders whose name starts with it. */
export const leaseHolders = script(
  "leaseHolders",
  prelude,
  queue,
  eachLease,
  `
local namePrefix = ARGV[2]
local seen, holders = {}, {}
eachLease(function(_, _, owner)
  if owner and not seen[owner] and string.sub(owner, 1, #namePrefix) == namePrefix then
    seen[owner] = true
    holders[#holders + 1] = owner
  end
end)
return holders`,
)

/** ARGV: prefix, now, holders. Makes their leases run out at `now`; returns how many. */
export const expireLeases = script(
  "expireLeases",
  prelude,
  queue,
  eachLease,
  `
local now = ARGV[2]
local gone = {}
for i = 3, #ARGV do gone[ARGV[i]] = true end
local ended = 0
eachLease(function(jobId, member, owner)
  if owner and gone[owner] then
    redis.call('HSET', K.task .. taskId(member), 'until', now)
    redis.call('ZADD', part(jobId, 'open'), now, member)
    redis.call('ZADD', part(jobId, 'leases'), now, member)
    ended = ended + 1
  end
end)
if ended > 0 then publish('work') end
return ended`,
)

/** ARGV: prefix, taskId, owner, leaseUntil, new leaseUntil. Returns the renewed task, or nil. */
export const renewLease = script(
  "renewLease",
  prelude,
  queue,
  `
local id, untilAt = ARGV[2], ARGV[5]
local task = heldTask(id, ARGV[3], ARGV[4])
if not task then return false end
redis.call('HSET', K.task .. id, 'until', untilAt)
redis.call('ZADD', part(task.job, 'open'), untilAt, task.member)
redis.call('ZADD', part(task.job, 'leases'), untilAt, task.member)
return taskReply(id)`,
)

/**
 * ARGV: prefix, taskId, owner, leaseUntil, notBefore, attempt (1: counts one, 0: does not)[, error code, message].
 * Puts a leased task back in the queue (retry or defer); returns 1, or 0 when the caller no longer held the lease.
 */
export const releaseTask = script(
  "releaseTask",
  prelude,
  queue,
  `
local id, notBefore = ARGV[2], ARGV[5]
local task = heldTask(id, ARGV[3], ARGV[4])
if not task then return 0 end
local tk = K.task .. id
redis.call('HSET', tk, 'status', 'pending', 'notBefore', notBefore)
redis.call('HDEL', tk, 'owner', 'until')
if ARGV[6] == '1' then redis.call('HINCRBY', tk, 'attempts', 1) end
if ARGV[7] then redis.call('HSET', tk, 'code', ARGV[7], 'message', ARGV[8]) end
redis.call('ZREM', part(task.job, 'leases'), task.member)
redis.call('ZADD', part(task.job, 'open'), notBefore, task.member)
return 1`,
)

/**
 * ARGV: prefix, taskId, jobId, owner, leaseUntil, now, outcome (document, error or none), document JSON or error
 * code, error message, robots-blocked count r, r URLs, the page's delivery and the job's \`completed\` delivery (four
 * entries each, see \`queueDelivery\`), then the discovered tasks.
 * Returns {recorded (0/1), finished (0/1), the job's hash}.
 */
export const completeTask = script(
  "completeTask",
  prelude,
  queue,
  queueDelivery,
  `
local id, now, outcome = ARGV[2], ARGV[6], ARGV[7]
local task = heldTask(id, ARGV[4], ARGV[5])
if not task then return {0, 0, redis.call('HGETALL', K.job .. ARGV[3])} end
local jobId = task.job
local jk = K.job .. jobId
local ttl = redis.call('HGET', jk, 'ttl')
local status = 'done'
if outcome == 'document' then
  -- The record is JSON around the document's own JSON text, which is stored as the caller encoded it.
  redis.call('HSET', part(jobId, 'docs'), redis.call('HGET', jk, 'completed'),
    '{"url":' .. cjson.encode(task.url) .. ',"createdAt":' .. now .. ',"document":' .. ARGV[8] .. '}')
  keep(part(jobId, 'docs'), ttl)
  redis.call('HINCRBY', jk, 'completed', 1)
elseif outcome == 'error' then
  status = 'failed'
  redis.call('RPUSH', part(jobId, 'errors'), '{"id":' .. cjson.encode(id) .. ',"url":' .. cjson.encode(task.url)
    .. ',"code":' .. cjson.encode(ARGV[8]) .. ',"message":' .. cjson.encode(ARGV[9]) .. ',"at":' .. now .. '}')
  keep(part(jobId, 'errors'), ttl)
  redis.call('HINCRBY', jk, 'failed', 1)
end
redis.call('HSET', K.task .. id, 'status', status)
redis.call('HDEL', K.task .. id, 'owner', 'until')
redis.call('ZREM', part(jobId, 'open'), task.member)
redis.call('ZREM', part(jobId, 'leases'), task.member)
local blocked = tonumber(ARGV[10])
for i = 11, 10 + blocked do
  if redis.call('SADD', part(jobId, 'robots'), ARGV[i]) == 1 then
    redis.call('RPUSH', part(jobId, 'robots-order'), ARGV[i])
  end
end
if blocked > 0 then
  keep(part(jobId, 'robots'), ttl)
  keep(part(jobId, 'robots-order'), ttl)
end
local deliveries = 11 + blocked
local admitted = admit(jobId, deliveries + 8)
redis.call('HSET', jk, 'updatedAt', now)
-- Leased tasks keep the job open too, so it finishes exactly when its last open task does.
local finished = redis.call('ZCARD', part(jobId, 'open')) == 0
if finished then
  redis.call('HSET', jk, 'status', 'completed', 'completedAt', now, 'turn',
    redis.call('ZSCORE', K.scraping, jobId) or '0')
  redis.call('ZREM', K.scraping, jobId)
elseif admitted > 0 then
  publish('work')
end
-- The page's event, then the job's end: a job's deliveries are sent in the order they were queued.
queueDelivery(deliveries)
if finished then queueDelivery(deliveries + 4) end
return {1, finished and 1 or 0, redis.call('HGETALL', jk)}`,
)
