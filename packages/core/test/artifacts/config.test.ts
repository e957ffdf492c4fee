/** `WEBDATA_ARTIFACTS` read from the environment: none, a directory, a bucket, or a clear failure at start. */
import { ConfigProvider, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { layerConfig } from "../../src/Artifacts/ArtifactsConfig.js"

const read = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(layerConfig.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))),
  )

describe("WEBDATA_ARTIFACTS", () => {
  it("keeps data: URLs when unset or empty", () => {
    expect(read({})).toEqual(Either.right(Option.none()))
    expect(read({ WEBDATA_ARTIFACTS: " " })).toEqual(Either.right(Option.none()))
  })

  it("takes a directory or a bucket with its credentials", () => {
    expect(Either.getOrThrow(read({ WEBDATA_ARTIFACTS: "dir:/var/lib/webdata/artifacts" })).pipe(Option.isSome)).toBe(
      true,
    )
    const bucket = read({
      WEBDATA_ARTIFACTS: "s3://shots/webdata",
      AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
      AWS_SECRET_ACCESS_KEY: "secret",
    })
    expect(Either.getOrThrow(bucket).pipe(Option.isSome)).toBe(true)
  })

  it("fails at start on another scheme, or a bucket without credentials", () => {
    const other = read({ WEBDATA_ARTIFACTS: "ftp://files" })
    expect(Either.isLeft(other) && other.left.message).toBe(
      "WEBDATA_ARTIFACTS must be dir:<path> or s3://<bucket>[/<prefix>] (got ftp://files)",
    )
    const anonymous = read({ WEBDATA_ARTIFACTS: "s3://shots" })
    expect(Either.isLeft(anonymous) && anonymous.left.message).toContain("AWS_ACCESS_KEY_ID")
  })
})
