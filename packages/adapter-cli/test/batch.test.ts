import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseUrlList } from "../src/commands/batch.js"
import { spawnWebdata } from "./support/child.js"
import { webdata } from "./support/run.js"
import { pageHeaders, type SiteAndApi, startSiteAndApi } from "./support/siteAndApi.js"

let fixtures: SiteAndApi
let dir: string
let list: string
beforeAll(async () => {
  fixtures = await startSiteAndApi()
  dir = mkdtempSync(join(tmpdir(), "webdata-batch-"))
  list = join(dir, "urls.txt")
  writeFileSync(
    list,
    `# pages to scrape\n${fixtures.site.url}/docs/intro\n\n  ${fixtures.site.url}/docs/setup.html  \n# done\n`,
  )
})
afterAll(() => fixtures.close())

describe("webdata batch", () => {
  it("names the line of the first URL the API would refuse", async () => {
    const bad = join(dir, "bad.txt")
    writeFileSync(bad, `# list\n${fixtures.site.url}/docs/intro\n\nftp://files.example.com/x\nnot a url\n`)
    const result = await webdata(["batch", bad])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(`webdata: ${bad} line 4: URL uses unsupported protocol: ftp://files.example.com/x\n`)
  })

  it("scrapes every URL of the file", async () => {
    const result = await webdata(["batch", list])
    expect(result.code).toBe(0)
    expect(pageHeaders(result.stdout)).toEqual([
      `==> ${fixtures.site.url}/docs/intro <==`,
      `==> ${fixtures.site.url}/docs/setup.html <==`,
    ])
    expect(result.stdout).toContain("This is the Setup page")
  })

  it("prints JSON lines, or writes files with -o", async () => {
    const jsonl = await webdata(["batch", list, "--jsonl", "--format", "markdown,links"])
    const documents = jsonl.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    expect(documents).toHaveLength(2)
    expect(documents.every((document) => Array.isArray(document.links))).toBe(true)
    const out = join(dir, "out")
    const files = await webdata(["batch", list, "-o", out])
    expect(files.code).toBe(0)
    expect(readdirSync(out).sort()).toEqual(["docs_intro.md", "docs_setup.md"])
    expect(readFileSync(join(out, "docs_intro.md"), "utf8")).toMatch(/^This is the Intro page/)
    expect(files.stderr).toMatch(/^Scraped 2 pages into .* \(0 errors\)/)
  })

  it("scrapes through a server with --api-url", async () => {
    const result = await webdata(["batch", list, "--api-url", fixtures.api.url, "--jsonl"])
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split("\n")).toHaveLength(2)
  })

  it("fails on invalid URLs unless told to skip them, and on an empty list", async () => {
    const mixed = join(dir, "mixed.txt")
    writeFileSync(mixed, `${fixtures.site.url}/docs/intro\nftp://example.com/\n`)
    const invalid = await webdata(["batch", mixed])
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toBe(`webdata: ${mixed} line 2: URL uses unsupported protocol: ftp://example.com/\n`)
    const skipped = await webdata(["batch", mixed, "--ignore-invalid-urls"])
    expect(skipped.code).toBe(0)
    expect(skipped.stderr).toBe("skipped invalid URL: ftp://example.com/\n")
    expect(pageHeaders(skipped.stdout)).toEqual([`==> ${fixtures.site.url}/docs/intro <==`])
    const empty = join(dir, "empty.txt")
    writeFileSync(empty, "# nothing yet\n\n")
    expect(await webdata(["batch", empty])).toMatchObject({ code: 1, stderr: `webdata: No URLs in ${empty}\n` })
    const missing = await webdata(["batch", join(dir, "missing.txt")])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^webdata: Cannot read .*missing\.txt/)
  })

  it("reads lists with comments and CRLF line ends", () => {
    expect(parseUrlList("# a\r\nhttp://a.test/\r\n\r\n  b.test  \n#c\n")).toEqual(["http://a.test/", "b.test"])
  })
})

describe("webdata worker", () => {
  it("explains itself in --help", async () => {
    const help = await webdata(["worker", "--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("WEBDATA_STORE")
  })

  it("refuses a store no other process can see", async () => {
    process.env.WEBDATA_STORE = "memory:"
    try {
      const result = await webdata(["worker"])
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/^webdata: WEBDATA_STORE=memory: is private/)
    } finally {
      delete process.env.WEBDATA_STORE
    }
  })

  it("runs the jobs another process puts in the shared store, and stops on SIGTERM", async () => {
    const store = `sqlite:${join(dir, "shared.db")}`
    const worker = spawnWebdata(["worker"], { WEBDATA_STORE: store })
    await worker.waitFor((_stdout, stderr) => stderr.includes("webdata worker running"))
    // This process only creates the job and follows it: without a worker of its own, the child runs it.
    Object.assign(process.env, { WEBDATA_STORE: store, WEBDATA_WORKER: "0" })
    try {
      const result = await webdata(["batch", list])
      expect(result.code).toBe(0)
      expect(pageHeaders(result.stdout)).toHaveLength(2)
    } finally {
      delete process.env.WEBDATA_STORE
      delete process.env.WEBDATA_WORKER
    }
    worker.process.kill("SIGTERM")
    expect(await worker.exited).toBe(0)
    expect(worker.stderr()).toContain("webdata worker stopping (SIGTERM)")
  })
})
