/**
 * The `diff` of a change-tracking result: a git-style unified diff of the previous and current (normalized) markdown
 * with the AST `parse-diff` reads from it, as Firecrawl returns in `git-diff` mode; and the per-field comparison of
 * two extractions for `json` mode.
 */
import { formatPatch, type StructuredPatch, structuredPatch } from "diff"
import parseDiff from "parse-diff"

export interface GitDiff {
  readonly text: string
  readonly json: { readonly files: ReadonlyArray<unknown> }
}

/** Both sides are one file, named as git names a file in a diff. */
const OLD_NAME = "a/page"
const NEW_NAME = "b/page"
const CONTEXT_LINES = 3

/**
 * Bounds on the line diff (Myers' algorithm, time proportional to the lines times the lines that differ), since it
 * runs on untrusted pages: past either, the diff is one hunk that replaces every line.
 */
export const DIFF_LIMITS = { maxEditLength: 2_000, timeoutMs: 500 } as const

/** A file's text as git stores it: every line, the last included, ends with a line end. */
const asFile = (text: string): string => (text === "" || text.endsWith("\n") ? text : `${text}\n`)

const linesOf = (file: string): Array<string> => (file === "" ? [] : file.slice(0, -1).split("\n"))

/** One hunk that replaces every line of one file with every line of the other. */
const replaceWhole = (before: string, after: string): StructuredPatch => {
  const removed = linesOf(before)
  const added = linesOf(after)
  return {
    oldFileName: OLD_NAME,
    newFileName: NEW_NAME,
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: 1,
        oldLines: removed.length,
        newStart: 1,
        newLines: added.length,
        lines: [...removed.map((line) => `-${line}`), ...added.map((line) => `+${line}`)],
      },
    ],
  }
}

/** The unified diff of two texts with its parsed form; `undefined` when their lines are equal. */
export const gitDiff = (previous: string, current: string): GitDiff | undefined => {
  const [before, after] = [asFile(previous), asFile(current)]
  if (before === after) return undefined
  const patch =
    structuredPatch(OLD_NAME, NEW_NAME, before, after, undefined, undefined, {
      context: CONTEXT_LINES,
      maxEditLength: DIFF_LIMITS.maxEditLength,
      timeout: DIFF_LIMITS.timeoutMs,
    }) ?? replaceWhole(before, after)
  const text = formatPatch({ ...patch, isGit: true })
  return { text, json: { files: parseDiff(text) } }
}

export interface FieldChange {
  readonly previous: unknown
  readonly current: unknown
}

/** Bounds on the walk of two extractions: deeper values compare whole, and at most so many fields are listed. */
export const JSON_DIFF_LIMITS = { depth: 32, fields: 1_000 } as const

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

const childPath = (path: string, key: string): string =>
  IDENTIFIER.test(key) ? (path === "" ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** JSON equality of two values (a value too deep for `JSON.stringify` counts as different). */
const sameJson = (a: unknown, b: unknown): boolean => {
  try {
    return JSON.stringify(a ?? null) === JSON.stringify(b ?? null)
  } catch {
    return false
  }
}

/** The children of two values walked side by side, with their paths, or `undefined` when they compare whole. */
const childrenOf = (
  path: string,
  before: unknown,
  after: unknown,
): Array<readonly [string, unknown, unknown]> | undefined => {
  const absent = (value: unknown) => value === undefined || value === null
  if (Array.isArray(before) || Array.isArray(after)) {
    if (!(Array.isArray(before) || absent(before)) || !(Array.isArray(after) || absent(after))) return undefined
    const left: ReadonlyArray<unknown> = Array.isArray(before) ? before : []
    const right: ReadonlyArray<unknown> = Array.isArray(after) ? after : []
    return Array.from({ length: Math.max(left.length, right.length) }, (_, index) => [
      `${path}[${index}]`,
      left[index],
      right[index],
    ])
  }
  if (!(isRecord(before) || absent(before)) || !(isRecord(after) || absent(after))) return undefined
  const left = isRecord(before) ? before : {}
  const right = isRecord(after) ? after : {}
  return [...new Set([...Object.keys(left), ...Object.keys(right)])].map((key) => [
    childPath(path, key),
    left[key],
    right[key],
  ])
}

/**
 * The fields that differ between two extractions, by their path into it (`title`, `plans[0].price`,
 * `meta["content-type"]`; `""` for the whole value when it is not an object): arrays compare by index; a field
 * present on one side only is listed with `null` on the other (a missing field and a `null` one are the same), field
 * by field when it is an object or array; a value whose type changed (an object that became a string) is listed
 * whole. Empty when the two are equal.
 */
export const jsonDiff = (previous: unknown, current: unknown): Readonly<Record<string, FieldChange>> => {
  const changes: Record<string, FieldChange> = {}
  let count = 0
  const visit = (before: unknown, after: unknown, path: string, depth: number): void => {
    if (count >= JSON_DIFF_LIMITS.fields) return
    const children = depth < JSON_DIFF_LIMITS.depth ? childrenOf(path, before, after) : undefined
    if (children !== undefined && children.length > 0) {
      for (const [child, left, right] of children) visit(left, right, child, depth + 1)
    } else if (!sameJson(before, after)) {
      changes[path] = { previous: before ?? null, current: after ?? null }
      count++
    }
  }
  visit(previous, current, "", 0)
  return changes
}
