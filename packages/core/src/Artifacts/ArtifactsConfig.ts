/**
 * The artifact store from the environment: `WEBDATA_ARTIFACTS` unset (documents carry `data:` URLs), `dir:<path>`
 * (served under `WEBDATA_ARTIFACTS_URL`, default `http://<HOST>:<PORT>/v2/artifacts`) or `s3://<bucket>[/<prefix>]`
 * (`WEBDATA_S3_ENDPOINT`, `WEBDATA_S3_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, and
 * `WEBDATA_ARTIFACTS_URL` when the bucket is public). Anything else stops the engine at start.
 */
import { Config, Effect, type Layer, Option, Redacted } from "effect"
import type { ArtifactStore } from "./ArtifactStore.js"
import * as DirectoryArtifacts from "./DirectoryArtifacts.js"
import * as S3Artifacts from "./S3Artifacts.js"

const publicUrl = Config.option(Config.string("WEBDATA_ARTIFACTS_URL"))

const directory = (path: string) =>
  Effect.gen(function* () {
    const host = yield* Config.string("HOST").pipe(Config.withDefault("127.0.0.1"))
    const port = yield* Config.integer("PORT").pipe(Config.withDefault(3002))
    const baseUrl = Option.getOrElse(
      yield* publicUrl,
      () => `http://${host.includes(":") ? `[${host}]` : host}:${port}/v2/artifacts`,
    )
    return DirectoryArtifacts.layerDirectory({ directory: path, baseUrl })
  })

const bucket = (name: string, prefix: string) =>
  Effect.gen(function* () {
    const region = yield* Config.string("WEBDATA_S3_REGION").pipe(Config.withDefault("us-east-1"))
    const endpoint = yield* Config.string("WEBDATA_S3_ENDPOINT").pipe(
      Config.withDefault(`https://s3.${region}.amazonaws.com`),
    )
    return S3Artifacts.layer({
      bucket: name,
      prefix,
      endpoint,
      region,
      accessKeyId: yield* Config.string("AWS_ACCESS_KEY_ID"),
      secretAccessKey: Redacted.value(yield* Config.redacted("AWS_SECRET_ACCESS_KEY")),
      publicUrl: Option.getOrUndefined(yield* publicUrl),
    })
  })

export const layerConfig: Effect.Effect<Option.Option<Layer.Layer<ArtifactStore>>, Error> = Effect.gen(function* () {
  const setting = (yield* Config.option(Config.string("WEBDATA_ARTIFACTS"))).pipe(Option.map((value) => value.trim()))
  if (Option.isNone(setting) || setting.value === "") return Option.none()
  const path = /^dir:(.+)$/.exec(setting.value)?.[1]
  if (path !== undefined) return Option.some(yield* directory(path))
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/.exec(setting.value)
  if (s3 !== null) return Option.some(yield* bucket(s3[1]!, s3[2] ? `${s3[2].replace(/\/+$/, "")}/` : ""))
  return yield* Effect.fail(
    new Error(`WEBDATA_ARTIFACTS must be dir:<path> or s3://<bucket>[/<prefix>] (got ${setting.value})`),
  )
}).pipe(Effect.mapError((error) => (error instanceof Error ? error : new Error(String(error)))))
