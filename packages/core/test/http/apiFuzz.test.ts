/**
 * Every route of the v2 contract under generated input, through the web handler in this process (memory store, a
 * worker, no network but a fixture site on 127.0.0.1): JSON bodies that are almost valid (a valid body with values
 * swapped for wrong types, huge or negative numbers, huge strings and arrays, deep nesting, unicode, `__proto__` and
 * `constructor` keys), arbitrary JSON, raw bodies (not JSON, truncated JSON) under any content type, path parameters
 * (random, very long, percent-encoded, unicode) and query strings. Properties: no 5xx (but the fixture hanging up, see
 * `UPSTREAM_FAILURES`), every 4xx the `{ success: false, code, error }` envelope, every answer within 5 s, no
 * prototype pollution, no unhandled rejection.
 *
 * Targets: the only address the engine may reach is the fixture site (`allowedTargets` is its address and every
 * generated body is checked before it is sent: a string that would parse as a URL to any other address with a dot or
 * an IP, loopback included, drops the case). Dotless names are refused by the URL guard without a DNS query.
 */

import { Layer } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { withScheme } from "../../src/Domain/Url.js"
import * as Engine from "../../src/Engine.js"
import { WebdataApi } from "../../src/Http/Api.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler, type WebHandler } from "../../src/Http/WebHandler.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"
import { fuzzParameters, fuzzTimeout } from "../support/fuzz.js"

const ANSWER_WITHIN_MS = 5000

let site: FixtureSite
let api: WebHandler
const rejections: Array<unknown> = []
const onRejection = (reason: unknown) => rejections.push(reason)

beforeAll(async () => {
  // Thousands of requests: only what goes wrong is worth a line.
  process.env.WEBDATA_LOG_LEVEL = "error"
  process.on("unhandledRejection", onRejection)
  site = await startFixtureSite()
  api = makeWebHandler(
    Layer.merge(
      Engine.layer({ allowedTargets: [`${new URL(site.url).hostname}/32`], worker: { concurrency: 2 } }),
      ServerConfig.layer(),
    ),
  )
  await api.ready()
})

afterAll(async () => {
  await api.dispose()
  await site.close()
  process.off("unhandledRejection", onRejection)
})

/** Every route of the contract, with its method and path template (`/v2/crawl/:id`). */
const ROUTES = Object.values(WebdataApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({ method: endpoint.method, path: endpoint.path })),
)
const WITH_BODY = ROUTES.filter((route) => route.method !== "GET" && route.method !== "HEAD")

/** Valid bodies to start from, by path template; routes not named here start from `{}`. */
const seeds = (fixture: string): Record<string, Record<string, unknown>> => {
  const scrapeOptions = {
    formats: ["markdown", "html", "rawHtml", "links", "images", "summary"],
    onlyMainContent: true,
    includeTags: ["p"],
    excludeTags: ["nav"],
    timeout: 4000,
    maxAge: 0,
    headers: { "x-fuzz": "yes" },
  }
  const schema = { type: "object", properties: { title: { type: "string" } }, required: ["title"] }
  const crawl = { url: `${fixture}/`, limit: 3, maxDiscoveryDepth: 1, sitemap: "skip", includePaths: ["^/a"] }
  return {
    "/v2/scrape": {
      url: `${fixture}/article`,
      ...scrapeOptions,
      formats: [...scrapeOptions.formats, { type: "json", schema }],
    },
    "/v2/crawl": { ...crawl, scrapeOptions, webhook: { url: `${fixture}/hook`, events: ["completed"] } },
    "/v2/crawl/params-preview": { url: `${fixture}/`, prompt: "only the articles" },
    "/v2/batch/scrape": { urls: [`${fixture}/article`, `${fixture}/`], ...scrapeOptions },
    "/v2/map": { url: `${fixture}/`, limit: 5, search: "tidal", includeSubdomains: false },
    "/v2/search": { query: "tidal energy", limit: 3, sources: ["web"], scrapeOptions },
    "/v2/extract": { urls: [`${fixture}/article`], prompt: "the title", schema },
    "/v2/agent": { prompt: "find the title", urls: [`${fixture}/article`], schema },
    "/v2/monitor": {
      name: "fuzz",
      schedule: { text: "daily" },
      targets: [{ type: "scrape", urls: [`${fixture}/article`] }],
    },
    "/v2/monitor/:id": { name: "renamed", schedule: { cron: "0 * * * *" } },
    "/v2/interact/:id/execute": { code: "1 + 1", language: "node" },
    "/v2/browser/:id/execute": { code: "1 + 1", language: "node" },
    "/v2/scrape/:id/interact": { prompt: "click", code: "1 + 1" },
    "/v2/admin/keys": { name: "fuzz", concurrency: 1 },
  }
}

// ---- Values that break things -------------------------------------------------------------------------------

