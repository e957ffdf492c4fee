import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type SiteWithApi, withApi } from "../../adapter-express/test/support/apiWithSite.js"
import { spawnWebdata } from "./support/child.js"
import { type ProductSite, product, productSchema, startProductSite } from "./support/productSite.js"
import { webdata } from "./support/run.js"

let fixtures: SiteWithApi<ProductSite>
const dir = mkdtempSync(join(tmpdir(), "webdata-extract-"))
const schemaFile = join(dir, "product.json")
writeFileSync(schemaFile, JSON.stringify(productSchema))

beforeAll(async () => {
  fixtures = await withApi(await startProductSite())
})
afterAll(() => fixtures.close())

const page = (path: string) => `${fixtures.site.url}${path}`

describe("webdata extract", () => {
  it("prints the schema's data, read from the page's JSON-LD without a language model", async () => {
    const result = await webdata(["extract", page("/product"), "--schema", schemaFile])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ name: product.name, price: product.price })
  })

  it("prints the whole status answer with --json, and where each field came from with --show-sources", async () => {
    const json = await webdata(["extract", page("/product"), "--schema", schemaFile, "--json", "--show-sources"])
    expect(json.code, json.stderr).toBe(0)
    const answer = JSON.parse(json.stdout)
    expect(answer).toMatchObject({
      success: true,
      status: "completed",
      data: { name: product.name, price: product.price },
      pages: 1,
      failedPages: 0,
    })
    expect(answer.sources.name).toEqual([page("/product")])
    const sources = await webdata(["extract", page("/product"), "--schema", schemaFile, "--show-sources"])
    expect(sources.code).toBe(0)
    expect(sources.stderr.split("\n")).toContain(`source: name: ${page("/product")}`)
    expect(JSON.parse(sources.stdout)).toEqual({ name: product.name, price: product.price })
  })

  it("extracts through a server with --api-url", async () => {
    const result = await webdata(["extract", page("/product"), "--schema", schemaFile, "--api-url", fixtures.api.url])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual({ name: product.name, price: product.price })
  })

  it("fails with one line when the pages gave nothing", async () => {
    const isbn = join(dir, "isbn.json")
    writeFileSync(isbn, JSON.stringify({ type: "object", properties: { isbn: { type: "string" } } }))
    const result = await webdata(["extract", page("/plain"), "--schema", isbn])
    expect(result).toMatchObject({ code: 1, stdout: "" })
    expect(result.stderr).toMatch(/^webdata: No page gave any of the requested data\.\n$/)
    const remote = await webdata(["extract", page("/plain"), "--schema", isbn, "--api-url", fixtures.api.url])
    expect(remote).toMatchObject({ code: 1, stderr: result.stderr })
  })

  it("needs a language model for --prompt alone: one line, exit code 1", async () => {
    for (const connection of [[], ["--api-url", fixtures.api.url]]) {
      const result = await webdata(["extract", page("/product"), "--prompt", "the price", ...connection])
      expect(result).toMatchObject({ code: 1, stdout: "" })
      expect(result.stderr).toMatch(
        /^webdata: An extract without a `schema` .*needs a language model, and none is configured\. Set WEBDATA_LLM .*\(LLM_NOT_CONFIGURED\)\n$/,
      )
    }
  })

  it("answers a missing --schema and --prompt with a usage error", async () => {
    const result = await webdata(["extract", page("/product")])
    expect(result).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "webdata: extract needs --schema <file>, --prompt <text>, or both (see webdata --help)\n",
    })
    expect((await webdata(["extract", "--schema", schemaFile])).stderr).toMatch(/^webdata: Missing argument <url>/)
  })

  it("refuses a schema file it cannot read or parse, in one line", async () => {
    const missing = await webdata(["extract", page("/product"), "--schema", join(dir, "missing.json")])
    expect(missing).toMatchObject({
      code: 1,
      stderr: `webdata: Cannot read ${join(dir, "missing.json")}: no such file\n`,
    })
    const bad = join(dir, "bad.json")
    writeFileSync(bad, "{ name: ")
    const unparsed = await webdata(["extract", page("/product"), "--schema", bad])
    expect(unparsed.code).toBe(1)
    expect(unparsed.stderr).toMatch(new RegExp(`^webdata: ${bad} is not valid JSON: [^\\n]+\\n$`))
    const list = join(dir, "list.json")
    writeFileSync(list, "[1, 2]")
    const notObject = await webdata(["extract", page("/product"), "--schema", list])
    expect(notObject.code).toBe(1)
    expect(notObject.stderr).toMatch(new RegExp(`^webdata: ${list} must hold a JSON Schema object`))
  })

  it("refuses invalid URLs and options like the API", async () => {
    const invalid = await webdata(["extract", "ftp://example.com/", "--schema", schemaFile])
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/^webdata: .*\(BAD_REQUEST\)\n$/)
    const limit = await webdata(["extract", page("/product"), "--schema", schemaFile, "--limit", "0"])
    expect(limit.code).toBe(1)
    expect(limit.stderr).toMatch(/^webdata: .*\(BAD_REQUEST\)\n$/)
  })

  it("lists its options in --help", async () => {
    const help = await webdata(["extract", "--help"])
    expect(help.code).toBe(0)
    for (const option of ["--schema", "--prompt", "--limit", "--show-sources", "--json", "--api-url", "--api-key"])
      expect(help.stdout).toContain(option)
    expect((await webdata(["--help"])).stdout).toContain("extract")
  })

  it("stops waiting on Ctrl-C and exits with 130", async () => {
    const child = spawnWebdata(["extract", page("/slow"), "--schema", schemaFile])
    while (!fixtures.site.requested.includes("/slow")) {
      if (child.process.exitCode !== null)
        throw new Error(`webdata exited (${child.process.exitCode}): ${child.stderr()}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    child.process.kill("SIGINT")
    expect(await child.exited).toBe(130)
    expect(child.stderr()).toMatch(/^webdata: extract [0-9a-f-]{36} stopped\n$/)
    expect(child.stdout()).toBe("")
  })
})
