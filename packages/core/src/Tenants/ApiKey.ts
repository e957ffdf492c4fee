/**
 * API keys as the server knows them. A key is never kept: only its SHA-256 digest, whose first 32 hex characters are
 * the owner of everything made with it (the same `Owner` the job store has always used). Keys come from
 * `WEBDATA_API_KEYS`, from a keys file (`WEBDATA_KEYS_FILE`, JSON or YAML) or from the admin API (kept in the store).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { Either } from "effect"
import { parse as parseYaml } from "yaml"
import type { Owner } from "../Jobs/Owner.js"
import { type Limits, limitsOf, NO_LIMITS } from "./Limits.js"

/** What a key may do besides its limits. */
export const KEY_FLAGS = [
  /** `ignoreRobotsTxt: true` is allowed for this key even when the server does not allow it to everyone. */
  "ignoreRobotsTxt",
] as const
export type KeyFlag = (typeof KEY_FLAGS)[number]

/** Where a key comes from; `keyless` stands for a caller without one (the keyless tier). */
export type KeySource = "environment" | "file" | "admin" | "keyless"

/** A key the server accepts, without the key itself. */
export interface KeyEntry {
  /** SHA-256 of the key, hex: how the server finds and compares it. */
  readonly digest: string
  /** The owner of what the key makes (the digest's first 32 characters). */
  readonly owner: Owner
  /** Shown in logs and the admin API instead of the key. */
  readonly name: string
  /** The key's own limits (the server's `WEBDATA_RATE_LIMITS` fill in the rest). */
  readonly limits: Limits
  readonly flags: ReadonlyArray<KeyFlag>
  readonly source: KeySource
}

export const digestOf = (key: string): string => createHash("sha256").update(key).digest("hex")
export const ownerOfDigest = (digest: string): string => digest.slice(0, 32)

/** Digests compared in constant time (both are 64 hex characters; a malformed one never matches). */
export const sameDigest = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** A fresh key: `fc-` (what Firecrawl's clients and tools expect of a key) and 32 random bytes in hex. */
export const newKey = (): string => `fc-${randomBytes(32).toString("hex")}`

/** A keys file's or the admin API's `flags`. */
export const flagsOf = (value: unknown): Either.Either<ReadonlyArray<KeyFlag>, string> => {
  if (value === undefined || value === null) return Either.right([])
  if (!Array.isArray(value)) return Either.left(`flags must be a list (known: ${KEY_FLAGS.join(", ")})`)
  const unknown = value.find((flag) => !(KEY_FLAGS as ReadonlyArray<unknown>).includes(flag))
  return unknown === undefined
    ? Either.right(value as ReadonlyArray<KeyFlag>)
    : Either.left(`unknown flag ${JSON.stringify(unknown)} (known: ${KEY_FLAGS.join(", ")})`)
}

/** An entry for `key` (static keys: environment or file). */
export const entryOf = (
  key: string,
  name: string,
  source: KeySource,
  limits: Limits = NO_LIMITS,
  flags: ReadonlyArray<KeyFlag> = [],
): KeyEntry => {
  const digest = digestOf(key)
  return { digest, owner: ownerOfDigest(digest), name, limits, flags, source }
}

/** `WEBDATA_API_KEYS`: comma-separated keys, named `key-1`, `key-2`, ... in the order given. */
export const environmentKeys = (text: string): ReadonlyArray<KeyEntry> =>
  text
    .split(",")
    .map((key) => key.trim())
    .filter((key) => key !== "")
    .map((key, index) => entryOf(key, `key-${index + 1}`, "environment"))

/**
 * A keys file: a list of `{ key, name, limits?, flags? }`, or `{ keys: [...] }`, in JSON or YAML (JSON is YAML).
 * An error says which entry is wrong and why, never showing a key.
 */
export const parseKeysFile = (text: string): Either.Either<ReadonlyArray<KeyEntry>, string> => {
  let document: unknown
  try {
    document = parseYaml(text)
  } catch (error) {
    return Either.left(`not JSON or YAML: ${(error as Error).message.split("\n")[0]}`)
  }
  const list =
    document !== null && typeof document === "object" && !Array.isArray(document) && "keys" in document
      ? (document as { keys: unknown }).keys
      : document
  if (!Array.isArray(list)) return Either.left("expected a list of keys, or an object with `keys: [...]`")
  const entries: Array<KeyEntry> = []
  const names = new Set<string>()
  for (const [index, item] of list.entries()) {
    const where = `entry ${index + 1}`
    if (item === null || typeof item !== "object")
      return Either.left(`${where}: expected { key, name, limits?, flags? }`)
    const { key, name, limits, flags, ...rest } = item as Record<string, unknown>
    const extra = Object.keys(rest)
    if (extra.length > 0) return Either.left(`${where}: unknown field ${extra[0]}`)
    if (typeof key !== "string" || key.trim().length < 16)
      return Either.left(`${where}: key must be a string of at least 16 characters`)
    const label = typeof name === "string" && name.trim() !== "" ? name.trim() : `key-${index + 1}`
    if (names.has(label)) return Either.left(`${where}: the name ${label} is used twice`)
    names.add(label)
    const parsedLimits = limitsOf(limits)
    if (Either.isLeft(parsedLimits)) return Either.left(`${where} (${label}): ${parsedLimits.left}`)
    const parsedFlags = flagsOf(flags)
    if (Either.isLeft(parsedFlags)) return Either.left(`${where} (${label}): ${parsedFlags.left}`)
    entries.push(entryOf(key.trim(), label, "file", parsedLimits.right, parsedFlags.right))
  }
  return Either.right(entries)
}
