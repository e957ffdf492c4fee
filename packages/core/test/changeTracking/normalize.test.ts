import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { compileIgnore, IGNORE_LIMITS, normalizeMarkdown } from "../../src/ChangeTracking/Normalize.js"

describe("normalizeMarkdown", () => {
  it("unifies line ends and Unicode forms, and drops invisible characters", () => {
    expect(normalizeMarkdown("Cafe\u0301\r\nline two\rthree")).toBe("Café\nline two\nthree")
    expect(normalizeMarkdown("a\u200bb\u00adc\ufeffd\u2060e\u200c\u200df")).toBe("abcdef")
    // An invisible character between a letter and its accent does not keep them from composing.
    expect(normalizeMarkdown("e\u200b\u0301")).toBe("é")
  })

  it("turns unusual spaces into one space, keeps indentation and strips trailing spaces", () => {
    expect(normalizeMarkdown("a\u00a0\u00a0b\u2003c\u202fd\u205fe\u3000f\tg\u2009h")).toBe("a b c d e f g h")
    expect(normalizeMarkdown("- one  \n  - two   words \n    code")).toBe("- one\n  - two words\n    code")
  })

  it("keeps at most one blank line and none at the ends", () => {
    expect(normalizeMarkdown("\n \n\nTitle\n\n\n\n \nText\n\n")).toBe("Title\n\nText")
  })

  it.each([
    ["[x](https://a.test/p?utm_source=news&utm_medium=email)", "[x](https://a.test/p)"],
    ["[x](https://a.test/p?id=3&fbclid=IwAR&b=2#top)", "[x](https://a.test/p?id=3&b=2#top)"],
    ['[x](https://a.test/p?UTM_Source=x&mc_eid=1 "Title")', '[x](https://a.test/p "Title")'],
    ["see https://a.test/?gclid=1&msclkid=2.", "see https://a.test/."],
    ["text https://a.test/p?utm\\_source=x&id=1, then", "text https://a.test/p?id=1, then"],
    ["(https://a.test/list?b=2&a=%20&mtm_campaign=x&_hsenc=p2)", "(https://a.test/list?b=2&a=%20)"],
    ["[r](/pricing?plan=pro&utm_campaign=spring)", "[r](/pricing?plan=pro)"],
    ["[w](https://w.test/A_\\(b\\)?utm_source=1)", "[w](https://w.test/A_\\(b\\))"],
    ["![i](https://cdn.test/i.png?w=600&srsltid=Af)", "![i](https://cdn.test/i.png?w=600)"],
  ])("removes tracking parameters: %s", (input, expected) => {
    expect(normalizeMarkdown(input)).toBe(expected)
  })

  it.each([
    "[x](https://a.test/p?page=2&sort=new)",
    "[x](https://a.test/p#section?utm_source=x)",
    "https://a.test/search?q=utm_source",
    "[x](https://a.test/p?ref=home)",
  ])("leaves other URLs exactly as they are: %s", (input) => {
    expect(normalizeMarkdown(input)).toBe(input)
  })

  it("writes bullets with `-` and strong emphasis with `**`, outside code", () => {
    expect(normalizeMarkdown("* one\n+ two\n  * nested")).toBe("- one\n- two\n  - nested")
    expect(normalizeMarkdown("__strong__ and **strong**")).toBe("**strong** and **strong**")
    expect(normalizeMarkdown("* * *")).toBe("* * *")
    expect(normalizeMarkdown("snake__case__name")).toBe("snake__case__name")
    expect(normalizeMarkdown("call `__init__` or __x__")).toBe("call `__init__` or __x__")
    expect(normalizeMarkdown("```\n* code\n__dunder__\n```\n* item")).toBe("```\n* code\n__dunder__\n```\n- item")
    expect(normalizeMarkdown("~~~~\n```\n* code\n~~~~\n* item")).toBe("~~~~\n```\n* code\n~~~~\n- item")
  })

  it("is idempotent", () => {
    const alphabet = fc.constantFrom(
      ..."ab *+_-#`~\n\r\t\u00a0\u200b\u00ad\u0301e?&=()[]\\".split(""),
      "https://x.test/p?",
      "](",
      "utm_source=1",
      "```",
    )
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (parts) => {
        const once = normalizeMarkdown(parts.join(""))
        expect(normalizeMarkdown(once)).toBe(once)
      }),
      { numRuns: 2000 },
    )
  })
})

describe("compileIgnore", () => {
  const compile = (patterns: ReadonlyArray<string>) => {
    const compiled = compileIgnore(patterns)
    if (!compiled.ok) throw new Error(compiled.message)
    return compiled.apply
  }

  it("removes every match and normalizes the spacing left behind", () => {
    const apply = compile(["Updated \\d{4}-\\d{2}-\\d{2} [\\d:]+", "", "  "])
    const page = (time: string) => `# Status\n\nUpdated 2026-11-26 ${time}\n\nAll good. Updated 2026-11-26 ${time} UTC`
    expect(apply(page("10:42:13"))).toBe("# Status\n\nAll good. UTC")
    expect(apply(page("10:42:13"))).toBe(apply(page("11:05:59")))
  })

  it("matches `^` and `$` at line ends", () => {
    expect(compile(["^Views: \\d+$"])("Title\nViews: 12\nText")).toBe("Title\n\nText")
  })

  it("with no pattern, only normalizes spacing", () => {
    expect(compile([])("a  b\n\n\n\nc")).toBe("a b\n\nc")
  })

  it("refuses syntax a linear-time engine cannot run, with the pattern as written", () => {
    expect(compileIgnore(["ok", "(?<=x)a"])).toMatchObject({
      ok: false,
      pattern: "(?<=x)a",
      message: expect.stringContaining("RE2 syntax"),
    })
    expect(compileIgnore(["(a)\\1"])).toMatchObject({ ok: false, message: expect.stringContaining("back-references") })
    expect(compileIgnore(["(a"])).toEqual({
      ok: false,
      pattern: "(a",
      message: "error parsing regexp: missing closing ): `(a`",
    })
  })

  it("refuses patterns past the limits", () => {
    const many = Array.from({ length: IGNORE_LIMITS.count + 1 }, (_, index) => `p${index}`)
    expect(compileIgnore(many)).toMatchObject({ ok: false, message: expect.stringContaining("at most 50") })
    expect(compileIgnore(["x".repeat(IGNORE_LIMITS.length + 1)])).toMatchObject({
      message: expect.stringContaining("longer than 500"),
    })
    expect(compileIgnore(["[ab]{0,150}c"])).toMatchObject({ message: expect.stringContaining("too complex") })
    const large = "[ab]{0,100}c" // 203 instructions: fine alone, not five of them
    expect(compileIgnore(Array.from({ length: 4 }, () => large)).ok).toBe(true)
    expect(compileIgnore(Array.from({ length: 5 }, () => large))).toMatchObject({
      pattern: large,
      message: expect.stringContaining("together"),
    })
  })

  it("matches in linear time: a pattern that makes a backtracking engine hang answers at once", () => {
    const apply = compile(["(a+)+$", "(x+x+)+y"])
    const hostile = `${"a".repeat(50_000)}!\n${"x".repeat(50_000)}`
    const started = performance.now()
    apply(hostile)
    // A backtracking RegExp does not finish either within minutes (2^50000 paths).
    expect(performance.now() - started).toBeLessThan(1000)
    expect(apply("baaa")).toBe("b")
  })
})
