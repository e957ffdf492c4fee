/**
 * Who owns a job or a stored scrape: a digest of the API key that made it (the store never holds the key itself),
 * or null when the server runs without keys or the library calls directly. A job is visible only to its owner.
 */
import { createHash } from "node:crypto"

export type Owner = string | null

export const ownerOf = (apiKey: string | undefined): Owner =>
  apiKey === undefined ? null : createHash("sha256").update(apiKey).digest("hex").slice(0, 32)
