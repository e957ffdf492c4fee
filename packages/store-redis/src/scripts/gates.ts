/**
 * Scripts of the politeness gates: one sorted set of gate names scored by the instant each opens. Times are the
 * callers' (the store never reads a clock for them), so a gate is not a key with a Redis expiry: `purgeExpired`
 * removes the gates open at its `now`.
 */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"

/**
 * ARGV: prefix, now, then gate name and spacing pairs. When every gate is open, closes those with a spacing until
 * now + spacing and returns nil; else takes none and returns when the last closed one opens.
 */
export const passGates = script(
  "passGates",
  prelude,
  `
local now = tonumber(ARGV[2])
local closed, opensAt = nil, now
for i = 3, #ARGV, 2 do
  local at = redis.call('ZSCORE', K.gates, ARGV[i])
  if at and tonumber(at) > opensAt then closed, opensAt = at, tonumber(at) end
end
if closed then return closed end
for i = 3, #ARGV, 2 do
  local spacing = tonumber(ARGV[i + 1])
  if spacing > 0 then redis.call('ZADD', K.gates, num(now + spacing), ARGV[i]) end
end
return false`,
)

/** ARGV: prefix, gate name, until. Keeps the gate closed until then, never shortening it; returns when it opens. */
export const holdGate = script(
  "holdGate",
  prelude,
  `
redis.call('ZADD', K.gates, 'GT', ARGV[3], ARGV[2])
return redis.call('ZSCORE', K.gates, ARGV[2])`,
)
