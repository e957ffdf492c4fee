import { describe, expect, it } from "vitest"
import { extractiveSummary } from "../../src/Extract/Offline/ExtractiveSummary.js"
import { markdownText } from "../../src/Extract/Offline/MarkdownText.js"
import { sentencesOf } from "../../src/Extract/Offline/Sentences.js"

const ARTICLE = `# The return of the night train

![A sleeper carriage](https://img.example/sleeper.jpg)

Night trains are coming back across Europe after decades of decline. Six new sleeper routes will open this winter,
linking cities such as Vienna, Paris and Brussels. Operators say demand for night trains has grown every year since
2020.

## Why travellers choose night trains

Many travellers choose the night train to avoid short flights. A night train saves a hotel night and arrives in the
city centre. Dr. Lena Vogt, who studies rail demand, says the night train appeals to business travellers too, e.g. for
early meetings.

| Route | Opens |
| --- | --- |
| Vienna–Paris | December |

\`\`\`
const route = "Vienna–Paris". This code is not a sentence of the page.
\`\`\`

- Cabins sleep up to four people.
- Breakfast is served before arrival.

The ticket prices start at 49.90 euros for a seat and rise to 199 euros for a private cabin. Critics say [the
prices](https://example.com/prices) are still too high for families. The weather was nice.
`

/** The page's text as a reader sees it: what every output sentence must be part of. */
const plainText = (markdown: string) => markdownText(markdown).blocks.join(" ")

describe("extractiveSummary", () => {
  it("returns verbatim sentences of the page, in document order, bounded in count and length", () => {
    const summary = extractiveSummary(ARTICLE)
    const text = plainText(ARTICLE)
    const sentences = sentencesOf(summary)
    expect(sentences.length).toBeGreaterThan(0)
    expect(sentences.length).toBeLessThanOrEqual(5)
    expect(summary.length).toBeLessThanOrEqual(1000)
    let position = -1
    for (const sentence of sentences) {
      const at = text.indexOf(sentence)
      expect(at, sentence).toBeGreaterThan(position)
      position = at
    }
  })

  it("ranks the central sentences first and leaves out asides, code, tables and headings", () => {
    const summary = extractiveSummary(ARTICLE, { maxSentences: 3 })
    expect(sentencesOf(summary)).toHaveLength(3)
    expect(summary).toContain("Night trains are coming back across Europe after decades of decline.")
    expect(summary).not.toContain("The weather was nice.")
    expect(summary).not.toContain("This code")
    expect(summary).not.toContain("Vienna–Paris |")
    expect(summary).not.toContain("Why travellers choose")
    expect(summary).not.toMatch(/[[\]()!#|]/)
  })

  it("keeps links' text and abbreviations inside sentences", () => {
    const summary = extractiveSummary(ARTICLE, { maxSentences: 5 })
    const text = plainText(ARTICLE)
    expect(text).toContain("Critics say the prices are still too high for families.")
    for (const sentence of sentencesOf(summary)) expect(text).toContain(sentence)
    expect(sentencesOf("Dr. Lena Vogt met J. K. Rowling at 3.5 p.m. today. It went well, e.g. no delays.")).toEqual([
      "Dr. Lena Vogt met J. K. Rowling at 3.5 p.m. today.",
      "It went well, e.g. no delays.",
    ])
  })

  it("respects maxSentences and maxChars", () => {
    expect(sentencesOf(extractiveSummary(ARTICLE, { maxSentences: 1 }))).toHaveLength(1)
    const short = extractiveSummary(ARTICLE, { maxSentences: 10, maxChars: 200 })
    expect(short.length).toBeGreaterThan(0)
    expect(short.length).toBeLessThanOrEqual(200)
    expect(extractiveSummary(ARTICLE, { maxSentences: 0 })).toBe("")
  })

  it("returns nothing for empty or sentence-less input", () => {
    expect(extractiveSummary("")).toBe("")
    expect(extractiveSummary("   \n\n  ")).toBe("")
    expect(
      extractiveSummary("# Title\n\n## Menu\n\n- Home\n- About\n\n![logo](/logo.png)\n\n| a | b |\n| - | - |"),
    ).toBe("")
  })

  it("stays fast on long input", () => {
    const words =
      "amber birch cedar delta ember fjord grove harbor island juniper kettle lagoon meadow nectar orchard prairie quarry river summit tundra".split(
        " ",
      )
    const word = (i: number) => words[i % words.length]
    const long = Array.from(
      { length: 5_000 },
      (_, i) => `The ${word(i)} station near ${word(i * 3)} serves ${word(i * 7)} and ${word(i * 11)} travellers.`,
    ).join("\n\n")
    // CPU time, not the wall clock: the machine may be running other suites.
    const started = process.cpuUsage()
    const summary = extractiveSummary(long)
    const used = process.cpuUsage(started)
    expect((used.user + used.system) / 1000).toBeLessThan(5_000)
    expect(sentencesOf(summary).length).toBe(5)
  })
})
