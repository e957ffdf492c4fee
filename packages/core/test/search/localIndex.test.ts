import { createServer } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, TestClock } from "effect"
import { afterAll, beforeAll } from "vitest"
import type { Document } from "../../src/Domain/Document.js"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { JobStore, type JobStoreShape } from "../../src/Jobs/JobStore.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import * as LocalIndex from "../../src/Search/LocalIndex.js"
import type { SearchQuery } from "../../src/Search/SearchProvider.js"
import type { SearchProviderSetting } from "../../src/Search/SearchSettings.js"
import { markdownSnippet, plainText, snippet, termFinder } from "../../src/Search/Snippet.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"

const NOW = Date.UTC(2025, 5, 15, 12, 0, 0)
const HOUR = 3_600_000
const DAY = 24 * HOUR

type Index = LocalIndex.LocalIndex["Type"]

const query = (text: string, overrides: Partial<SearchQuery> = {}): SearchQuery => ({
  source: "web",
  query: text,
  limit: 10,
  timeoutMs: 10_000,
  owner: null,
  ...overrides,
})

/** Filler prose, so that pages have realistic lengths and term frequencies. */
const filler = (words: number, seed = 0) => {
  const vocabulary = ["river", "stone", "garden", "winter", "market", "letter", "window", "signal", "forest", "paper"]
  return Array.from({ length: words }, (_, i) => vocabulary[(i * 7 + seed) % vocabulary.length]).join(" ")
}

const page = (url: string, content: string, extra: Partial<LocalIndex.RecordedPage> = {}): LocalIndex.RecordedPage => ({
  url,
  content,
  scrapedAt: NOW,
  ...extra,
})

/** Runs `body` with an index over a fresh memory store (and the store itself). */
const withIndex = <A, E>(
  body: (index: Index, store: JobStoreShape) => Effect.Effect<A, E>,
  options: LocalIndex.LocalIndexOptions = {},
  store: Layer.Layer<JobStore> = MemoryJobStore.layer(),
) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(NOW)
    return yield* body(yield* LocalIndex.LocalIndex, yield* JobStore)
  }).pipe(Effect.provide(LocalIndex.layer(options).pipe(Layer.provideMerge(store))))

/** Every page of the store, newest first. */
const allPages = (store: JobStoreShape) =>
  store.searchIndex({ terms: [], match: "all", prefixLast: false, newestFirst: true, offset: 0, limit: 100 })

const urls = (index: Index, q: SearchQuery) =>
  Effect.map(index.provider.search(q), (answer) => answer.hits.map((hit) => hit.url))

