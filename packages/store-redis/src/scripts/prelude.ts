/**
 * What every script starts with: the key layout for the prefix in `ARGV[1]` and a few helpers.
 *
 * Redis keeps the writes of a script that stops on an error halfway, so the scripts check everything before their
 * first write; what could still fail there (a key of the wrong type) only happens when something else wrote into the
 * store's keys.
 */
import { luaKeys } from "../Keys.js"

/**
 * How long past `expiresAt` (or past now, when that is earlier on the server's clock) the keys of a job or scrape
 * live: Redis drops them on its own only after this, so that `purgeExpired`, which runs every minute on every
 * worker, finds them first and counts what it deletes. Without a worker, memory is still bounded by it.
 */
export const EXPIRY_GRACE_MS = 60 * 60 * 1000

export const prelude = `${luaKeys}
local GRACE = ${EXPIRY_GRACE_MS}
-- Numbers made here go to Redis as text in full: Lua's tostring keeps 14 digits, and an epoch-ms time has 13.
local function int(n) return string.format('%d', n) end
local function num(n) return string.format('%.17g', n) end
-- When the keys of something that expires at \`expiresAt\` (the caller's clock) may go (the server's clock).
local function expiryFor(expiresAt)
  local t = redis.call('TIME')
  return int(math.max(tonumber(expiresAt), t[1] * 1000 + math.floor(t[2] / 1000)) + GRACE)
end
-- Gives a key its expiry when it has none yet: it was just created (or created again after it emptied).
local function keep(key, at)
  if at then redis.call('PEXPIREAT', key, at, 'NX') end
end
local function publish(message) redis.call('PUBLISH', K.news, message) end`
