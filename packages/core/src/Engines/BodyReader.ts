/**
 * Reads a response body through its content decodings with two caps: bytes received from the wire and bytes
 * produced by decompression. Everything streams, and the read stops as soon as either cap is crossed, so a
 * decompression bomb costs at most the decompressed cap in memory, never its claimed size.
 */
import { addAbortSignal, Readable, pipeline as streamPipeline } from "node:stream"
import { pipeline } from "node:stream/promises"
import {
  constants,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  type ZlibOptions,
} from "node:zlib"
import { ScrapeError } from "../Errors.js"

export interface BodyLimits {
  /** Bytes read from the connection (compressed). */
  readonly maxBodyBytes: number
  /** Bytes after decompression. */
  readonly maxDecompressedBytes: number
}

type Decoder = () => NodeJS.ReadWriteStream | ((source: AsyncIterable<Buffer>) => AsyncIterable<Buffer>)

// Like browsers, accept a stream cut short at the end instead of failing on the missing trailer.
const zlibOptions: ZlibOptions = { finishFlush: constants.Z_SYNC_FLUSH }

/** A zlib header is CM=8 in the low nibble of the first byte and a 16-bit header divisible by 31. */
const isZlibHeader = (chunk: Buffer) =>
  chunk.length >= 2 && (chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0

/** `deflate` is meant to be zlib-wrapped, but some servers send raw deflate; browsers accept both, so do we. */
const inflateEither = async function* (source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
  const iterator = source[Symbol.asyncIterator]()
  const first = await iterator.next()
  if (first.done) return
  const inflater = isZlibHeader(first.value) ? createInflate(zlibOptions) : createInflateRaw(zlibOptions)
  const all = async function* () {
    yield first.value
    yield* { [Symbol.asyncIterator]: () => iterator }
  }
  // The callback form ties both streams' lifetimes together; errors surface through the iteration of `inflater`.
  yield* streamPipeline(Readable.from(all()), inflater, () => {})
}

const decoders: Record<string, Decoder> = {
  gzip: () => createGunzip(zlibOptions),
  "x-gzip": () => createGunzip(zlibOptions),
  deflate: () => inflateEither,
  br: () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH }),
}

/**
 * Content codings one response may stack. Real servers send one; thousands of stacked decoders cost seconds of CPU
 * on a tiny body (undici's fetch refuses more than five too).
 */
export const MAX_CONTENT_CODINGS = 5

/** The decoders for a Content-Encoding header, in the order they must run (the reverse of the header's). */
const decodersFor = (contentEncoding: string | undefined, url: string): ReadonlyArray<Decoder> => {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity")
  if (codings.length > MAX_CONTENT_CODINGS)
    throw new ScrapeError({
      reason: "UnsupportedContent",
      url,
      message: `The response of ${url} stacks ${codings.length} content encodings; at most ${MAX_CONTENT_CODINGS} are decoded`,
    })
  return codings.reverse().map((coding) => {
    const decoder = decoders[coding]
    if (decoder === undefined)
      throw new ScrapeError({
        reason: "UnsupportedContent",
        url,
        message: `The response of ${url} uses the content encoding "${coding}", which this engine cannot decode`,
      })
    return decoder
  })
}

const tooLarge = (url: string, what: string, limit: number) =>
  new ScrapeError({
    reason: "ResponseTooLarge",
    url,
    message: `The response of ${url} exceeds the ${what} size limit of ${limit} bytes`,
  })

/** An identity-encoded body: one cap, no stream stages (most pages; the stages cost more than the read). */
const readPlain = async (body: Readable, maxBytes: number, url: string, signal: AbortSignal): Promise<Uint8Array> => {
  const chunks: Array<Buffer> = []
  let received = 0
  for await (const chunk of addAbortSignal(signal, body) as AsyncIterable<Buffer>) {
    received += chunk.length
    // Leaving the loop destroys the stream.
    if (received > maxBytes) throw tooLarge(url, "body", maxBytes)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, received)
}

/** Reads, decodes and caps a body; rejects with a `ScrapeError` for caps and encodings, or the stream's own error. */
export const readBody = async (
  body: Readable,
  contentEncoding: string | undefined,
  limits: BodyLimits,
  url: string,
  signal: AbortSignal,
): Promise<Uint8Array> => {
  const stages = decodersFor(contentEncoding, url).map((make) => make())
  if (stages.length === 0) return readPlain(body, limits.maxBodyBytes, url, signal)
  let received = 0
  let produced = 0
  const chunks: Array<Buffer> = []
  // A cap that trips tears the stages down, and with several stages the pipeline may report a stage's "aborted"
  // instead: the cap is the reason.
  let capped: ScrapeError | undefined
  const cap = (error: ScrapeError) => {
    capped = error
    return error
  }
  const countReceived = async function* (source: AsyncIterable<Buffer>) {
    for await (const chunk of source) {
      received += chunk.length
      if (received > limits.maxBodyBytes) throw cap(tooLarge(url, "body", limits.maxBodyBytes))
      yield chunk
    }
  }
  const collect = async (source: AsyncIterable<Buffer>) => {
    for await (const chunk of source) {
      produced += chunk.length
      if (produced > limits.maxDecompressedBytes) throw cap(tooLarge(url, "decompressed", limits.maxDecompressedBytes))
      chunks.push(chunk)
    }
  }
  // pipeline's typings cannot express a variable number of stages.
  await (pipeline as (...args: ReadonlyArray<unknown>) => Promise<void>)(body, countReceived, ...stages, collect, {
    signal,
  }).catch((error: unknown) => {
    throw capped ?? error
  })
  return Buffer.concat(chunks, produced)
}
