/**
 * The Docker image runs the server with the Node flags `npm start` gives it (the heap of a server,
 * docs/configuration.md): the two start commands are written apart, so a flag changed in one must change in the other.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

const repository = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8")

describe("the server's start flags", () => {
  it("are the same in `npm start` and the Docker image's command", () => {
    const { scripts } = JSON.parse(repository("package.json")) as { scripts: Record<string, string> }
    const npmStart = /\bnode((?: --\S+)*) packages\/server\/dist\/main\.js/.exec(scripts.start ?? "")?.[1]
    const cmd = /^CMD (\[.*\])$/m.exec(repository("Dockerfile"))?.[1]
    const image = cmd === undefined ? undefined : (JSON.parse(cmd) as ReadonlyArray<string>)
    expect(image?.at(-1)).toBe("packages/server/dist/main.js")
    expect(image?.slice(1, -1)).toEqual(npmStart?.trim().split(/\s+/))
    expect(image?.slice(1, -1)).toContain("--initial-old-space-size=256")
  })
})
