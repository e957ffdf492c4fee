/**
 * What the LLM features' tests share: the shop site for the whole file, fake model servers and engines closed after
 * each test, and model settings for a fake server.
 */
import { afterAll, afterEach, beforeAll } from "vitest"
import { Webdata, type WebdataOptions } from "../../src/index.js"
import type { LlmSettings } from "../../src/Llm/LlmConfig.js"
import type { CrawlSite } from "./crawlSite.js"
import { type FakeModel, type FakeReply, type RecordedRequest, startFakeModel } from "./fakeModels.js"
import { startShopSite } from "./shopSite.js"

interface Closable {
  readonly close: () => Promise<void>
}

export interface LlmKit {
  /** The shop (started before the file's first test). */
  readonly site: CrawlSite
  /** Closes `resource` after the test (in reverse order of tracking). */
  readonly track: <T extends Closable>(resource: T) => T
  readonly model: (reply: (request: RecordedRequest) => FakeReply) => Promise<FakeModel>
  /** An engine that may reach the shop, without browser or parsers, with `llm` if given. */
  readonly engine: (llm?: LlmSettings, extra?: WebdataOptions) => Webdata
  /** Settings of an OpenAI-compatible (Chat Completions) model at `fake`. */
  readonly chat: (fake: FakeModel, extra?: Partial<LlmSettings>) => LlmSettings
}

export const useLlmKit = (): LlmKit => {
  let site: CrawlSite | undefined
  const open: Array<Closable> = []
  beforeAll(async () => {
    site = await startShopSite()
  })
  afterAll(() => site?.close())
  afterEach(async () => {
    for (const resource of open.splice(0).reverse()) await resource.close()
  })
  const track = <T extends Closable>(resource: T): T => {
    open.push(resource)
    return resource
  }
  return {
    get site() {
      if (site === undefined) throw new Error("the shop site starts before the first test")
      return site
    },
    track,
    model: async (reply) => track(await startFakeModel({ reply })),
    engine: (llm, extra = {}) =>
      track(
        new Webdata({ allowPrivateAddresses: true, browser: false, parser: false, ...(llm ? { llm } : {}), ...extra }),
      ),
    chat: (fake, extra = {}) => ({
      model: "openai-chat:test-model",
      baseUrl: fake.baseUrl,
      apiKey: "sk-test",
      ...extra,
    }),
  }
}
