import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeNamer, stemOf } from "../src/FileNames.js"
import { makeProgress, progressLine } from "../src/Progress.js"
import { spawnWebdata } from "./support/child.js"
import { webdata } from "./support/run.js"
import { pageHeaders, type SiteAndApi, startSiteAndApi } from "./support/siteAndApi.js"

let fixtures: SiteAndApi
beforeAll(async () => {
  fixtures = await startSiteAndApi()
})
afterAll(() => fixtures.close())

const allPages = () =>
  ["/", "/about?lang=en", "/docs/intro", "/docs/intro.html", "/docs/setup.html"].map(
    (path) => `==> ${fixtures.site.url}${path} <==`,
  )

describe("webdata crawl", () => {
  it("prints every page of the site once, each under its URL", async () => {
    const result = await webdata(["crawl", fixtures.site.url])
    expect(result.code).toBe(0)
    expect(pageHeaders(result.stdout)).toEqual(allPages().sort())
    expect(result.stdout).toContain(`==> ${fixtures.site.url}/docs/setup.html <==\n\nThis is the Setup page`)
    // Not a terminal: no progress line, no summary.
    expect(result.stderr).toBe("")
  })

  it("prints JSON lines with --jsonl", async () => {
    const result = await webdata(["crawl", fixtures.site.url, "--jsonl"])
    expect(result.code).toBe(0)
    const documents = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
    expect(documents.map((document) => document.metadata.sourceURL).sort()).toEqual(
      ["/", "/about?lang=en", "/docs/intro", "/docs/intro.html", "/docs/setup.html"].map(
        (path) => `${fixtures.site.url}${path}`,
      ),
    )
    expect(documents.find((document) => document.metadata.sourceURL === `${fixtures.site.url}/`).markdown).toContain(
      "This is the Home page",
    )
  })

  it("writes one file per page with -o, named after the URL path", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "webdata-crawl-")), "out")
    const result = await webdata(["crawl", fixtures.site.url, "-o", dir])
    expect(result.code).toBe(0)
    expect(readdirSync(dir).sort()).toEqual([
      "about_lang-en.md",
      "docs_intro-2.md",
      "docs_intro.md",
      "docs_setup.md",
      "index.md",
    ])
    expect(readFileSync(join(dir, "index.md"), "utf8")).toMatch(/^This is the Home page/)
    expect(readFileSync(join(dir, "docs_setup.md"), "utf8")).toMatch(/^This is the Setup page/)
    // The two intro pages share a name; which gets the suffix depends on which arrived first.
    const intros = ["docs_intro.md", "docs_intro-2.md"].map(
      (name) => readFileSync(join(dir, name), "utf8").split(",")[0],
    )
    expect(intros.sort()).toEqual([
      "This is the Intro Again page of the fixture site",
      "This is the Intro page of the fixture site",
    ])
    expect(result.stdout.split("\n")).toContain(`${join(dir, "index.md")}\t${fixtures.site.url}/`)
    expect(result.stderr).toMatch(new RegExp(`^Crawled 5 pages into ${dir} \\(0 errors\\) in [\\d.]+s\\n$`))
  })

  it("passes crawl options through", async () => {
    const limited = await webdata(["crawl", fixtures.site.url, "--limit", "2", "--jsonl"])
    expect(limited.code).toBe(0)
    expect(limited.stdout.trim().split("\n")).toHaveLength(2)
    const shallow = await webdata(["crawl", fixtures.site.url, "--max-depth", "0", "--sitemap", "skip"])
    expect(pageHeaders(shallow.stdout)).toEqual([`==> ${fixtures.site.url}/ <==`])
    const excluded = await webdata([
      "crawl",
      fixtures.site.url,
      "--exclude-paths",
      "^/docs/",
      "--exclude-paths",
      "^/about",
    ])
    expect(pageHeaders(excluded.stdout)).toEqual([`==> ${fixtures.site.url}/ <==`])
    const html = await webdata([
      "crawl",
      fixtures.site.url,
      "--max-depth",
      "0",
      "--format",
      "html",
      "--no-main-content",
    ])
    expect(html.stdout).toContain("<h1>Home</h1>")
  })

  it("fails to start with one line and exit code 1", async () => {
    const invalid = await webdata(["crawl", "ftp://example.com/"])
    expect(invalid).toMatchObject({ code: 1, stdout: "" })
    expect(invalid.stderr).toBe("webdata: URL uses unsupported protocol (BAD_REQUEST)\n")
    const regex = await webdata(["crawl", fixtures.site.url, "--include-paths", "("])
    expect(regex.code).toBe(1)
    expect(regex.stderr).toMatch(/^webdata: .*\(BAD_REQUEST\)\n$/)
    const both = await webdata(["crawl", fixtures.site.url, "--jsonl", "-o", tmpdir()])
    expect(both.stderr).toBe("webdata: --jsonl prints to stdout; it cannot be combined with --output\n")
    const header = await webdata(["crawl", fixtures.site.url, "--header", "nocolon"])
    expect(header.stderr).toBe('webdata: Invalid --header "nocolon": expected "Name: value"\n')
    expect((await webdata(["crawl", fixtures.site.url, "--sitemap", "sometimes"])).code).toBe(1)
    expect((await webdata(["crawl", fixtures.site.url, "--bogus"])).code).toBe(1)
  })

  it("crawls through a server with --api-url, following its status pages", async () => {
    const result = await webdata(["crawl", fixtures.site.url, "--api-url", fixtures.api.url])
    expect(result.code).toBe(0)
    expect(pageHeaders(result.stdout)).toEqual(allPages().sort())
    const refused = await webdata(["crawl", "ftp://example.com/", "--api-url", fixtures.api.url])
    expect(refused.stderr).toBe("webdata: URL uses unsupported protocol (BAD_REQUEST)\n")
    const down = await webdata(["crawl", fixtures.site.url, "--api-url", "http://127.0.0.1:9"])
    expect(down.code).toBe(1)
    expect(down.stderr.trim().split("\n")).toHaveLength(1)
  })

  it("lists every option in --help", async () => {
    const help = await webdata(["crawl", "--help"])
    expect(help.code).toBe(0)
    for (const option of [
      "--limit",
      "--max-depth",
      "--include-paths",
      "--exclude-paths",
      "--crawl-entire-domain",
      "--allow-subdomains",
      "--allow-external-links",
      "--sitemap",
      "--ignore-query-parameters",
      "--delay",
      "--max-concurrency",
      "--prompt",
      "--format",
      "--no-main-content",
      "--timeout",
      "--header",
      "--jsonl",
      "--output",
      "--api-url",
      "--api-key",
    ])
      expect(help.stdout).toContain(option)
  })

  it("cancels the crawl on Ctrl-C and exits with 130", async () => {
    // One fetch a second, so the crawl is still running when the signal comes.
    const child = spawnWebdata(["crawl", fixtures.site.url, "--delay", "1", "--api-url", fixtures.api.url])
    await child.waitFor((stdout) => stdout.includes("==> "))
    child.process.kill("SIGINT")
    expect(await child.exited).toBe(130)
    expect(child.stderr()).toMatch(/^webdata: crawl [0-9a-f-]{36} cancelled\n$/)
    const id = /crawl ([0-9a-f-]{36})/.exec(child.stderr())![1]
    const status = await (await fetch(`${fixtures.api.url}/v2/crawl/${id}`)).json()
    expect(status.status).toBe("cancelled")
  })
})