/**
 * Nesting too deep to build as a value here (`JSON.stringify` would recurse): a marker string that `toText` expands
 * into the JSON text of `depth` nested objects or arrays.
 */
const DEEP = "\u0001deep:"
const deep = fc
  .tuple(fc.constantFrom("object", "array"), fc.integer({ min: 100, max: 20_000 }))
  .map(([kind, depth]) => `${DEEP}${kind}:${depth}`)
const deepText = (kind: string, depth: number) =>
  kind === "object" ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`

/** Objects with own `__proto__`, `constructor` and `prototype` keys, as `JSON.parse` makes them. */
const pollution = fc
  .constantFrom(
    '{"__proto__":{"polluted":"yes"}}',
    '{"constructor":{"prototype":{"polluted":"yes"}}}',
    '{"__proto__":null,"toString":1,"valueOf":"x","hasOwnProperty":[]}',
    '{"prototype":{"polluted":"yes"},"__defineGetter__":{}}',
  )
  .map((text) => JSON.parse(text) as unknown)

const hugeString = fc
  .tuple(fc.integer({ min: 10_000, max: 300_000 }), fc.constantFrom("x", "é", "\u{1F600}", " ", "\\", '"', "%"))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)))
const hugeArray = fc
  .tuple(fc.integer({ min: 1000, max: 20_000 }), fc.constantFrom<unknown>("markdown", 1, null, {}, [], "a"))
  .map(([length, item]) => Array.from({ length }, () => item))

const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<unknown>(
      0,
      -1,
      -0,
      0.5,
      1e308,
      -1e308,
      2 ** 53 + 2,
      2 ** 31,
      -(2 ** 31) - 1,
      "",
      " ",
      "NaN",
      "Infinity",
      "-1",
      "1e400",
      true,
      false,
      null,
      [],
      {},
      [null],
      "\u0000",
      "\ud800",
      "\u202e",
      "%00",
      "%",
      "../../etc/passwd",
      "*",
      "(a+)+$",
      "[",
      "\\",
      "0 * * * * * * *",
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: hugeArray },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: pollution },
)

// ---- Almost valid bodies -------------------------------------------------------------------------------------

type Json = unknown
type Path = ReadonlyArray<string | number>

/** Every place in a value: the root, each key of each object, each index of each array. */
const places = (value: Json): Array<Path> => {
  const found: Array<Path> = []
  const visit = (node: Json, path: Path) => {
    found.push(path)
    // Not `map`: a mutation may have given the array an own `constructor` key.
    if (Array.isArray(node)) for (let index = 0; index < node.length; index++) visit(node[index], [...path, index])
    else if (node !== null && typeof node === "object")
      for (const [key, item] of Object.entries(node)) visit(item, [...path, key])
  }
  visit(value, [])
  return found
}

const setAt = (root: Json, path: Path, value: Json): Json => {
  if (path.length === 0) return value
  const [head, ...rest] = path as [string | number, ...Array<string | number>]
  // A primitive in the way becomes an object; `defineProperty` makes `__proto__` an own key, as JSON.parse does.
  const copy: object = Array.isArray(root) ? [...root] : root !== null && typeof root === "object" ? { ...root } : {}
  const current = (copy as Record<string | number, Json>)[head]
  Object.defineProperty(copy, head, { value: setAt(current, rest, value), enumerable: true, writable: true })
  return copy
}

/** Where a mutation lands: a place of the seed, or a new key (prototype keys among them) of an object there. */
const mutation = fc.record({
  place: fc.nat(),
  newKey: fc.option(fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "toString"), fc.string()), {
    freq: 3,
  }),
  value: hostile,
})

const almostValid = (seed: Json) =>
  fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations) =>
    mutations.reduce((body: Json, { place, newKey, value }) => {
      const all = places(body)
      const path = all[place % all.length] ?? []
      return newKey === null ? setAt(body, path, value) : setAt(body, [...path, newKey], value)
    }, seed),
  )

/** The body's JSON text, deep markers expanded. */
const toText = (body: Json): string =>
  JSON.stringify(body).replace(/"\\u0001deep:(object|array):(\d+)"/g, (_, kind: string, depth: string) =>
    deepText(kind, Number(depth)),
  )

// ---- The one thing that must never happen: a request to anything but the fixture ---------------------------------

/** Whether every string in the JSON text (keys and values) is harmless as a target: no host but the fixture's. */
const reachesOnlyFixture = (text: string, fixture: URL): boolean => {
  let value: Json
  try {
    value = JSON.parse(text)
  } catch {
    return true
  }
  const stack: Array<Json> = [value]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node === "string") {
      if (!harmless(node, fixture)) return false
    } else if (Array.isArray(node)) stack.push(...node)
    else if (node !== null && typeof node === "object")
      for (const [key, item] of Object.entries(node)) stack.push(key, item)
  }
  return true
}

const harmless = (input: string, fixture: URL): boolean =>
  [input, withScheme(input), input.trim().replace(/\/\*$/, "/")].every((candidate) => {
    if (!URL.canParse(candidate)) return true
    const url = new URL(candidate)
    // A dotless name that is not an IP: refused by the URL guard (intranet) before any look-up. A small number is an
    // address of 0.0.0.0/8 ("this network"): refused by the guard, and loopback at worst.
    if (!/[.:[\]]/.test(url.hostname) || /^0\.\d+\.\d+\.\d+$/.test(url.hostname)) return true
    return url.hostname === fixture.hostname && url.port === fixture.port
  })

// ---- Requests and the property ------------------------------------------------------------------------------

interface Call {
  readonly method: string
  readonly path: string
  readonly contentType?: string
  readonly body?: string
  readonly headers?: Record<string, string>
}

const describeCall = (call: Call) =>
  `${call.method} ${call.path.slice(0, 300)} [${call.contentType ?? "no content-type"}] ${(call.body ?? "").slice(0, 300)}`

/**
 * The one 5xx a request may get here: the fixture site hanging up on the fetch (a documented upstream failure; seen
 * rarely, when a kept-alive connection to it is reset). Anything else, above all a defect's UNKNOWN_ERROR, fails.
 */
const UPSTREAM_FAILURES = ["SCRAPE_SITE_ERROR"]

const envelopeOf = (text: string): { success?: unknown; code?: unknown; error?: unknown } | undefined => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Sends the call and checks the answer. */
const check = async (call: Call): Promise<void> => {
  let request: Request
  try {
    request = new Request(`http://api.test${call.path}`, {
      method: call.method,
      headers: { ...(call.contentType !== undefined ? { "content-type": call.contentType } : {}), ...call.headers },
      ...(call.body !== undefined ? { body: call.body } : {}),
    })
  } catch {
    // Not a request a client could send (the Fetch API refuses it); nothing to check.
    return
  }
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ANSWER_WITHIN_MS)
  })
  const answer = await Promise.race([
    api.handler(request).then(async (response) => ({ status: response.status, text: await response.text() })),
    late,
  ])
  clearTimeout(timer)
  const where = describeCall(call)
  expect(answer, `no answer within ${ANSWER_WITHIN_MS} ms: ${where}`).not.toBe("late")
  if (answer === "late") return
  if (answer.status >= 500)
    expect(UPSTREAM_FAILURES, `${where} → ${answer.status} ${answer.text.slice(0, 500)}`).toContain(
      envelopeOf(answer.text)?.code,
    )
  if (answer.status >= 400) {
    expect(envelopeOf(answer.text), `${where} → ${answer.status} ${answer.text.slice(0, 500)}`).toMatchObject({
      success: false,
      code: expect.any(String),
      error: expect.any(String),
    })
  }
  expect(({} as Record<string, unknown>).polluted, `prototype polluted by ${where}`).toBeUndefined()
  expect(rejections, `unhandled rejection after ${where}`).toEqual([])
}

