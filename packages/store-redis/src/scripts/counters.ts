/**
 * The script of `addToCounter` (keys in `Keys.ts`). A counter is a string key that INCRBY adds to; its expiry and
 * its entry in the `counters` time index are set in the same script, so a counter is never left without either.
 */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"

/**
 * ARGV: prefix, name, by, expiresAt. Adds `by` (INCRBY first: a key of another type fails it before anything is
 * written) and answers the new value. The key outlives `expiresAt` by the grace period, like a scrape's, so that the
 * purge finds and counts it first; without a purge Redis still drops it.
 */
export const addToCounter = script(
  "addToCounter",
  prelude,
  `
local name, expiresAt = ARGV[2], ARGV[4]
local ck = K.counter .. name
local value = redis.call('INCRBY', ck, ARGV[3])
redis.call('PEXPIREAT', ck, expiryFor(expiresAt))
redis.call('ZADD', K.counters, expiresAt, name)
return value`,
)
