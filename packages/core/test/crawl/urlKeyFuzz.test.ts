/**
 * URL normalization under generated input: web URLs with IPs, ports, user info, queries and fragments, the same with
 * noise spliced in (dot segments and their escapes, stray `%`, backslashes, unicode, SPA routes), and any string the
 * WHATWG parser accepts. `normalizeUrl` never throws on those, is idempotent and keeps scheme, host and port; the
 * dedup key of a normalized URL is the key of the URL; target validation never throws on any string.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { dedupKey, normalizeUrl } from "../../src/Crawl/UrlKey.js"
import { urlProblem, withScheme } from "../../src/Domain/Url.js"
import { fuzzParameters, fuzzTimeout } from "../support/fuzz.js"

const webUrl = fc.webUrl({
  validSchemes: ["http", "https"],
  withQueryParameters: true,
  withFragments: true,
  authoritySettings: { withIPv4: true, withIPv6: true, withIPv4Extended: true, withPort: true, withUserInfo: true },
})

const NOISE = [
  "%2e",
  "%2E",
  "..",
  ".",
  "/",
  "//",
  "%2f",
  "%zz",
  "%",
  "\\",
  "é",
  "日本",
  "%c3%a4",
  "?",
  "#",
  "#/",
  "#!/x",
]
const noise = fc.oneof(
  fc.constantFrom(...NOISE, " ", "\t", "'", '"', "<", "^", "|", "{", "@", ":", ";", "\u0000", "\u00a0", "\ud800"),
  fc.string({ unit: "grapheme", maxLength: 6 }),
)

/** A web URL with noise inserted after its authority. */
const noisyUrl = fc.tuple(webUrl, fc.array(noise, { minLength: 1, maxLength: 8 })).map(([url, pieces]) => {
  const authorityEnd = url.indexOf("/", url.indexOf("//") + 2)
  const at = authorityEnd === -1 ? url.length : authorityEnd
  return `${url.slice(0, at)}/${pieces.join("")}${url.slice(at)}`
})

/** Any string the WHATWG parser accepts, from other schemes to opaque paths. */
const parsable = fc
  .tuple(fc.constantFrom("http://", "https://", "HTTP://", "x:", "file:", "data:", ""), fc.string({ unit: "binary" }))
  .map(([scheme, rest]) => scheme + rest)
  .filter((input) => URL.canParse(input))

const anyUrl = fc.oneof(webUrl, noisyUrl, parsable).filter((input) => URL.canParse(input))
const options = fc.record({ ignoreQueryParameters: fc.boolean(), deduplicateSimilarURLs: fc.boolean() })

describe("URL normalization (fuzz)", () => {
  it(
    "is idempotent and keeps scheme, host and port",
    () => {
      fc.assert(
        fc.property(anyUrl, options, (input, option) => {
          const once = normalizeUrl(input, option)
          expect(normalizeUrl(once, option)).toBe(once)
          const before = new URL(input)
          const after = new URL(once)
          expect([after.protocol, after.hostname, after.port]).toEqual([before.protocol, before.hostname, before.port])
        }),
        fuzzParameters(3000),
      )
    },
    fuzzTimeout(20_000),
  )

  it(
    "gives a normalized URL the dedup key of the URL",
    () => {
      fc.assert(
        fc.property(anyUrl, options, (input, option) => {
          expect(dedupKey(normalizeUrl(input, option), option)).toBe(dedupKey(input, option))
        }),
        fuzzParameters(2000),
      )
    },
    fuzzTimeout(20_000),
  )

  it(
    "validates any string as a target without throwing",
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.string({ unit: "binary" }), noisyUrl, parsable), (input) => {
          const problem = urlProblem(input, () => true)
          expect(problem === undefined || typeof problem === "string").toBe(true)
          expect(typeof withScheme(input)).toBe("string")
        }),
        fuzzParameters(3000),
      )
    },
    fuzzTimeout(20_000),
  )
})
