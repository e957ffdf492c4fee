/**
 * The `changeTracking` format on `/v2/scrape` through the web handler: the first scrape is new, an unchanged page same,
 * an edit changed with a git diff and its parsed form, json mode's per-field changes (offline extractor, no model),
 * separate histories per tag, a 404 removed, and the refusals (zero data retention, markdown missing, a bad pattern).
 */
import { Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { Webdata } from "../../src/Webdata.js"
import { page, startEditableSite } from "../support/editableSite.js"

const web = makeWebHandler(
  Layer.merge(Engine.layer({ allowPrivateAddresses: true, worker: false }), ServerConfig.layer()),
)
const site = await startEditableSite({
  "/product": page("Widget", '<p>Price: <span itemprop="price">10</span> EUR.</p><p>In stock.</p>'),
})
afterAll(async () => {
  await web.dispose()
  await site.close()
})

// biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely.
const scrape = async (body: object): Promise<{ status: number; body: any }> => {
  const response = await web.handler(
    new Request("http://api.test/v2/scrape", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/product`, ...body }),
    }),
  )
  return { status: response.status, body: await response.json() }
}

describe("the changeTracking format", () => {
  it("is new, then same, then changed with a git diff; each tag keeps its own history", async () => {
    const formats = ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "a" }]
    const first = await scrape({ formats })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    expect(first.body.data.changeTracking).toEqual({
      previousScrapeAt: null,
      changeStatus: "new",
      visibility: "visible",
    })
    const second = await scrape({ formats })
    expect(second.body.data.changeTracking).toMatchObject({
      changeStatus: "same",
      previousScrapeAt: expect.any(String),
    })
    expect(second.body.data.changeTracking.diff).toBeUndefined()
    site.pages.set("/product", page("Widget", '<p>Price: <span itemprop="price">12</span> EUR.</p><p>In stock.</p>'))
    const third = await scrape({ formats })
    const tracked = third.body.data.changeTracking
    expect(tracked.changeStatus).toBe("changed")
    expect(tracked.diff.text).toContain("-Price: 10 EUR.\n+Price: 12 EUR.")
    const changes = tracked.diff.json.files[0].chunks.flatMap((chunk: { changes: Array<object> }) => chunk.changes)
    expect(changes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "del", content: "-Price: 10 EUR." }),
        expect.objectContaining({ type: "add", content: "+Price: 12 EUR." }),
      ]),
    )
    // Another tag has never seen the page.
    const other = await scrape({ formats: ["markdown", { type: "changeTracking", tag: "b" }] })
    expect(other.body.data.changeTracking.changeStatus).toBe("new")
    // Without git-diff mode the status comes alone.
    const plain = await scrape({ formats: ["markdown", { type: "changeTracking", tag: "b" }] })
    expect(plain.body.data.changeTracking).toEqual({
      previousScrapeAt: expect.any(String),
      changeStatus: "same",
      visibility: "visible",
    })
  })

  it("compares the fields of json mode (the offline extractor fills the schema without a model)", async () => {
    const formats = [
      "markdown",
      {
        type: "changeTracking",
        modes: ["json"],
        tag: "json",
        schema: { type: "object", properties: { price: { type: "string" } } },
      },
    ]
    site.pages.set("/product", page("Widget", '<p>Price: <span itemprop="price">12</span> EUR.</p><p>In stock.</p>'))
    expect((await scrape({ formats })).body.data.changeTracking.changeStatus).toBe("new")
    // Only words outside the fields changed: a json-only comparison sees no change.
    site.pages.set("/product", page("Widget", '<p>Price: <span itemprop="price">12</span> EUR.</p><p>Few left.</p>'))
    const same = await scrape({ formats })
    expect(same.body.data.changeTracking.changeStatus).toBe("same")
    expect(same.body.data.json).toBeUndefined() // json was not asked for, only compared
    site.pages.set("/product", page("Widget", '<p>Price: <span itemprop="price">15</span> EUR.</p><p>Few left.</p>'))
    const changed = await scrape({ formats })
    expect(changed.body.data.changeTracking).toMatchObject({
      changeStatus: "changed",
      json: { price: { previous: expect.stringContaining("12"), current: expect.stringContaining("15") } },
    })
  })

  it("reports a page that answers 404 as removed", async () => {
    const formats = ["markdown", { type: "changeTracking", tag: "gone" }]
    site.pages.set("/product", page("Widget", "<p>Here.</p>"))
    await scrape({ formats })
    site.pages.delete("/product")
    expect((await scrape({ formats })).body.data.changeTracking.changeStatus).toBe("removed")
    expect((await scrape({ formats })).body.data.changeTracking.changeStatus).toBe("same")
  })

  it("refuses zero data retention, a missing markdown format and an invalid ignore pattern", async () => {
    const zdr = await scrape({ formats: ["markdown", "changeTracking"], zeroDataRetention: true })
    expect(zdr.status).toBe(400)
    expect(zdr.body).toMatchObject({ success: false, code: "SCRAPE_ZDR_CHANGE_TRACKING" })
    const noMarkdown = await scrape({ formats: ["changeTracking"] })
    expect(noMarkdown.status).toBe(400)
    expect(noMarkdown.body.error).toMatch(/requires the markdown format/)
    const badPattern = await scrape({ formats: ["markdown", { type: "changeTracking", ignore: ["(unclosed"] }] })
    expect(badPattern.status).toBe(400)
    expect(JSON.stringify(badPattern.body.details)).toMatch(/Invalid ignore pattern/)
  })

  it("works in a batch scrape: each page compared with the previous batch's", async () => {
    const webdata = new Webdata({ allowPrivateAddresses: true })
    try {
      const formats = ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "batch" }] as const
      site.pages.set("/product", page("Widget", "<p>Version one.</p>"))
      site.pages.set("/other", page("Other", "<p>Stays.</p>"))
      const urls = [`${site.url}/product`, `${site.url}/other`]
      const statuses = async () =>
        Object.fromEntries(
          (await webdata.batchScrape(urls, { formats: [...formats] })).data.map((document) => [
            new URL(document.metadata.sourceURL).pathname,
            document.changeTracking?.changeStatus,
          ]),
        )
      expect(await statuses()).toEqual({ "/product": "new", "/other": "new" })
      site.pages.set("/product", page("Widget", "<p>Version two.</p>"))
      expect(await statuses()).toEqual({ "/product": "changed", "/other": "same" })
    } finally {
      await webdata.close()
    }
  })
})