describe("LocalIndex", () => {
  it.effect("ranks a page whose title has the term above one that mentions it once, with snippets", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        yield* index.record(
          null,
          page("https://b.example/notes", `${filler(120)} The tidal range was noted. ${filler(120, 3)}`),
        )
        yield* index.record(
          null,
          page(
            "https://a.example/tides",
            `# Tidal energy\n\nTidal power turns the tides into electricity. ${filler(80)}`,
            {
              title: "Tidal energy explained",
              description: "How tidal power works.",
            },
          ),
        )
        yield* index.record(null, page("https://c.example/other", filler(200, 5), { title: "Something else" }))
        const answer = yield* index.provider.search(query("tidal"))
        expect(answer.provider).toBe("local")
        expect(answer.hits.map((hit) => hit.url)).toEqual(["https://a.example/tides", "https://b.example/notes"])
        const [first, second] = answer.hits
        expect(first).toMatchObject({ title: "Tidal energy explained", description: "How tidal power works." })
        expect(first!.snippet).toMatch(/^Tidal energy Tidal power turns the tides/)
        // Without a description, the words around the term stand for it.
        expect(second!.snippet).toContain("The tidal range was noted.")
        expect(second!.snippet!.length).toBeLessThanOrEqual(202)
        expect(second!.snippet).toMatch(/^….*…$/)
        expect(second!.description).toBe(second!.snippet)
      }),
    ),
  )

  it.effect("finds words by their prefix (the last one)", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        yield* index.record(null, page("https://example.test/wind", "Offshore turbines harvest the wind."))
        yield* index.record(null, page("https://example.test/sun", "Photovoltaic panels harvest the sun."))
        expect(yield* urls(index, query("offshore turb"))).toEqual(["https://example.test/wind"])
        // Short words are not guessed at: "sin" is not "sun".
        expect(yield* urls(index, query("panels sin"))).toEqual(["https://example.test/sun"])
        expect(yield* urls(index, query("sin"))).toEqual([])
        // The snippet finds the word the prefix matched.
        const [hit] = (yield* index.provider.search(query("turb"))).hits
        expect(hit!.snippet).toContain("turbines")
      }),
    ),
  )

  it.effect("finds pages with every word first, then pages with some of them", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        yield* index.record(null, page("https://example.test/wind", "Wind farms at sea. Wind and more wind."))
        yield* index.record(null, page("https://example.test/both", "Tidal and wind power together."))
        yield* index.record(null, page("https://example.test/none", "Nothing related here."))
        expect(yield* urls(index, query("tidal wind"))).toEqual([
          "https://example.test/both",
          "https://example.test/wind",
        ])
        expect(yield* urls(index, query("tidal wind", { limit: 1 }))).toEqual(["https://example.test/both"])
        expect(yield* urls(index, query("geothermal"))).toEqual([])
      }),
    ),
  )

  it.effect("finds words of the URL", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        yield* index.record(null, page("https://docs.example.test/installation-guide", "Run the installer."))
        expect(yield* urls(index, query("installation"))).toEqual(["https://docs.example.test/installation-guide"])
        expect(yield* urls(index, query("docs installer"))).toEqual(["https://docs.example.test/installation-guide"])
      }),
    ),
  )

  it.effect("shows an owner only what it fetched; the global scope shows everyone everything, each URL once", () =>
    Effect.gen(function* () {
      const record = (index: Index) =>
        Effect.gen(function* () {
          yield* index.record("key-a", page("https://example.test/secret", "The launch codes of key a."))
          yield* index.record("key-b", page("https://example.test/secret", "The launch codes of key b."))
          yield* index.record(null, page("https://example.test/open", "Launch notes for everyone."))
        })
      yield* withIndex((index) =>
        Effect.gen(function* () {
          yield* record(index)
          const a = yield* index.provider.search(query("launch codes", { owner: "key-a" }))
          expect(a.hits.map((hit) => hit.snippet)).toEqual(["The launch codes of key a."])
          expect(yield* urls(index, query("launch", { owner: "key-c" }))).toEqual([])
          expect(yield* urls(index, query("launch", { owner: null }))).toEqual(["https://example.test/open"])
        }),
      )
      yield* withIndex(
        (index) =>
          Effect.gen(function* () {
            yield* record(index)
            const found = yield* urls(index, query("launch", { owner: "key-c" }))
            expect([...found].sort()).toEqual(["https://example.test/open", "https://example.test/secret"])
          }),
        { scope: "global" },
      )
    }),
  )

  it.effect("leaves pages seen with a caller's headers, profile or actions out of a shared index only", () =>
    Effect.gen(function* () {
      const personal = page("https://example.test/inbox", "The inbox of key a.", { personal: true })
      yield* withIndex(
        (index) =>
          Effect.gen(function* () {
            yield* index.record("key-a", personal)
            expect(yield* urls(index, query("inbox", { owner: "key-b" }))).toEqual([])
            expect(yield* urls(index, query("inbox", { owner: "key-a" }))).toEqual([])
          }),
        { scope: "global" },
      )
      yield* withIndex((index) =>
        Effect.gen(function* () {
          yield* index.record("key-a", personal)
          expect(yield* urls(index, query("inbox", { owner: "key-a" }))).toEqual(["https://example.test/inbox"])
        }),
      )
    }),
  )

  it.effect("keeps to the time range of tbs and sorts by date with sbd:1", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        yield* index.record(null, page("https://example.test/hour", "Solar news.", { scrapedAt: NOW - 2 * HOUR }))
        yield* index.record(
          null,
          page("https://example.test/days", "Solar solar solar report.", { scrapedAt: NOW - 3 * DAY }),
        )
        yield* index.record(
          null,
          page("https://example.test/month", "Solar solar solar solar solar archive.", {
            title: "Solar",
            scrapedAt: Date.UTC(2025, 4, 1, 9),
          }),
        )
        expect(yield* urls(index, query("solar", { tbs: "qdr:d" }))).toEqual(["https://example.test/hour"])
        expect([...(yield* urls(index, query("solar", { tbs: "qdr:w" })))].sort()).toEqual([
          "https://example.test/days",
          "https://example.test/hour",
        ])
        expect(yield* urls(index, query("solar", { tbs: "cdr:1,cd_min:4/30/2025,cd_max:5/1/2025" }))).toEqual([
          "https://example.test/month",
        ])
        // By relevance the archive comes first; by date the newest does.
        expect((yield* urls(index, query("solar")))[0]).toBe("https://example.test/month")
        expect(yield* urls(index, query("solar", { tbs: "sbd:1" }))).toEqual([
          "https://example.test/hour",
          "https://example.test/days",
          "https://example.test/month",
        ])
      }),
    ),
  )

  it.effect("keeps to the domains and categories of the query, and to its site: and filetype: operators", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        const pages = [
          "https://docs.example.com/quantum",
          "https://example.org/quantum",
          "https://github.com/lab/quantum",
          "https://example.com/papers/quantum.pdf",
          "https://arxiv.org/abs/quantum",
        ]
        for (const url of pages) yield* index.record(null, page(url, "Quantum computing notes."))
        const sorted = (found: ReadonlyArray<string>) => [...found].sort()
        expect(sorted(yield* urls(index, query("quantum", { includeDomains: ["example.com"] })))).toEqual([
          "https://docs.example.com/quantum",
          "https://example.com/papers/quantum.pdf",
        ])
        expect(sorted(yield* urls(index, query("quantum", { excludeDomains: ["example.com", "github.com"] })))).toEqual(
          ["https://arxiv.org/abs/quantum", "https://example.org/quantum"],
        )
        expect(yield* urls(index, query("quantum", { categories: ["github"] }))).toEqual([
          "https://github.com/lab/quantum",
        ])
        expect(yield* urls(index, query("quantum", { categories: ["pdf"] }))).toEqual([
          "https://example.com/papers/quantum.pdf",
        ])
        expect(sorted(yield* urls(index, query("quantum", { categories: ["research", "pdf"] })))).toEqual([
          "https://arxiv.org/abs/quantum",
          "https://example.com/papers/quantum.pdf",
        ])
        expect(yield* urls(index, query("site:example.org quantum"))).toEqual(["https://example.org/quantum"])
        expect(sorted(yield* urls(index, query("quantum -site:example.com -site:example.org")))).toEqual([
          "https://arxiv.org/abs/quantum",
          "https://github.com/lab/quantum",
        ])
        expect(yield* urls(index, query("quantum filetype:pdf"))).toEqual(["https://example.com/papers/quantum.pdf"])
        // Operators alone: the pages they admit, newest first.
        expect(yield* urls(index, query("site:github.com"))).toEqual(["https://github.com/lab/quantum"])
      }),
    ),
  )

  it.effect("replaces a page scraped again", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        yield* index.record(null, page("https://example.test/news", "Yesterday: the harbour froze.", { title: "Old" }))
        expect(yield* urls(index, query("harbour"))).toEqual(["https://example.test/news"])
        yield* index.record(null, page("https://example.test/news", "Today: the bridge opened.", { title: "New" }))
        expect(yield* urls(index, query("harbour"))).toEqual([])
        const answer = yield* index.provider.search(query("bridge"))
        expect(answer.hits).toEqual([
          {
            url: "https://example.test/news",
            title: "New",
            description: "Today: the bridge opened.",
            snippet: "Today: the bridge opened.",
          },
        ])
      }),
    ),
  )

  it.effect("finds what another index on the same store recorded", () =>
    Effect.gen(function* () {
      const store = MemoryJobStore.make()
      const [writer, reader] = yield* Effect.all([LocalIndex.make(), LocalIndex.make()]).pipe(
        Effect.provideService(JobStore, store),
      )
      yield* writer.record(null, page("https://example.test/one", "The first lighthouse."))
      expect(yield* urls(reader, query("lighthouse"))).toEqual(["https://example.test/one"])
      yield* writer.record(null, page("https://example.test/two", "The second lighthouse, lighthouse again."))
      yield* writer.record(null, page("https://example.test/one", "Now a museum."))
      expect(yield* urls(reader, query("lighthouse"))).toEqual(["https://example.test/two"])
      expect(yield* urls(reader, query("museum"))).toEqual(["https://example.test/one"])
    }),
  )

  it.effect("finds single pages among thousands, at the same time, and every page a prefix matches", () =>
    withIndex((index, store) =>
      Effect.gen(function* () {
        for (let i = 0; i < 4500; i++)
          yield* store.indexPage({
            owner: null,
            url: `https://example.test/p/${i}`,
            content: `${filler(30, i)} page${i}`,
            scrapedAt: NOW,
          })
        const answers = yield* Effect.all(
          [index.provider.search(query("page4499")), index.provider.search(query("page3210"))],
          { concurrency: "unbounded" },
        )
        expect(answers.map((answer) => answer.hits.map((hit) => hit.url))).toEqual([
          ["https://example.test/p/4499"],
          ["https://example.test/p/3210"],
        ])
        // The last word is also a prefix: `page44` finds page44, then page440 … page449 and page4400 ….
        const prefixed = yield* urls(index, query("page44", { limit: 200 }))
        expect(prefixed[0]).toBe("https://example.test/p/44")
        expect(prefixed).toHaveLength(111)
      }),
    ),
  )

  it.effect("drops what the store purged or dropped over its bound", () =>
    Effect.gen(function* () {
      yield* withIndex((index, store) =>
        Effect.gen(function* () {
          yield* index.record(null, page("https://example.test/old", "Old glacier photos.", { scrapedAt: NOW - DAY }))
          yield* index.record(null, page("https://example.test/new", "New glacier photos.", { scrapedAt: NOW }))
          yield* index.record(null, page("https://example.test/mid", "Glacier.", { scrapedAt: NOW - 2 * DAY }))
          expect(yield* urls(index, query("glacier", { limit: 3 }))).toHaveLength(3)
          // The oldest by seq and one in the middle go: both are dropped from the answers.
          yield* store.purgeExpired(NOW, { indexBefore: NOW - HOUR })
          expect(yield* urls(index, query("glacier", { limit: 3 }))).toEqual(["https://example.test/new"])
          expect(yield* urls(index, query("old photos"))).toEqual(["https://example.test/new"])
        }),
      )
      // ~2 KB counted per page: the memory store keeps the newest two.
      yield* withIndex(
        (index) =>
          Effect.gen(function* () {
            for (const name of ["a", "b", "c"])
              yield* index.record(null, page(`https://example.test/${name}`, `Aurora ${"x".repeat(900)}`))
            expect(yield* urls(index, query("aurora"))).toEqual(["https://example.test/b", "https://example.test/c"])
          }),
        {},
        MemoryJobStore.layer({ indexMaxBytes: 4500 }),
      )
    }),
  )

  it.effect("answers an empty index with no hits, and refuses news and images", () =>
    withIndex((index) =>
      Effect.gen(function* () {
        expect(yield* index.provider.search(query("anything"))).toEqual({ hits: [], provider: "local" })
        expect(yield* index.provider.search(query("  "))).toEqual({ hits: [], provider: "local" })
        expect(index.provider).toMatchObject({ name: "local", sources: ["web"] })
        for (const source of ["news", "images"] as const) {
          const error = yield* Effect.flip(index.provider.search(query("anything", { source })))
          expect(error).toMatchObject({ _tag: "SearchError", reason: "Unsupported" })
        }
      }),
    ),
  )
})