/** `check` on `runs` generated calls, those whose body could reach anything but the fixture left out. */
const checkAll = (calls: fc.Arbitrary<Call>, runs: number, fixture: URL) =>
  fc.assert(
    fc.asyncProperty(calls, async (call) => {
      fc.pre(reachesOnlyFixture(call.body ?? "", fixture))
      await check(call)
    }),
    fuzzParameters(runs),
  )

/** A path with every `:parameter` filled by a generated segment, plus a generated query string. */
const segment = fc.oneof(
  fc.uuid({ version: [4, 7] }),
  fc.string({ unit: "binary", maxLength: 40 }).map(encodeURIComponent),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("%", "%zz", "%00", "%2F", "..", ".", "%2e%2e", "a%2Fb", "null", "undefined", "-1", "00000000-0000"),
  fc.integer({ min: 1000, max: 20_000 }).map((length) => "a".repeat(length)),
)
const query = fc.oneof(
  fc.constant(""),
  fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom("skip", "limit", "status", "token", "cursor", "startDate", "endDate"), fc.string()),
        fc.oneof(
          fc.constantFrom("-1", "0", "1e309", "NaN", "99999999999999999999", "", "%", "%zz", "1.5", "completed"),
          fc.string({ unit: "binary", maxLength: 20 }),
        ),
      ),
      { maxLength: 4 },
    )
    .map(
      (pairs) => `?${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join("&")}`,
    ),
  fc.string({ maxLength: 30 }).map((raw) => `?${raw}`),
)
const routePath = (template: string) =>
  fc.tuple(fc.array(segment, { minLength: 4, maxLength: 4 }), query).map(([parts, search]) => {
    let index = 0
    return `${template.replace(/:[A-Za-z]+/g, () => parts[index++] ?? "x")}${search}`
  })

