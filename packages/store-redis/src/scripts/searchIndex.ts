/**
 * Scripts of the search index, an inverted index kept in plain Redis structures (no RediSearch): per word a sorted
 * set of the pages holding it, scored by the word's packed frequency in each field (`SearchTerms`); per page a hash
 * with its text, its field lengths and its words (so that writing it again removes the old postings); the pages by
 * time, overall and per owner; every word in one lexicographic set for prefix queries.
 *
 * A search reads the postings of its words, so it costs time in the number of pages holding them: fine for the
 * thousands of pages of a self-hosted index, while at large scale Postgres' or SQLite's full-text index is better.
 */
import { script } from "../Script.js"
import { FIELDS, TF_BASE } from "../SearchTerms.js"
import { prelude } from "./prelude.js"

/** The longer words a prefix stands for, at most. */
const MAX_EXPANSION = 64
/** Members per ZMSCORE. */
const CHUNK = 1000

/** Lua: the field names (`FIELD_NAMES`, as in the stats hash) and `lengthsOf`, which reads a page's `lengths`. */
const fields = `
local FIELD_NAMES = {${FIELDS.map((field) => `'${field.name}'`).join(", ")}}
local function lengthsOf(text)
  local lengths = {}
  for n in string.gmatch(text or '', '%d+') do lengths[#lengths + 1] = tonumber(n) end
  return lengths
end`

/** Lua: `removePage(id)` takes a page out of the index; returns how many words it held. */
export const removePage = `${fields}
local function removePage(id)
  local pk = K.indexPage .. id
  local page = redis.call('HMGET', pk, 'owner', 'url', 'terms', 'lengths')
  local ownerKey = page[1] or ''
  local words = 0
  for word in string.gmatch(page[3] or '', '%S+') do
    redis.call('ZREM', K.indexTerm .. word, id)
    if redis.call('EXISTS', K.indexTerm .. word) == 0 then redis.call('ZREM', K.indexTerms, word) end
    words = words + 1
  end
  for f, length in ipairs(lengthsOf(page[4])) do redis.call('HINCRBY', K.indexStats, FIELD_NAMES[f], int(-length)) end
  if page[2] then redis.call('HDEL', K.indexIds, ownerKey .. '\\0' .. page[2]) end
  redis.call('ZREM', K.indexOwner .. ownerKey, id)
  redis.call('ZREM', K.indexTime, id)
  redis.call('UNLINK', pk)
  return words
end`

/**
 * ARGV: prefix, owner key (the owner, '' for none), url, scrapedAt, field lengths (space-separated), field count n,
 * n further field/value entries of the page hash, then word and packed-frequency pairs. Replaces the page of the
 * same owner and URL.
 */
export const indexPage = script(
  "indexPage",
  prelude,
  removePage,
  `
local ownerKey, url, at, lengths, n = ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])
local idKey = ownerKey .. '\\0' .. url
local id = redis.call('HGET', K.indexIds, idKey)
if id then removePage(id) else id = int(redis.call('INCR', K.indexNext)) end
redis.call('HSET', K.indexIds, idKey, id)
local words = {}
for i = 7 + n, #ARGV - 1, 2 do
  redis.call('ZADD', K.indexTerm .. ARGV[i], ARGV[i + 1], id)
  redis.call('ZADD', K.indexTerms, 'NX', 0, ARGV[i])
  words[#words + 1] = ARGV[i]
end
redis.call('HSET', K.indexPage .. id, 'url', url, 'at', at, 'lengths', lengths, 'terms', table.concat(words, ' '),
  unpack(ARGV, 7, 6 + n))
for f, length in ipairs(lengthsOf(lengths)) do redis.call('HINCRBY', K.indexStats, FIELD_NAMES[f], int(length)) end
redis.call('ZADD', K.indexTime, at, id)
redis.call('ZADD', K.indexOwner .. ownerKey, at, id)
return 1`,
)

/**
 * ARGV: prefix, scoped to one owner (1/0), owner key, from ('' for none), to ('' for none), newest first (1/0),
 * offset, limit, match (all/any), last term as a prefix (1/0), then the terms. Returns the pages of the answer's
 * slice: {owner, url, title, description, content, scrapedAt}.
 *
 * Relevance is BM25 per field (k1 1.2, b 0.75), weighted by field and summed over the terms; a prefix counts as one
 * term, found in the pages holding any of its words.
 */
