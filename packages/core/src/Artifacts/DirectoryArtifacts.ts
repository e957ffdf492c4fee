/**
 * Artifacts in a directory, served by the API under `/v2/artifacts/{name}`; files older than `maxAgeMs` are deleted
 * every hour.
 */
import { mkdir, readdir, readFile, stat, unlink, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Layer, Option, Schedule } from "effect"
import { ArtifactStore, type ArtifactStoreShape, NAME, newName, TYPES } from "./ArtifactStore.js"

export interface DirectoryOptions {
  readonly directory: string
  /** The public URL of `/v2/artifacts` (e.g. `https://api.example.com/v2/artifacts`). */
  readonly baseUrl: string
  /** How long a file is kept. Default 24 hours. */
  readonly maxAgeMs?: number
}

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
          const name = newName(contentType)
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
