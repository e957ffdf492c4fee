/**
 * Scripts of `purgeExpired`. Each deletes at most about `budget` keys and answers whether more is left, and the store
 * calls it again until nothing is: Redis serves no one while a script runs, so a purge of a hundred thousand tasks
 * goes in slices of milliseconds. Each slice is atomic; a job whose tasks take several slices stops being leased in
 * the first and is deleted whole, with its counts, in the last.
 */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"
import { removePage } from "./searchIndex.js"

/** Expired jobs, index pages read per slice. */
const BATCH = 100

/**
 * ARGV: prefix, now, budget. Deletes jobs with `expiresAt <= now` and all they hold.
 * Returns {more (0/1), jobs, tasks, documents, errors, deliveries}.
 */
export const purgeJobs = script(
  "purgeJobs",
  prelude,
  `
local now, budget = ARGV[2], tonumber(ARGV[3])
local jobs, tasks, documents, errors, deliveries, spent = 0, 0, 0, 0, 0, 0
local expired = redis.call('ZRANGEBYSCORE', K.jobsExpiry, '-inf', now, 'LIMIT', 0, ${BATCH})
for _, jobId in ipairs(expired) do
  if spent >= budget then break end
  redis.call('ZREM', K.scraping, jobId)
  while spent < budget do
    local ids = redis.call('LPOP', part(jobId, 'tasks'), math.min(500, budget - spent))
    if not ids then break end
    for _, id in ipairs(ids) do redis.call('UNLINK', K.task .. id) end
    tasks = tasks + #ids
    spent = spent + #ids
  end
  if redis.call('EXISTS', part(jobId, 'tasks')) == 0 then
    documents = documents + redis.call('HLEN', part(jobId, 'docs'))
    errors = errors + redis.call('LLEN', part(jobId, 'errors'))
    local queued = redis.call('LRANGE', part(jobId, 'outbox'), 0, -1)
    for _, id in ipairs(queued) do redis.call('UNLINK', K.delivery .. id) end
    deliveries = deliveries + #queued
    redis.call('ZREM', K.outbox, jobId)
    jobs = jobs + redis.call('UNLINK', K.job .. jobId)
    for _, name in ipairs(JOB_PARTS) do redis.call('UNLINK', part(jobId, name)) end
    redis.call('ZREM', K.jobsCreated, jobId)
    redis.call('ZREM', K.jobsExpiry, jobId)
    spent = spent + 1 + #JOB_PARTS + #queued
  end
end
return {(spent >= budget or #expired == ${BATCH}) and 1 or 0, jobs, tasks, documents, errors, deliveries}`,
)

/**
 * ARGV: prefix, name of the time index (a `layout` name), name of the records' key stem, upper bound (a score,
 * '(' for exclusive), budget. Deletes the records the index puts at or below the bound.
 * Returns {more (0/1), deleted}.
 */
export const purgeRecords = script(
  "purgeRecords",
  prelude,
  `
local times, stem, budget = K[ARGV[2]], K[ARGV[3]], tonumber(ARGV[5])
local ids = redis.call('ZRANGEBYSCORE', times, '-inf', ARGV[4], 'LIMIT', 0, budget)
local deleted = 0
for _, id in ipairs(ids) do deleted = deleted + redis.call('UNLINK', stem .. id) end
if #ids > 0 then redis.call('ZREM', times, unpack(ids)) end
return {#ids == budget and 1 or 0, deleted}`,
)

/** ARGV: prefix, now. Forgets the gates open at `now`. */
export const purgeGates = script(
  "purgeGates",
  prelude,
  `
return redis.call('ZREMRANGEBYSCORE', K.gates, '-inf', ARGV[2])`,
)

/** ARGV: prefix, before, budget. Deletes the index pages scraped before `before`. Returns {more (0/1), deleted}. */
export const purgeIndex = script(
  "purgeIndex",
  prelude,
  removePage,
  `
local budget = tonumber(ARGV[3])
local ids = redis.call('ZRANGEBYSCORE', K.indexTime, '-inf', '(' .. ARGV[2], 'LIMIT', 0, ${BATCH})
local deleted, spent = 0, 0
for _, id in ipairs(ids) do
  if spent >= budget then break end
  spent = spent + 1 + removePage(id)
  deleted = deleted + 1
end
return {(spent >= budget or #ids == ${BATCH}) and 1 or 0, deleted}`,
)