export const searchIndex = script(
  "searchIndex",
  prelude,
  fields,
  `
local WEIGHTS = {${FIELDS.map((field) => field.weight).join(", ")}}
local BM25_K1, BM25_B = 1.2, 0.75
local scope = ARGV[2] == '1' and (K.indexOwner .. ARGV[3]) or K.indexTime
local from, to = ARGV[4], ARGV[5]
local newestFirst, offset, limit = ARGV[6] == '1', tonumber(ARGV[7]), tonumber(ARGV[8])
local matchAll, prefixLast = ARGV[9] == 'all', ARGV[10] == '1'
local terms = {}
for i = 11, #ARGV do terms[#terms + 1] = ARGV[i] end

local function pages(ids)
  local found = {}
  for i, id in ipairs(ids) do
    found[i] = redis.call('HMGET', K.indexPage .. id, 'owner', 'url', 'title', 'description', 'content', 'at')
  end
  return found
end
local function chunks(ids, visit)
  for first = 1, #ids, ${CHUNK} do visit({unpack(ids, first, math.min(#ids, first + ${CHUNK - 1}))}) end
end

if #terms == 0 then
  local high, low = to == '' and '+inf' or to, from == '' and '-inf' or from
  return pages(redis.call('ZREVRANGEBYSCORE', scope, high, low, 'LIMIT', offset, limit))
end

-- Each term is a group of words (one, or a prefix's expansions) with the postings read of them so far.
local groups = {}
for i, term in ipairs(terms) do
  local words = {term}
  if prefixLast and i == #terms then
    words = redis.call('ZRANGEBYLEX', K.indexTerms, '[' .. term, '[' .. term .. '\\255', 'LIMIT', 0, ${MAX_EXPANSION})
  end
  local size = 0
  for _, word in ipairs(words) do size = size + redis.call('ZCARD', K.indexTerm .. word) end
  groups[i] = {words = words, size = size, tf = {}, whole = false}
end
local function add(group, id, packed)
  local rest, tf = tonumber(packed), group.tf[id]
  if not tf then
    tf = {0, 0, 0, 0}
    group.tf[id] = tf
  end
  for f = 4, 1, -1 do
    local n = rest % ${TF_BASE}
    tf[f] = tf[f] + n
    rest = (rest - n) / ${TF_BASE}
  end
end
local function readWhole(group)
  for _, word in ipairs(group.words) do
    local postings = redis.call('ZRANGE', K.indexTerm .. word, 0, -1, 'WITHSCORES')
    for j = 1, #postings, 2 do add(group, postings[j], postings[j + 1]) end
  end
  group.whole = true
end
local function idsOf(set)
  local ids = {}
  for id in pairs(set) do ids[#ids + 1] = id end
  return ids
end

-- The candidates: with 'all', the postings of the rarest term, each looked up in the other terms' (a common word
-- then costs a lookup per candidate, not a read of all its pages); with 'any', every term's postings.
local candidates
if matchAll then
  local rarest = groups[1]
  for _, group in ipairs(groups) do if group.size < rarest.size then rarest = group end end
  readWhole(rarest)
  candidates = idsOf(rarest.tf)
  for _, group in ipairs(groups) do
    if group ~= rarest then
      for _, word in ipairs(group.words) do
        chunks(candidates, function(chunk)
          for k, packed in ipairs(redis.call('ZMSCORE', K.indexTerm .. word, unpack(chunk))) do
            if packed then add(group, chunk[k], packed) end
          end
        end)
      end
      local kept = {}
      for _, id in ipairs(candidates) do if group.tf[id] then kept[#kept + 1] = id end end
      candidates = kept
    end
  end
else
  local union = {}
  for _, group in ipairs(groups) do
    readWhole(group)
    for id in pairs(group.tf) do union[id] = true end
  end
  candidates = idsOf(union)
end

-- The owner's pages (or everyone's) in the time range, with their time.
local low, high = tonumber(from) or -math.huge, tonumber(to) or math.huge
local at, found = {}, {}
chunks(candidates, function(chunk)
  for k, time in ipairs(redis.call('ZMSCORE', scope, unpack(chunk))) do
    local t = tonumber(time)
    if t and t >= low and t <= high then
      at[chunk[k]] = t
      found[#found + 1] = chunk[k]
    end
  end
end)

local score = {}
if not newestFirst then
  local total = redis.call('ZCARD', K.indexTime)
  local sums = redis.call('HMGET', K.indexStats, unpack(FIELD_NAMES))
  local average = {}
  for f = 1, 4 do
    local mean = (tonumber(sums[f]) or 0) / total
    average[f] = mean > 0 and mean or 1
  end
  local idf = {}
  for g, group in ipairs(groups) do
    local n = group.size
    if group.whole then n = #idsOf(group.tf) end
    n = math.min(n, total)
    idf[g] = math.log(1 + (total - n + 0.5) / (n + 0.5))
  end
  for _, id in ipairs(found) do
    local lengths = lengthsOf(redis.call('HGET', K.indexPage .. id, 'lengths'))
    local s = 0
    for g, group in ipairs(groups) do
      local tf = group.tf[id]
      if tf then
        for f = 1, 4 do
          if tf[f] > 0 then
            local norm = 1 - BM25_B + BM25_B * (lengths[f] or 0) / average[f]
            s = s + idf[g] * WEIGHTS[f] * tf[f] * (BM25_K1 + 1) / (tf[f] + BM25_K1 * norm)
          end
        end
      end
    end
    score[id] = s
  end
end
table.sort(found, function(a, b)
  if not newestFirst and score[a] ~= score[b] then return score[a] > score[b] end
  if at[a] ~= at[b] then return at[a] > at[b] end
  return tonumber(a) > tonumber(b)
end)
local slice = {}
for i = offset + 1, math.min(#found, offset + limit) do slice[#slice + 1] = found[i] end
return pages(slice)`,
)
