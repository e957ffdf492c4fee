/** The committed fixture files, and one parsed the way the engine reads it (sniffed, then parsed). */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { type ParsedFile, type PdfSettings, sniffFile } from "@webdata/core/engine"
import { parseFile } from "../../src/parseFile.js"

export const fixture = (path: string): Uint8Array =>
  new Uint8Array(readFileSync(fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url))))

export const parseFixture = (path: string, pdf: PdfSettings = { mode: "fast" }): Promise<ParsedFile> => {
  const bytes = fixture(path)
  return parseFile({ bytes, kind: sniffFile(bytes, undefined, path), pdf })
}

/** The failure a parse ends with (its reason and message), or a test failure if it succeeds. */
export const failureOf = async (parsing: Promise<unknown>): Promise<{ reason: string; message: string }> => {
  try {
    await parsing
  } catch (error) {
    return { reason: (error as { reason?: string }).reason ?? "none", message: (error as Error).message }
  }
  throw new Error("expected the parse to fail")
}
