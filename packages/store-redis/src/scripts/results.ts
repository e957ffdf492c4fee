/** Scripts that read and delete what jobs produced. */
import { script } from "../Script.js"
import { prelude } from "./prelude.js"

/** Fields per HMGET / HDEL: well under the Lua stack's limit on `unpack`. */
const CHUNK = 1000

/** Lua: the seqs `first..last` as field names, CHUNK at a time. */
const seqChunks = `
local function eachSeqChunk(first, last, visit)
  for from = first, last, ${CHUNK} do
    local seqs = {}
    for seq = from, math.min(last, from + ${CHUNK - 1}) do seqs[#seqs + 1] = int(seq) end
    visit(seqs)
  end
end`

/**
 * ARGV: prefix, jobId, skip, limit. Returns {seq, record} pairs (flat), seq ascending: the documents with
 * `seq >= skip`, at most `limit`. Seqs run from the first one kept (`docsFrom`) to the last one recorded.
 */
export const documents = script(
  "documents",
  prelude,
  seqChunks,
  `
local jobId, skip, limit = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local job = redis.call('HMGET', K.job .. jobId, 'completed', 'docsFrom')
if not job[1] then return {} end
local first = math.max(0, skip, tonumber(job[2]))
local last = math.min(first + limit, tonumber(job[1])) - 1
local found = {}
eachSeqChunk(first, last, function(seqs)
  local records = redis.call('HMGET', part(jobId, 'docs'), unpack(seqs))
  for i, record in ipairs(records) do
    if record then
      found[#found + 1] = seqs[i]
      found[#found + 1] = record
    end
  end
end)
return found`,
)

/** ARGV: prefix, jobId, beforeSeq. Deletes the documents with `seq < beforeSeq`; returns how many. */
export const deleteDocuments = script(
  "deleteDocuments",
  prelude,
  seqChunks,
  `
local jobId = ARGV[2]
local jk = K.job .. jobId
local job = redis.call('HMGET', jk, 'completed', 'docsFrom')
if not job[1] then return 0 end
local first = tonumber(job[2])
local last = math.min(math.max(0, tonumber(ARGV[3])), tonumber(job[1])) - 1
if last < first then return 0 end
local deleted = 0
eachSeqChunk(first, last, function(seqs)
  deleted = deleted + redis.call('HDEL', part(jobId, 'docs'), unpack(seqs))
end)
redis.call('HSET', jk, 'docsFrom', int(last + 1))
return deleted`,
)

/** ARGV: prefix, jobId. Returns {error records, robots-blocked URLs in first-seen order}. */
export const errors = script(
  "errors",
  prelude,
  `
local jobId = ARGV[2]
return {redis.call('LRANGE', part(jobId, 'errors'), 0, -1), redis.call('LRANGE', part(jobId, 'robots-order'), 0, -1)}`,
)
