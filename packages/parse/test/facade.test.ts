/**
 * The Promise facade finds the parsers by itself (`parser: "auto"`): `webdata.parse()` of a path, bytes or a stream,
 * and the engine's parse threads, which stop a file at its time limit and carry on.
 */
import { createReadStream } from "node:fs"
import { fileURLToPath } from "node:url"
import { Webdata } from "@webdata/core"
import { afterAll, describe, expect, it } from "vitest"
import { failure } from "../../core/test/support/webdataFailure.js"
import { fixture } from "./support/fixtures.js"

const path = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url))

const webdata = new Webdata({ worker: false, browser: false })
afterAll(() => webdata.close())

describe("webdata.parse", () => {
  it("parses a path, bytes with a name, and a stream", async () => {
    const fromPath = await webdata.parse(path("office/report.odt"))
    expect(fromPath.markdown).toMatch(/^# Quarterly Field Report$/m)
    expect(fromPath.metadata.sourceURL).toBe("file:///report.odt")
    const fromBytes = await webdata.parse(fixture("office/data.csv"), { fileName: "data.csv", formats: ["html"] })
    expect(fromBytes.html).toContain("<td>quick, brown</td>")
    const fromStream = await webdata.parse(createReadStream(path("pdf/report.pdf")), {
      fileName: "report.pdf",
      parsers: [{ type: "pdf", pageMarkers: true }],
    })
    expect(fromStream.markdown).toContain("<!-- page 3 -->")
  })

  it("answers a file it cannot read, or an option it refuses, with a clear error", async () => {
    expect((await failure(webdata.parse(path("pdf/encrypted.pdf")))).code).toBe("PARSE_FAILED")
    expect((await failure(webdata.parse(path("office/report.docx"), { mobile: true }))).code).toBe(
      "PARSE_UNSUPPORTED_OPTIONS",
    )
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex")
    expect((await failure(webdata.parse(png, { fileName: "scan.pdf" }))).code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR")
  })

  it("stops a parse at its timeout and parses the next file on a fresh thread", async () => {
    const slow = await failure(
      webdata.parse(path("pdf/report.pdf"), { timeout: 1000, parsers: [{ type: "pdf", mode: "ocr" }] }),
    )
    expect(slow.code).toBe("SCRAPE_TIMEOUT")
    expect((await webdata.parse(path("office/data.tsv"))).markdown).toContain("| owls | 5 |")
  })
})
