import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as OpenApi from "@effect/platform/OpenApi"
import { describe, expect, it } from "vitest"
import { WebdataApi } from "../../src/Http/Api.js"

// The generated OpenAPI document is the contract users see; any change to it must be deliberate.
// Regenerate with UPDATE_GOLDEN=1 npx vitest run packages/core/test/http/openapi.test.ts and review the diff.
const goldenPath = fileURLToPath(new URL("./openapi.golden.json", import.meta.url))

describe("the OpenAPI document", () => {
  it("matches the reviewed golden copy", () => {
    const current = `${JSON.stringify(OpenApi.fromApi(WebdataApi), null, 2)}\n`
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(goldenPath, current)
    expect(current).toBe(readFileSync(goldenPath, "utf8"))
  })

  it("documents the scrape body with Firecrawl's fields and defaults", () => {
    const spec = OpenApi.fromApi(WebdataApi)
    const operation = spec.paths["/v2/scrape"]?.post
    expect(operation?.requestBody).toBeDefined()
    expect(Object.keys(operation?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "401", "403", "404", "408", "413", "500"]),
    )
    const text = JSON.stringify(spec)
    for (const field of ["formats", "onlyMainContent", "includeTags", "maxAge", "waitFor", "timeout", "actions"])
      expect(text).toContain(`"${field}"`)
  })
})
