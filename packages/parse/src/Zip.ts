/**
 * Zip archives (DOCX, XLSX, PPTX, OpenDocument, EPUB) read with guards against zip bombs: at most `maxEntries`
 * entries, at most `maxTotalBytes` unpacked in all and `maxEntryBytes` per entry, and no entry that unpacks to more
 * than `maxRatio` times its packed size. The declared sizes are checked before anything is inflated, and the actual
 * inflated bytes are counted as they come (yauzl checks them against the declared sizes), so a lying header costs at
 * most the cap.
 */
import yauzl, { type Entry, type ZipFile } from "yauzl"
import { parseFailed } from "./Failures.js"

const limits = {
  maxEntries: 10_000,
  maxEntryBytes: 100 * 1024 * 1024,
  maxTotalBytes: 300 * 1024 * 1024,
  maxRatio: 200,
}

export interface ZipArchive {
  /** Entry names, in the archive's order (directories left out). */
  readonly names: ReadonlyArray<string>
  /** An entry's bytes, or undefined when there is no such entry. */
  readonly read: (name: string) => Promise<Uint8Array | undefined>
  /** An entry as UTF-8 text. */
  readonly text: (name: string) => Promise<string | undefined>
}

const open = (bytes: Uint8Array) =>
  new Promise<ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
      { lazyEntries: true, validateEntrySizes: true, strictFileNames: false, decodeStrings: true },
      (error, zip) => (error ? reject(parseFailed(`Not a readable zip archive: ${error.message}`)) : resolve(zip)),
    ),
  )

const entriesOf = (zip: ZipFile) =>
  new Promise<Array<Entry>>((resolve, reject) => {
    const entries: Array<Entry> = []
    let declared = 0
    zip.on("entry", (entry: Entry) => {
      if (entries.length >= limits.maxEntries)
        return reject(parseFailed(`The archive has more than ${limits.maxEntries} entries.`))
      declared += entry.uncompressedSize
      if (entry.uncompressedSize > limits.maxEntryBytes)
        return reject(
          parseFailed(`The entry ${entry.fileName} unpacks to more than the ${limits.maxEntryBytes} bytes allowed.`),
        )
      if (declared > limits.maxTotalBytes)
        return reject(parseFailed(`The archive unpacks to more than the ${limits.maxTotalBytes} bytes allowed.`))
      if (entry.compressedSize > 0 && entry.uncompressedSize / entry.compressedSize > limits.maxRatio)
        return reject(parseFailed(`An entry of the archive is compressed more than ${limits.maxRatio}x (a zip bomb).`))
      if (!entry.fileName.endsWith("/")) entries.push(entry)
      zip.readEntry()
    })
    zip.on("end", () => resolve(entries))
    zip.on("error", (error: Error) => reject(parseFailed(`The zip archive is corrupt: ${error.message}`)))
    zip.readEntry()
  })

/** Opens `bytes` as a zip; fails with `ParseFailed` for a corrupt archive or one past the limits. */
export const openZip = async (bytes: Uint8Array): Promise<ZipArchive> => {
  const zip = await open(bytes)
  const entries = await entriesOf(zip)
  const byName = new Map(entries.map((entry) => [entry.fileName, entry]))
  // Readers ask for some parts more than once (a check of every entry, then the part itself): an entry counts
  // against the total the first time it is unpacked, and is not kept between reads.
  const counted = new Set<Entry>()
  let unpacked = 0
  const read = (name: string) => {
    const entry = byName.get(name) ?? byName.get(name.replace(/^\/+/, ""))
    if (entry === undefined) return Promise.resolve(undefined)
    const counts = !counted.has(entry)
    counted.add(entry)
    return new Promise<Uint8Array>((resolve, reject) =>
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(parseFailed(`Could not read ${name} in the archive: ${error.message}`))
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => {
          if (counts) unpacked += chunk.length
          if (unpacked > limits.maxTotalBytes) {
            stream.destroy()
            reject(parseFailed(`The archive unpacks to more than the ${limits.maxTotalBytes} bytes allowed.`))
          } else chunks.push(chunk)
        })
        stream.on("end", () => resolve(Buffer.concat(chunks)))
        // yauzl stops an entry that inflates past its declared size: a header that lies is a zip bomb.
        stream.on("error", (failure: Error) =>
          reject(
            parseFailed(
              /too many bytes/.test(failure.message)
                ? `The entry ${name} unpacks to more than its header declares (a zip bomb).`
                : `The entry ${name} of the archive is corrupt: ${failure.message}`,
            ),
          ),
        )
      }),
    )
  }
  return {
    names: entries.map((entry) => entry.fileName),
    read,
    text: async (name) => {
      const bytes = await read(name)
      return bytes === undefined ? undefined : new TextDecoder().decode(bytes)
    },
  }
}
