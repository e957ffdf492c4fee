/**
 * Where screenshots and PDFs go instead of inline `data:` URLs, when the operator chooses (`WEBDATA_ARTIFACTS`): a
 * directory served under `/v2/artifacts/{name}`, each file named by 128 random bits, so that its URL is the only key
 * to it. Files older than the job TTL are deleted. Without a store, documents carry `data:` URLs (the default).
 */
import { randomBytes } from "node:crypto"
import { mkdir, readdir, readFile, stat, unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Config, Context, Effect, Layer, Option, Schedule } from "effect"

export interface Artifact {
  readonly bytes: Uint8Array
  readonly contentType: string
}

export interface ArtifactStoreShape {
  /** Keeps the bytes; the absolute URL they are served at. */
  readonly put: (artifact: Artifact) => Effect.Effect<string>
  /** The artifact of a name `put` gave, while it is kept. */
  readonly get: (name: string) => Effect.Effect<Option.Option<Artifact>>
}

export class ArtifactStore extends Context.Tag("@webdata/core/ArtifactStore")<ArtifactStore, ArtifactStoreShape>() {}

export interface DirectoryOptions {
  readonly directory: string
  /** The public URL of `/v2/artifacts` (e.g. `https://api.example.com/v2/artifacts`). */
  readonly baseUrl: string
  /** How long a file is kept. Default 24 hours. */
  readonly maxAgeMs?: number
}

const TYPES: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", pdf: "application/pdf" }
const NAME = /^[0-9a-f]{32}\.(png|jpeg|pdf)$/

const extensionOf = (contentType: string) =>
  Object.entries(TYPES).find(([, type]) => type === contentType)?.[0] ?? "bin"

export const makeDirectory = (options: DirectoryOptions) =>
  Effect.gen(function* () {
    const maxAgeMs = options.maxAgeMs ?? 24 * 60 * 60 * 1000
    yield* Effect.promise(() => mkdir(options.directory, { recursive: true }))
    const sweep = Effect.promise(async () => {
      const names = await readdir(options.directory).catch(() => [] as Array<string>)
      const now = Date.now()
      for (const name of names.filter((entry) => NAME.test(entry))) {
        const path = join(options.directory, name)
        const info = await stat(path).catch(() => undefined)
        if (info !== undefined && now - info.mtimeMs > maxAgeMs) await unlink(path).catch(() => undefined)
      }
    })
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced("1 hour")))
    const base = options.baseUrl.replace(/\/+$/, "")
    const store: ArtifactStoreShape = {
      put: ({ bytes, contentType }) =>
        Effect.promise(async () => {
          const name = `${randomBytes(16).toString("hex")}.${extensionOf(contentType)}`
          await writeFile(join(options.directory, name), bytes)
          return `${base}/${name}`
        }),
      get: (name) =>
        NAME.test(name)
          ? Effect.promise(() =>
              readFile(join(options.directory, name)).then(
                (bytes) => Option.some({ bytes, contentType: TYPES[name.split(".")[1]!]! }),
                () => Option.none(),
              ),
            )
          : Effect.succeedNone,
    }
    return store
  })

export const layerDirectory = (options: DirectoryOptions): Layer.Layer<ArtifactStore> =>
  Layer.scoped(ArtifactStore, makeDirectory(options))

/**
 * `WEBDATA_ARTIFACTS=dir:<path>` with `WEBDATA_ARTIFACTS_URL` (default `http://<HOST>:<PORT>/v2/artifacts`); none when
 * unset. Another scheme stops the engine at start.
 */
export const layerConfig: Effect.Effect<Option.Option<Layer.Layer<ArtifactStore>>, Error> = Effect.gen(function* () {
  const setting = yield* Config.option(Config.string("WEBDATA_ARTIFACTS"))
  if (Option.isNone(setting) || setting.value.trim() === "") return Option.none()
  const directory = /^dir:(.+)$/.exec(setting.value.trim())?.[1]
  if (directory === undefined)
    return yield* Effect.fail(new Error(`WEBDATA_ARTIFACTS must be dir:<path> (got ${setting.value})`))
  const host = yield* Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
  const port = yield* Config.integer("PORT").pipe(Config.withDefault(3002))
  const baseUrl = yield* Config.string("WEBDATA_ARTIFACTS_URL").pipe(
    Config.withDefault(`http://${host.includes(":") ? `[${host}]` : host}:${port}/v2/artifacts`),
  )
  return Option.some(layerDirectory({ directory, baseUrl }))
}).pipe(Effect.mapError((error) => (error instanceof Error ? error : new Error(String(error)))))

/** A `data:` URL of the browser's as bytes and type; undefined for anything else. */
export const fromDataUrl = (url: string): Artifact | undefined => {
  const match = /^data:([a-z]+\/[a-z+.-]+);base64,(.*)$/s.exec(url)
  return match === null ? undefined : { contentType: match[1]!, bytes: Buffer.from(match[2]!, "base64") }
}