describe("recordDocument", () => {
  const document = (overrides: Partial<Document> = {}, statusCode = 200): Document => ({
    markdown: "# Kelp forests\n\nKelp grows fast.",
    metadata: {
      sourceURL: "https://example.test/kelp?from=feed",
      url: "https://example.test/kelp",
      statusCode,
      scrapeId: "s",
      title: ["Kelp forests", "ignored"],
      description: "About kelp.",
    },
    ...overrides,
  })

  it.effect("records the markdown under the final URL; nothing without markdown, for errors or with ZDR", () =>
    withIndex((index, store) =>
      Effect.gen(function* () {
        const keep = { zeroDataRetention: false }
        const { markdown: _, ...htmlOnly } = document({ html: "<p>Kelp</p>" })
        yield* LocalIndex.recordDocument(index, "key-a", htmlOnly, keep)
        yield* LocalIndex.recordDocument(index, "key-a", document({}, 404), keep)
        yield* LocalIndex.recordDocument(index, "key-a", document(), { zeroDataRetention: true })
        yield* LocalIndex.recordDocument(undefined, "key-a", document(), keep)
        expect(yield* allPages(store)).toEqual([])
        yield* LocalIndex.recordDocument(index, "key-a", document(), { zeroDataRetention: undefined })
        const [entry] = yield* allPages(store)
        expect(entry).toMatchObject({
          owner: "key-a",
          url: "https://example.test/kelp",
          title: "Kelp forests",
          description: "About kelp.",
          content: "# Kelp forests\n\nKelp grows fast.",
        })
      }),
    ),
  )

  it.effect("records an upload under the web address it states, else not at all", () =>
    withIndex((index, store) =>
      Effect.gen(function* () {
        const upload = (ogUrl?: string) => {
          const base = document()
          const metadata = { ...base.metadata, sourceURL: "file:///kelp.html", url: "file:///kelp.html" }
          return { ...base, metadata: ogUrl === undefined ? metadata : { ...metadata, ogUrl } }
        }
        const options = { zeroDataRetention: false, upload: true }
        yield* LocalIndex.recordDocument(index, null, upload(), options)
        yield* LocalIndex.recordDocument(index, null, upload("javascript:alert(1)"), options)
        expect(yield* allPages(store)).toEqual([])
        yield* LocalIndex.recordDocument(index, null, upload("https://kelp.example/forests"), options)
        expect((yield* allPages(store)).map((entry) => entry.url)).toEqual(["https://kelp.example/forests"])
      }),
    ),
  )
})

