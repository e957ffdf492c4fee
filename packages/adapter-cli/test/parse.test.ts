/** `webdata parse`: files to markdown in process and through a server (`--api-url`), to stdout or a directory. */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Engine, ServerConfig } from "@webdata/core"
import * as Parse from "@webdata/parse"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { webdata } from "./support/run.js"

const fixture = (path: string) => fileURLToPath(new URL(`../../parse/test/fixtures/${path}`, import.meta.url))

let api: RunningServer
beforeAll(async () => {
  api = await serve({
    port: 0,
    engine: Engine.layer({ worker: false, parser: Parse.layer({ threads: 1 }) }),
    serverConfig: ServerConfig.layer({ apiKeys: ["cli-key"] }),
  })
})
afterAll(() => api?.close())

describe("webdata parse", () => {
  it("prints a file's markdown, and a PDF's pages up to --max-pages", async () => {
    const docx = await webdata(["parse", fixture("office/report.docx")])
    expect(docx.code).toBe(0)
    expect(docx.stdout).toMatch(/^# Quarterly Field Report$/m)
    const pdf = await webdata(["parse", fixture("pdf/report.pdf"), "--max-pages", "1", "--json"])
    expect(pdf.code).toBe(0)
    const document = JSON.parse(pdf.stdout) as { markdown: string; metadata: { numPages: number; totalPages: number } }
    expect(document.metadata).toMatchObject({ numPages: 1, totalPages: 3 })
    expect(document.markdown).not.toContain("Conclusions")
  })

  it("writes one file per input with -o, through a server with --api-url", async () => {
    const out = mkdtempSync(join(tmpdir(), "webdata-parse-"))
    const result = await webdata([
      "parse",
      fixture("office/sales.xlsx"),
      fixture("office/deck.pptx"),
      "-o",
      out,
      "--api-url",
      api.url,
      "--api-key",
      "cli-key",
    ])
    expect(result.code).toBe(0)
    expect(readdirSync(out).sort()).toEqual(["deck.pptx.md", "sales.xlsx.md"])
    expect(readFileSync(join(out, "sales.xlsx.md"), "utf8")).toContain("| West | 2024-03-28 | 5 | 10 | 50 |")
    expect(readFileSync(join(out, "deck.pptx.md"), "utf8")).toContain("## Key findings")
  })

  it("fails with exit code 1 and one line for a file it cannot read", async () => {
    const local = await webdata(["parse", fixture("pdf/encrypted.pdf")])
    expect(local.code).toBe(1)
    expect(local.stderr).toMatch(/^webdata: .*encrypted.*\(PARSE_FAILED\)\n$/)
    const remote = await webdata(["parse", fixture("office/bomb.docx"), "--api-url", api.url, "--api-key", "cli-key"])
    expect(remote.code).toBe(1)
    expect(remote.stderr).toMatch(/^webdata: .*\(PARSE_FAILED\)\n$/)
    const missing = await webdata(["parse", fixture("office/nothing-here.docx")])
    expect(missing.code).toBe(1)
  })
})
