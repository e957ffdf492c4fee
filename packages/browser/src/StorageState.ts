/** A saved profile's cookies and storage, as Playwright takes them. */
import type { BrowserContextOptions } from "playwright-core"

export type StorageState = Exclude<NonNullable<BrowserContextOptions["storageState"]>, string>

/**
 * Only an object is a state: Playwright reads a string as the path of a file, which a profile must never name.
 */
export const isStorageState = (value: unknown): value is StorageState =>
  typeof value === "object" && value !== null && Array.isArray((value as { cookies?: unknown }).cookies)
