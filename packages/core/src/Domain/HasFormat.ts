/**
 * Whether a format was asked for. Kept apart from the format schemas so that content threads, which need only this,
 * do not load Effect.
 */
import type { Format, FormatType } from "./Formats.js"

export const hasFormat = (formats: ReadonlyArray<Format>, type: FormatType): boolean =>
  formats.some((format) => format.type === type)
