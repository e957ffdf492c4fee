/**
 * Scripts that keep single records with a time index beside them: stored scrapes (by `expiresAt`) and cached pages
 * (by `cachedAt`), so that `purgeExpired` finds the old ones without scanning.
 */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"

/** ARGV: prefix, id, expiresAt, field/value entries. Replaces the scrape; its key expires after `expiresAt`. */
export const putScrape = script(
  "putScrape",
  prelude,
  `
local id, expiresAt = ARGV[2], ARGV[3]
local sk = K.scrape .. id
redis.call('UNLINK', sk)
redis.call('HSET', sk, 'expiresAt', expiresAt, unpack(ARGV, 4))
redis.call('PEXPIREAT', sk, expiryFor(expiresAt))
redis.call('ZADD', K.scrapes, expiresAt, id)
return 1`,
)

/** ARGV: prefix, key, cachedAt, field/value entries. Replaces the cached page. */
export const cacheSet = script(
  "cacheSet",
  prelude,
  `
local key, cachedAt = ARGV[2], ARGV[3]
local ck = K.cache .. key
redis.call('UNLINK', ck)
redis.call('HSET', ck, 'cachedAt', cachedAt, unpack(ARGV, 4))
redis.call('ZADD', K.cacheTimes, cachedAt, key)
return 1`,
)
