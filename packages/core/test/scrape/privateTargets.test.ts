/**
 * The private-address opt-in is one process's setting: what one engine may fetch, another engine on the same store
 * must not serve from the shared cache; refusals say how to opt in; intranet names pass only with the opt-in.
 */
import { Context, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeStrict } from "../../src/Domain/Decode.js"
import { ScrapeRequest } from "../../src/Domain/ScrapeOptions.js"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { JobStore, MemoryJobStore } from "../../src/Jobs/index.js"
import * as UrlGuard from "../../src/Net/UrlGuard.js"
import { Webdata } from "../../src/Webdata.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"
import { failure } from "../support/webdataFailure.js"

let site: FixtureSite
let worker: Webdata
let api: Webdata
beforeAll(async () => {
  site = await startFixtureSite()
  // One store, as an API process and a worker process share one database.
  const store = await Effect.runPromise(
    Effect.scoped(Effect.map(Layer.build(MemoryJobStore.layer()), (context) => Context.get(context, JobStore))),
  )
  const shared = Layer.succeed(JobStore, store)
  worker = new Webdata({ allowPrivateAddresses: true, store: shared, worker: false })
  api = new Webdata({ store: shared, worker: false })
})
afterAll(async () => {
  await Promise.all([worker.close(), api.close()])
  await site.close()
})

describe("private targets", () => {
  it("are never served from a cache that a process with the opt-in filled", async () => {
    const url = `${site.url}/article`
    expect((await worker.scrape(url)).metadata.cacheState).toBe("miss")
    expect((await worker.scrape(url)).metadata.cacheState).toBe("hit")
    for (const options of [{}, { maxAge: 10 * 60_000 }, { minAge: 0 }, { lockdown: true }]) {
      const error = await failure(api.scrape(url, options))
      expect(error.code, JSON.stringify(options)).toBe("SCRAPE_BLOCKED_ADDRESS")
      expect(error.status).toBe(403)
    }
  })

  it("are refused with a message that names the opt-in for servers and for the library", async () => {
    const error = await failure(api.scrape(`${site.url}/article`, { maxAge: 0 }))
    expect(error.message).toContain("WEBDATA_ALLOW_PRIVATE_ADDRESSES=1")
    expect(error.message).toContain("allowPrivateAddresses: true")
  })
})

describe("intranet host names", () => {
  const decodeWith = (engine: Layer.Layer<Engine.EngineServices>) =>
    Effect.runPromise(
      Effect.either(decodeStrict(ScrapeRequest)({ url: "http://intranet:8765/" })).pipe(Effect.provide(engine)),
    )

  it("are accepted only where private targets are allowed", async () => {
    expect((await decodeWith(Engine.layer({ allowPrivateAddresses: true, worker: false })))._tag).toBe("Right")
    expect((await decodeWith(Engine.layer({ allowedTargets: ["intranet"], worker: false })))._tag).toBe("Right")
    const refused = await decodeWith(Engine.layer({ worker: false }))
    expect(refused._tag === "Left" && refused.left.message).toBe(
      "URL must have a valid top-level domain or be an IP address",
    )
  })

  it("are accepted over HTTP by a server with the opt-in, refused with a 400 by one without", async () => {
    const post = async (allowPrivateAddresses: boolean) => {
      const web = makeWebHandler(
        Layer.merge(Engine.layer({ allowPrivateAddresses, worker: false }), ServerConfig.layer()),
      )
      try {
        const response = await web.handler(
          new Request("http://api.test/v2/crawl", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ url: "http://intranet:8765/" }),
          }),
        )
        return response.status
      } finally {
        await web.dispose()
      }
    }
    expect(await post(true)).toBe(200)
    expect(await post(false)).toBe(400)
  })

  it("are refused by the guard without a DNS look-up unless allowed, and resolved when allowed", async () => {
    const resolver = async () => [{ address: "127.0.0.1", family: 4 }]
    const guarded = UrlGuard.make({ allowPrivateAddresses: false, allow: [], resolver })
    const refused = await Effect.runPromise(Effect.either(guarded.checkUrl("http://intranet:8765/")))
    expect(refused._tag === "Left" && refused.left.reason).toBe("BlockedAddress")
    const open = UrlGuard.make({ allowPrivateAddresses: true, allow: [], resolver })
    const target = await Effect.runPromise(open.checkTarget("http://intranet:8765/"))
    expect(target.host).toBe("intranet:8765")
  })
})