const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "application/json; charset=utf-16"]
const OTHER_TYPES = [
  "text/plain",
  "text/html",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "multipart/form-data; boundary=fuzz",
  "application/octet-stream",
  "application/xml",
  "",
  ";;;",
]

describe("inputs the fuzz found", () => {
  it.each([
    // Query parameters the contract decodes (`NumberFromString`) failed as a defect: 500 instead of 400.
    ["GET", "/v2/monitor/x/checks?limit=", undefined],
    ["GET", "/v2/crawl/00000000-0000-7000-8000-000000000000?limit=abc", undefined],
    // Effect's discriminated unions throw on a discriminator whose `toString` is not a function.
    [
      "POST",
      "/v2/monitor",
      '{"name":"x","schedule":{"text":"daily"},"targets":[{"type":{"toString":0},"urls":["http://127.0.0.1:9/"]}]}',
    ],
    ["POST", "/v2/scrape", '{"url":"http://127.0.0.1:9/","formats":[{"type":{"toString":0}}]}'],
    // A header the HTTP client refuses failed the fetch: 500 SCRAPE_ALL_ENGINES_FAILED instead of 400.
    ["POST", "/v2/scrape", '{"url":"http://127.0.0.1:9/","headers":{"x-a":"line\\nbreak"}}'],
    ["POST", "/v2/scrape", '{"url":"http://127.0.0.1:9/","headers":{"bad name":"x"}}'],
    ["POST", "/v2/scrape", '{"url":"http://127.0.0.1:9/","headers":{"x-a":"\u65e5\u672c"}}'],
  ])("%s %s answers 400 BAD_REQUEST", async (method, path, body) => {
    const response = await api.handler(
      new Request(`http://api.test${path}`, {
        method,
        ...(body !== undefined ? { body, headers: { "content-type": "application/json" } } : {}),
      }),
    )
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ success: false, code: "BAD_REQUEST", error: expect.any(String) })
  })
})

describe("every route under generated input", () => {
  let fixture: URL
  let seedOf: (path: string) => Json
  beforeAll(() => {
    fixture = new URL(site.url)
    const bodies = seeds(site.url)
    seedOf = (path) => bodies[path] ?? {}
  })

  it(
    "answers almost valid and hostile JSON bodies without a 5xx, in time, with the envelope",
    async () => {
      const calls = fc
        .constantFrom(...WITH_BODY)
        .chain((route) =>
          fc
            .tuple(
              fc.oneof(
                { weight: 4, arbitrary: fc.constant(null).chain(() => almostValid(seedOf(route.path))) },
                { weight: 1, arbitrary: hostile },
              ),
              fc.constantFrom(...JSON_TYPES),
              routePath(route.path),
            )
            .map(
              ([body, contentType, path]): Call => ({ method: route.method, path, contentType, body: toText(body) }),
            ),
        )
      await checkAll(calls, 250, fixture)
    },
    fuzzTimeout(60_000),
  )

  it(
    "answers any path parameter and query string on every route without a 5xx, in time, with the envelope",
    async () => {
      const calls = fc.tuple(fc.constantFrom(...ROUTES), fc.constant(null)).chain(([route]) =>
        routePath(route.path).map(
          (path): Call => ({
            method: route.method,
            path,
            ...(route.method === "GET" ? {} : { contentType: "application/json", body: toText(seedOf(route.path)) }),
          }),
        ),
      )
      await checkAll(calls, 250, fixture)
    },
    fuzzTimeout(60_000),
  )

  it(
    "answers raw, truncated and mistyped bodies without a 5xx, in time, with the envelope",
    async () => {
      const raw = (route: (typeof WITH_BODY)[number]) =>
        fc.oneof(
          fc.nat().map((cut) => {
            const text = toText(seedOf(route.path))
            return text.slice(0, cut % Math.max(1, text.length))
          }),
          fc.string({ unit: "binary", maxLength: 200 }),
          fc.constantFrom(
            "",
            "null",
            "[]",
            '""',
            "1",
            "true",
            "{",
            "}",
            '{"a":}',
            "\u0000",
            "\ufeff{}",
            "{}{}",
            "--fuzz--",
          ),
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
        )
      const calls = fc.constantFrom(...WITH_BODY).chain((route) =>
        fc.tuple(raw(route), fc.option(fc.constantFrom(...JSON_TYPES, ...OTHER_TYPES), { nil: undefined })).map(
          ([body, contentType]): Call => ({
            method: route.method,
            path: route.path.replace(/:[A-Za-z]+/g, "00000000-0000-7000-8000-000000000000"),
            body,
            ...(contentType !== undefined ? { contentType } : {}),
          }),
        ),
      )
      await checkAll(calls, 250, fixture)
    },
    fuzzTimeout(60_000),
  )
})
