import { defineConfig } from "vitest/config"

// Tests import workspace packages from their TypeScript sources (the "source" export condition), so no build is needed.
export default defineConfig({
  // Not "import": it would also reach Node's require() of dependencies (is-promise in express's router breaks).
  ssr: { resolve: { conditions: ["source", "node", "default"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
})
