import { configDefaults, defineConfig } from "vitest/config"

/**
 * Tests that compare timings (event-loop stalls, a p99 under load, several workers against one): run with other test
 * files beside them, they measured the machine's load more than the code. They run after the rest, one at a time.
 */
const timing = [
  "packages/core/test/crawl/sitemapLoad.test.ts",
  "packages/adapter-express/test/twoKeys.soak.test.ts",
  "packages/server/test/cluster.test.ts",
]

// Tests import workspace packages from their TypeScript sources (the "source" export condition), so no build is needed.
export default defineConfig({
  // Not "import": it would also reach Node's require() of dependencies (is-promise in express's router breaks).
  ssr: { resolve: { conditions: ["source", "node", "default"] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "suite",
          include: ["packages/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...timing],
        },
      },
      {
        extends: true,
        test: {
          name: "timing",
          include: timing,
          sequence: { groupOrder: 1 },
          poolOptions: { forks: { singleFork: true } },
        },
      },
    ],
  },
})
