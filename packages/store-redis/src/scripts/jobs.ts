/** Scripts that create, read, stop and feed jobs. */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"
import { queue } from "./queue.js"

/**
 * ARGV: prefix, jobId, createdAt, expiresAt, field count n, n field/value entries (the caller's fields of the job),
 * then the seeds. Returns the job's hash, or nil (nothing written) when a job with that id exists.
 */
export const createJob = script(
  "createJob",
  prelude,
  queue,
  `
local jobId, createdAt, expiresAt, n = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local jk = K.job .. jobId
if redis.call('EXISTS', jk) == 1 then return false end
local ttl = expiryFor(expiresAt)
redis.call('HSET', jk, 'id', jobId, 'status', 'scraping', 'total', '0', 'completed', '0', 'failed', '0',
  'createdAt', createdAt, 'updatedAt', createdAt, 'expiresAt', expiresAt, 'seq', '0', 'docsFrom', '0', 'turn', '0',
  'ttl', ttl, unpack(ARGV, 6, 5 + n))
redis.call('PEXPIREAT', jk, ttl)
if admit(jobId, 6 + n) == 0 then
  -- No work will ever come: completed at once rather than waiting forever.
  redis.call('HSET', jk, 'status', 'completed', 'completedAt', createdAt)
else
  redis.call('ZADD', K.scraping, 0, jobId)
  publish('work')
end
redis.call('ZADD', K.jobsCreated, createdAt, jobId)
redis.call('ZADD', K.jobsExpiry, expiresAt, jobId)
return redis.call('HGETALL', jk)`,
)

/** ARGV: prefix, jobId, now, tasks. Returns how many were admitted. */
export const addTasks = script(
  "addTasks",
  prelude,
  queue,
  `
local jobId, now = ARGV[2], ARGV[3]
local jk = K.job .. jobId
local status = redis.call('HGET', jk, 'status')
if not status or status == 'cancelled' or status == 'failed' then return 0 end
local admitted = admit(jobId, 4)
if admitted == 0 then return 0 end
redis.call('HSET', jk, 'status', 'scraping', 'updatedAt', now)
redis.call('HDEL', jk, 'completedAt')
-- A completed job takes work again, keeping its place among the others.
redis.call('ZADD', K.scraping, 'NX', redis.call('HGET', jk, 'turn'), jobId)
publish('work')
return admitted`,
)

/**
 * ARGV: prefix, jobId, status (cancelled or failed), now[, error]. Returns the job's hash (empty when unknown).
 *
 * The open tasks are not rewritten one by one (a crawl may hold a hundred thousand): dropping the queue is enough,
 * since no lease of a stopped job can be completed (\`heldTask\`) and its open tasks read as cancelled (getTask).
 */
export const stopJob = script(
  "stopJob",
  prelude,
  `
local jobId, status, now, error = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local jk = K.job .. jobId
if redis.call('HGET', jk, 'status') == 'scraping' then
  redis.call('UNLINK', part(jobId, 'open'), part(jobId, 'leases'))
  redis.call('HSET', jk, 'status', status, 'updatedAt', now, 'completedAt', now)
  if error then redis.call('HSET', jk, 'error', error) end
  redis.call('ZREM', K.scraping, jobId)
  publish('cancel:' .. jobId)
end
return redis.call('HGETALL', jk)`,
)

/**
 * ARGV: prefix, owner filter (any, null or is), owner, kind ('' for any), status ('' for any). Returns the hashes of
 * the matching jobs, oldest first.
 */
export const listJobs = script(
  "listJobs",
  prelude,
  `
local ownerFilter, owner, kind, status = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local found = {}
for _, jobId in ipairs(redis.call('ZRANGE', K.jobsCreated, 0, -1)) do
  local jk = K.job .. jobId
  local job = redis.call('HMGET', jk, 'kind', 'status', 'owner')
  if job[1] and (kind == '' or job[1] == kind) and (status == '' or job[2] == status)
    and (ownerFilter == 'any' or (ownerFilter == 'null' and not job[3]) or (ownerFilter == 'is' and job[3] == owner))
  then
    found[#found + 1] = redis.call('HGETALL', jk)
  end
end
return found`,
)

/** ARGV: prefix, taskId. Returns the task (see `taskReply`) and its job's status, or nil. */
export const getTask = script(
  "getTask",
  prelude,
  queue,
  `
local task = taskReply(ARGV[2])
if not task[2] then return false end
return {task, redis.call('HGET', K.job .. task[2], 'status')}`,
)