describe("snippets", () => {
  it("reads markdown as plain text", () => {
    const markdown = [
      "# Heading *one*",
      "",
      "Some **bold** and _italic_ text with a [link](https://example.test/a_(b)) and ![an image](/x.png).",
      "",
      "- item one",
      "1. item two",
      "> quoted `code` and snake_case_word",
      "",
      "| a | b |",
      "|---|---|",
      "| 1 | 2 |",
      "```ts",
      "const x = 1",
      "```",
      "[ref]: https://example.test/ref",
    ].join("\n")
    expect(plainText(markdown)).toBe(
      "Heading one Some bold and italic text with a link and an image. item one item two quoted code and " +
        "snake_case_word a b 1 2 const x = 1",
    )
  })

  it("cuts around the first term on word boundaries", () => {
    const text = `${filler(60)} the estuary meets the sea ${filler(60, 2)}`
    const cut = snippet(text, termFinder(["estuary"]), 100)
    expect(cut).toMatch(/^…[a-z]/)
    expect(cut).toMatch(/[a-z]…$/)
    expect(cut).toContain("the estuary meets the sea")
    expect(cut.length).toBeLessThanOrEqual(102)
    // The words around are whole.
    for (const word of cut.replace(/…/g, "").split(" ")) expect(`${text} `).toContain(`${word} `)
    expect(snippet(text, termFinder(["absent"]), 50)).toMatch(/^river .*…$/)
    expect(snippet("Short text.", termFinder(["text"]), 50)).toBe("Short text.")
    // Case and word starts: "Sea" matches "sea", "ea" does not match inside it.
    expect(snippet(`${filler(40)} Sea ${filler(40)}`, termFinder(["sea"]), 30)).toContain("Sea")
  })

  it("reads the markdown of a long page only around the term", () => {
    const paragraphs = (count: number, seed: number) =>
      Array.from({ length: count }, (_, i) => `## Part ${i}\n\n${filler(80, seed + i)}.`).join("\n\n")
    const markdown = `# Start\n\n${paragraphs(50, 0)}\n\nSee [the estuary guide](https://example.test/estuary) for **tides**.\n\n${paragraphs(50, 1)}`
    const cut = markdownSnippet(markdown, termFinder(["tides"]), 120)
    expect(cut).toMatch(/^….*See the estuary guide for tides\..*…$/)
    expect(cut).not.toMatch(/[#*[\]()]/)
    expect(cut.length).toBeLessThanOrEqual(122)
    // A short page is read whole, without ellipses.
    expect(markdownSnippet("# Tides\n\nThe **tides** turn.", termFinder(["tides"]))).toBe("Tides The tides turn.")
  })
})

describe("the engine's index", () => {
  let site: Listening
  beforeAll(async () => {
    site = await listenOnLoopback(
      createServer((request, response) => {
        const path = request.url ?? "/"
        const missing = path.startsWith("/missing")
        response.writeHead(missing ? 404 : 200, { "content-type": "text/html; charset=utf-8" })
        response.end(
          `<!doctype html><html><head><title>Notes on ${path.slice(1)}</title></head><body><main>` +
            `<h1>${missing ? "Not found" : `All about ${path.slice(1)}`}</h1>` +
            `<p>${missing ? "Nothing about narwhals here." : `The ${path.slice(1)} page, written for the index test.`}</p>` +
            "</main></body></html>",
        )
      }),
    )
  })
  afterAll(() => site.close())

  const handler = makeWebHandler(
    Layer.merge(
      Engine.layer({ worker: false, allowPrivateAddresses: true }),
      ServerConfig.layer({ apiKeys: ["key-a", "key-b"] }),
    ),
  )
  afterAll(() => handler.dispose())

  const call = async (key: string, path: string, body: BodyInit, json = true) => {
    const response = await handler.handler(
      new Request(`http://api.test${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, ...(json ? { "content-type": "application/json" } : {}) },
        body,
      }),
    )
    return (await response.json()) as {
      readonly success: boolean
      readonly data?: { readonly web?: ReadonlyArray<{ readonly url: string }> }
    }
  }
  const scrape = (key: string, body: Record<string, unknown>) => call(key, "/v2/scrape", JSON.stringify(body))
  const search = async (key: string, query: string) => {
    const answer = await call(key, "/v2/search", JSON.stringify({ query }))
    expect(answer.success).toBe(true)
    return (answer.data?.web ?? []).map((hit) => hit.url)
  }

  it("finds what a key scraped or uploaded, for that key only; not error pages, nor zero-data-retention scrapes", async () => {
    expect((await scrape("key-a", { url: `${site.url}/walruses` })).success).toBe(true)
    expect(await search("key-a", "walruses")).toEqual([`${site.url}/walruses`])
    expect(await search("key-b", "walruses")).toEqual([])

    await scrape("key-a", { url: `${site.url}/missing` })
    expect(await search("key-a", "narwhals")).toEqual([])

    // Only the formats asked for are built: a page scraped without markdown is not indexed.
    await scrape("key-a", { url: `${site.url}/seals`, formats: ["html"] })
    expect(await search("key-a", "seals")).toEqual([])
    // The same page again, from the cache, with markdown: now it is.
    await scrape("key-a", { url: `${site.url}/seals` })
    expect(await search("key-a", "seals")).toEqual([`${site.url}/seals`])

    const zdr = await scrape("key-a", { url: `${site.url}/penguins`, zeroDataRetention: true })
    expect(zdr.success).toBe(true)
    expect(await search("key-a", "penguins")).toEqual([])

    // An upload is found under the web address it states; one without is not (its file: URL is no search result).
    const upload = async (name: string, html: string) => {
      const form = new FormData()
      form.append("file", new Blob([html], { type: "text/html" }), name)
      expect((await call("key-b", "/v2/parse", form, false)).success).toBe(true)
    }
    await upload(
      "krill.html",
      '<head><meta property="og:url" content="https://krill.example/swarms"></head><h1>Krill</h1><p>Krill swarm in cold seas.</p>',
    )
    await upload("plankton.html", "<h1>Plankton</h1><p>Plankton drifts.</p>")
    expect(await search("key-b", "krill swarm")).toEqual(["https://krill.example/swarms"])
    expect(await search("key-b", "plankton")).toEqual([])
    expect(await search("key-a", "krill")).toEqual([])
  })

  const elsewhere = { name: "elsewhere", sources: ["web" as const], search: () => Effect.die("not asked") }
  const fromOptions = (chain: ReadonlyArray<SearchProviderSetting>) => (store: Layer.Layer<JobStore>) =>
    Engine.layer({ worker: false, allowPrivateAddresses: true, store, search: chain })
  const fromEnvironment = (chain: string) => (store: Layer.Layer<JobStore>) =>
    Engine.layerConfig(store, undefined, undefined, { worker: false }).pipe(
      Layer.provide(
        Layer.setConfigProvider(
          ConfigProvider.fromMap(
            new Map([
              ["WEBDATA_SEARCH", chain],
              ["WEBDATA_ALLOW_PRIVATE_ADDRESSES", "1"],
            ]),
          ),
        ),
      ),
    )
  it.each([
    { chain: "another provider alone", engine: fromOptions([elsewhere]), local: false },
    { chain: "another provider, then local", engine: fromOptions([elsewhere, "local"]), local: true },
    { chain: "WEBDATA_SEARCH=duckduckgo", engine: fromEnvironment("duckduckgo"), local: false },
    { chain: "WEBDATA_SEARCH=duckduckgo,local", engine: fromEnvironment("duckduckgo,local"), local: true },
  ])("indexes scraped pages only when the search chain reads the index: $chain", async ({ engine: layer, local }) => {
    const store = MemoryJobStore.make()
    const engine = makeWebHandler(
      Layer.merge(layer(Layer.succeed(JobStore, store)), ServerConfig.layer({ apiKeys: ["key-a"] })),
    )
    try {
      const response = await engine.handler(
        new Request("http://api.test/v2/scrape", {
          method: "POST",
          headers: { authorization: "Bearer key-a", "content-type": "application/json" },
          body: JSON.stringify({ url: `${site.url}/otters` }),
        }),
      )
      expect(response.status).toBe(200)
      const indexed = await Effect.runPromise(allPages(store))
      expect(indexed.map((page) => page.url)).toEqual(local ? [`${site.url}/otters`] : [])
    } finally {
      await engine.dispose()
    }
  })
})
