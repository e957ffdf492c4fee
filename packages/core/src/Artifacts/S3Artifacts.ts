/**
 * Artifacts in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, ...), put with SigV4-signed requests
 * (`aws4fetch`), path-style (`<endpoint>/<bucket>/<key>`). Documents get the object's URL under `publicUrl` when the
 * bucket is served publicly, else a presigned GET that expires (Firecrawl's screenshot links expire too). Expiring
 * the objects themselves is the bucket's lifecycle rule.
 */
import { AwsClient } from "aws4fetch"
import { Effect, Layer } from "effect"
import { ArtifactStore, type ArtifactStoreShape, newName } from "./ArtifactStore.js"

export interface S3Options {
  readonly bucket: string
  /** Keys start with this (`screenshots/`). */
  readonly prefix?: string
  /** `https://s3.<region>.amazonaws.com`, or another S3-compatible service's. */
  readonly endpoint: string
  readonly region: string
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** Where the bucket's objects are served publicly (`https://cdn.example.com/screenshots`); else presigned URLs. */
  readonly publicUrl?: string | undefined
  /** How long a presigned URL works. Default 24 hours (S3 allows at most 7 days). */
  readonly expiresInSeconds?: number
}

export const make = (options: S3Options): ArtifactStoreShape => {
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: "s3",
    region: options.region,
    retries: 2,
  })
  const base = `${options.endpoint.replace(/\/+$/, "")}/${options.bucket}`
  const prefix = options.prefix?.replace(/^\/+/, "") ?? ""
  const expires = String(Math.min(options.expiresInSeconds ?? 24 * 60 * 60, 7 * 24 * 60 * 60))
  return {
    put: ({ bytes, contentType }) =>
      Effect.promise(async () => {
        const key = `${prefix}${newName(contentType)}`
        const response = await client.fetch(`${base}/${key}`, {
          method: "PUT",
          body: Buffer.from(bytes),
          headers: { "content-type": contentType },
        })
        if (!response.ok)
          throw new Error(`S3 PUT ${key} answered ${response.status}: ${(await response.text()).slice(0, 200)}`)
        if (options.publicUrl !== undefined) return `${options.publicUrl.replace(/\/+$/, "")}/${key}`
        const signed = await client.sign(`${base}/${key}?X-Amz-Expires=${expires}`, { aws: { signQuery: true } })
        return signed.url
      }),
    // Objects are read from the bucket, not through the API.
    get: () => Effect.succeedNone,
  }
}

export const layer = (options: S3Options): Layer.Layer<ArtifactStore> => Layer.succeed(ArtifactStore, make(options))
