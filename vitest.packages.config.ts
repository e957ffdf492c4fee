import { defineConfig } from "vitest/config"

// The packaging suite: packs the packages and installs them into a fresh project. It runs after the main suite (it
// needs the built `dist/` and spends a minute in `npm install`), on its own so that it competes with no other test.
export default defineConfig({
  test: {
    include: ["test/packaging/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 900_000,
  },
})