describe("page file names", () => {
  it("stay inside the directory and readable", () => {
    expect(stemOf("http://a.test/", "a.test")).toBe("index")
    expect(stemOf("http://a.test/../../etc/passwd", "a.test")).toBe("etc_passwd")
    expect(stemOf("http://a.test/%2e%2e/%2E%2E/x", "a.test")).toBe("x")
    expect(stemOf("http://a.test/docs/My%20Page.html?q=1&r=%2F", "a.test")).toBe("docs_My-Page_q-1-r")
    expect(stemOf("http://b.test:8080/x", "a.test")).toBe("b.test-8080_x")
    expect(stemOf(`http://a.test/${"long/".repeat(100)}`, "a.test").length).toBeLessThanOrEqual(120)
    const name = makeNamer("a.test")
    expect([name("http://a.test/A", "md"), name("http://a.test/a", "md"), name("http://a.test/a", "md")]).toEqual([
      "A.md",
      "a-2.md",
      "a-3.md",
    ])
  })
})

describe("progress line", () => {
  it("is drawn in place on a terminal and not at all elsewhere", async () => {
    expect(progressLine("crawl", { completed: 10, total: 40, failed: 1 }, 2000)).toBe(
      "crawl: 10 done / 40 discovered · 1 error · 5.0 pages/s",
    )
    expect(progressLine("crawl", { completed: 0, total: 1 }, 0)).toBe("crawl: 0 done / 1 discovered · 0.0 pages/s")
    const written: Array<string> = []
    const tty = makeProgress("crawl", { isTTY: true, columns: 30, write: (text) => written.push(text) })
    await Effect.runPromise(tty.update({ completed: 1, total: 2, failed: 0 }))
    await Effect.runPromise(tty.above(Effect.sync(() => written.push("page"))))
    await Effect.runPromise(tty.clear)
    expect(written).toEqual([
      "\r\x1b[2Kcrawl: 1 done / 2 discovered ",
      "\r\x1b[2K",
      "page",
      "\r\x1b[2Kcrawl: 1 done / 2 discovered ",
      "\r\x1b[2K",
    ])
    const piped: Array<string> = []
    const none = makeProgress("crawl", { isTTY: false, write: (text) => piped.push(text) })
    await Effect.runPromise(none.update({ completed: 1, total: 2 }))
    expect(none.live).toBe(false)
    expect(piped).toEqual([])
  })
})
