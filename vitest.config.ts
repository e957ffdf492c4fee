import { defineConfig } from "vitest/config"

// Tests import workspace packages from their TypeScript sources (the "source" export condition), so no build is needed.
export default defineConfig({
  resolve: { conditions: ["source", "import", "default"] },
  ssr: { resolve: { conditions: ["source", "import", "default"], externalConditions: ["source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
})
