/**
 * Large stored texts (a scrape's document, a cached page's body) are kept gzip-compressed: pages of HTML and markdown
 * shrink several times over, and with them the pages SQLite writes (a 100 KB page cost ~100 `pwrite` uncompressed).
 * The column keeps its type's meaning by SQLite's dynamic typing: a TEXT value is the text itself (small texts, and
 * rows written before compression), a BLOB is its compressed form: gzip, or brotli in rows written before gzip.
 * Compression and decompression run on libuv's thread pool, off the event loop.
 *
 * Why gzip at level 1 rather than brotli at quality 1, which compresses ~1.5× tighter: brotli's fast encoder takes
 * ~600 KB of fresh tables per text, and on a loaded server that memory comes back from the kernel each time (100-150
 * page faults per 100 KB page: a third to a half of its CPU is the kernel's); zlib's ~10. Under the load benchmark the
 * whole scrape cost 0.83-0.90× the CPU with gzip (bench/README.md, "Scrapes: the stored texts in gzip, and what the
 * tail is").
 */
import { promisify } from "node:util"
import { brotliDecompress, gunzip, gzip } from "node:zlib"
import { StoreError } from "@webdata/core/jobs"
import { Effect } from "effect"

/**
 * Texts shorter than this are stored as they are (the write-behind queue keeps them as text and longer ones as bytes,
 * which `packAll` compresses): one or two database pages, nothing to save.
 */
export const COMPRESS_FROM_BYTES = 8 * 1024

const compress = promisify(gzip)
const gunzipped = promisify(gunzip)
const brotliDecompressed = promisify(brotliDecompress)

/** A stored value: the text, or its compressed bytes (better-sqlite3 reads a BLOB as a Buffer). */
export type Stored = string | Uint8Array

/** zlib's fastest level: most of the size saved (a 96 KB article page to 8 KB) for the least CPU. */
const gzipOptions = { level: 1 }

/**
 * gzip's magic bytes. No brotli stream this store wrote begins with them: a brotli stream's first bits give its window,
 * and a first byte of `0x1f` means 24 bits, while the encoder wrote windows of its default 22 bits or fewer.
 */
const isGzip = (bytes: Uint8Array) => bytes[0] === 0x1f && bytes[1] === 0x8b

/**
 * What to store for each of `texts`: a text as it is (the caller keeps only short ones as text), the gzip form of bytes
 * (a long text's UTF-8). One effect for the batch: a fiber per text costs a turn of the event loop each to resume, and
 * a busy loop's turns are long.
 */
export const packAll = (texts: ReadonlyArray<string | Uint8Array>): Effect.Effect<ReadonlyArray<Stored>, StoreError> =>
  texts.every((text) => typeof text === "string")
    ? Effect.succeed(texts)
    : Effect.tryPromise({
        try: () =>
          Promise.all(
            texts.map((text): Stored | Promise<Stored> =>
              typeof text === "string" ? text : compress(text, gzipOptions),
            ),
          ),
        catch: (cause) => new StoreError({ reason: "InvalidData", message: "Cannot compress a stored text", cause }),
      })

/** The text of a stored value. */
export const unpack = (stored: Stored): Effect.Effect<string, StoreError> =>
  typeof stored === "string"
    ? Effect.succeed(stored)
    : Effect.tryPromise({
        try: async () => (await (isGzip(stored) ? gunzipped(stored) : brotliDecompressed(stored))).toString("utf8"),
        catch: (cause) =>
          new StoreError({ reason: "InvalidData", message: "A stored text cannot be decompressed", cause }),
      })
