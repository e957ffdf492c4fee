/**
 * The agent's `browse` tool in real Chromium: a fake model (127.0.0.1) opens a page, clicks what hides the answer, and
 * finishes with what the click revealed.
 */
import { createServer } from "node:http"
import { Webdata } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeModel, startFakeModel } from "../../core/test/support/fakeModels.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { layer } from "../src/index.js"
import { executablePath } from "./support/chromium.js"

const PAGE = `<!doctype html><html><head><title>Opening hours</title></head><body>
<h1>Opening hours</h1><p>Our hours are shown on request.</p>
<button id="show" onclick="document.body.insertAdjacentHTML('beforeend', '<p>Open Monday to Friday, 9 to 17.</p>')">Show</button>
</body></html>`

let site: Listening
let model: FakeModel
let webdata: Webdata

beforeAll(async () => {
  site = await listenOnLoopback(
    createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.end(PAGE)
    }),
  )
  model = await startFakeModel({
    reply: (request) => {
      const steps = [...request.text.matchAll(/Step (\d+): (\w+)/g)].length
      if (steps === 0)
        return { json: { tool: "browse", url: `${site.url}/hours`, actions: [{ type: "click", selector: "#show" }] } }
      const hours = /Open Monday to Friday, 9 to 17/.exec(request.text)?.[0]
      return { json: { tool: "finish", data: { hours: hours ?? "unknown" } } }
    },
  })
  webdata = new Webdata({
    allowPrivateAddresses: true,
    browser: layer({ executablePath }),
    parser: false,
    llm: { model: "openai-chat:browse-test", baseUrl: model.baseUrl, apiKey: "k" },
  })
})
afterAll(async () => {
  await webdata?.close()
  await model?.close()
  await site?.close()
})

describe("the agent with the browser engine", () => {
  it("offers browse, clicks in Chromium and reads what the click revealed", async () => {
    const result = await webdata.agent("When is the shop open?").result()
    expect(model.requests[0]!.text).toMatch(/Tools available now: .*browse/)
    expect(result.status).toBe("completed")
    expect(result.steps.map((step) => step.tool)).toEqual(["browse", "finish"])
    expect(result.steps[0]).toMatchObject({ output: `Browsed ${site.url}/hours (1 actions)` })
    expect(result.data).toEqual({ hours: "Open Monday to Friday, 9 to 17" })
  })
})
