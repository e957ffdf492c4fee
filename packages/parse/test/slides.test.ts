/**
 * Presentations to the markdown a user gets: a section per slide in the deck's order with its title, text, lists,
 * tables and speaker notes. `deck.pptx` and `deck.odp` are made by LibreOffice from one deck; `powerpoint.pptx` is
 * built by hand the way PowerPoint writes (`fixtures/sheets/make.ts`).
 */
import { describe, expect, it } from "vitest"
import { FileFailure } from "../src/Failures.js"
import { parseOdp, parsePptx } from "../src/formats/Slides.js"
import { failureOf, fixture } from "./support/fixtures.js"
import { markdownOf } from "./support/markdownOf.js"

const slides = (name: string) => fixture(`slides/${name}`)
const titlesOf = (markdown: string) => [...markdown.matchAll(/^## (.+)$/gm)].map((match) => match[1])

describe("presentations", () => {
  it.each([
    ["deck.pptx", parsePptx],
    ["deck.odp", parseOdp],
  ] as const)("%s: a section per slide with its title, bullets, table and notes", async (name, parse) => {
    const parsed = await parse(slides(name))
    const markdown = markdownOf(parsed)
    expect(parsed.numPages).toBe(3)
    expect(parsed.pages).toHaveLength(1)
    expect(parsed.pages[0]!.match(/<section>/g)).toHaveLength(3)
    expect(titlesOf(markdown)).toEqual(["Quarterly Review", "Highlights", "Budget"])
    expect(markdown).toContain("Planning & budget, spring 2024")
    expect(markdown).toContain("- Sales grew in every region\n- Two new stores opened\n- Costs stayed flat")
    expect(markdown).toMatch(/^### Notes\n\nRemember the Q3 numbers$/m)
    // The notes belong to the second slide.
    expect(markdown.indexOf("Remember the Q3 numbers")).toBeLessThan(markdown.indexOf("## Budget"))
    expect(markdown).toContain("| Item | Cost | Due |\n| --- | --- | --- |\n| Shelving | 4000 | May |")
    expect(parsed.title).toBe("Quarterly Review")
    expect(parsed.properties).toMatchObject({ author: "Planning Team" })
  })

  it("follows p:sldIdLst, inherited bullets and their levels, groups, merged table cells, notes without the slide number", async () => {
    const parsed = await parsePptx(slides("powerpoint.pptx"))
    const markdown = markdownOf(parsed)
    expect(parsed.numPages).toBe(2)
    // slide2.xml comes first in the deck.
    expect(titlesOf(markdown)).toEqual(["Annual Plan", "Goals"])
    // The subtitle's layout turns bullets off; the content placeholder inherits the master's bullets.
    expect(markdown).toMatch(/^Draft for the board$/m)
    expect(markdown).toMatch(/^- Grow revenue\n {2,4}- In the north\n- Hire staff$/m)
    expect(markdown).toMatch(/^Targets are estimates$/m)
    expect(markdown).toMatch(/^Owner: planning$/m)
    expect(markdown).toContain("| Quarter | | Lead |\n| --- | --- | --- |\n| Q1 | Q2 | Ann |")
    expect(markdown).toMatch(/### Notes\n\nAsk about hiring\n\nKeep it short$/)
    expect(parsed.title).toBe("Annual Plan")
    expect(parsed.properties).toMatchObject({ author: "Strategy Office", created: "2024-04-02T09:30:00Z" })
  })

  it("fails a truncated, damaged or foreign file with ParseFailed", async () => {
    for (const [name, parse] of [
      ["deck.pptx", parsePptx],
      ["deck.odp", parseOdp],
    ] as const) {
      const whole = slides(name)
      const truncated = whole.subarray(0, Math.floor(whole.length / 2))
      await expect(parse(truncated)).rejects.toBeInstanceOf(FileFailure)
      const random = new Uint8Array(4096).map((_, index) => (index * 7919) % 251)
      for (const bytes of [truncated, random, new Uint8Array(0), fixture("sheets/sales.xlsx")])
        expect((await failureOf(parse(bytes))).reason).toBe("ParseFailed")
    }
  })
})
