/**
 * Large stored texts (a scrape's document, a cached page's body) are kept brotli-compressed: pages of HTML and
 * markdown shrink several times over, and with them the pages SQLite writes (a 100 KB page cost ~100 `pwrite`
 * uncompressed). The column keeps its type's meaning by SQLite's dynamic typing: a TEXT value is the text itself
 * (small texts, and rows written before compression), a BLOB is its compressed form. Compression and decompression
 * run on libuv's thread pool, off the event loop.
 */
import { promisify } from "node:util"
import { brotliCompress, brotliDecompress, constants } from "node:zlib"
import { StoreError } from "@webdata/core/jobs"
import { Effect } from "effect"

/** Texts shorter than this are stored as they are: one or two database pages, nothing to save. */
export const COMPRESS_FROM_BYTES = 8 * 1024

const compress = promisify(brotliCompress)
const decompress = promisify(brotliDecompress)

/** A stored value: the text, or its compressed bytes (better-sqlite3 reads a BLOB as a Buffer). */
export type Stored = string | Uint8Array

const brotliOptions = (text: string) => ({
  params: {
    // Quality 1 of 11, brotli's fast encoder: on 60 real article pages (~160 KB) 0.83 ms a page for a ratio of 4.6,
    // against 2.25 ms for 5.3 at quality 4; and under load (a scrape compresses two texts while 32 others wait for the
    // same core) qualities 2 to 4 cost 2-6 ms more CPU off the main thread per scrape than 1 (bench/README.md,
    // "Scrapes: where the CPU beyond the floor goes").
    [constants.BROTLI_PARAM_QUALITY]: 1,
    [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
    [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
  },
})

/**
 * What to store for each of `texts`: the text itself when short, else its brotli form. One effect for the batch: a
 * fiber per text costs a turn of the event loop each to resume, and a busy loop's turns are long.
 */
export const packAll = (texts: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Stored>, StoreError> =>
  texts.every((text) => text.length < COMPRESS_FROM_BYTES)
    ? Effect.succeed(texts)
    : Effect.tryPromise({
        try: () =>
          Promise.all(
            texts.map((text): Stored | Promise<Stored> =>
              text.length < COMPRESS_FROM_BYTES ? text : compress(text, brotliOptions(text)),
            ),
          ),
        catch: (cause) => new StoreError({ reason: "InvalidData", message: "Cannot compress a stored text", cause }),
      })

/** The text of a stored value. */
export const unpack = (stored: Stored): Effect.Effect<string, StoreError> =>
  typeof stored === "string"
    ? Effect.succeed(stored)
    : Effect.tryPromise({
        try: async () => (await decompress(stored)).toString("utf8"),
        catch: (cause) =>
          new StoreError({ reason: "InvalidData", message: "A stored text cannot be decompressed", cause }),
      })
