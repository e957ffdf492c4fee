/**
 * Scripts of the webhook outbox. Each job's deliveries wait in a list, oldest first, and only its head is ever
 * leased, so a job's events arrive in order. The `outbox` sorted set holds each job with deliveries once, scored by
 * when its head may next be leased (its `notBefore` while it waits, its lease's end while leased), so a lease reads
 * only the heads it takes; equal scores (fresh deliveries are due at 0) go by job id, oldest job first.
 */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"

/** Lua: the head of the job's queue when `owner` and `untilAt` still hold its lease (its id is `id`). */
const heldHead = `
local function heldHead(id, jobId, owner, untilAt)
  if redis.call('LINDEX', part(jobId, 'outbox'), 0) ~= id then return false end
  local lease = redis.call('HMGET', K.delivery .. id, 'owner', 'until')
  return lease[1] == owner and lease[2] == untilAt
end`

/**
 * Lua: queues a delivery at the tail of its job's queue, from the four \`ARGV\` entries at \`at\` (see
 * \`deliveryArgs\`: id, jobId, payload JSON, createdAt; an empty id is no delivery). The delivery's keys expire with
 * its job's (a delivery for a job the store does not know keeps none).
 */
export const queueDelivery = `
local function queueDelivery(at)
  local id, jobId = ARGV[at], ARGV[at + 1]
  if id == '' then return end
  local queue = part(jobId, 'outbox')
  redis.call('HSET', K.delivery .. id, 'job', jobId, 'payload', ARGV[at + 2], 'attempts', '0', 'notBefore', '0',
    'createdAt', ARGV[at + 3])
  if redis.call('RPUSH', queue, id) == 1 then redis.call('ZADD', K.outbox, 0, jobId) end
  local ttl = redis.call('HGET', K.job .. jobId, 'ttl')
  keep(K.delivery .. id, ttl)
  keep(queue, ttl)
end`

/** ARGV: prefix, deliveryId, jobId, payload JSON, createdAt. */
export const enqueueDelivery = script(
  "enqueueDelivery",
  prelude,
  queueDelivery,
  `
queueDelivery(2)
return 1`,
)

/** ARGV: prefix, worker, now, leaseUntil, max. Returns the leased deliveries: {id, jobId, payload, attempts}. */
export const leaseDeliveries = script(
  "leaseDeliveries",
  prelude,
  `
local worker, now, untilAt, max = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
if max <= 0 then return {} end
local leased = {}
for _, jobId in ipairs(redis.call('ZRANGEBYSCORE', K.outbox, '-inf', now, 'LIMIT', 0, max)) do
  local id = redis.call('LINDEX', part(jobId, 'outbox'), 0)
  if not id then
    -- The queue expired with its job before purgeExpired came by.
    redis.call('ZREM', K.outbox, jobId)
  else
    local dk = K.delivery .. id
    -- Leased before: its holder's lease ran out without an answer, which counts an attempt.
    if redis.call('HEXISTS', dk, 'until') == 1 then redis.call('HINCRBY', dk, 'attempts', 1) end
    redis.call('HSET', dk, 'owner', worker, 'until', untilAt)
    redis.call('ZADD', K.outbox, untilAt, jobId)
    local delivery = redis.call('HMGET', dk, 'payload', 'attempts')
    leased[#leased + 1] = {id, jobId, delivery[1], delivery[2]}
  end
end
return leased`,
)

/** ARGV: prefix, deliveryId, jobId, owner, leaseUntil. Deletes the sent delivery; returns 1, or 0 without the lease. */
export const finishDelivery = script(
  "finishDelivery",
  prelude,
  heldHead,
  `
local id, jobId = ARGV[2], ARGV[3]
if not heldHead(id, jobId, ARGV[4], ARGV[5]) then return 0 end
local queue = part(jobId, 'outbox')
redis.call('LPOP', queue)
redis.call('UNLINK', K.delivery .. id)
local next = redis.call('LINDEX', queue, 0)
if next then
  redis.call('ZADD', K.outbox, redis.call('HGET', K.delivery .. next, 'notBefore') or '0', jobId)
else
  redis.call('ZREM', K.outbox, jobId)
end
return 1`,
)

/**
 * ARGV: prefix, deliveryId, jobId, owner, leaseUntil, notBefore. Gives the delivery back for another attempt, still
 * at the head of its queue; returns 1, or 0 without the lease.
 */
export const retryDelivery = script(
  "retryDelivery",
  prelude,
  heldHead,
  `
local id, jobId, notBefore = ARGV[2], ARGV[3], ARGV[6]
if not heldHead(id, jobId, ARGV[4], ARGV[5]) then return 0 end
local dk = K.delivery .. id
redis.call('HINCRBY', dk, 'attempts', 1)
redis.call('HSET', dk, 'notBefore', notBefore)
redis.call('HDEL', dk, 'owner', 'until')
redis.call('ZADD', K.outbox, notBefore, jobId)
return 1`,
)
