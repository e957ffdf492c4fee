/**
 * Scripts of the records (`JobStore.putRecord` and the rest; keys in `Keys.ts`). A write reads the stored version and
 * writes in one script, which is what makes its compare-and-set atomic. Record hashes have no expiry of their own:
 * a record leaves its sorted sets with its hash, so only `deleteRecord` and the purge delete it.
 */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"

/** How many members of a sorted set `listRecords` reads at a time while it filters. */
const CHUNK = 100

const helpers = `
local function recordRef(kind, id) return #kind .. ':' .. kind .. ':' .. id end
local function ownerIndex(kind, owner)
  if owner then return K.recordsOwner .. recordRef(kind, owner) end
  return K.recordsKeyless .. kind
end
-- Takes the record out of every sorted set its stored fields put it in; false when there is no such record.
local function unindexRecord(ref)
  local r = redis.call('HMGET', K.record .. ref, 'kind', 'id', 'owner', 'parent')
  if not r[1] then return false end
  local kind, id = r[1], r[2]
  redis.call('ZREM', K.recordsKind .. kind, id)
  redis.call('ZREM', ownerIndex(kind, r[3]), id)
  if r[4] then redis.call('ZREM', K.recordsChildren .. r[4], ref) end
  redis.call('ZREM', K.recordsDue .. kind, id)
  redis.call('ZREM', K.recordsExpiry, ref)
  return true
end
local function deleteRecord(ref)
  if not unindexRecord(ref) then return 0 end
  redis.call('UNLINK', K.record .. ref)
  return 1
end`

/**
 * ARGV: prefix, kind, id, expected version ('' for none), now, then field/value entries: owner, parent, label, dueAt,
 * expiresAt (each only when the write has it) and value. Returns the record's hash, or nil when the stored version is
 * not the expected one.
 */
export const putRecord = script(
  "putRecord",
  prelude,
  helpers,
  `
local kind, id, expected, now = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local ref = recordRef(kind, id)
local rk = K.record .. ref
local stored = redis.call('HMGET', rk, 'version', 'createdAt')
local version = tonumber(stored[1] or '0')
if expected ~= '' and tonumber(expected) ~= version then return false end
local createdAt = stored[2] or now
local f = {}
for i = 6, #ARGV, 2 do f[ARGV[i]] = ARGV[i + 1] end
-- Replaced whole: the fields this write leaves out go, and so do the sorted set entries they made.
unindexRecord(ref)
redis.call('UNLINK', rk)
redis.call('HSET', rk, 'kind', kind, 'id', id, 'version', int(version + 1), 'createdAt', createdAt, 'updatedAt', now,
  unpack(ARGV, 6))
redis.call('ZADD', K.recordsKind .. kind, createdAt, id)
redis.call('ZADD', ownerIndex(kind, f.owner), createdAt, id)
if f.parent then redis.call('ZADD', K.recordsChildren .. f.parent, createdAt, ref) end
if f.dueAt then redis.call('ZADD', K.recordsDue .. kind, f.dueAt, id) end
if f.expiresAt then redis.call('ZADD', K.recordsExpiry, f.expiresAt, ref) end
return redis.call('HGETALL', rk)`,
)

/** ARGV: prefix, kind, id. Returns the record's hash (empty when unknown). */
export const getRecord = script(
  "getRecord",
  prelude,
  helpers,
  `
return redis.call('HGETALL', K.record .. recordRef(ARGV[2], ARGV[3]))`,
)

/**
 * ARGV: prefix, kind, owner filter (any, null or is), owner, parent given (0/1), parent, label given (0/1), label,
 * offset, limit. Returns the hashes of the matching records, newest first (`createdAt`, then id, descending: the order
 * of each sorted set read backwards).
 *
 * It reads the narrowest sorted set the query names (the parent's children, else the kind's and owner's records, else
 * the kind's) and skips the members the other filters reject, so its cost grows with that set, not with the store.
 */
export const listRecords = script(
  "listRecords",
  prelude,
  helpers,
  `
local kind, ownerFilter, owner = ARGV[2], ARGV[3], ARGV[4]
local hasParent, parent, hasLabel, label = ARGV[5] == '1', ARGV[6], ARGV[7] == '1', ARGV[8]
local offset, limit = tonumber(ARGV[9]), tonumber(ARGV[10])
local index
if hasParent then index = K.recordsChildren .. parent
elseif ownerFilter ~= 'any' then index = ownerIndex(kind, ownerFilter == 'is' and owner or nil)
else index = K.recordsKind .. kind end
-- The set holds exactly the matching records: the page is a range of it.
local exact = not hasParent and not hasLabel
local ofKind = recordRef(kind, '')
local function matches(ref)
  if exact then return true end
  if hasParent and string.sub(ref, 1, #ofKind) ~= ofKind then return false end
  local r = redis.call('HMGET', K.record .. ref, 'owner', 'label')
  return (ownerFilter == 'any' or (ownerFilter == 'null' and not r[1]) or (ownerFilter == 'is' and r[1] == owner))
    and (not hasLabel or r[2] == label)
end
local found, skip, start = {}, offset, 0
if exact then skip, start = 0, offset end
while #found < limit do
  local members = redis.call('ZREVRANGE', index, start, start + ${CHUNK} - 1)
  if #members == 0 then break end
  start = start + #members
  for _, member in ipairs(members) do
    local ref = hasParent and member or recordRef(kind, member)
    if matches(ref) then
      if skip > 0 then
        skip = skip - 1
      else
        found[#found + 1] = redis.call('HGETALL', K.record .. ref)
        if #found == limit then break end
      end
    end
  end
end
return found`,
)

/** ARGV: prefix, kind, now, limit. Returns the hashes of the kind's records due at `now`, earliest first. */
export const dueRecords = script(
  "dueRecords",
  prelude,
  helpers,
  `
local kind = ARGV[2]
local found = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K.recordsDue .. kind, '-inf', ARGV[3], 'LIMIT', 0, ARGV[4])) do
  found[#found + 1] = redis.call('HGETALL', K.record .. recordRef(kind, id))
end
return found`,
)

/** ARGV: prefix, kind, id. Deletes the record and its children of every kind; returns how many were deleted. */
export const deleteRecord = script(
  "deleteRecord",
  prelude,
  helpers,
  `
local id = ARGV[3]
local deleted = deleteRecord(recordRef(ARGV[2], id))
for _, ref in ipairs(redis.call('ZRANGE', K.recordsChildren .. id, 0, -1)) do deleted = deleted + deleteRecord(ref) end
return deleted`,
)

/**
 * ARGV: prefix, now, budget. Deletes the records with `expiresAt <= now`, at most `budget` of them (see purge.ts).
 * Returns {more (0/1), deleted}.
 */
export const purgeExpiredRecords = script(
  "purgeExpiredRecords",
  prelude,
  helpers,
  `
local budget = tonumber(ARGV[3])
local refs = redis.call('ZRANGEBYSCORE', K.recordsExpiry, '-inf', ARGV[2], 'LIMIT', 0, budget)
local deleted = 0
for _, ref in ipairs(refs) do deleted = deleted + deleteRecord(ref) end
-- Also the refs of hashes something else deleted, or the next slice would find them again.
if #refs > 0 then redis.call('ZREM', K.recordsExpiry, unpack(refs)) end
return {#refs == budget and 1 or 0, deleted}`,
)
