import { mkdtempSync, readFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RunningServer } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ApiWithSite, startApiWithSite } from "../../adapter-express/test/support/apiWithSite.js"
import type { FixtureSite } from "../../core/test/support/fixtureSite.js"
import { runWebdata as webdata } from "./support/binary.js"

let site: FixtureSite
let api: RunningServer
let fixtures: ApiWithSite
beforeAll(async () => {
  fixtures = await startApiWithSite(["cli-key"])
  ;({ site, api } = fixtures)
})
afterAll(() => fixtures.close())

describe("webdata scrape", () => {
  it("prints the page as markdown", async () => {
    const result = await webdata(["scrape", `${site.url}/article`])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("Tidal power captures the energy")
    expect(result.stdout).not.toContain("Subscribe to the newsletter")
  })

  it("prints links one per line, or the whole document with --json", async () => {
    const links = await webdata(["scrape", `${site.url}/article`, "--format", "links"])
    expect(links.code).toBe(0)
    expect(links.stdout.split("\n")).toContain(`${site.url}/topics`)
    const json = await webdata(["scrape", `${site.url}/article`, "--json", "--no-main-content"])
    expect(json.code).toBe(0)
    const document = JSON.parse(json.stdout)
    expect(document.metadata.statusCode).toBe(200)
    expect(document.markdown).toContain("Subscribe to the newsletter")
  })

  it("honours tags, headers and -o", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "webdata-cli-")), "page.md")
    const result = await webdata([
      "scrape",
      `${site.url}/article`,
      "--include-tags",
      "table",
      "--header",
      "X-Test: 1",
      "--timeout",
      "5000",
      "-o",
      out,
    ])
    expect(result.code).toBe(0)
    const written = readFileSync(out, "utf8")
    expect(written).toContain("| Sihwa Lake | South Korea | 254 |")
    expect(written).not.toContain("Tidal power captures")
  })

  it("fails with a one-line message and exit code 1", async () => {
    const invalid = await webdata(["scrape", "ftp://example.com/file"])
    expect(invalid.code).toBe(1)
    expect(invalid.stderr.trim()).toBe("webdata: URL uses unsupported protocol (BAD_REQUEST)")
    const blocked = await webdata(["scrape", `${site.url}/article`], { WEBDATA_ALLOW_PRIVATE_ADDRESSES: "" })
    expect(blocked.code).toBe(1)
    expect(blocked.stderr.trim().split("\n")).toHaveLength(1)
    expect(blocked.stderr).toMatch(/^webdata: .*SCRAPE_BLOCKED_ADDRESS/)
    const header = await webdata(["scrape", `${site.url}/article`, "--header", "nocolon"])
    expect(header.code).toBe(1)
    expect(header.stderr.trim()).toBe('webdata: Invalid --header "nocolon": expected "Name: value"')
  })

  it("answers argument errors with one webdata: line and exit code 1", async () => {
    const unknown = await webdata(["scrape", `${site.url}/article`, "--bogus"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe("webdata: Received unknown argument: '--bogus' (see webdata --help)\n")
    const missing = await webdata(["scrape"])
    expect(missing).toMatchObject({ code: 1, stderr: "webdata: Missing argument <url> (see webdata --help)\n" })
    const number = await webdata(["crawl", "--limit", "many", site.url])
    expect(number.code).toBe(1)
    expect(number.stderr).toMatch(/^webdata: 'many' is not a integer \(see webdata --help\)\n$/)
    const command = await webdata(["frob"])
    expect(command.code).toBe(1)
    expect(command.stderr).toMatch(/^webdata: Invalid subcommand for webdata - use one of /)
    expect(command.stderr.split("\n")).toHaveLength(2)
  })

  it("says what is wrong with the API URL: refused connection, missing scheme", async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as AddressInfo
        probe.close(() => resolve(port))
      })
    })
    const refused = await webdata(["scrape", `${site.url}/article`, "--api-url", `http://127.0.0.1:${closed}`])
    expect(refused).toMatchObject({
      code: 1,
      stderr: `webdata: cannot reach the API at http://127.0.0.1:${closed}: connection refused (is the server running?)\n`,
    })
    const schemeless = await webdata(["map", site.url, "--api-url", `127.0.0.1:${closed}`])
    expect(schemeless.code).toBe(1)
    expect(schemeless.stderr).toBe(
      `webdata: --api-url must be an http(s) URL such as http://127.0.0.1:3002 (got 127.0.0.1:${closed})\n`,
    )
  })

  it("prints no colour codes when its output is not a terminal", async () => {
    for (const args of [["--help"], ["scrape", "--help"], ["scrape"], ["scrape", `${site.url}/article`]]) {
      const result = await webdata(args)
      expect(`${result.stdout}${result.stderr}`, args.join(" ")).not.toContain("\u001b[")
    }
  })

  it("calls a server in remote mode", async () => {
    const result = await webdata(["scrape", `${site.url}/article`, "--api-url", api.url, "--api-key", "cli-key"], {
      WEBDATA_ALLOW_PRIVATE_ADDRESSES: "",
    })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("Tidal power captures the energy")
    const unauthorized = await webdata(["scrape", `${site.url}/article`, "--api-url", api.url, "--api-key", "nope"])
    expect(unauthorized.code).toBe(1)
    expect(unauthorized.stderr).toMatch(/^webdata: Unauthorized/)
  })
})

describe("webdata --help", () => {
  it("lists every scrape option", async () => {
    const result = await webdata(["scrape", "--help"])
    expect(result.code).toBe(0)
    for (const option of [
      "--format",
      "--json",
      "--no-main-content",
      "--include-tags",
      "--exclude-tags",
      "--timeout",
      "--header",
      "--output",
      "--api-url",
      "--api-key",
    ])
      expect(result.stdout).toContain(option)
  })
})
