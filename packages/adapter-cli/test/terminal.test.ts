/** Colour codes only on a terminal, and never with NO_COLOR or TERM=dumb (a child process has no terminal to try). */
import { afterEach, describe, expect, it } from "vitest"
import { colours, firstLine } from "../src/Terminal.js"

const saved = { NO_COLOR: process.env.NO_COLOR, TERM: process.env.TERM }
afterEach(() => {
  for (const [name, value] of Object.entries(saved))
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
})

describe("colours", () => {
  it("are for terminals only", () => {
    delete process.env.NO_COLOR
    process.env.TERM = "xterm-256color"
    expect(colours({ isTTY: true })).toBe(true)
    expect(colours({ isTTY: false })).toBe(false)
  })

  it("are off with NO_COLOR set to anything but empty, and on a dumb terminal", () => {
    process.env.TERM = "xterm-256color"
    process.env.NO_COLOR = "1"
    expect(colours({ isTTY: true })).toBe(false)
    process.env.NO_COLOR = ""
    expect(colours({ isTTY: true })).toBe(true)
    delete process.env.NO_COLOR
    process.env.TERM = "dumb"
    expect(colours({ isTTY: true })).toBe(false)
  })
})

describe("firstLine", () => {
  it("is the first non-blank line of a help document, without colour codes", () => {
    expect(firstLine("\n  \u001b[1mMissing argument <url>\u001b[0m\n\nUSAGE ...")).toBe("Missing argument <url>")
    expect(firstLine("")).toBe("invalid arguments")
  })
})
