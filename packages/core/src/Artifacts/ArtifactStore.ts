/**
 * Where screenshots and PDFs go instead of inline `data:` URLs, when the operator chooses (`WEBDATA_ARTIFACTS`): a
 * directory served under `/v2/artifacts/{name}` (`DirectoryArtifacts.ts`) or an S3-compatible bucket
 * (`S3Artifacts.ts`). Names are 128 random bits, so that a URL is the only key to its file. Without a store,
 * documents carry `data:` URLs (the default).
 */
import { randomBytes } from "node:crypto"
import { Context, type Effect, type Option } from "effect"

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

/** The content types artifacts have, by file extension. */
export const TYPES: Record<string, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  pdf: "application/pdf",
  bin: "application/octet-stream",
}
/** What a name `newName` made looks like. */
export const NAME = /^[0-9a-f]{32}\.(png|jpeg|pdf|bin)$/

/** A fresh artifact name: 128 random bits and the extension of its type. */
export const newName = (contentType: string): string =>
  `${randomBytes(16).toString("hex")}.${Object.entries(TYPES).find(([, type]) => type === contentType)?.[0] ?? "bin"}`

export class ArtifactStore extends Context.Tag("@webdata/core/ArtifactStore")<ArtifactStore, ArtifactStoreShape>() {}

/** A `data:` URL of the browser's as bytes and type; undefined for anything else. */
export const fromDataUrl = (url: string): Artifact | undefined => {
  const match = /^data:([a-z]+\/[a-z+.-]+);base64,(.*)$/s.exec(url)
  return match === null ? undefined : { contentType: match[1]!, bytes: Buffer.from(match[2]!, "base64") }
}
