import { describe, expect, it } from "vitest"
import { gitDiff, JSON_DIFF_LIMITS, jsonDiff } from "../../src/ChangeTracking/Diff.js"

const page = (price: string) =>
  [
    "# Pricing",
    "",
    "Plans for every team.",
    "",
    `Starter costs ${price} a month.`,
    "",
    "- Email support",
    "- 3 seats",
  ].join("\n")

describe("gitDiff", () => {
  it("is undefined for equal texts", () => {
    expect(gitDiff(page("$9"), page("$9"))).toBeUndefined()
    // A final line end is the file's, not a line of its own.
    expect(gitDiff("One\nTwo", "One\nTwo\n")).toBeUndefined()
  })

  it("writes a git-style unified diff with three lines of context", () => {
    expect(gitDiff(page("$9"), page("$12"))?.text).toBe(
      [
        "diff --git a/page b/page",
        "--- a/page",
        "+++ b/page",
        "@@ -2,7 +2,7 @@",
        " ",
        " Plans for every team.",
        " ",
        "-Starter costs $9 a month.",
        "+Starter costs $12 a month.",
        " ",
        " - Email support",
        " - 3 seats",
        "",
      ].join("\n"),
    )
  })

  it("gives the AST parse-diff reads from the text", () => {
    const diff = gitDiff(page("$9"), page("$12"))
    expect(diff?.json.files).toHaveLength(1)
    const [file] = diff?.json.files ?? []
    expect(file).toMatchObject({ from: "page", to: "page", additions: 1, deletions: 1 })
    expect(file).toMatchObject({
      chunks: [
        {
          content: "@@ -2,7 +2,7 @@",
          oldStart: 2,
          newStart: 2,
          changes: expect.arrayContaining([
            { type: "del", del: true, ln: 5, content: "-Starter costs $9 a month." },
            { type: "add", add: true, ln: 5, content: "+Starter costs $12 a month." },
            { type: "normal", normal: true, ln1: 4, ln2: 4, content: " " },
          ]),
        },
      ],
    })
  })

  it("diffs a first page against nothing as all additions", () => {
    const diff = gitDiff("", "One\nTwo")
    expect(diff?.text).toContain("@@ -0,0 +1,2 @@\n+One\n+Two\n")
    expect(diff?.json.files[0]).toMatchObject({ additions: 2, deletions: 0 })
  })

  it("replaces the whole text in one hunk when the pages differ too much to diff line by line", () => {
    const lines = (prefix: string) => Array.from({ length: 5_000 }, (_, index) => `${prefix} ${index}`).join("\n")
    const started = performance.now()
    const diff = gitDiff(lines("old"), lines("new"))
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(diff?.text).toContain("@@ -1,5000 +1,5000 @@\n-old 0\n-old 1\n")
    expect(diff?.text.endsWith("+new 4999\n")).toBe(true)
    expect(diff?.json.files[0]).toMatchObject({ additions: 5_000, deletions: 5_000 })
  })
})

describe("jsonDiff", () => {
  it("is empty for equal values", () => {
    expect(jsonDiff({ a: [1, { b: "x" }] }, { a: [1, { b: "x" }] })).toEqual({})
  })

  it("lists each changed leaf by its path", () => {
    const previous = { title: "Pricing", plans: [{ name: "Starter", price: 9 }], meta: { "content-type": "text/html" } }
    const current = {
      title: "Plans",
      plans: [
        { name: "Starter", price: 12 },
        { name: "Team", price: 29 },
      ],
      meta: { "content-type": "text/plain" },
    }
    expect(jsonDiff(previous, current)).toEqual({
      title: { previous: "Pricing", current: "Plans" },
      "plans[0].price": { previous: 9, current: 12 },
      "plans[1].name": { previous: null, current: "Team" },
      "plans[1].price": { previous: null, current: 29 },
      'meta["content-type"]': { previous: "text/html", current: "text/plain" },
    })
  })

  it("lists added and removed fields with null, and a missing field equals a null one", () => {
    expect(jsonDiff({ a: 1, gone: { x: true }, empty: null }, { a: 1, added: [] })).toEqual({
      "gone.x": { previous: true, current: null },
      added: { previous: null, current: [] },
    })
  })

  it("lists a value whose type changed whole", () => {
    expect(jsonDiff({ price: { amount: 9 } }, { price: "9 USD" })).toEqual({
      price: { previous: { amount: 9 }, current: "9 USD" },
    })
    expect(jsonDiff("old", "new")).toEqual({ "": { previous: "old", current: "new" } })
  })

  it("compares values past the depth limit whole, and lists at most the field limit", () => {
    const nested = (leaf: number) => {
      let value: unknown = leaf
      for (let level = 0; level < 40; level++) value = { next: value }
      return value
    }
    const deep = jsonDiff(nested(1), nested(2))
    const [path] = Object.keys(deep)
    expect(path).toBe(Array.from({ length: JSON_DIFF_LIMITS.depth }, () => "next").join("."))
    const many = (offset: number) => Array.from({ length: 3_000 }, (_, index) => index + offset)
    expect(Object.keys(jsonDiff(many(0), many(1)))).toHaveLength(JSON_DIFF_LIMITS.fields)
  })
})
